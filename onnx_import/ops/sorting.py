"""TopK by ranking: each element's rank along the axis is how many elements precede it in the requested order
(ties: lower index first, as ONNX), and output k gathers the element of rank k. O(n^2) in the axis length, no
sort network needed."""

from __future__ import annotations

import numpy as np

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import arange, axis as norm_axis, op, reshape, scalar_like, static_dims, to_tensor
from kiln.onnx.registry import handler


@handler("TopK")
def topk(n):
    x = n.x(0)
    s = static_dims(x, "TopK")
    a = norm_axis(n.attr("axis", -1), len(s))
    k = int(n.s(1).reshape(-1)[0]) if n.opset >= 10 else int(n.attr("k"))
    if n.opset >= 11 and not n.attr("sorted", 1):
        pass  # any order is allowed; kiln returns sorted order
    largest = n.attr("largest", 1)
    D = s[a]
    perm = [i for i in range(len(s)) if i != a] + [a]
    xp = x.permute(*perm) if len(s) > 1 else x
    r = len(s)
    xi = xp.unsqueeze(r)        # [..., D(i), 1]
    xj = xp.unsqueeze(r - 1)    # [..., 1, D(j)]
    before = op("gt", xj, xi) if largest else op("lt", xj, xi)
    earlier = to_tensor(np.arange(D)[None, :] < np.arange(D)[:, None])  # j < i
    ties = op("and", op("eq", xj, xi), earlier)
    rank = op("reduce_sum", op("or", before, ties).cast("i64"), axes=(r,), keepdims=False)  # [..., D]
    sel = op("eq", rank.unsqueeze(r), reshape(arange(k), [1] * (r - 1) + [1, k]))  # [..., D, K]
    vals = op("reduce_sum", op("where", sel, xp.unsqueeze(r), scalar_like(x, 0)), axes=(r - 1,), keepdims=False)
    pos = reshape(arange(D), [1] * (r - 1) + [D, 1])
    idx = op("reduce_sum", op("where", sel, pos, scalar_like(pos, 0)), axes=(r - 1,), keepdims=False)
    inv = list(np.argsort(perm))
    if len(s) > 1:
        vals, idx = vals.permute(*inv), idx.permute(*inv)
    return [vals, idx]


@handler("NonZero", "Unique", "Compress")
def data_dependent(n):
    raise Unsupported(
        "its output shape depends on the input's values, which kiln's programs cannot express (it is folded at "
        "import time when its inputs are constants)"
    )
