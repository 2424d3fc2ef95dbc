"""``convert-uop-to-ptx{arch=sm_80}``: every ``uop.kernel`` becomes a ``ptx.entry`` (docs/dialects/ptx.md).

The entry follows the CUDA calling convention ``kiln.runtime.device_cuda`` launches with: the buffer
``uop.param``s in index order as ``.param .u64`` global addresses, then the index (or 32-bit integer) params in
index order as ``.param .u32``. The kernel's attributes (``global_size``, ``local_size``, ``symbols``, ...) stay on the entry
for the runtime, and a constant ``local_size`` also becomes the entry's ``.maxntid``. The module gets the
``ptx.target`` attribute (the ``arch`` option), which ``-t ptx`` turns into ``.version``/``.target``.

The linear uop block becomes PTX in the same order:

- ``uop.special``: ``group_id`` is ``%ctaid``, ``local_id`` is ``%tid``, ``global_id`` is
  ``ctaid * ntid + tid``.
- ``uop.range %lo, %hi`` / ``uop.end``: a ``ptx.reg`` counter set to ``%lo``, a label, ``setp.ge`` against
  ``%hi`` and a branch out, the body, the increment and a branch back. ``uop.if``/``uop.endif``: a branch
  over the guarded ops where the condition is false.
- accumulators are ``ptx.reg`` registers: ``define_acc``/``acc_set`` assign them, ``acc_get`` copies them.
- loads and stores: the address is ``base + index * itemsize`` (``mul.wide.s32`` into 64 bits for global
  memory, 32-bit for shared memory); a vector access is one ``ld``/``st`` of ``.v2``/``.v4`` registers. A gated
  load is a predicated ``ld`` whose registers are 0 where the gate is false; a gated store a predicated ``st``.
  Bools are bytes in memory. ``uop.define_local`` is a ``.shared`` array, ``uop.barrier`` is ``bar.sync 0``.
- vectors are scalarized (a ``vector<4xf32>`` value is four registers); ALU ops and casts work lane by lane
  (``kiln.lowering.ptx.alu``, ``kiln.lowering.ptx.casts``).
- ``uop.wmma`` is ``mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}`` (the tensor core of
  ``kiln.capabilities.ptx``): the per-thread fragments are already in the instruction's layout, A and B
  lanes are packed two to a 32-bit register.

What PTX cannot express here (an f64 ``exp2``, a tensor-core shape the sm lacks, a CPU-only special, a 64-bit
scalar param) is a diagnostic located at the uop op, naming it and its type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import ptx, uop
from kiln.dialects.alu import AluOp, element_type, lanes
from kiln.dialects.types import DTYPES, dtype_name, is_bool, itemsize
from kiln.lowering.ptx.alu import NotExpressible, lower_alu
from kiln.lowering.ptx.builder import PTXBuilder, name_part
from kiln.lowering.ptx.casts import lower_bitcast, lower_cast
from kiln.lowering.ptx.types import const_type, memory_type, reg_kind
from kiln.capabilities.ptx import TENSOR_CORE_SHAPES, WARP_SIZE, ptx_header
from kiln.lowering.uop_to_target import ConvertUopToTarget
from kiln.support.diagnostics import error_at
from kiln.support.locations import inherit_locations

I32, I64 = DTYPES["i32"], DTYPES["i64"]
SCALAR_PARAMS = (IndexType(), DTYPES["i32"], DTYPES["ui32"])
"""uop.param types passed as ``.param .u32`` (the runtime packs every scalar as 32 bits)."""
MAX_ACCESS_BYTES = 16
"""The widest single ld/st (``.v4.f32``)."""
_SPECIAL_REGISTERS = {"group_id": "ctaid", "local_id": "tid"}


@dataclass(frozen=True)
class ConvertUopToPTX(ConvertUopToTarget):
    """Lower uop kernels to ptx.entry ops for an NVIDIA sm (``arch``: sm_80 or sm_90)."""

    name = "convert-uop-to-ptx"

    arch: str = "sm_80"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            ptx_header(self.arch)
        except ValueError as e:
            raise PassFailedException(f"convert-uop-to-ptx: {e}") from None
        for kernel in [k for k in op.ops if isinstance(k, uop.UopKernelOp)]:
            op.body.block.insert_op_before(_KernelConverter(kernel, self.arch).convert(), kernel)
            kernel.detach()
            kernel.erase()
        op.attributes[ptx.TARGET_ATTRIBUTE] = StringAttr(self.arch)


def _launch_block(kernel: uop.UopKernelOp) -> tuple[int, int, int] | None:
    """The constant ``local_size`` of the kernel (threads per block), if it has one."""
    sizes = kernel.attributes.get("local_size")
    if not isinstance(sizes, ArrayAttr) or len(sizes.data) != 3:
        return None
    if not all(isinstance(s, IntegerAttr) for s in sizes.data):
        return None
    return tuple(s.value.data for s in sizes.data)  # type: ignore[return-value, union-attr]


def _param_type(p: uop.ParamOp) -> str:
    """The ``.param`` type of a kernel parameter: u64 for a buffer's address, u32 for a scalar."""
    t = p.result.type
    if isinstance(t, uop.PtrType):
        return "u64"
    if t not in SCALAR_PARAMS:
        raise error_at(p, f"uop.param of type {t}: the CUDA calling convention passes scalars as 32-bit integers")
    return "u32"


@dataclass
class _Loop:
    """An open ``uop.range``: its counter register and the labels of its head and exit."""

    counter: SSAValue
    head: str
    exit: str


class _KernelConverter:
    """Converts one kernel, walking its ops in order and appending to the entry through ``self.b``."""

    def __init__(self, kernel: uop.UopKernelOp, arch: str):
        self.kernel, self.arch = kernel, arch
        params = kernel.params()
        params.sort(key=lambda p: not isinstance(p.result.type, uop.PtrType))  # buffers first, as the runtime packs them
        self.params = params
        signature = [(f"p{p.index.value.data}{name_part(p.result.name_hint)}", _param_type(p)) for p in params]
        self.entry = ptx.EntryOp(kernel.sym_name.data, signature, _launch_block(kernel), dict(kernel.attributes))
        self.entry.location = kernel.location
        self.b = PTXBuilder(self.entry, kernel.location)
        self.lanes: dict[SSAValue, list[SSAValue]] = {}
        """uop value -> its registers, one per lane (one for a scalar; an accumulator's ptx.reg registers)."""
        self.scopes: list[_Loop | str] = []
        """Open brackets: a ``_Loop`` for uop.range, the end label for uop.if."""

    def convert(self) -> ptx.EntryOp:
        for p, (name, t) in zip(self.params, self.entry.params):
            self.b.location = p.location
            value = self.b.prologue(ptx.LdParamOp(t, name))
            if t == "u64":
                value = self.b.prologue(ptx.INSTRUCTION_OPS["cvta"]("to.global.u64", [value], ptx.REG["b64"]))
            self._define(p, [value])
        for op in self.kernel.body.block.ops:
            self.b.location = op.location
            handler = _HANDLERS.get(type(op))
            if handler is not None:
                handler(self, op)
            elif isinstance(op, AluOp):
                self.alu(op)
            else:
                raise error_at(op, f"{op.name} has no PTX lowering")
        self.b.location = self.kernel.location
        self.b.append(ptx.RetOp())
        inherit_locations(self.entry)
        return self.entry

    # ---- bookkeeping

    def _define(self, op: Operation, registers: list[SSAValue]) -> None:
        """``registers`` are the lanes of ``op``'s result from now on (named after it where unnamed)."""
        hint = op.results[0].name_hint
        for r in registers:
            if hint and r.name_hint is None:
                r.name_hint = hint
        self.lanes[op.results[0]] = registers

    def scalar(self, value: SSAValue) -> SSAValue:
        (r,) = self.lanes[value]
        return r

    # ---- structure

    def param(self, op: uop.ParamOp) -> None:
        pass  # loaded in the prologue

    def special(self, op: uop.SpecialOp) -> None:
        what, _, axis = op.special.data.partition(".")
        if what in _SPECIAL_REGISTERS:
            self._define(op, [self.b.append(ptx.SregOp(f"{_SPECIAL_REGISTERS[what]}.{axis}")).results[0]])
        elif what == "global_id":
            block, size, thread = (self.b.append(ptx.SregOp(f"{r}.{axis}")).results[0] for r in ("ctaid", "ntid", "tid"))
            self._define(op, [self.b.inst("mad", "lo.s32", block, size, thread)])
        else:
            raise error_at(op, f"uop.special {op.special.data} is a CPU thread bound; a CUDA kernel has block and thread ids")

    def range(self, op: uop.RangeOp) -> None:
        hint = op.result.name_hint
        counter = self.b.reg("b32")
        counter.name_hint = hint
        self.b.assign(counter, self.scalar(op.lo))
        loop = _Loop(counter, *self.b.fresh_labels(("loop", "end"), hint))
        self.b.label(loop.head)
        self.b.bra(loop.exit, self.b.inst("setp", "ge.s32", counter, self.scalar(op.hi)))
        self.lanes[op.result] = [counter]
        self.scopes.append(loop)

    def end(self, op: uop.EndOp) -> None:
        loop = self.scopes.pop()
        assert isinstance(loop, _Loop)  # the uop verifier checked the nesting
        self.b.assign(loop.counter, self.b.inst("add", "s32", loop.counter, self.b.const(1, I32)))
        self.b.bra(loop.head)
        self.b.label(loop.exit)

    def if_(self, op: uop.IfOp) -> None:
        (end,) = self.b.fresh_labels(("endif",))
        self.b.bra(end, self.scalar(op.cond), negated=True)
        self.scopes.append(end)

    def endif(self, op: uop.EndIfOp) -> None:
        end = self.scopes.pop()
        assert isinstance(end, str)
        self.b.label(end)

    def barrier(self, op: uop.BarrierOp) -> None:
        self.b.append(ptx.BarSyncOp(0))

    # ---- memory

    def define_local(self, op: uop.DefineLocalOp) -> None:
        t = op.result.type
        assert isinstance(t, uop.PtrType)
        nbytes = op.size.value.data * itemsize(t.element_type)
        self._define(op, [self.b.append(ptx.SharedOp(nbytes, MAX_ACCESS_BYTES)).results[0]])

    def _accesses(self, ptr: SSAValue, index: SSAValue, value_type: Attribute) -> list[tuple[str, SSAValue, int]]:
        """The ld/st instructions of an access: (access suffix, address, lanes) per chunk of consecutive lanes
        (one chunk unless the vector is wider than ``.v4`` or 16 bytes)."""
        pointer = ptr.type
        assert isinstance(pointer, uop.PtrType)
        elem = pointer.element_type
        space = "shared" if pointer.local else "global"
        size = itemsize(elem)
        n = lanes(value_type)
        chunk = next(c for c in (4, 2, 1) if n % c == 0 and c * size <= MAX_ACCESS_BYTES)
        vector = f".v{chunk}" if chunk > 1 else ""
        access = f"{space}{vector}.{memory_type(elem)}"
        base, idx = self.scalar(ptr), self.scalar(index)
        if pointer.local:
            address = self.b.inst("mad", "lo.s32", idx, self.b.const(size, I32), base)
        else:
            address = self.b.inst("add", "s64", base, self.b.inst("mul", "wide.s32", idx, self.b.const(size, I32)))
        out = [(access, address, chunk)]
        for k in range(chunk, n, chunk):
            offset = k * size
            moved = (
                self.b.inst("add", "s32", address, self.b.const(offset, I32))
                if pointer.local
                else self.b.inst("add", "s64", address, self.b.const(offset, I64))
            )
            out.append((access, moved, chunk))
        return out

    def load(self, op: uop.LoadOp) -> None:
        t = element_type(op.result.type)
        guard = self.scalar(op.gate) if op.gate is not None else None
        registers: list[SSAValue] = []
        for access, address, n in self._accesses(op.ptr, op.index, op.result.type):
            registers += self.b.ld(access, address, ["b32" if is_bool(t) else reg_kind(t)] * n, guard)
        if is_bool(t):  # a byte in memory
            registers = [self.b.inst("setp", "ne.u32", r, self.b.const(0, I32)) for r in registers]
        self._define(op, registers)

    def store(self, op: uop.StoreOp) -> None:
        t = element_type(op.value.type)
        guard = self.scalar(op.gate) if op.gate is not None else None
        values = self.lanes[op.value]
        if is_bool(t):
            one, zero = self.b.const(1, I32), self.b.const(0, I32)
            values = [self.b.inst("selp", "b32", one, zero, v) for v in values]
        start = 0
        for access, address, n in self._accesses(op.ptr, op.index, op.value.type):
            self.b.st(access, address, values[start : start + n], guard)
            start += n

    # ---- accumulators and vectors

    def define_acc(self, op: uop.DefineAccOp) -> None:
        kind = reg_kind(element_type(op.init.type))
        registers = []
        for value in self.lanes[op.init]:
            registers.append(self.b.reg(kind))
            self.b.assign(registers[-1], value)
        self._define(op, registers)

    def acc_get(self, op: uop.AccGetOp) -> None:
        kind = reg_kind(element_type(op.result.type))
        self._define(op, [self.b.mov(r, kind) for r in self.lanes[op.acc]])  # a copy: later acc_sets must not change it

    def acc_set(self, op: uop.AccSetOp) -> None:
        for register, value in zip(self.lanes[op.acc], self.lanes[op.value], strict=True):
            self.b.assign(register, value)

    def vectorize(self, op: uop.VectorizeOp) -> None:
        self._define(op, [self.scalar(e) for e in op.elements])

    def extract(self, op: uop.ExtractOp) -> None:
        self._define(op, [self.lanes[op.vector][op.lane.value.data]])

    # ---- values

    def const(self, op: uop.ConstOp) -> None:
        t = op.result.type
        value = op.value
        numbers = value.get_values() if isinstance(value, DenseIntOrFPElementsAttr) else [value.value.data]  # type: ignore[union-attr]
        if len(numbers) == 1:
            numbers = list(numbers) * lanes(t)
        self._define(op, [self.b.const(n, const_type(element_type(t))) for n in numbers])

    def cast(self, op: uop.CastOp) -> None:
        src, dst = element_type(op.input.type), element_type(op.result.type)
        self._define(op, [self._lane(op, lower_cast, x, src, dst) for x in self.lanes[op.input]])

    def bitcast(self, op: uop.BitcastOp) -> None:
        src, dst = element_type(op.input.type), element_type(op.result.type)
        self._define(op, [self._lane(op, lower_bitcast, x, src, dst) for x in self.lanes[op.input]])

    def alu(self, op: AluOp) -> None:
        t = element_type(op.value_operands[0].type)
        safe = op.alu_kind in ("idiv", "mod") and _constant_divisor(op.operands[1])
        per_operand = [self.lanes[v] for v in op.operands]
        lowered = [self._lane(op, lower_alu, op.alu_kind, t, xs, safe) for xs in zip(*per_operand, strict=True)]
        self._define(op, lowered)

    def _lane(self, op: Operation, lowering: Callable[..., SSAValue], *args: object) -> SSAValue:
        """One lane of ``op`` through ``lowering``; what it cannot express becomes a diagnostic at ``op``."""
        try:
            return lowering(self.b, *args)
        except NotExpressible as e:
            t = element_type(op.operands[-1].type)
            raise error_at(op, f"{op.name} on {dtype_name(t)} cannot be lowered to PTX: {e}") from None

    def wmma(self, op: uop.WmmaOp) -> None:
        """``mma.sync.aligned`` on the fragments: A and B lanes packed in pairs, C and D as f32 registers."""
        (m, n, k), inputs, accumulator = TENSOR_CORE_SHAPES[self.arch]
        shape = tuple(p.value.data for p in (op.m, op.n, op.k))
        dtype = dtype_name(element_type(op.a.type))
        if shape != (m, n, k) or op.threads.value.data != WARP_SIZE or dtype not in inputs:
            raise error_at(
                op,
                f"uop.wmma m{shape[0]}n{shape[1]}k{shape[2]} of {dtype} over {op.threads.value.data} threads: "
                f"{self.arch} has mma.sync m{m}n{n}k{k} of {' or '.join(inputs)} over {WARP_SIZE} threads",
            )
        if dtype_name(element_type(op.c.type)) != accumulator:
            raise error_at(op, f"uop.wmma accumulates in {accumulator} on {self.arch}, got {op.c.type}")
        a, b = ([self.b.append(ptx.PackOp(*pair)).results[0] for pair in _pairs(self.lanes[v])] for v in (op.a, op.b))
        suffix = f"m{m}n{n}k{k}.row.col.{accumulator}.{dtype}.{dtype}.{accumulator}"
        self._define(op, list(self.b.append(ptx.MmaOp(suffix, a, b, self.lanes[op.c])).results))


def _pairs(registers: list[SSAValue]) -> list[tuple[SSAValue, SSAValue]]:
    """Consecutive lanes two by two (lane 2i in the low half)."""
    return list(zip(registers[::2], registers[1::2]))


def _constant_divisor(value: SSAValue) -> bool:
    """The divisor is a uop constant with no lane equal to 0 or -1 (division needs no guards)."""
    owner = value.owner
    if not isinstance(owner, uop.ConstOp):
        return False
    attr = owner.value
    numbers = attr.get_values() if isinstance(attr, DenseIntOrFPElementsAttr) else [attr.value.data]  # type: ignore[union-attr]
    return all(n not in (0, -1) for n in numbers)


_HANDLERS: dict[type[Operation], Callable[[_KernelConverter, Operation], None]] = {
    uop.ParamOp: _KernelConverter.param,
    uop.SpecialOp: _KernelConverter.special,
    uop.RangeOp: _KernelConverter.range,
    uop.EndOp: _KernelConverter.end,
    uop.IfOp: _KernelConverter.if_,
    uop.EndIfOp: _KernelConverter.endif,
    uop.BarrierOp: _KernelConverter.barrier,
    uop.DefineLocalOp: _KernelConverter.define_local,
    uop.LoadOp: _KernelConverter.load,
    uop.StoreOp: _KernelConverter.store,
    uop.DefineAccOp: _KernelConverter.define_acc,
    uop.AccGetOp: _KernelConverter.acc_get,
    uop.AccSetOp: _KernelConverter.acc_set,
    uop.VectorizeOp: _KernelConverter.vectorize,
    uop.ExtractOp: _KernelConverter.extract,
    uop.ConstOp: _KernelConverter.const,
    uop.CastOp: _KernelConverter.cast,
    uop.BitcastOp: _KernelConverter.bitcast,
    uop.WmmaOp: _KernelConverter.wmma,
}  # type: ignore[dict-item]


__all__ = ["ConvertUopToPTX"]
