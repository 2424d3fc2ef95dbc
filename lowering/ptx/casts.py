"""uop casts and bitcasts -> PTX ``cvt``/``mov``/``setp``/``selp``, one lane at a time.

numpy ``astype`` semantics (docs/dialects/uop.md), made defined where PTX would clamp differently:

- float -> integer truncates to s64 (u64 for ui64): ``cvt.rzi`` saturates out-of-range values and gives 0 for
  NaN, then the result wraps to the target width; the C backend does the same.
- integer -> float and float -> narrower float round to nearest even (``cvt.rn``). bf16 has no conversion
  from anything but f32 on sm_80, so other sources round to f32 *to odd* first (toward zero, last bit set when
  inexact), which makes the second rounding to bf16 exact-as-once.
- f16/bf16 -> f32 is exact: ``cvt.f32.f16``, and for bf16 its bits shifted into the top of an f32 (the
  instruction ``cvt.f32.bf16`` needs PTX 7.1; sm_80 PTX is 7.0).
- x -> i1 is ``x != 0`` (true for NaN), i1 -> x is ``selp`` of 1 and 0.
- integers of 8 and 16 bits are kept extended to 32 bits: narrowing re-extends with ``cvt.s32.s8`` and kin.
"""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from kiln.dialects.types import DTYPES, is_bool, is_float
from kiln.lowering.ptx.builder import PTXBuilder
from kiln.lowering.ptx.types import (
    HALVES,
    const_type,
    exact_int_type,
    float_type,
    int_type,
    is_signed,
    is_subword,
    reg_kind,
    value_bits,
)

F32, F64, I64, UI64 = (DTYPES[n] for n in ("f32", "f64", "i64", "ui64"))


def lower_cast(b: PTXBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """``uop.cast`` of one lane ``x`` from uop type ``src`` to ``dst``."""
    if src == dst:
        return x
    if is_bool(dst):
        if is_float(src):
            f = to_f32(b, x, src) if src in HALVES else x
            ft = "f32" if src in HALVES else float_type(src)
            return b.inst("setp", f"neu.{ft}", f, b.const(0.0, F32 if src in HALVES else src))
        return b.inst("setp", f"ne.{int_type(src)}", x, b.const(0, const_type(src)))
    if is_bool(src):
        return b.inst("selp", f"{reg_kind(dst)}", b.const(1, const_type(dst)), b.const(0, const_type(dst)), x)
    if is_float(src) and is_float(dst):
        return _float_to_float(b, x, src, dst)
    if is_float(dst):
        if dst == DTYPES["bf16"]:
            return b.cvt("rn.bf16.f32", _f32_to_odd(b, x, int_type(src)))
        return b.cvt(f"rn.{float_type(dst)}.{int_type(src)}", x)
    if is_float(src):
        f, ft = (to_f32(b, x, src), "f32") if src in HALVES else (x, float_type(src))
        if dst == UI64:
            return b.cvt(f"rzi.u64.{ft}", f)
        return int_to_int(b, b.cvt(f"rzi.s64.{ft}", f), I64, dst)
    return int_to_int(b, x, src, dst)


def int_to_int(b: PTXBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """An integer (or index) to another: narrowing keeps the low bits, widening extends by the source's
    signedness."""
    src_bits, dst_bits = (64 if value_bits(t) == 64 else 32 for t in (src, dst))
    if src_bits == 32 and dst_bits == 64:
        return b.cvt(f"{int_type(dst)}.{int_type(src)}", x)
    if src_bits == 64 and dst_bits == 32:
        x = b.cvt("u32.u64", x)
    return normalize(b, x, dst)


def normalize(b: PTXBuilder, x: SSAValue, t: Attribute) -> SSAValue:
    """An 8- or 16-bit integer's register extended again from its low bits (after arithmetic that may
    have left the type's range); other types as they are."""
    if not is_subword(t):
        return x
    return b.cvt(f"{'s' if is_signed(t) else 'u'}32.{exact_int_type(t)}", x)


def to_f32(b: PTXBuilder, x: SSAValue, t: Attribute) -> SSAValue:
    """The f32 value of an f16 or bf16 register (exact)."""
    if t == DTYPES["f16"]:
        return b.cvt("f32.f16", x)
    widened = b.cvt("u32.u16", x)
    return b.mov(b.inst("shl", "b32", widened, b.const(16, DTYPES["i32"])), "f32")


def from_f32(b: PTXBuilder, x: SSAValue, t: Attribute) -> SSAValue:
    """An f32 rounded to nearest even as an f16 or bf16 register."""
    return b.cvt(f"rn.{float_type(t)}.f32", x)


def _float_to_float(b: PTXBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    if src in HALVES:
        x, src = to_f32(b, x, src), F32
        if dst == F32:
            return x
    if dst == F64:
        return b.cvt("f64.f32", x)
    if dst == F32:
        return b.cvt("rn.f32.f64", x)
    if dst == DTYPES["bf16"] and src == F64:
        return from_f32(b, _f32_to_odd(b, x, "f64"), dst)
    return b.cvt(f"rn.{float_type(dst)}.{float_type(src)}", x)


def _f32_to_odd(b: PTXBuilder, x: SSAValue, ptx_type: str) -> SSAValue:
    """``x`` (of PTX type f64, s32, u32, s64 or u64) rounded to f32 toward zero, with the last bit set when
    that lost anything: rounding this to a narrower float gives the correctly rounded result."""
    toward_zero = b.cvt(f"rz.f32.{ptx_type}", x)
    if ptx_type == "f64":
        inexact = b.inst("setp", "neu.f64", b.cvt("f64.f32", toward_zero), x)
    else:
        inexact = b.inst("setp", f"ne.{ptx_type}", b.cvt(f"rzi.{ptx_type}.f32", toward_zero), x)
    i32 = DTYPES["i32"]
    sticky = b.inst("selp", "b32", b.const(1, i32), b.const(0, i32), inexact)
    return b.mov(b.inst("or", "b32", b.mov(toward_zero, "b32"), sticky), "f32")


def lower_bitcast(b: PTXBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """``uop.bitcast`` of one lane: the same bits as another type of the same width."""
    src_kind, dst_kind = reg_kind(src), reg_kind(dst)
    if src_kind == "b16" and dst_kind == "b32":  # f16/bf16 bits -> a 16-bit integer, extended to 32 bits
        return b.cvt(f"{int_type(dst)}.{exact_int_type(dst)}", x)
    if src_kind == "b32" and dst_kind == "b16":
        return b.cvt("u16.u32", x, kind="b16")
    if src_kind != dst_kind:
        return b.mov(x, dst_kind)
    return normalize(b, x, dst)
