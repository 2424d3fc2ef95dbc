"""Pooling: Max/Average/Lp pools of any rank with ONNX's pads, dilations, ceil_mode and count_include_pad (as a
sum over strided window slices); 2-D max and average pools without dilation as kiln's max_pool2d/avg_pool2d; global pools."""

from __future__ import annotations

import itertools

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.nn import conv_pads
from kiln.onnx.ops.util import is_float_dtype, op, scalar_like, shape, spatial_dims, to_tensor
from kiln.onnx.registry import handler


def _lowest(dtype: str):
    return -np.inf if is_float_dtype(dtype) else np.iinfo(to_numpy(dtype)).min


@handler("MaxPool", "AveragePool", "LpPool")
def pool(n):
    if n.op == "MaxPool" and n.n_out > 1 and n.proto.output[1]:
        raise Unsupported("the Indices output of MaxPool")
    x = n.x(0)
    spatial = spatial_dims(x, n.op)
    kernel = list(n.attr("kernel_shape"))
    k = len(kernel)
    strides = list(n.attr("strides", [1] * k))
    dil = list(n.attr("dilations", [1] * k))
    pads = conv_pads(n, spatial, kernel, strides, dil)
    ceil = n.attr("ceil_mode", 0)
    outs = []
    for d, kk, s, dl, (lo, hi) in zip(spatial, kernel, strides, dil, pads):
        span = (kk - 1) * dl + 1
        num = d + lo + hi - span
        o = (-(-num // s) if ceil else num // s) + 1
        if ceil and (o - 1) * s >= d + lo:
            o -= 1
        outs.append(o)
    include = n.attr("count_include_pad", 0)
    extra = [max((o - 1) * s + (kk - 1) * dl + 1 - (d + lo + hi), 0) for o, s, kk, dl, d, (lo, hi) in
             zip(outs, strides, kernel, dil, spatial, pads)]
    fill = _lowest(x.dtype) if n.op == "MaxPool" else 0
    windows = [(lo, hi + e) for (lo, hi), e in zip(pads, extra)]
    fits = all((d + lo + hi - kk) // s + 1 == o for d, (lo, hi), kk, s, o in zip(spatial, windows, kernel, strides, outs))
    if k == 2 and dil == [1, 1] and fits and (n.op == "AveragePool" or (n.op == "MaxPool" and is_float_dtype(x.dtype))):
        count = _counts(spatial, kernel, strides, dil, pads, extra, outs, include) if n.op == "AveragePool" else None
        return [_pool2d(x, n.op, kernel, strides, windows, fill, count)]
    src = x.abs() ** scalar_like(x, float(n.attr("p", 2))) if n.op == "LpPool" else x
    padded = src.pad([(0, 0), (0, 0)] + windows, value=fill)
    total = None
    for offs in itertools.product(*(range(kk) for kk in kernel)):
        key = [slice(None), slice(None)] + [
            slice(o_ * dl, o_ * dl + (o - 1) * s + 1, s) for o_, dl, o, s in zip(offs, dil, outs, strides)
        ]
        win = padded[tuple(key)]
        total = win if total is None else (total.maximum(win) if n.op == "MaxPool" else total + win)
    if n.op == "MaxPool":
        return [total]
    if n.op == "LpPool":
        return [total ** scalar_like(total, 1.0 / float(n.attr("p", 2)))]
    count = _counts(spatial, kernel, strides, dil, pads, extra, outs, include)
    return [total / to_tensor(count.astype(to_numpy(x.dtype)))]


def _pool2d(x, kind: str, kernel, strides, pads, fill, count: np.ndarray | None):
    """kiln's ``max_pool2d`` / ``avg_pool2d`` (graph-decompose realizes their input plain and the heuristic
    vectorizes them; as a sum of strided slices each tap divided its index and nothing was vectorized:
    docs/performance.md, "Inception v2, session 8"). Their padding is the same on both sides: the rest of
    ``pads`` (ceil mode's extra row, uneven pads) is a ``pad`` of ``fill`` in front, which graph-decompose
    merges into the pool's. An average that does not divide by the whole window everywhere (padding not
    counted, ceil mode's extra row) is rescaled by window size / ``count``."""
    even = [min(lo, hi) for lo, hi in pads]
    widths = [(0, 0), (0, 0)] + [(lo - e, hi - e) for (lo, hi), e in zip(pads, even)]
    if any(lo or hi for lo, hi in widths):
        x = x.pad(widths, value=fill)
    name = "max_pool2d" if kind == "MaxPool" else "avg_pool2d"
    y = op(name, x, kernel=tuple(kernel), stride=tuple(strides), padding=tuple(even))
    if count is None or (count == kernel[0] * kernel[1]).all():
        return y
    return y * to_tensor((kernel[0] * kernel[1] / count).astype(to_numpy(x.dtype)))


def _counts(spatial, kernel, strides, dil, pads, extra, outs, include) -> np.ndarray:
    """How many elements each window averages: real ones, or also ONNX's explicit padding."""
    ones = np.ones(spatial)
    region = np.pad(ones, [(lo, hi) for lo, hi in pads], constant_values=1 if include else 0)
    region = np.pad(region, [(0, e) for e in extra])
    count = np.zeros(outs)
    for offs in itertools.product(*(range(kk) for kk in kernel)):
        key = tuple(slice(o_ * dl, o_ * dl + (o - 1) * s + 1, s) for o_, dl, o, s in zip(offs, dil, outs, strides))
        count += region[key]
    return count


@handler("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
def global_pool(n):
    x = n.x(0)
    ax = tuple(range(2, len(shape(x))))
    if n.op == "GlobalAveragePool":
        return [op("mean", x, axes=ax, keepdims=True)]
    if n.op == "GlobalMaxPool":
        return [op("reduce_max", x, axes=ax, keepdims=True)]
    p = float(n.attr("p", 2))
    s = op("reduce_sum", x.abs() ** scalar_like(x, p), axes=ax, keepdims=True)
    return [s ** scalar_like(s, 1.0 / p)]
