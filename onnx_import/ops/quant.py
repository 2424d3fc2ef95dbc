"""Quantization: QuantizeLinear/DequantizeLinear (per tensor and per axis), DynamicQuantizeLinear, QLinearMatMul,
QLinearConv. Integer products are exact (i32 matmul, f64 convolution of small integers); requantization rounds
half to even and saturates, as ONNX specifies."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.dtypes import kiln_dtype
from kiln.onnx.errors import Unsupported
from kiln.onnx.narrow import narrow_type
from kiln.onnx.ops.narrow_cast import decode, encode
from kiln.onnx.ops.movement import _slice_axis
from kiln.onnx.ops.nn import conv_pads, convnd
from kiln.onnx.ops.util import axis as norm_axis, op, reshape, scalar_like, shape, static_dims
from kiln.onnx.registry import handler


def round_half_even(x):
    """numpy ``rint``: round to nearest, ties to even, from floor."""
    half = scalar_like(x, 0.5)
    r = (x + half).floor()
    tie = op("eq", r - x, half)
    odd = op("ne", op("mod", r, scalar_like(x, 2.0)), scalar_like(x, 0.0))
    return op("where", op("and", tie, odd), r - scalar_like(x, 1.0), r)


def saturate(x, dtype: str):
    """Clip a float tensor to an integer dtype's range and convert."""
    info = np.iinfo(to_numpy(dtype))
    x = x.maximum(scalar_like(x, float(info.min))).minimum(scalar_like(x, float(info.max)))
    return x.cast(dtype)


def per_axis(t, x_rank: int, a: int):
    """A scale or zero point: scalar, or 1-D along axis ``a`` of an ``x_rank`` tensor."""
    if len(shape(t)) == 0 or (len(shape(t)) == 1 and x_rank <= 1):
        return t
    if len(shape(t)) != 1:
        raise Unsupported("blocked quantization (scale of rank > 1)")
    r = [1] * x_rank
    r[a] = shape(t)[0]
    return reshape(t, r)


def spread(n, t, x_shape, a: int):
    """A scale or zero point broadcastable over x: per tensor, per axis ``a``, or per block of ``block_size``
    along ``a`` (each entry repeated over its block, the last block cut to x's size)."""
    block = n.attr("block_size", 0)
    return blocked(t, x_shape, a, block) if block else per_axis(t, len(x_shape), a)


def blocked(t, x_shape, a: int, block: int):
    """``t`` (x's rank, ceil(dim / block) entries along ``a``) repeated ``block`` times along ``a``."""
    s = list(shape(t))
    if len(s) != len(x_shape):
        raise Unsupported(f"a blocked scale of rank {len(s)} for an input of rank {len(x_shape)}")
    d = x_shape[a]
    if not isinstance(d, int) or s[a] != -(-d // block):
        raise Unsupported(f"a blocked scale of {s[a]} blocks of {block} along an axis of {d}")
    wide = s[:a + 1] + [block] + s[a + 1:]
    t = t.unsqueeze(a + 1).expand(*wide)
    t = reshape(t, s[:a] + [s[a] * block] + s[a + 1:])
    return _slice_axis(t, a, 0, d) if s[a] * block != d else t


def quant_axis(n, rank: int) -> int:
    """The per-axis quantization axis; it only matters (and must be in range) when the scale is a vector."""
    a = n.attr("axis", 1)
    return norm_axis(a, rank) if -rank <= a < rank else 0


def _int_dtype(dtype: str) -> str:
    if dtype not in ("i8", "ui8", "i16", "ui16", "i32", "ui32"):
        raise Unsupported(f"quantized type {dtype}")
    return dtype


@handler("QuantizeLinear")
def quantize(n):
    x = n.x(0)
    rank = len(shape(x))
    a = quant_axis(n, rank)
    scale = spread(n, n.x(1), shape(x), a)
    zp_narrow = n.narrow(2) if n.has(2) else None
    narrow = zp_narrow.type if zp_narrow else narrow_type(n.attr("output_dtype", 0)) if not n.has(2) else None
    work = "f32" if x.dtype != "f64" else "f64"
    if narrow is not None:
        zp = spread(n, decode(zp_narrow, work), shape(x), a) if zp_narrow else None
        return [_quantize_narrow(x.cast(work) / scale.cast(work), zp, narrow, bool(n.attr("saturate", 1)))]
    if n.has(2):
        zp = n.x(2)
        out = _int_dtype(zp.dtype)
    else:
        out = _int_dtype(kiln_dtype(n.attr("output_dtype")) if n.attr("output_dtype", 0) else "ui8")
        zp = None
    y = round_half_even(x.cast(work) / scale.cast(work))
    if zp is not None:
        y = y + spread(n, zp, shape(x), a).cast(work)
    return [saturate(y, out)]


def _quantize_narrow(v, zp, t, saturate_float8: bool):
    """``x / scale`` to a narrow type as onnx's reference does it: 4- and 2-bit integers round half to even,
    add the zero point and clip; float8 converts (saturating by the attribute) and has no zero point; float4
    adds its zero point and converts."""
    if not t.is_float:
        info = ml_dtypes.iinfo(t.numpy)
        y = round_half_even(v) + (zp if zp is not None else scalar_like(v, 0.0))
        y = y.maximum(scalar_like(v, float(info.min))).minimum(scalar_like(v, float(info.max)))
        return encode(y, t)
    if t.bits == 8:
        return encode(v, t, saturate_float8)
    return encode(v + zp if zp is not None else v, t)


@handler("DequantizeLinear")
def dequantize(n):
    x_shape = shape(n.narrow(0).bits if n.narrow(0) else n.x(0))
    a = quant_axis(n, len(x_shape))
    scale = spread(n, n.x(1), x_shape, a)
    out = scale.dtype
    narrow = n.narrow(0)
    if narrow is not None:  # as onnx's reference: float8 and float4 have no zero point
        v = decode(narrow, "f32")
        if n.has(2) and not narrow.type.is_float:
            v = v - spread(n, decode(n.narrow(2), "f32"), x_shape, a)
        return [(v * scale.cast("f32")).cast(out)]
    x = n.x(0)
    _int_dtype(x.dtype)
    v = x.cast("i32") if x.dtype != "i32" else x
    if n.has(2):
        v = v - spread(n, n.x(2), x_shape, a).cast("i32")
    return [v.cast(out) * scale]


@handler("DynamicQuantizeLinear")
def dynamic_quantize(n):
    x = n.x(0)
    ax = tuple(range(len(shape(x))))
    zero = scalar_like(x, 0.0)
    hi = op("reduce_max", x, axes=ax, keepdims=False).maximum(zero)
    lo = op("reduce_min", x, axes=ax, keepdims=False).minimum(zero)
    scale = (hi - lo) / scalar_like(x, 255.0)
    zp = saturate(round_half_even(zero - lo / scale), "ui8")
    y = saturate(round_half_even(x / scale) + zp.cast(x.dtype), "ui8")
    return [y, scale, zp]


def _requantize(acc, scale, zp, out_dtype):
    y = round_half_even(acc.cast("f32") * scale.cast("f32"))
    return saturate(y + zp.cast("f32"), out_dtype)


@handler("QLinearMatMul")
def qlinear_matmul(n):
    a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp = (n.x(i) for i in range(8))
    ai = a.cast("i32") - _vec(a_zp.cast("i32"), -2)
    bi = b.cast("i32") - _vec(b_zp.cast("i32"), -1)
    acc = op("matmul", ai, bi)
    scale = _vec(a_s.cast("f32"), -2) * _vec(b_s.cast("f32"), -1) / y_s.cast("f32")
    return [_requantize(acc, scale, y_zp, _int_dtype(y_zp.dtype))]


def _vec(t, where: int):
    """A per-row (where=-2) or per-column (-1) vector reshaped to broadcast over a matrix."""
    if len(shape(t)) == 0 or shape(t) == (1,):
        return reshape(t, [])
    return t.unsqueeze(-1) if where == -2 else t


@handler("QLinearConv")
def qlinear_conv(n):
    x, xs, xzp, w, ws, wzp, ys, yzp = (n.x(i) for i in range(8))
    xf = x.cast("f64") - xzp.cast("f64")
    O = static_dims(w, "QLinearConv weight")[0]
    wf = w.cast("f64") - per_axis(wzp.cast("f64"), len(shape(w)), 0)
    kernel = list(n.attr("kernel_shape", static_dims(w, "weight")[2:]))
    k = len(kernel)
    strides = list(n.attr("strides", [1] * k))
    dil = list(n.attr("dilations", [1] * k))
    pads = conv_pads(n, shape(x)[2:], kernel, strides, dil)
    acc = convnd(xf, wf, None, strides, pads, dil, n.attr("group", 1))
    if n.has(8):
        acc = acc + reshape(n.x(8).cast("f64"), [O] + [1] * k)
    wsv = ws.cast("f32")
    wsv = reshape(wsv, [O] + [1] * k) if len(shape(wsv)) == 1 and shape(wsv)[0] > 1 else reshape(wsv, [])
    scale = xs.cast("f32") * wsv / ys.cast("f32")
    return [_requantize(acc, scale, yzp, _int_dtype(yzp.dtype))]
