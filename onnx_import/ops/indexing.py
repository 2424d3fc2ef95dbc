"""Gathers: Gather (numpy ``take``), GatherElements (``take_along_axis``), GatherND; negative indices wrap."""

from __future__ import annotations

import numpy as np

from kiln.onnx.ops.util import axis as norm_axis, expand, op, reshape, scalar_like, shape, static_dims, to_tensor
from kiln.onnx.registry import handler


def wrap(idx, dim):
    """ONNX allows negative indices counting from the end."""
    idx = idx.cast("i64")
    return op("where", op("lt", idx, scalar_like(idx, 0)), idx + scalar_like(idx, dim), idx)


@handler("Gather")
def gather(n):
    x = n.x(0)
    s = shape(x)
    a = norm_axis(n.attr("axis", 0), len(s))
    idx_t = wrap(n.x(1), s[a])
    return [take(x, idx_t, a)]


def take(x, idx, a: int):
    """``np.take(x, idx, axis=a)`` on take_along_axis: both broadcast to the output shape first."""
    s = shape(x)
    ishape = shape(idx)
    if len(ishape) == 0:
        out = take(x, reshape(idx, [1]), a)
        return out.squeeze(a)
    pre, post = list(s[:a]), list(s[a + 1:])
    out_shape = pre + list(ishape) + post
    xk = reshape(x, pre + [s[a]] + [1] * (len(ishape) - 1) + post)
    xk = expand(xk, pre + [s[a]] + list(ishape[1:]) + post)
    ik = expand(reshape(idx, [1] * len(pre) + list(ishape) + [1] * len(post)), out_shape)
    return op("gather", xk, ik, axis=a)


@handler("GatherElements")
def gather_elements(n):
    x = n.x(0)
    a = norm_axis(n.attr("axis", 0), len(shape(x)))
    idx = wrap(n.x(1), shape(x)[a])
    ishape = shape(idx)
    if ishape != shape(x):
        x = x[tuple(slice(0, d) if i != a else slice(None) for i, d in enumerate(ishape))]
    return [op("gather", x, idx, axis=a)]


@handler("GatherND")
def gather_nd(n):
    x = n.x(0)
    b = n.attr("batch_dims", 0)
    s = static_dims(x, "GatherND data")
    idx = n.x(1).cast("i64")
    ishape = static_dims(idx, "GatherND indices")
    k = ishape[-1]
    # flatten the k indexed dims into one linear index, then take along that dim per batch
    strides = np.cumprod([1] + list(s[b:b + k][::-1]))[:-1][::-1].astype(np.int64)
    dims = np.array(s[b:b + k], dtype=np.int64)
    comps = []
    for j in range(k):
        c = idx[..., j]
        comps.append(wrap(c, int(dims[j])) * scalar_like(c, int(strides[j])))
    lin = comps[0]
    for c in comps[1:]:
        lin = lin + c
    batch = list(s[:b])
    nb = int(np.prod(batch)) if batch else 1
    rest = list(s[b + k:])
    flat = x.reshape(nb, int(np.prod(s[b:b + k])), *rest)
    mid = list(ishape[b:-1])
    lin2 = reshape(lin, [nb] + [int(np.prod(mid)) if mid else 1])
    out = _take_batched(flat, lin2)
    return [reshape(out, batch + mid + rest)]


def _take_batched(x, idx):
    """out[b, m, ...] = x[b, idx[b, m], ...] (take_along_axis lets the gathered axis differ in size)."""
    rest = list(shape(x)[2:])
    nb, m = shape(idx)
    ik = expand(reshape(idx, [nb, m] + [1] * len(rest)), [nb, m, *rest])
    return op("gather", x, ik, axis=1)


@handler("ReverseSequence")
def reverse_sequence(n):
    """Reverse the first len[b] steps of each batch entry: a gather along time with index len-1-t below len."""
    x = n.x(0)
    lens = n.x(1).cast("i64")
    ta, ba = n.attr("time_axis", 0), n.attr("batch_axis", 1)
    s = shape(x)
    T = s[ta]
    t_shape = [1] * len(s)
    t_shape[ta] = T
    b_shape = [1] * len(s)
    b_shape[ba] = s[ba]
    t = reshape(to_tensor(np.arange(T, dtype=np.int64)), t_shape)
    ln = reshape(lens, b_shape)
    idx = op("where", op("lt", t, ln), ln - scalar_like(ln, 1) - t, t + scalar_like(t, 0) * ln)
    return [op("gather", x, expand(idx, s), axis=ta)]
