"""Conversions to and from ONNX's narrow types (``kiln.onnx.narrow``) as graph ops on their storage bytes.

The semantics are onnx's reference implementation's, which is ml_dtypes' ``astype``:

- **to a float8 / float4**: round to nearest, ties to even, at the type's precision (subnormals included). A
  value past the largest finite one after rounding, and an infinity, become the type's overflow byte (NaN for
  E4M3FN and the FNUZ types, infinity for E5M2, the largest value for FLOAT4E2M1); NaN becomes its NaN byte;
  a negative result rounded to zero is -0 where the type has one. ``saturate`` (Cast's attribute, float8 only)
  first clips to the finite range, as ``onnx.numpy_helper.saturate_cast``.
- **to a 4- or 2-bit integer**: from a float, truncation toward zero, and 0 where that is out of range or NaN;
  from an integer, the low bits (two's complement wrap).
- **from a narrow type**: a lookup of the storage byte in the table of the type's values converted by numpy,
  so it is the reference's conversion by construction.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from kiln.dialects.types import to_numpy
from kiln.jit import Tensor
from kiln.onnx.errors import Unsupported
from kiln.onnx.narrow import STORAGE, Narrow, NarrowType
from kiln.onnx.ops.indexing import take
from kiln.onnx.ops.util import const, is_float_dtype, op, shape

# per work dtype: the integer of its width, mantissa bits, exponent bias
_FLOAT_LAYOUT = {"f32": ("i32", 23, 127), "f64": ("i64", 52, 1023)}


def decode(v: Narrow, to: str) -> Tensor:
    """The narrow value converted to the kiln dtype ``to``."""
    with np.errstate(invalid="ignore"):  # NaN and infinities to an integer: numpy's value, as the reference's
        table = v.type.codes().astype(to_numpy(to))
    index = (v.bits.cast("i32") & const((1 << v.type.bits) - 1, "i32"))
    return take(Tensor(table, device=v.bits.device), index, 0)


def encode(x: Tensor, t: NarrowType, saturate: bool = False, round_mode: str = "up") -> Narrow:
    """``x`` (any kiln dtype) converted to the narrow type ``t``; ``saturate`` clips to its finite range first;
    ``round_mode`` (up, down, nearest) is FLOAT8E8M0's."""
    if t.name == "FLOAT8E8M0":
        return Narrow(_encode_e8m0(x, saturate, round_mode), t)
    if t.is_float:
        return Narrow(_encode_float(x, t, saturate), t)
    return Narrow(_encode_int(x, t), t)


def _encode_int(x: Tensor, t: NarrowType) -> Tensor:
    mask = (1 << t.bits) - 1
    if is_float_dtype(x.dtype):
        info = ml_dtypes.iinfo(t.numpy)
        lo, hi = int(info.min), int(info.max)
        w = "f64" if x.dtype == "f64" else "f32"
        v = x.cast(w).trunc()
        ok = op("and", op("ge", v, const(lo, w)), op("le", v, const(hi, w)))
        x = op("where", ok, v, const(0.0, w)).cast("i32")
    elif x.dtype == "i1":
        x = x.cast("i32")
    return (x & const(mask, x.dtype)).cast(STORAGE)


def _encode_float(x: Tensor, t: NarrowType, saturate: bool) -> Tensor:
    info = ml_dtypes.finfo(t.numpy)
    m, emin, emax1, top = info.nmant, info.minexp, info.maxexp, float(info.max)
    w = "f64" if x.dtype == "f64" else "f32"
    iw, w_mant, w_bias = _FLOAT_LAYOUT[w]
    x = x.cast(w) if x.dtype != w else x
    if saturate:  # np.clip: NaN stays NaN
        x = op("where", op("gt", x, const(top, w)), const(top, w), x)
        x = op("where", op("lt", x, const(-top, w)), const(-top, w), x)
    a = x.abs()
    # the binary exponent of |x|, clamped to the type's normal range (below: its subnormals' scale)
    e = (op("bitcast", a, result=(shape(a), iw)) >> const(w_mant, iw)) - const(w_bias, iw)
    e = e.maximum(const(emin, iw)).minimum(const(emax1, iw))
    ulp = op("bitcast", (e + const(w_bias - m, iw)) << const(w_mant, iw), result=(shape(a), w))
    # the magnitude's code: exponent steps of 2**m codes, plus the mantissa rounded half to even
    code = (e - const(emin, iw)).cast(w) * const(float(1 << m), w) + op("round", a / ulp)
    max_code = t.byte(top)
    over = op("gt", code, const(float(max_code), w))
    nan = op("isnan", x)
    c = op("where", op("or", over, nan), const(0.0, w), code).cast("i32")
    negative = op("lt", op("bitcast", x, result=(shape(x), iw)), const(0, iw))
    sign = 1 << (t.bits - 1)
    neg = op("where", op("eq", c, const(0, "i32")), const(t.byte(-0.0), "i32"), c | const(sign, "i32"))
    byte = op("where", negative, neg, c)
    byte = op("where", over, _by_sign(negative, t.byte(np.inf), t.byte(-np.inf)), byte)
    byte = op("where", nan, _by_sign(negative, t.byte(np.nan), t.byte(-np.nan)), byte)
    return byte.cast(STORAGE)


def _encode_e8m0(x: Tensor, saturate: bool, round_mode: str) -> Tensor:
    """The power-of-two scale type: the f32 exponent field, rounded up/down/to nearest by the mantissa bits (as
    ``onnx.numpy_helper.to_float8e8m0``); NaN and infinities are 0xFF, ``saturate`` stops at 0xFE."""
    if round_mode not in ("up", "down", "nearest"):
        raise Unsupported(f"round_mode '{round_mode}' (ONNX defines up, down and nearest)")
    b = op("bitcast", x.cast("f32") if x.dtype != "f32" else x, result=(shape(x), "i32"))
    exponent = (b >> const(23, "i32")) & const(0xFF, "i32")
    special = op("eq", exponent, const(0xFF, "i32"))

    def bits(mask: int) -> Tensor:
        return op("ne", b & const(mask, "i32"), const(0, "i32"))

    if round_mode == "down":
        return op("where", special, const(0xFF, "i32"), exponent).cast(STORAGE)
    if round_mode == "up":
        up = bits(0x7FFFFF)
    else:  # guard bit, and round or sticky bits or an odd (nonzero) exponent
        up = op("and", bits(0x400000), op("or", op("or", bits(0x200000), bits(0x1FFFFF)),
                                          op("gt", exponent, const(0, "i32"))))
    if saturate:
        up = op("and", up, op("ne", exponent, const(0xFE, "i32")))
    out = exponent + up.cast("i32")
    return op("where", special, const(0xFF, "i32"), out).cast(STORAGE)


def _by_sign(negative: Tensor, pos: int, neg: int) -> Tensor:
    return op("where", negative, const(neg, "i32"), const(pos, "i32"))
