"""``-t ptx``: every ``ptx.entry`` of a module as one PTX module (text), for nvJitLink/ptxas or the driver.

The module starts with ``.version``/``.target``/``.address_size 64`` for the sm in the module's ``ptx.target``
attribute (set by ``convert-uop-to-ptx{arch=...}``; sm_80 when absent), then one ``.visible .entry`` per
``ptx.entry``: its ``.param`` list, ``.maxntid`` when the entry has one, the ``.reg`` declarations of every
register class it uses, its ``.shared`` arrays, and one instruction per op. Registers are numbered per class in
order of definition, as nvcc names them: ``%p`` (pred), ``%rs`` (b16), ``%r`` (b32), ``%rd`` (b64), ``%f``,
``%fd``. A ``ptx.const`` is printed as a PTX immediate (``4``, ``0f3F800000`` for f32, ``0d...`` for f64) in
the instructions that read it, except an f16/bf16 one (PTX's half instructions take no immediates), or one
that an address or a ``ptx.mov`` reads: those get a register, ``mov.b16 %rs1, 0x3C00``. A guarded ``ptx.ld``
is two lines: its registers set to 0, then the predicated ``ld``.

The module's schedule (``func.func``) is host code and is not part of the text; any other top-level op, and
any op inside an entry that is not a ptx op, is a located error.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

import numpy as np

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp as HostFuncOp
from xdsl.ir import Operation, SSAValue

from kiln.dialects import ptx
from kiln.dialects.types import DTYPES
from kiln.capabilities.ptx import ptx_header
from kiln.support.diagnostics import error_at

DEFAULT_ARCH = "sm_80"
REGISTER_PREFIX = {"pred": "%p", "b16": "%rs", "b32": "%r", "b64": "%rd", "f32": "%f", "f64": "%fd"}
"""The name of each register class's registers (``%r1``, ``%r2``, ...)."""
_ZERO = {"pred": "0", "b16": "0", "b32": "0", "b64": "0", "f32": "0f00000000", "f64": "0d0000000000000000"}


def emit(module: ModuleOp) -> str:
    """The PTX module of all ``ptx.entry`` ops of ``module``."""
    target = module.attributes.get(ptx.TARGET_ATTRIBUTE)
    arch = target.data if isinstance(target, StringAttr) else DEFAULT_ARCH
    try:
        header = ptx_header(arch)
    except ValueError as e:
        raise error_at(module, f"{ptx.TARGET_ATTRIBUTE}: {e}") from None
    entries: list[str] = []
    for op in module.ops:
        if isinstance(op, ptx.EntryOp):
            entries.append(_EntryPrinter(op).render())
        elif op.name == "uop.kernel":
            raise error_at(op, "uop.kernel reached the PTX emitter: run convert-uop-to-ptx first")
        elif not isinstance(op, HostFuncOp):
            raise error_at(op, f"{op.name} is not a ptx.entry: the PTX emitter cannot emit it")
    names = ", ".join(op.sym_name.data for op in module.ops if isinstance(op, ptx.EntryOp))
    return f"// kiln -t ptx: {names or 'no kernels'}\n{header}\n" + "\n".join(entries)


def _kind(value: SSAValue) -> str:
    t = value.type
    assert isinstance(t, ptx.RegType)
    return t.kind.data


def immediate(attr: IntegerAttr | FloatAttr, kind: str) -> str:
    """A ``ptx.const`` value as a PTX immediate for a register of class ``kind``."""
    if isinstance(attr, IntegerAttr):
        return str(attr.value.data)
    x = attr.value.data
    if kind == "f64":
        return f"0d{struct.unpack('<Q', struct.pack('<d', x))[0]:016X}"
    if kind == "f32":
        return f"0f{_bits(x, np.float32):08X}"
    if attr.type == DTYPES["f16"]:
        return f"0x{_bits(x, np.float16):04X}"
    return f"0x{_bf16_bits(x):04X}"


def _bits(x: float, dtype: type[np.floating]) -> int:
    """The bits of ``x`` rounded to nearest even as ``dtype`` (overflowing to infinity)."""
    with np.errstate(over="ignore"):
        return int(np.array(x, dtype).view(f"u{np.dtype(dtype).itemsize}"))


def _bf16_bits(x: float) -> int:
    """The bits of ``x`` rounded to bfloat16: to f32 first (a bf16 constant's value is one already), then to
    nearest even on the upper half; NaN stays a quiet NaN."""
    if math.isnan(x):
        return 0x7FC0
    bits = _bits(x, np.float32)
    return (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16


def _inlinable(op: ptx.ConstOp) -> bool:
    """Whether every reader of the constant takes it as an immediate operand."""
    if _kind(op.result) == "b16":
        return False
    for use in op.result.uses:
        reader = use.operation
        if isinstance(reader, ptx.InstructionOp | ptx.AssignOp):
            continue
        if isinstance(reader, ptx.StOp) and 1 <= use.index <= len(reader.values):  # a stored value, not the address
            continue
        return False
    return True


class _EntryPrinter:
    """Names the registers of one entry and prints it."""

    def __init__(self, entry: ptx.EntryOp):
        self.entry = entry
        self.names: dict[SSAValue, str] = {}
        self.counts = dict.fromkeys(REGISTER_PREFIX, 0)
        self.shared: dict[ptx.SharedOp, str] = {}
        for op in entry.body.block.ops:
            if isinstance(op, ptx.ConstOp) and _inlinable(op):
                self.names[op.result] = immediate(op.value, _kind(op.result))  # type: ignore[arg-type]
                continue
            for r in op.results:
                kind = _kind(r)
                self.counts[kind] += 1
                self.names[r] = f"{REGISTER_PREFIX[kind]}{self.counts[kind]}"
            if isinstance(op, ptx.SharedOp):
                self.shared[op] = f"smem{len(self.shared)}"

    def render(self) -> str:
        e = self.entry
        params = ",\n".join(f"\t.param .{t} {name}" for name, t in e.params)
        lines = [f".visible .entry {e.sym_name.data}(" + (f"\n{params}\n" if params else "") + ")"]
        if e.maxntid is not None:
            lines.append(".maxntid " + ", ".join(str(v) for v in e.maxntid.get_values()))
        lines.append("{")
        lines += [f"\t.reg .{k} {REGISTER_PREFIX[k]}<{n + 1}>;" for k, n in self.counts.items() if n]
        lines += [f"\t.shared .align {op.align.value.data} .b8 {name}[{op.bytes.value.data}];" for op, name in self.shared.items()]
        lines.append("")
        for op in e.body.block.ops:
            lines += self._instruction(op)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _r(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.names[v] for v in values)

    def _guard(self, guard: SSAValue | None, negated: bool = False) -> str:
        return "" if guard is None else f"@{'!' if negated else ''}{self.names[guard]} "

    def _vector(self, values: Sequence[SSAValue]) -> str:
        return self._r(values) if len(values) == 1 else "{" + self._r(values) + "}"

    def _instruction(self, op: Operation) -> list[str]:
        """The PTX lines of one op (a label is not indented)."""
        match op:
            case ptx.InstructionOp():
                return [f"\t{op.text} {self._r(op.results)}, {self._r(op.args)};"]
            case ptx.ConstOp():
                if _inlinable(op):
                    return []  # an immediate where it is used
                kind = _kind(op.result)
                return [f"\tmov.{kind} {self.names[op.result]}, {immediate(op.value, kind)};"]  # type: ignore[arg-type]
            case ptx.RegOp():
                return []  # declared with its class
            case ptx.AssignOp():
                return [f"\tmov.{_kind(op.dst)} {self._r([op.dst, op.src])};"]
            case ptx.MovOp():
                src, dst = _kind(op.src), _kind(op.result)
                t = src if src == dst else f"b{op.result.type.bits}"  # type: ignore[attr-defined]
                return [f"\tmov.{t} {self._r([op.result, op.src])};"]
            case ptx.SregOp():
                return [f"\tmov.u32 {self.names[op.result]}, %{op.register.data};"]
            case ptx.LdParamOp():
                return [f"\tld.param.{op.param_type.data} {self.names[op.result]}, [{op.param.data}];"]
            case ptx.LdOp():
                zeros = [f"\tmov.{_kind(v)} {self.names[v]}, {_ZERO[_kind(v)]};" for v in op.values] if op.guard else []
                load = f"\t{self._guard(op.guard)}ld.{op.access.data} {self._vector(op.values)}, [{self.names[op.address]}];"
                return [*zeros, load]
            case ptx.StOp():
                return [f"\t{self._guard(op.guard)}st.{op.access.data} [{self.names[op.address]}], {self._vector(op.values)};"]
            case ptx.SharedOp():
                return [f"\tmov.u32 {self.names[op.result]}, {self.shared[op]};"]
            case ptx.PackOp():
                return [f"\tmov.b32 {self.names[op.result]}, {{{self._r([op.lo, op.hi])}}};"]
            case ptx.MmaOp():
                fragments = ", ".join("{" + self._r(values) + "}" for values in (op.d, op.a, op.b, op.c))
                return [f"\t{op.text} {fragments};"]
            case ptx.LabelOp():
                return [f"{op.label.data}:"]
            case ptx.BraOp():
                return [f"\t{self._guard(op.guard, op.is_negated)}bra {op.target.data};"]
            case ptx.BarSyncOp():
                return [f"\tbar.sync {op.barrier.value.data};"]
            case ptx.RetOp():
                return ["\tret;"]
        raise error_at(op, f"{op.name} is not a PTX instruction: the PTX emitter cannot emit it")


__all__ = ["emit", "immediate"]
