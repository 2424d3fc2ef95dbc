"""Sequence and optional ops on values resolved at import time (``kiln.onnx.sequence``): every position is known then, so
SequenceAt/Insert/Erase pick and place elements, SequenceLength is a constant, SplitToSequence slices,
ConcatFromSequence concatenates or stacks, and SequenceMap runs its body once per element."""

from __future__ import annotations

import numpy as np

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.loops import run_body
from kiln.onnx.ops.movement import _slice_axis
from kiln.onnx.ops.util import axis as norm_axis, shape
from kiln.onnx.registry import handler
from kiln.onnx.sequence import Optional, Sequence


def _seq(n, i: int) -> Sequence:
    v = n.raw(i)
    if not isinstance(v, Sequence):
        raise Unsupported(f"input {i} is not a sequence")
    return v


def _position(n, i: int, length: int, default: int, end_ok: bool) -> int:
    """Input ``i`` (a position, negative from the end) checked against the sequence's ``length``."""
    p = n.ints(i)[0] if n.has(i) else default
    hi = length if end_ok else length - 1
    if not -length <= p <= hi:
        raise Unsupported(f"position {p} is out of range for a sequence of {length}")
    return p + length if p < 0 else p


@handler("SequenceEmpty")
def sequence_empty(n):
    return [Sequence(())]


@handler("SequenceConstruct")
def sequence_construct(n):
    return [Sequence(tuple(n.raw(i) for i in range(n.n_in)))]


@handler("SequenceLength")
def sequence_length(n):
    return [np.array(len(_seq(n, 0)), dtype=np.int64)]


@handler("SequenceAt")
def sequence_at(n):
    s = _seq(n, 0)
    return [s.items[_position(n, 1, len(s), 0, end_ok=False)]]


@handler("SequenceInsert")
def sequence_insert(n):
    s = _seq(n, 0)
    p = _position(n, 2, len(s), len(s), end_ok=True)
    return [Sequence(s.items[:p] + (n.raw(1),) + s.items[p:])]


@handler("SequenceErase")
def sequence_erase(n):
    s = _seq(n, 0)
    p = _position(n, 1, len(s), -1, end_ok=False)
    return [Sequence(s.items[:p] + s.items[p + 1:])]


@handler("SplitToSequence")
def split_to_sequence(n):
    x = n.x(0)
    a = norm_axis(n.attr("axis", 0), len(shape(x)))
    d = shape(x)[a]
    if not isinstance(d, int):
        raise Unsupported("SplitToSequence along a symbolic axis")
    if not n.has(1):  # pieces of one, the axis kept or dropped
        parts = [_slice_axis(x, a, i, i + 1) for i in range(d)]
        return [Sequence(tuple(parts if n.attr("keepdims", 1) else [p.squeeze(a) for p in parts]))]
    split = n.s(1)
    sizes = [int(v) for v in split.reshape(-1)]
    if split.ndim == 0:  # chunks of that size, the last one smaller
        sizes = [min(sizes[0], d - i) for i in range(0, d, sizes[0])]
    if sum(sizes) != d:
        raise Unsupported(f"split sizes {sizes} do not add up to the axis' {d}")
    starts = np.cumsum([0, *sizes])
    return [Sequence(tuple(_slice_axis(x, a, int(lo), int(hi)) for lo, hi in zip(starts[:-1], starts[1:])))]


@handler("ConcatFromSequence")
def concat_from_sequence(n):
    items = [n.values.as_tensor(v) for v in _seq(n, 0).items]
    if not items:
        raise Unsupported("ConcatFromSequence of an empty sequence")
    if n.attr("new_axis", 0):
        a = norm_axis(n.attr("axis"), len(shape(items[0])) + 1)
        items = [t.unsqueeze(a) for t in items]
    else:
        a = norm_axis(n.attr("axis"), len(shape(items[0])))
    return [items[0].cat(*items[1:], axis=a) if len(items) > 1 else items[0]]


@handler("SequenceMap")
def sequence_map(n):
    body = n.attrs["body"]
    args = [n.raw(i) for i in range(n.n_in)]
    lengths = {len(v) for v in args if isinstance(v, Sequence)}
    if len(lengths) != 1:
        raise Unsupported(f"SequenceMap over sequences of different lengths {sorted(lengths)}")
    outs: list[list] = [[] for _ in body.output]
    for i in range(lengths.pop()):
        bound = [v.items[i] if isinstance(v, Sequence) else v for v in args]
        for k, v in enumerate(run_body(n, body, bound)):
            outs[k].append(v)
    return [Sequence(tuple(o)) for o in outs]


@handler("Optional")
def optional(n):
    return [Optional(n.raw(0) if n.has(0) else None)]


@handler("OptionalHasElement")
def optional_has_element(n):
    v = n.raw(0) if n.has(0) else Optional(None)
    return [np.array(not isinstance(v, Optional) or v.value is not None)]


@handler("OptionalGetElement")
def optional_get_element(n):
    v = n.raw(0)
    if isinstance(v, Optional):
        if v.value is None:
            raise Unsupported("OptionalGetElement of an empty optional")
        return [v.value]
    return [v]
