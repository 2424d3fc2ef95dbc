"""``uop.cast`` and ``uop.bitcast`` -> LLVM conversions (numpy ``astype`` semantics, see ``kiln.dialects.alu``).

xDSL's llvm dialect has ``sitofp`` but no ``uitofp``/``fptosi``/``fptoui``, so:

- float -> integer calls ``llvm.fptosi.sat`` / ``llvm.fptoui.sat``: truncation toward zero, and defined (saturated,
  NaN -> 0) where a plain ``fptosi`` would be poison; the cast's result is unspecified there anyway.
- unsigned (or bool) -> float zero-extends to i64 and uses ``sitofp`` (InstCombine makes it ``uitofp``); a ``ui64``
  at or above 2**63 is halved first, keeping its lowest bit so the rounding is right, and doubled after.
- x -> bool is ``x != 0`` (``fcmp une`` for floats: NaN is true); bool -> x is 0 or 1.
- f64 -> f16/bf16 is `narrow_from_f64`: LLVM would call ``__truncdfhf2``/``__truncdfbf2``, runtime-library
  functions a JIT process may not have.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float32Type, Float64Type, i32, i64
from xdsl.ir import Attribute, SSAValue

from kiln.dialects.alu import BOOL, FLOAT, dtype_class, element_type, like
from kiln.dialects.types import bitwidth, is_unsigned
from kiln.lowering.llvm.builder import LLVMBuilder
from kiln.lowering.llvm.types import llvm_type


def lower_cast(b: LLVMBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """Convert the llvm value ``x`` of uop type ``src`` to uop type ``dst`` (same number of lanes)."""
    s, d = element_type(src), element_type(dst)
    s_class, d_class = dtype_class(s), dtype_class(d)
    target = llvm_type(dst)
    if d_class == BOOL:
        if s_class == BOOL:
            return x
        if s_class == FLOAT:
            return b.fcmp("une", x, b.const(x.type, 0.0))
        return b.icmp("ne", x, b.const(x.type, 0))
    if s_class == FLOAT and d_class == FLOAT:
        return _float_to_float(b, x, s, d, target)
    if s_class == FLOAT:
        name = "llvm.fptoui.sat" if is_unsigned(d) else "llvm.fptosi.sat"
        return b.intrinsic(name, [x], target, overloads=[target, x.type])
    if d_class == FLOAT:
        if s_class == BOOL or is_unsigned(s):
            return _unsigned_to_float(b, x, target)
        return b.cast(llvm.SIToFPOp, x, target)
    return _int_to_int(b, x, s, d, target)


def lower_bitcast(b: LLVMBuilder, x: SSAValue, dst: Attribute) -> SSAValue:
    """Reinterpret the bits of ``x`` as uop type ``dst`` (same width; ``i32 -> ui32`` is no instruction)."""
    target = llvm_type(dst)
    return x if x.type == target else b.cast(llvm.BitcastOp, x, target)


def _float_to_float(b: LLVMBuilder, x: SSAValue, s: Attribute, d: Attribute, target: Attribute) -> SSAValue:
    if s == d:
        return x
    if bitwidth(s) < bitwidth(d):
        return b.cast(llvm.FPExtOp, x, target)
    if isinstance(s, Float64Type) and bitwidth(d) == 16:
        return narrow_from_f64(b, x, target)
    if bitwidth(s) > bitwidth(d):
        return b.cast(llvm.FPTruncOp, x, target)
    wide = b.cast(llvm.FPExtOp, x, like(target, Float32Type()))  # f16 <-> bf16 goes through f32 (exact)
    return b.cast(llvm.FPTruncOp, wide, target)


def narrow_from_f64(b: LLVMBuilder, x: SSAValue, target: Attribute) -> SSAValue:
    """Round f64 values to the 16-bit float type ``target`` with only inline instructions: first to f32 "to odd"
    (toward zero, then the last bit set if anything was lost), then to ``target`` to nearest. An f32 has 13 more
    bits than f16 (16 more than bf16), enough for a round-to-odd intermediate to give the correctly rounded
    result. NaN stays NaN."""
    t = x.type
    bits_type, half_bits_type = like(t, i64), like(t, i32)
    nearest = b.cast(llvm.FPTruncOp, x, like(t, Float32Type()))
    back = b.cast(llvm.FPExtOp, nearest, t)
    x_bits, back_bits = (b.cast(llvm.BitcastOp, v, bits_type) for v in (x, back))
    magnitude = b.const(bits_type, 2**63 - 1)
    away_from_zero = b.icmp(
        "ugt", b.int_op(llvm.AndOp, back_bits, magnitude), b.int_op(llvm.AndOp, x_bits, magnitude)
    )
    inexact = b.icmp("ne", back_bits, x_bits)
    nearest_bits = b.cast(llvm.BitcastOp, nearest, half_bits_type)
    toward_zero = b.int_op(llvm.SubOp, nearest_bits, b.cast(llvm.ZExtOp, away_from_zero, half_bits_type))
    odd = b.int_op(llvm.OrOp, toward_zero, b.cast(llvm.ZExtOp, inexact, half_bits_type))
    return b.cast(llvm.FPTruncOp, b.cast(llvm.BitcastOp, odd, nearest.type), target)


def _int_to_int(b: LLVMBuilder, x: SSAValue, s: Attribute, d: Attribute, target: Attribute) -> SSAValue:
    """Integer or index to integer or index: truncation wraps; widening sign-extends signed sources (not bools)."""
    s_bits, d_bits = bitwidth(s), bitwidth(d)
    if s_bits == d_bits:
        return x
    if s_bits > d_bits:
        return b.cast(llvm.TruncOp, x, target)
    signed = dtype_class(s) != BOOL and not is_unsigned(s)
    return b.cast(llvm.SExtOp if signed else llvm.ZExtOp, x, target)


def _unsigned_to_float(b: LLVMBuilder, x: SSAValue, target: Attribute) -> SSAValue:
    t = x.type
    if bitwidth(element_type(t)) < 64:
        return b.cast(llvm.SIToFPOp, b.cast(llvm.ZExtOp, x, like(t, i64)), target)
    # x >= 2**63: convert (x >> 1) | (x & 1), a number below 2**63 that rounds like x / 2 does, and double it
    one = b.const(t, 1)
    halved = b.int_op(llvm.OrOp, b.int_op(llvm.LShrOp, x, one), b.int_op(llvm.AndOp, x, one))
    halved_float = b.cast(llvm.SIToFPOp, halved, target)
    doubled = b.float_op(llvm.FAddOp, halved_float, halved_float)
    direct = b.cast(llvm.SIToFPOp, x, target)
    return b.select(b.icmp("slt", x, b.const(t, 0)), doubled, direct)

