"""uop ALU ops -> PTX instructions, one lane at a time, chosen by the operand's uop type.

Semantics are those of ``kiln.dialects.alu.ALU_OPS``; where a PTX instruction would differ, the lowering adds
what makes the answer kiln's:

- integer ``idiv``/``mod`` divide by 1 where the divisor is 0 and give 0 there (the graph's numpy answer); a
  signed division by -1 negates instead (``MIN / -1`` wraps, ``x mod -1`` is 0). A constant divisor other than
  0 and -1 needs no guard.
- shifts: PTX already treats an amount above the width as the width (0, or the sign for ``shr.s``), which is
  kiln's rule; a 64-bit amount is clamped to 64 before it becomes the 32-bit operand PTX takes.
- 8- and 16-bit integers compute in 32 bits and are narrowed again (``cvt``) after ops that can leave the range.
- float ``max``/``min`` propagate NaN: ``max.NaN`` for f32/f16/bf16; f64 has no such instruction, so a NaN
  operand is selected explicitly.
- float ``mod`` (C fmod) is ``a - trunc(a / b) * b`` with one ``fma`` in f64, corrected when the quotient
  rounded up; exact below ~2^52 for f64. f32 is exact for every pair: five remainders by ``b * 2^k`` first
  bring the quotient from up to 2^276 below 2^51 (``1 mod 1e-30`` was 4e-17 on an H200, not 7.3e-31).
- f16/bf16: ``neg abs fma max min`` and ``where`` are native; the other ops compute in f32 and round back.
- transcendentals are f32 ``.approx`` instructions (accuracy in ``kiln.capabilities.ptx``); f64 has
  none, so ``exp2 log2 sin cos`` on f64 must be rewritten by ``uop-decompose`` before this pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, SSAValue

from kiln.dialects.ops.table import BY_NAME, function_names
from kiln.dialects.types import DTYPES, is_bool, is_float
from kiln.lowering.ptx.builder import PTXBuilder
from kiln.lowering.ptx.casts import from_f32, normalize, to_f32
from kiln.lowering.ptx.types import HALVES, const_type, float_type, int_type, reg_kind, value_bits
from kiln.capabilities.description import get_target


class NotExpressible(Exception):
    """An ALU op on a type this lowering has no PTX for; the message says why (the caller locates it)."""


_COMPARE = {"cmplt": "lt", "cmple": "le", "cmpeq": "eq"}
_FLOAT_COMPARE = {**_COMPARE, "cmpne": "neu"}  # != is true when either operand is NaN
_INT_COMPARE = {**_COMPARE, "cmpne": "ne"}
_HALF_NATIVE = frozenset({"neg", "abs", "fma", "max", "min"})
"""ALU kinds PTX has f16 and bf16 instructions for on sm_80 (the rest computes in f32)."""
_FLOAT_INSTRUCTIONS = {kind: BY_NAME[kind].ptx for kind in function_names("ptx")}
"""Float kinds that are one instruction, by template (``cvt.rni.{t}.{t}``; ``{t}`` is f32 or f64), with the
dtypes it exists for (from the op declarations)."""
_WRAPPING = frozenset({"add", "sub", "mul", "fma", "neg", "abs", "not", "shl", "idiv"})
"""Integer kinds whose 32-bit result can leave an 8- or 16-bit type's range."""


def lower_alu(b: PTXBuilder, kind: str, t: Attribute, xs: Sequence[SSAValue], safe_divisor: bool = False) -> SSAValue:
    """One lane of ALU op ``kind`` on uop type ``t`` (of the value operands); ``xs`` are the operand
    registers (``where``: the condition first). ``safe_divisor``: the divisor is a constant other than 0 and
    -1. Raises ``NotExpressible``."""
    if not get_target("cuda").is_native(kind):
        raise NotExpressible("the cuda target has no instruction for it; run uop-decompose{target=cuda} first")
    if kind == "where":
        return _where(b, t, *xs)
    if is_bool(t):
        return _bool_alu(b, kind, xs)
    if t in HALVES:
        return _half_alu(b, kind, t, xs)
    if is_float(t):
        return _float_alu(b, kind, float_type(t), xs)
    return _int_alu(b, kind, t, xs, safe_divisor)


def _where(b: PTXBuilder, t: Attribute, c: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
    if is_bool(t):  # selp takes no predicates: (c and x) or (not c and y)
        return b.inst("or", "pred", b.inst("and", "pred", c, x), b.inst("and", "pred", b.inst("not", "pred", c), y))
    return b.inst("selp", reg_kind(t), x, y, c)


def _bool_alu(b: PTXBuilder, kind: str, xs: Sequence[SSAValue]) -> SSAValue:
    logic = {"and": "and", "or": "or", "xor": "xor", "max": "or", "min": "and", "cmpne": "xor"}
    if kind in logic:
        return b.inst(logic[kind], "pred", *xs)
    if kind == "not":
        return b.inst("not", "pred", xs[0])
    x, y = xs
    if kind == "cmpeq":
        return b.inst("not", "pred", b.inst("xor", "pred", x, y))
    if kind == "cmplt":  # false < true
        return b.inst("and", "pred", b.inst("not", "pred", x), y)
    if kind == "cmple":
        return b.inst("or", "pred", b.inst("not", "pred", x), y)
    raise NotExpressible(f"{kind} does not apply to i1")


def _half_alu(b: PTXBuilder, kind: str, t: Attribute, xs: Sequence[SSAValue]) -> SSAValue:
    ht = float_type(t)
    if kind in ("max", "min"):
        return b.inst(kind, f"NaN.{ht}", *xs)
    if kind == "fma":
        return b.inst("fma", f"rn.{ht}", *xs)
    if kind in _HALF_NATIVE:
        return b.inst(kind, ht, *xs)
    widened = {x: to_f32(b, x, t) for x in dict.fromkeys(xs)}  # each distinct operand once
    r = _float_alu(b, kind, "f32", [widened[x] for x in xs])
    return r if kind in _FLOAT_COMPARE else from_f32(b, r, t)


def _float_alu(b: PTXBuilder, kind: str, ft: str, xs: Sequence[SSAValue]) -> SSAValue:
    """``ft`` is f32 or f64."""
    if kind in ("add", "sub", "mul"):  # no rounding modifier: ptxas may fuse a mul and an add into an fma
        return b.inst(kind, ft, *xs)
    if kind in _FLOAT_COMPARE:
        return b.inst("setp", f"{_FLOAT_COMPARE[kind]}.{ft}", *xs)
    if kind == "rsqrt":
        if ft == "f32":
            return b.inst("rsqrt", "approx.f32", xs[0])
        return b.inst("rcp", "rn.f64", b.inst("sqrt", "rn.f64", xs[0]))
    if kind in _FLOAT_INSTRUCTIONS:
        native = _FLOAT_INSTRUCTIONS[kind]
        if native.dtypes is not None and ft not in native.dtypes:
            raise NotExpressible(
                f"PTX has no {ft} instruction for {kind}; uop-decompose{{target=cuda}} must rewrite it for {ft}"
            )
        mnemonic, _, modifiers = native.name.format(t=ft).partition(".")
        return b.cvt(modifiers, xs[0]) if mnemonic == "cvt" else b.inst(mnemonic, modifiers, xs[0])
    match kind:
        case "div":
            return b.inst("div", f"rn.{ft}", *xs)
        case "fma":
            return b.inst("fma", f"rn.{ft}", *xs)
        case "idiv":
            return b.cvt(f"rzi.{ft}.{ft}", b.inst("div", f"rn.{ft}", *xs))
        case "max" | "min":
            return _nan_max_min(b, kind, ft, *xs)
        case "mod":
            return _fmod(b, ft, *xs)
    raise NotExpressible(f"{kind} does not apply to floats")


def _nan_max_min(b: PTXBuilder, kind: str, ft: str, x: SSAValue, y: SSAValue) -> SSAValue:
    if ft == "f32":
        return b.inst(kind, "NaN.f32", x, y)
    either_nan = b.inst("setp", "nan.f64", x, y)
    return b.inst("selp", "f64", b.inst("add", "f64", x, y), b.inst(kind, "f64", x, y), either_nan)


F32_FMOD_STEPS = 5
"""Remainders by ``y * 2^k`` that an f32 ``fmod`` takes first: two f32 values' exponents differ by at most 276
(2^127 against 2^-149); a step by ``k = gap - FMOD_EXACT_GAP`` leaves a remainder below ``y * 2^k``, a gap of at
most k, so 5 steps leave at most 26, where the last remainder (by y itself) is exact."""

FMOD_EXACT_GAP = 50
"""The exponent gap below which ``_fmod`` in f64 is exact for operands of 24 significant bits: the quotient is
below 2^51, so ``trunc(x / y)`` is right or one too large (corrected), and ``fma`` forms the remainder exactly."""


def _fmod(b: PTXBuilder, ft: str, x: SSAValue, y: SSAValue) -> SSAValue:
    """C fmod(x, y): the remainder of the truncated quotient, with the sign of x."""
    if ft == "f32":
        wide, divisor = b.cvt("f64.f32", x), b.cvt("f64.f32", y)
        for _ in range(F32_FMOD_STEPS):  # fmod(x, y * 2^k) keeps fmod(x, y): y * 2^k is a multiple of y
            wide = _fmod(b, "f64", wide, _divisor_near(b, wide, divisor))
        return b.cvt("rn.f32.f64", _fmod(b, "f64", wide, divisor))
    quotient = b.cvt("rzi.f64.f64", b.inst("div", "rn.f64", x, y))
    r = b.inst("fma", "rn.f64", b.inst("neg", "f64", quotient), y, x)
    overshot = b.inst("setp", "neu.f64", b.inst("copysign", "f64", x, r), r)  # the quotient rounded up
    r = b.inst("selp", "f64", b.inst("add", "f64", r, b.inst("copysign", "f64", x, y)), r, overshot)
    r = b.inst("copysign", "f64", x, r)  # a zero remainder keeps the sign of x
    below_divisor = b.inst("setp", "lt.f64", b.inst("abs", "f64", x), b.inst("abs", "f64", y))  # also y = inf
    return b.inst("selp", "f64", x, r, below_divisor)


def _divisor_near(b: PTXBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """``y * 2^k`` (f64, exact) with ``k = clamp(exponent(x) - exponent(y) - FMOD_EXACT_GAP, 0, 300)``: the largest
    such multiple of y that leaves ``fmod(x, y * 2^k)`` exact. Zeros, infinities and NaNs give k = 0 or 300, whose
    remainders are the special values fmod gives anyway."""
    i64 = DTYPES["i64"]

    def exponent(v: SSAValue) -> SSAValue:
        return b.inst("and", "b64", b.inst("shr", "u64", b.mov(v, "b64"), b.const(52, DTYPES["i32"])), b.const(0x7FF, i64))

    gap = b.inst("sub", "s64", exponent(x), exponent(y))
    k = b.inst("max", "s64", b.inst("sub", "s64", gap, b.const(FMOD_EXACT_GAP, i64)), b.const(0, i64))
    k = b.inst("min", "s64", k, b.const(300, i64))
    two_to_k = b.inst("shl", "b64", b.inst("add", "s64", k, b.const(1023, i64)), b.const(52, DTYPES["i32"]))
    return b.inst("mul", "f64", y, b.mov(two_to_k, "f64"))


def _int_alu(b: PTXBuilder, kind: str, t: Attribute, xs: Sequence[SSAValue], safe_divisor: bool) -> SSAValue:
    it = int_type(t)
    bt = f"b{it[1:]}"
    if kind in _INT_COMPARE:
        return b.inst("setp", f"{_INT_COMPARE[kind]}.{it}", *xs)
    match kind:
        case "add" | "sub" | "max" | "min":
            r = b.inst(kind, it, *xs)
        case "mul":
            r = b.inst("mul", f"lo.{it}", *xs)
        case "fma":
            r = b.inst("mad", f"lo.{it}", *xs)
        case "neg":
            r = b.inst("neg", f"s{it[1:]}", xs[0])
        case "abs" if it.startswith("u"):
            return xs[0]
        case "abs":
            r = b.inst("abs", it, xs[0])
        case "and" | "or" | "xor":
            r = b.inst(kind, bt, *xs)
        case "not":
            r = b.inst("not", bt, xs[0])
        case "shl" | "shr":
            r = b.inst(kind, bt if kind == "shl" else it, xs[0], _shift_amount(b, t, xs[1]))
        case "idiv" | "mod":
            r = _int_divide(b, kind, t, xs[0], xs[1], safe_divisor)
        case _:
            raise NotExpressible(f"{kind} does not apply to integers")
    return normalize(b, r, t) if kind in _WRAPPING else r


def _shift_amount(b: PTXBuilder, t: Attribute, amount: SSAValue) -> SSAValue:
    """The 32-bit amount operand PTX shifts take; a 64-bit amount is first clamped to 64 (read as unsigned)."""
    if value_bits(t) < 64:
        return amount
    return b.cvt("u32.u64", b.inst("min", "u64", amount, b.const(64, DTYPES["i64"])))


def _int_divide(b: PTXBuilder, kind: str, t: Attribute, x: SSAValue, y: SSAValue, safe: bool) -> SSAValue:
    it = int_type(t)
    mnemonic = "div" if kind == "idiv" else "rem"
    if safe:
        return b.inst(mnemonic, it, x, y)
    ct = const_type(t)
    zero, one = b.const(0, ct), b.const(1, ct)
    by_zero = b.inst("setp", f"eq.{it}", y, zero)
    unsafe = by_zero
    if it.startswith("s"):
        by_minus_one = b.inst("setp", f"eq.{it}", y, b.const(-1, ct))
        unsafe = b.inst("or", "pred", by_zero, by_minus_one)
    r = b.inst(mnemonic, it, x, b.inst("selp", it, one, y, unsafe))  # x / 1 = x, x % 1 = 0
    if kind == "idiv" and it.startswith("s"):
        r = b.inst("selp", it, b.inst("neg", it, x), r, by_minus_one)
    return b.inst("selp", it, zero, r, by_zero) if kind == "idiv" else r
