"""``-t wgsl``: every ``wgsl.entry`` of a module as one WGSL module, the one shader module of a program that
``kiln.runtime.device_webgpu`` loads (its docstring is the calling convention).

The module holds ``enable f16;`` when f16 appears, the ``kiln_*`` helper functions the entries call (only
those, and what they use), then per entry its module-scope declarations -- storage bindings 0..n-1, the
``struct`` of its i32 scalars and the uniform binding n holding it (only when it has scalars: WGSL has no empty
structs), its ``var<workgroup>`` arrays -- and its ``@compute @workgroup_size(x, y, z)`` function, named like
the kernel. A comment before them gives the launch grid (the ``global_size`` attribute) when there is one.
Module-scope names are prefixed with the kernel's name (``softmax_k0_x``), so entries never clash.

Inside a function every value an op computes is named by a ``let`` (from its name in the IR where possible);
literals, builtin components and scalar params are written where they are used. Operands are names or
literals, so operators never depend on WGSL's precedence rules (a negative literal is parenthesized).
Infinite and NaN literals are written as their bit patterns (``bitcast<f32>(0x7f800000u)``): WGSL has no
spelling for them.

The module's schedule (``func.func``) is host code and is not part of the shader; any other top-level op, and
any op inside an entry that has no WGSL form, is a located error.
"""

from __future__ import annotations

import re

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp as HostFuncOp
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects import wgsl
from kiln.dialects.wgsl import BOOL, F16, F32, U32, wgsl_name
from kiln.targets.source import BodyPrinter, Names, Piece, Prelude
from kiln.tools.diagnostics import error_at


def emit(module: ModuleOp) -> str:
    """The WGSL module of all ``wgsl.entry`` ops of ``module``."""
    entries: list[wgsl.EntryOp] = []
    for op in module.ops:
        if isinstance(op, wgsl.EntryOp):
            entries.append(op)
        elif op.name == "uop.kernel":
            raise error_at(op, "uop.kernel reached the WGSL emitter: run convert-uop-to-wgsl first")
        elif not isinstance(op, HostFuncOp):
            raise error_at(op, f"{op.name} is not a wgsl.entry: the WGSL emitter cannot emit it")
    scope = _Names(_RESERVED)
    for entry in entries:
        name = entry.sym_name.data
        if not _IDENTIFIER.fullmatch(name) or name in scope.taken or name.startswith("kiln_"):
            raise error_at(entry, f"kernel name '{name}' is not a usable WGSL entry point name")
        scope.taken.add(name)
    prelude = _Prelude()
    declarations = [_EntryPrinter(entry, scope, prelude).render() for entry in entries]
    names = ", ".join(e.sym_name.data for e in entries)
    header = f"// kiln -t wgsl: {names or 'no kernels'}\n"
    return header + prelude.render() + "\n".join(declarations)


# ---------------------------------------------------------------------------------------------
# the prelude: `enable f16;` and the kiln_* helpers, each emitted only when used


_INF_F32, _NAN_F32 = "bitcast<f32>(0x7f800000u)", "bitcast<f32>(0x7fc00000u)"

_FMOD_F32 = f"""\
fn kiln_fmod_f32(a: f32, b: f32) -> f32 {{ // C fmod, exact: subtract y * 2^k (Sterbenz: exact) while r >= y
  let x = abs(a);
  let y = abs(b);
  if (!(x < {_INF_F32}) || !(y > 0.0f)) {{ return {_NAN_F32}; }}
  if (x < y) {{ return a; }}
  var r = x;
  loop {{
    if (r < y) {{ break; }}
    var t = ldexp(y, frexp(r).exp - frexp(y).exp);
    if (t > r) {{ t = t * 0.5f; }}
    r = r - t;
  }}
  return select(r, -r, a < 0.0f);
}}"""


def _float_helpers(t: str, suffix: str) -> dict[str, Piece]:
    """Helpers on one float type: NaN-propagating max/min, sign keeping NaN, exact fmod (f16 through f32)."""
    isnan = f"kiln_isnan_{t}"
    out = {}
    if t == "f32":
        out[isnan] = Piece(f"fn {isnan}(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }}")
        out["kiln_fmod_f32"] = Piece(_FMOD_F32)
    else:  # WGSL has no 16-bit integers to bitcast to: ask f32 (exact: every f16 is an f32)
        out[isnan] = Piece(f"fn {isnan}(x: {t}) -> bool {{ return kiln_isnan_f32(f32(x)); }}", ("kiln_isnan_f32",))
        out[f"kiln_fmod_{t}"] = Piece(
            f"fn kiln_fmod_{t}(a: {t}, b: {t}) -> {t} {{ return {t}(kiln_fmod_f32(f32(a), f32(b))); }}",
            ("kiln_fmod_f32",),
        )
    for kind, op in (("max", ">"), ("min", "<")):
        out[f"kiln_{kind}_{t}"] = Piece(
            f"fn kiln_{kind}_{t}(a: {t}, b: {t}) -> {t} {{\n"
            f"  if ({isnan}(b)) {{ return b; }}\n"
            f"  return select(b, a, a {op} b || {isnan}(a));\n}}",
            (isnan,),
        )
    zero, one = f"0.0{suffix}", f"1.0{suffix}"
    out[f"kiln_sign_{t}"] = Piece(
        f"fn kiln_sign_{t}(x: {t}) -> {t} {{ // nan stays nan, -0.0 gives 0\n"
        f"  return select(select(select(x, {zero}, x == {zero}), -{one}, x < {zero}), {one}, x > {zero});\n}}"
    )
    return out


def _shift_helpers(t: str, suffix: str) -> dict[str, Piece]:
    """Shifts with kiln's meaning for amounts >= 32 (WGSL takes the amount modulo 32)."""
    amount = "b" if t == "u32" else "u32(b)"
    beyond = f"select(0{suffix}, -1{suffix}, a < 0{suffix})" if t == "i32" else f"0{suffix}"
    return {
        f"kiln_shl_{t}": Piece(
            f"fn kiln_shl_{t}(a: {t}, b: {t}) -> {t} {{\n"
            f"  let s = {amount};\n  return select(a << (s & 31u), 0{suffix}, s >= 32u);\n}}"
        ),
        f"kiln_shr_{t}": Piece(
            f"fn kiln_shr_{t}(a: {t}, b: {t}) -> {t} {{\n"
            f"  let s = {amount};\n  return select(a >> (s & 31u), {beyond}, s >= 32u);\n}}"
        ),
    }


PRELUDE: dict[str, Piece] = {
    **_float_helpers("f32", "f"),
    **_float_helpers("f16", "h"),
    **_shift_helpers("i32", "i"),
    **_shift_helpers("u32", "u"),
}
"""Every helper by name; the keys are the ``kiln_*`` functions of ``kiln.dialects.wgsl.FUNCTIONS`` (and the
``kiln_isnan_*`` helpers they use)."""


class _Prelude(Prelude):
    """What the entries printed so far need before them: f16 and helpers."""

    def __init__(self) -> None:
        super().__init__(PRELUDE)
        self.f16 = False

    def use_type(self, t: Attribute) -> None:
        element = t.element_type if isinstance(t, wgsl.StorageType | wgsl.WorkgroupType | wgsl.VarType) else t
        self.f16 = self.f16 or element == F16

    def use(self, name: str) -> None:
        super().use(name)
        self.f16 = self.f16 or "f16" in name

    def render(self) -> str:
        enable = "enable f16;\n" if self.f16 else ""
        pieces = self.definitions()
        return enable + pieces + ("\n" if enable or pieces else "")


# ---------------------------------------------------------------------------------------------
# names

_KEYWORDS = """alias break case const const_assert continue continuing default diagnostic discard else enable false
fn for if let loop override requires return struct switch true var while"""
_RESERVED_WORDS = """NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto await become
binding_array cast catch class co_await co_return co_yield coherent column_major common compile compile_fragment
concept const_cast consteval constexpr constinit crate debugger decltype delete demote demote_to_helper do
dynamic_cast enum explicit export extends extern external fallthrough filter final finally friend from fxgroup get
goto groupshared highp impl implements import inline instanceof interface layout lowp macro macro_rules match
mediump meta mod module move mut mutable namespace new nil noexcept noinline nointerpolation noperspective null
nullptr of operator package packoffset partition pass patch pixelfragment precise precision premerge priv protected
pub public readonly ref regardless register reinterpret_cast require resource restrict self set shared sizeof smooth
snorm static static_assert static_cast std subroutine super target template this thread_local throw trait try type
typedef typeid typename typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where with
writeonly yield"""
_PREDECLARED = """bool i32 u32 f32 f16 vec2 vec3 vec4 mat2x2 mat3x3 mat4x4 array atomic ptr sampler select bitcast
ldexp frexp workgroupBarrier storageBarrier arrayLength"""
_RESERVED = frozenset(
    (_KEYWORDS + " " + _RESERVED_WORDS + " " + _PREDECLARED).split()
    + [f.name for f in wgsl.FUNCTIONS.values()]
    + list(PRELUDE)
    + list(wgsl.BUILTINS)
)
"""Identifiers a generated name must not take: WGSL's keywords and reserved words, the predeclared types and
functions kiln uses (a `let` would shadow them), kiln's helpers and the builtin inputs' parameter names."""
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class _Names(Names):
    """WGSL identifiers for one scope's values: the IR names made identifiers (no leading or trailing ``_``);
    ``kiln_*`` names are the helpers'."""

    def identifier(self, hint: str) -> str:
        clean = re.sub(r"[^A-Za-z0-9_]", "_", hint).strip("_")
        return "v" + clean if clean and not clean[0].isalpha() else clean

    def free(self, name: str) -> bool:
        return super().free(name) and not name.startswith("kiln_")


# ---------------------------------------------------------------------------------------------
# literals


def literal(value: IntegerAttr | FloatAttr) -> str:
    """The WGSL text of a literal: ``64i``, ``7u``, ``1.5f``, ``0.5h``, ``true``; non-finite floats as bits."""
    t = value.type
    if isinstance(value, FloatAttr):
        x = value.value.data
        if np.isfinite(x):
            return str(np.float32(x)) + "f" if t == F32 else str(np.float16(x)) + "h"
        bits = np.array(x, np.float32).view(np.uint32)
        if np.isnan(x):
            bits = np.uint32(0x7FC00000)  # the canonical quiet NaN
        f32 = f"bitcast<f32>(0x{int(bits):08x}u)"
        return f32 if t == F32 else f"f16({f32})"
    n = value.value.data
    if t == BOOL:
        return "true" if n else "false"
    if t == U32:
        return f"{n}u"
    return "i32(-2147483648)" if n == -(2**31) else f"{n}i"


def _plain(attr: Attribute) -> str:
    """A launch size as the runtime reads it: the expression string or the integer."""
    if isinstance(attr, StringAttr):
        return attr.data
    return str(attr.value.data) if isinstance(attr, IntegerAttr) else str(attr)


def _operand_text(text: str) -> str:
    """An operand as operators may take it: a negative literal is parenthesized (``--`` is a token)."""
    return f"({text})" if text.startswith("-") else text


# ---------------------------------------------------------------------------------------------
# entry points

_DEFAULT_NAMES = {
    wgsl.LoadOp: "val", wgsl.ReadOp: "cur", wgsl.VarOp: "acc", wgsl.ConvertOp: "cast", wgsl.BitcastOp: "bits",
    wgsl.CallOp: "alu", wgsl.BinaryOp: "alu", wgsl.UnaryOp: "alu", wgsl.SelectOp: "alu", wgsl.ForOp: "ridx",
}  # fmt: skip


class _EntryPrinter(BodyPrinter):
    """Prints one ``wgsl.entry``: its module-scope declarations, then its function."""

    LANGUAGE, EXPRESSIONS, DEFAULT_NAMES = "WGSL", wgsl.EXPRESSION_OPS, _DEFAULT_NAMES

    def __init__(self, entry: wgsl.EntryOp, module_names: _Names, prelude: _Prelude):
        self.entry = entry
        self.kernel = entry.sym_name.data
        self.module_names = module_names
        self.prelude = prelude
        self.lines: list[str] = []

    def render(self) -> str:
        globals_ = self._declarations()
        names = _Names(self.module_names.taken)
        self.names = names
        for value, text in globals_.items():
            names.define(value, "", text)
        builtins = sorted({op.input_name for op in self.entry.body.walk() if isinstance(op, wgsl.BuiltinOp)})
        params = ", ".join(f"@builtin({b}) {b}: vec3<u32>" for b in builtins)
        x, y, z = self.entry.sizes
        self.lines.append(f"@compute @workgroup_size({x}, {y}, {z})")
        self.lines.append(f"fn {self.kernel}({params}) {{")
        self._block(self.entry.body.block, 1)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def _declarations(self) -> dict[SSAValue, str]:
        """Write the entry's module-scope declarations; returns the text each parameter/array stands for."""
        out: dict[SSAValue, str] = {}
        grid = self.entry.attributes.get("global_size")
        launch = f": dispatch_workgroups({', '.join(map(_plain, grid.data))})" if isinstance(grid, ArrayAttr) else ""
        self.lines.append(f"// @{self.kernel}{launch}")
        fresh = self.module_names.fresh
        for binding, arg in enumerate(self.entry.buffers):
            name = out[arg] = fresh(f"{self.kernel}_{arg.name_hint or f'buf{binding}'}", f"{self.kernel}_buf")
            element = self._type(arg.type.element_type)  # type: ignore[attr-defined]
            self.lines.append(f"@group(0) @binding({binding}) var<storage, read_write> {name}: array<{element}>;")
        scalars = self.entry.scalars
        if scalars:
            struct, var = fresh(f"{self.kernel}_Params", ""), fresh(f"{self.kernel}_params", "")
            fields = _Names(_RESERVED)
            members = [fields.fresh(arg.name_hint, "s") for arg in scalars]
            for arg, member in zip(scalars, members):
                out[arg] = f"{var}.{member}"
            self.lines.append(f"struct {struct} {{ {', '.join(f'{m}: i32' for m in members)} }}")
            self.lines.append(f"@group(0) @binding({len(self.entry.buffers)}) var<uniform> {var}: {struct};")
        for op in self.entry.body.block.ops:
            if isinstance(op, wgsl.WorkgroupArrayOp):
                t = op.result.type
                assert isinstance(t, wgsl.WorkgroupType)
                name = out[op.result] = fresh(f"{self.kernel}_{op.result.name_hint or 'local'}", f"{self.kernel}_local")
                self.lines.append(f"var<workgroup> {name}: array<{self._type(t.element_type)}, {t.size.data}>;")
        self.lines.append("")
        return out

    # -- statements -----------------------------------------------------------------------------

    def _statement(self, op: Operation, depth: int) -> None:
        match op:
            case wgsl.WorkgroupArrayOp():
                pass  # declared at module scope
            case wgsl.BarrierOp():
                self._line(depth, "workgroupBarrier();")
            case wgsl.LiteralOp() | wgsl.BuiltinOp():
                pass  # written where used
            case _:
                super()._statement(op, depth)

    def _text(self, value: SSAValue) -> str:
        return self._operand(value)

    def _loop(self, op: wgsl.ForOp) -> str:  # type: ignore[override]
        lo, hi = self._operand(op.lo), self._operand(op.hi)
        i = self.names.define(op.counter, _DEFAULT_NAMES[wgsl.ForOp])
        return f"var {i}: {self._type(op.counter.type)} = {lo}; {i} < {_operand_text(hi)}; {i}++"

    def _binding(self, name: str, t: Attribute, value: str, mutable: bool) -> str:
        return f"var {name}: {self._type(t)} = {value};" if mutable else f"let {name} = {value};"

    def _expression_text(self, op: Operation) -> str:
        return self._expression(op)

    # -- expressions ----------------------------------------------------------------------------

    def _operand(self, value: SSAValue) -> str:
        owner = value.owner
        if isinstance(owner, wgsl.LiteralOp):
            self.prelude.use_type(owner.value.type)
            return literal(owner.value)  # type: ignore[arg-type]
        if isinstance(owner, wgsl.BuiltinOp):
            return owner.builtin.data
        return self.names[value]

    def _expression(self, op: Operation) -> str:
        self.prelude.use_type(op.results[0].type)
        match op:
            case wgsl.UnaryOp():
                return f"{op.operator.data}{_operand_text(self._operand(op.operand))}"
            case wgsl.BinaryOp():
                lhs, rhs = (_operand_text(self._operand(v)) for v in (op.lhs, op.rhs))
                return f"{lhs} {op.operator.data} {rhs}"
            case wgsl.SelectOp():
                return f"select({self._operand(op.rhs)}, {self._operand(op.lhs)}, {self._operand(op.cond)})"
            case wgsl.ConvertOp():
                return f"{self._type(op.result.type)}({self._operand(op.input)})"
            case wgsl.BitcastOp():
                return f"bitcast<{self._type(op.result.type)}>({self._operand(op.input)})"
            case wgsl.CallOp():
                if not op.function.builtin:
                    self.prelude.use(op.callee.data)
                return f"{op.callee.data}({', '.join(self._operand(a) for a in op.args)})"
            case wgsl.LoadOp():
                return f"{self.names[op.array]}[{self._operand(op.index)}]"
            case wgsl.ReadOp():
                return self.names[op.var]
        raise error_at(op, f"the WGSL emitter cannot emit {op.name}")

    def _type(self, t: Attribute) -> str:
        self.prelude.use_type(t)
        return wgsl_name(t)


__all__ = ["PRELUDE", "emit", "literal"]
