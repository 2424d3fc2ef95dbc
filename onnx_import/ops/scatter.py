"""Scatters (ScatterElements, ScatterND, Scatter) as comparisons against every target position: an update lands
where its index equals the position, and a reduction (none/add/mul/max/min) combines the ones that land there.
Costs O(updates x axis length); no data-dependent stores are needed."""

from __future__ import annotations

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.ops.indexing import wrap
from kiln.onnx.ops.util import arange, axis as norm_axis, is_float_dtype, op, reshape, scalar_like, static_dims
from kiln.onnx.registry import handler

_REDUCE = {"add": "reduce_sum", "mul": "reduce_prod", "max": "reduce_max", "min": "reduce_min"}


def _identity(reduction: str, dtype: str):
    if reduction in ("none", "add"):
        return 0
    if reduction == "mul":
        return 1
    if is_float_dtype(dtype):
        return -np.inf if reduction == "max" else np.inf
    info = np.iinfo(to_numpy(dtype))
    return info.min if reduction == "max" else info.max


def _combine(data, hit_any, landed, reduction: str):
    if reduction == "none":
        return op("where", hit_any, landed, data)
    name = {"add": "add", "mul": "mul", "max": "max", "min": "min"}[reduction]
    return op("where", hit_any, op(name, data, landed), data)


@handler("ScatterElements", "Scatter")
def scatter_elements(n):
    data, idx, upd = n.x(0), n.x(1), n.x(2)
    ds = static_dims(data, n.op)
    a = norm_axis(n.attr("axis", 0), len(ds))
    red = n.attr("reduction", "none")
    idx = wrap(idx, ds[a])
    S = static_dims(idx, "indices")
    D = ds[a]
    # m[..., j] = idx[...] == j: shape S + [D]
    m = op("eq", idx.unsqueeze(len(S)), reshape(arange(D), [1] * len(S) + [D]))
    fill = scalar_like(upd, _identity(red, upd.dtype))
    contrib = op("where", m, upd.unsqueeze(len(S)), fill)
    reduce_name = "reduce_sum" if red == "none" else _REDUCE[red]
    landed = op(reduce_name, contrib, axes=(a,), keepdims=False)  # S without axis a, + [D]
    hit = op("reduce_max", m.cast("i8"), axes=(a,), keepdims=False)
    perm = list(range(len(S) - 1))
    perm.insert(a, len(S) - 1)
    landed, hit = landed.permute(*perm), hit.permute(*perm)
    widths = [(0, 0) if i == a else (0, ds[i] - S[i]) for i in range(len(ds))]
    landed = landed.pad(widths)
    hit = op("ne", hit.pad(widths), scalar_like(hit, 0))
    return [_combine(data, hit, landed, red)]


@handler("ScatterND")
def scatter_nd(n):
    data, idx, upd = n.x(0), n.x(1).cast("i64"), n.x(2)
    ds = static_dims(data, "ScatterND data")
    ishape = static_dims(idx, "ScatterND indices")
    red = n.attr("reduction", "none")
    k = ishape[-1]
    rest = list(ds[k:])
    lin = None
    stride = 1
    strides = []
    for d in reversed(ds[:k]):
        strides.insert(0, stride)
        stride *= d
    for j in range(k):
        c = wrap(idx[..., j], ds[j]) * scalar_like(idx, strides[j])
        lin = c if lin is None else lin + c
    nupd = int(np.prod(ishape[:-1])) if ishape[:-1] else 1
    P = int(np.prod(ds[:k])) if k else 1
    lin = reshape(lin, [nupd, 1])
    m = op("eq", lin, reshape(arange(P), [1, P]))  # [nupd, P]
    u = reshape(upd, [nupd, 1] + rest)
    m2 = reshape(m, [nupd, P] + [1] * len(rest))
    fill = scalar_like(upd, _identity(red, upd.dtype))
    contrib = op("where", m2, u, fill)
    reduce_name = "reduce_sum" if red == "none" else _REDUCE[red]
    landed = reshape(op(reduce_name, contrib, axes=(0,), keepdims=False), ds)
    hit = reshape(op("reduce_max", m.cast("i8"), axes=(0,), keepdims=False), list(ds[:k]) + [1] * len(rest))
    return [_combine(data, op("ne", hit, scalar_like(hit, 0)), landed, red)]
