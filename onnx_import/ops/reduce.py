"""Reductions (Reduce*, ArgMax/ArgMin): axes from attributes (older opsets) or an input (newer), ONNX dtypes
kept (kiln's numpy front end would widen int sums to i64)."""

from __future__ import annotations

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import axes as norm_axes, axis as norm_axis, is_float_dtype, op, scalar_like, shape
from kiln.onnx.registry import handler

_AXES_INPUT_SINCE = {"ReduceSum": 13}
"""Opset from which ``axes`` is an input (18 for the others)."""


def _reduce_axes(n, rank: int) -> list[int] | None:
    """The axes to reduce, or None for "no reduction" (noop_with_empty_axes)."""
    since = _AXES_INPUT_SINCE.get(n.op, 18)
    given = n.opt_ints(1) if n.opset >= since else n.opt_ints(99, "axes")
    if not given:
        if n.attr("noop_with_empty_axes", 0):
            return None
        return list(range(rank))
    return norm_axes(given, rank)


def _raw(name, x, ax, keep):
    if not ax:
        return x
    return op(name, x, axes=tuple(ax), keepdims=bool(keep))


@handler("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
         "ReduceLogSumExp", "ReduceSumSquare")
def reduce(n):
    x = n.x(0)
    rank = len(shape(x))
    ax = _reduce_axes(n, rank)
    keep = n.attr("keepdims", 1)
    if ax is None:
        return [x]
    if any(shape(x)[a] == 0 for a in ax):
        return [empty_reduction(n.op, x, ax, keep)]
    k = n.op
    if k == "ReduceSum":
        return [_raw("reduce_sum", x, ax, keep)]
    if k == "ReduceMean":
        if is_float_dtype(x.dtype):
            return [_raw("mean", x, ax, keep)]
        count = 1
        for a in ax:
            count *= shape(x)[a]
        return [trunc(_raw("reduce_sum", x, ax, keep), count)]
    if k in ("ReduceMax", "ReduceMin"):
        if x.dtype == "i1":
            return [_raw("reduce_max" if k == "ReduceMax" else "reduce_min", x.cast("i8"), ax, keep).cast("i1")]
        return [_raw("reduce_max" if k == "ReduceMax" else "reduce_min", x, ax, keep)]
    if k == "ReduceProd":
        return [_raw("reduce_prod", x, ax, keep)]
    if k == "ReduceL1":
        return [_raw("reduce_sum", x.abs(), ax, keep)]
    if k == "ReduceL2":
        if not is_float_dtype(x.dtype):
            return [_raw("reduce_sum", x * x, ax, keep).cast("f64").sqrt().cast(x.dtype)]
        return [_raw("reduce_sum", x * x, ax, keep).sqrt()]
    if k == "ReduceSumSquare":
        return [_raw("reduce_sum", x * x, ax, keep)]
    if k == "ReduceLogSum":
        return [_raw("reduce_sum", x, ax, keep).log()]
    if k == "ReduceLogSumExp":
        m = _raw("reduce_max", x, ax, True)
        m = op("where", op("eq", m - m, scalar_like(m, 0)), m, scalar_like(m, 0))  # shift by 0 where max is inf/nan
        s = _raw("reduce_sum", (x - m).exp(), ax, keep).log()
        return [s + (m if keep else m.squeeze(tuple(ax)))]
    raise AssertionError(k)


_EMPTY = {"ReduceSum": 0, "ReduceL1": 0, "ReduceL2": 0, "ReduceSumSquare": 0, "ReduceProd": 1,
          "ReduceLogSum": -np.inf, "ReduceLogSumExp": -np.inf, "ReduceMean": np.nan}


def empty_reduction(kind: str, x, ax, keep):
    """A reduction over an axis of length 0: the op's identity (no data is read), as a constant."""
    dtype = to_numpy(x.dtype)
    if kind in ("ReduceMax", "ReduceMin"):
        big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
        value = -big if kind == "ReduceMax" else big
        if dtype.kind != "f" and kind == "ReduceMax":
            value = np.iinfo(dtype).min
    else:
        value = _EMPTY[kind]
    out = [1 if i in ax else d for i, d in enumerate(shape(x)) if keep or i not in ax]
    return np.full(out, value, dtype=dtype)


def trunc(s, count):
    from kiln.onnx.ops.elementwise import trunc_div

    return trunc_div(s, scalar_like(s, count))


@handler("ArgMax", "ArgMin")
def arg_reduce(n):
    x = n.x(0)
    rank = len(shape(x))
    a = norm_axis(n.attr("axis", 0), rank)
    keep = bool(n.attr("keepdims", 1))
    name = "argmax" if n.op == "ArgMax" else "argmin"
    if x.dtype == "i1":
        x = x.cast("i8")
    if n.attr("select_last_index", 0):
        d = shape(x)[a]
        if not isinstance(d, int):
            raise Unsupported("select_last_index over a symbolic axis")
        idx = arg(name, x.flip(a), a, keep)
        return [scalar_like(idx, d - 1) - idx]
    return [arg(name, x, a, keep)]


def arg(name: str, x, a: int, keep: bool):
    """graph.argmax/argmin (i64 indices; the op takes its result type as given)."""
    s = list(shape(x))
    out = s[:a] + ([1] if keep else []) + s[a + 1:]
    return op(name, x, result=(tuple(out), "i64"), axis=a, keepdims=keep)
