"""uop ALU ops -> LLVM instructions and intrinsics, chosen by the operand's dtype class and signedness.

Semantics are those of ``kiln.dialects.alu.ALU_OPS``. Where an LLVM instruction would be undefined for some
inputs, the lowering makes the answer defined instead of trusting producers:

- integer ``idiv``/``mod`` divide by ``select(d == 0, 1, d)`` and give 0 where ``d == 0`` (the graph's numpy
  answer); signed division also avoids ``INT_MIN / -1`` (it traps on x86) by dividing by 1 and negating
  (wrapping, as numpy does), and ``x mod -1`` is 0. With a constant divisor LLVM folds the guards away.
- shifts by ``>=`` the bit width (or a negative amount, read as unsigned) give 0, or the sign fill for an
  arithmetic right shift, instead of poison.

Floats use LLVM intrinsics, never polynomials: ``llvm.maximum``/``llvm.minimum`` propagate NaN as numpy does. A
max or min that updates an accumulator (a row max, a max pool's window) also carries ``nsz``: without it x86
orders -0 below +0 with two more blends per vector step (5 instructions instead of 3), and which zero a
reduction over both returns is no more specified than its order (``reassoc``; numpy's own ``max`` depends on
its SIMD order too). NaN still wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, f64, i1
from xdsl.ir import Attribute, SSAValue

from kiln.dialects.alu import ALU_OPS, BOOL, FLOAT, dtype_class, element_type, like
from kiln.dialects.ops.table import function_names
from kiln.dialects.types import bitwidth, is_unsigned
from kiln.lowering.llvm.builder import CONTRACT, EXTREME_STEP, FAST_MATH, LLVMBuilder
from kiln.lowering.llvm.casts import narrow_from_f64

Lowering = Callable[[LLVMBuilder, Sequence[SSAValue]], SSAValue]
"""Lowers one ALU op: the builder and the llvm values of the operands -> the llvm value of the result."""


def _unary_intrinsic(name: str) -> Lowering:
    return lambda b, a: b.intrinsic(name, [a[0]], a[0].type, fast_math=True)


def _binary_intrinsic(name: str, fast_math: bool = True) -> Lowering:
    return lambda b, a: b.intrinsic(name, [a[0], a[1]], a[0].type, fast_math=fast_math)


def _float_op(cls: type) -> Lowering:
    return lambda b, a: b.float_op(cls, a[0], a[1])


def _int_op(cls: type) -> Lowering:
    return lambda b, a: b.int_op(cls, a[0], a[1])


def _icmp(predicate: str) -> Lowering:
    return lambda b, a: b.icmp(predicate, a[0], a[1])


def _fcmp(predicate: str) -> Lowering:
    return lambda b, a: b.fcmp(predicate, a[0], a[1])


def _where(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    return b.select(a[0], a[1], a[2])


def _float_idiv(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    quotient = b.float_op(llvm.FDivOp, a[0], a[1])
    return b.intrinsic("llvm.trunc", [quotient], quotient.type, fast_math=True)


def _recip(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    return b.float_op(llvm.FDivOp, b.const(a[0].type, 1.0), a[0])


def _is_reciprocal(v: SSAValue) -> bool:
    """Whether ``v`` is a ``1 / d`` (``_recip``'s division; a scalar, or a splat of 1)."""
    if not isinstance(v.owner, llvm.FDivOp) or not isinstance(one := v.owner.lhs.owner, llvm.ConstantOp):
        return False
    value = one.value
    numbers = value.get_values() if isinstance(value, DenseIntOrFPElementsAttr) else [value.value.data]
    return all(n == 1.0 for n in numbers)


def _float_mul(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    """A product with a reciprocal (``uop-decompose`` hoists ``1 / d`` out of the loop of ``a / d``) carries
    ``contract`` only: with ``reassoc`` InstCombine folds ``a * (1 / d)`` back into ``a / d`` inside the loop."""
    if any(_is_reciprocal(v) for v in a):
        return b.float_op(llvm.FMulOp, a[0], a[1], CONTRACT)
    return b.float_op(llvm.FMulOp, a[0], a[1])


def _float_fma(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    """``llvm.fma``; 16-bit floats go through f64 themselves, because LLVM's own f16/bf16 fma rounds the f64
    result with a runtime-library call (``__truncdfhf2``) a JIT process may lack."""
    t = a[0].type
    if bitwidth(element_type(t)) != 16:
        return b.intrinsic("llvm.fma", list(a), t, fast_math=True)
    wide = like(t, f64)
    fused = b.intrinsic("llvm.fma", [b.cast(llvm.FPExtOp, v, wide) for v in a], wide, fast_math=True)
    return narrow_from_f64(b, fused, t)


def _extreme(name: str) -> Lowering:
    """``llvm.maximum``/``llvm.minimum``, with ``nsz`` too where it updates an accumulator (above)."""

    def lower(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
        result = b.intrinsic(name, [a[0], a[1]], a[0].type, fast_math=True)
        if b.fast_math == FAST_MATH:
            result.owner.properties["fastmathFlags"] = EXTREME_STEP
        return result

    return lower


FLOAT_OPS: dict[str, Lowering] = {
    **{
        kind: (_unary_intrinsic if ALU_OPS[kind].arity == 1 else _binary_intrinsic)(intrinsic)
        for kind, intrinsic in function_names("llvm").items()
    },
    "max": _extreme(function_names("llvm")["max"]),
    "min": _extreme(function_names("llvm")["min"]),
    "neg": lambda b, a: b.fneg(a[0]),
    "recip": _recip,
    "add": _float_op(llvm.FAddOp),
    "sub": _float_op(llvm.FSubOp),
    "mul": _float_mul,
    "div": _float_op(llvm.FDivOp),
    "idiv": _float_idiv,
    "mod": _float_op(llvm.FRemOp),
    "cmplt": _fcmp("olt"),
    "cmple": _fcmp("ole"),
    "cmpeq": _fcmp("oeq"),
    "cmpne": _fcmp("une"),
    "where": _where,
    "fma": _float_fma,
}

# ---- integers (signed, unsigned and index: index is i64 and signed)


def _is_zero(b: LLVMBuilder, x: SSAValue) -> SSAValue:
    return b.icmp("eq", x, b.const(x.type, 0))


def _signed_divide(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    x, d = a
    t = x.type
    zero, minus_one = _is_zero(b, d), b.icmp("eq", d, b.const(t, -1))
    safe = b.select(b.int_op(llvm.OrOp, zero, minus_one), b.const(t, 1), d)
    quotient = b.int_op(llvm.SDivOp, x, safe)
    quotient = b.select(minus_one, b.int_op(llvm.SubOp, b.const(t, 0), x), quotient)
    return b.select(zero, b.const(t, 0), quotient)


def _signed_remainder(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    x, d = a
    t = x.type
    trivial = b.int_op(llvm.OrOp, _is_zero(b, d), b.icmp("eq", d, b.const(t, -1)))
    remainder = b.int_op(llvm.SRemOp, x, b.select(trivial, b.const(t, 1), d))
    return b.select(trivial, b.const(t, 0), remainder)


def _unsigned_divmod(cls: type) -> Lowering:
    def lower(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
        x, d = a
        zero = _is_zero(b, d)
        result = b.int_op(cls, x, b.select(zero, b.const(d.type, 1), d))
        return b.select(zero, b.const(d.type, 0), result)

    return lower


def _shift(cls: type) -> Lowering:
    """``shl``/``lshr``: 0 when the amount is >= the bit width (the amount is masked so nothing is poison)."""

    def lower(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
        x, amount = a
        width = bitwidth(element_type(x.type))
        too_far = b.icmp("uge", amount, b.const(x.type, width))
        shifted = b.int_op(cls, x, b.int_op(llvm.AndOp, amount, b.const(x.type, width - 1)))
        return b.select(too_far, b.const(x.type, 0), shifted)

    return lower


def _arithmetic_shift_right(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    """``ashr`` by at most width - 1: a larger amount fills with the sign bit."""
    x, amount = a
    width = bitwidth(element_type(x.type))
    clamped = b.intrinsic("llvm.umin", [amount, b.const(x.type, width - 1)], x.type)
    return b.int_op(llvm.AShrOp, x, clamped)


def _int_fma(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    return b.int_op(llvm.AddOp, b.int_op(llvm.MulOp, a[0], a[1]), a[2])


def _xor_all_ones(b: LLVMBuilder, a: Sequence[SSAValue]) -> SSAValue:
    return b.int_op(llvm.XOrOp, a[0], b.const(a[0].type, -1))


_INT_COMMON: dict[str, Lowering] = {
    "neg": lambda b, a: b.int_op(llvm.SubOp, b.const(a[0].type, 0), a[0]),
    "not": _xor_all_ones,
    "add": _int_op(llvm.AddOp),
    "sub": _int_op(llvm.SubOp),
    "mul": _int_op(llvm.MulOp),
    "and": _int_op(llvm.AndOp),
    "or": _int_op(llvm.OrOp),
    "xor": _int_op(llvm.XOrOp),
    "shl": _shift(llvm.ShlOp),
    "cmpeq": _icmp("eq"),
    "cmpne": _icmp("ne"),
    "where": _where,
    "fma": _int_fma,
}

SIGNED_OPS: dict[str, Lowering] = {
    **_INT_COMMON,
    "abs": lambda b, a: b.intrinsic("llvm.abs", [a[0], b.const(i1, 0)], a[0].type),
    "idiv": _signed_divide,
    "mod": _signed_remainder,
    "max": _binary_intrinsic("llvm.smax", fast_math=False),
    "min": _binary_intrinsic("llvm.smin", fast_math=False),
    "shr": _arithmetic_shift_right,
    "cmplt": _icmp("slt"),
    "cmple": _icmp("sle"),
}

UNSIGNED_OPS: dict[str, Lowering] = {
    **_INT_COMMON,
    "abs": lambda b, a: a[0],
    "idiv": _unsigned_divmod(llvm.UDivOp),
    "mod": _unsigned_divmod(llvm.URemOp),
    "max": _binary_intrinsic("llvm.umax", fast_math=False),
    "min": _binary_intrinsic("llvm.umin", fast_math=False),
    "shr": _shift(llvm.LShrOp),
    "cmplt": _icmp("ult"),
    "cmple": _icmp("ule"),
}

BOOL_OPS: dict[str, Lowering] = {
    "not": _xor_all_ones,
    "and": _int_op(llvm.AndOp),
    "or": _int_op(llvm.OrOp),
    "xor": _int_op(llvm.XOrOp),
    "max": _int_op(llvm.OrOp),
    "min": _int_op(llvm.AndOp),
    "cmplt": _icmp("ult"),  # false < true
    "cmple": _icmp("ule"),
    "cmpeq": _icmp("eq"),
    "cmpne": _icmp("ne"),
    "where": _where,
}


def alu_table(value_type: Attribute) -> dict[str, Lowering]:
    """The lowerings for ALU ops whose (non-condition) operands have the uop type ``value_type``."""
    scalar = element_type(value_type)
    kind = dtype_class(scalar)
    if kind == FLOAT:
        return FLOAT_OPS
    if kind == BOOL:
        return BOOL_OPS
    return UNSIGNED_OPS if is_unsigned(scalar) else SIGNED_OPS
