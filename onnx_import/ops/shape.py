"""Ops about shapes and generated tensors: Shape, Size, ConstantOfShape, Range, EyeLike, Trilu, OneHot, CumSum."""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from kiln.dialects.types import to_numpy
from kiln.onnx.dtypes import kiln_dtype
from kiln.onnx.ops.util import arange, axis as norm_axis, op, reshape, scalar_like, shape, static_dims, to_tensor
from kiln.onnx.registry import handler


@handler("Shape")
def shape_(n):
    s = static_dims(n.x(0), "Shape")
    lo, hi = n.attr("start", 0), n.attr("end", None)
    return [np.array(s[slice(lo, hi)], dtype=np.int64)]


@handler("Size")
def size(n):
    return [np.array(int(np.prod(static_dims(n.x(0), "Size"))), dtype=np.int64)]


@handler("ConstantOfShape")
def constant_of_shape(n):
    dims = n.ints(0)
    v = n.attrs.get("value")
    value = numpy_helper.to_array(v).reshape(-1)[0] if v is not None else np.float32(0)
    return [np.full(dims, value, dtype=value.dtype)]


@handler("EyeLike")
def eye_like(n):
    x = n.x(0)
    rows, cols = static_dims(x, "EyeLike")
    dtype = kiln_dtype(n.attr("dtype")) if "dtype" in n.attrs else x.dtype
    return [np.eye(rows, cols, k=n.attr("k", 0), dtype=to_numpy(dtype))]


@handler("Trilu")
def trilu(n):
    x = n.x(0)
    s = static_dims(x, "Trilu")
    k = int(n.s(1).item()) if n.has(1) else 0
    rows, cols = s[-2], s[-1]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = (j - i >= k) if n.attr("upper", 1) else (j - i <= k)
    return [op("where", to_tensor(keep), x, scalar_like(x, 0))]


@handler("OneHot")
def one_hot(n):
    idx = n.x(0)
    depth = int(n.s(1).reshape(-1)[0])
    values = n.x(2)
    rank = len(shape(idx)) + 1
    a = norm_axis(n.attr("axis", -1), rank)
    idx = idx.cast("i64")
    idx = op("where", op("lt", idx, scalar_like(idx, 0)), idx + scalar_like(idx, depth), idx)
    new = list(shape(idx))
    new.insert(a, 1)
    r = [1] * rank
    r[a] = depth
    hit = op("eq", reshape(idx, new), reshape(arange(depth), r))
    off, on = values[0], values[1]
    return [op("where", hit, on, off)]


@handler("CumSum")
def cumsum(n):
    x = n.x(0)
    a = norm_axis(int(n.s(1).reshape(-1)[0]), len(shape(x)))
    if n.attr("reverse", 0):
        x = x.flip(a)
    out = op("cumsum", x, axis=a)
    if n.attr("exclusive", 0):
        out = out - x
    if n.attr("reverse", 0):
        out = out.flip(a)
    return [out]


@handler("CumProd")
def cumprod(n):
    """Prefix products as a masked product over a square of the axis (kiln has no scan): O(n^2) in the axis."""
    x = n.x(0)
    rank = len(shape(x))
    a = norm_axis(int(n.s(1).reshape(-1)[0]), rank)
    d = static_dims(x, "CumProd")[a]
    j = np.arange(d)
    keep = j[None, :] <= j[:, None]  # [out i, in j]
    if n.attr("exclusive", 0):
        keep = j[None, :] < j[:, None]
    if n.attr("reverse", 0):
        keep = keep[::-1, ::-1]
    xm = x.unsqueeze(a)  # [..., 1(i), d(j), ...]
    mask_shape = [1] * (rank + 1)
    mask_shape[a], mask_shape[a + 1] = d, d
    masked = op("where", to_tensor(keep.reshape(mask_shape)), xm, scalar_like(x, 1))
    return [op("reduce_prod", masked, axes=(a + 1,), keepdims=False)]


@handler("Range")
def range_(n):
    start, limit, delta = (n.s(i).reshape(()) for i in range(3))
    count = max(int(np.ceil((limit - start) / delta)), 0)
    return [(start + np.arange(count) * delta).astype(start.dtype)]


@handler("HannWindow", "HammingWindow", "BlackmanWindow")
def window(n):
    size = int(n.s(0).reshape(-1)[0])
    N = size if n.attr("periodic", 1) else size - 1
    k = np.arange(size, dtype=np.float64)
    t = 2 * np.pi * k / N
    if n.op == "HannWindow":
        w = 0.5 - 0.5 * np.cos(t)
    elif n.op == "HammingWindow":
        w = 25 / 46 - (21 / 46) * np.cos(t)
    else:
        w = 0.42 - 0.5 * np.cos(t) + 0.08 * np.cos(2 * t)
    return [w.astype(to_numpy(kiln_dtype(n.attr("output_datatype", 1))))]
