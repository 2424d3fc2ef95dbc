"""Pooling: Max/Average/Lp pools of any rank with ONNX's pads, dilations, ceil_mode and count_include_pad (as a
sum over strided window slices), kiln's max_pool2d/avg_pool2d where they mean the same; global pools."""

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
    plain = k == 2 and dil == [1, 1] and not ceil and all(lo == hi for lo, hi in pads)
    if plain and n.op == "MaxPool" and is_float_dtype(x.dtype):
        return [op("max_pool2d", x, kernel=tuple(kernel), stride=tuple(strides), padding=(pads[0][0], pads[1][0]))]
    if plain and n.op == "AveragePool" and (include or not any(lo for lo, _ in pads)):
        return [op("avg_pool2d", x, kernel=tuple(kernel), stride=tuple(strides), padding=(pads[0][0], pads[1][0]))]
    extra = [max((o - 1) * s + (kk - 1) * dl + 1 - (d + lo + hi), 0) for o, s, kk, dl, d, (lo, hi) in
             zip(outs, strides, kernel, dil, spatial, pads)]
    fill = _lowest(x.dtype) if n.op == "MaxPool" else 0
    src = x.abs() ** scalar_like(x, float(n.attr("p", 2))) if n.op == "LpPool" else x
    padded = src.pad([(0, 0), (0, 0)] + [(lo, hi + e) for (lo, hi), e in zip(pads, extra)], value=fill)
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
