"""Movement ops: reshapes, transposes, broadcasts, slices, concatenation, splitting, padding, tiling."""

from __future__ import annotations

import numpy as np

from kiln.jit import Tensor
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import axis as norm_axis, axes as norm_axes, expand, reshape, shape
from kiln.onnx.registry import handler


@handler("Reshape")
def reshape_(n):
    x = n.x(0)
    target = n.ints(1) if n.opset >= 5 else list(n.attr("shape"))
    old = shape(x)
    if not n.attr("allowzero", 0):
        target = [old[i] if d == 0 else d for i, d in enumerate(target)]
    return [reshape(x, target)]


@handler("Flatten")
def flatten(n):
    x = n.x(0)
    s = shape(x)
    a = n.attr("axis", 1)
    a = a + len(s) if a < 0 else a
    lead = 1
    for d in s[:a]:
        lead = lead * d if isinstance(d, int) and isinstance(lead, int) else None
    if lead is None:
        if a == 1:
            return [reshape(x, [s[0], -1])]
        raise Unsupported("Flatten of symbolic leading dims")
    return [reshape(x, [lead, -1])]


@handler("Squeeze")
def squeeze(n):
    x = n.x(0)
    given = n.opt_ints(1) if n.opset >= 13 else n.opt_ints(99, "axes")
    return [x.squeeze(None if not given else tuple(norm_axes(given, len(shape(x)))))]


@handler("Unsqueeze")
def unsqueeze(n):
    x = n.x(0)
    given = n.ints(1) if n.opset >= 13 else list(n.attr("axes"))
    rank = len(shape(x)) + len(given)
    new = list(shape(x))
    for a in norm_axes(given, rank):
        new.insert(a, 1)
    return [reshape(x, new)]


@handler("Transpose")
def transpose(n):
    x = n.x(0)
    perm = n.attr("perm", None)
    rank = len(shape(x))
    perm = list(perm) if perm is not None else list(range(rank))[::-1]
    return [x.permute(*perm) if rank else x]


@handler("Expand")
def expand_(n):
    x = n.x(0)
    target = n.ints(1)
    s = shape(x)
    rank = max(len(s), len(target))
    s2 = (1,) * (rank - len(s)) + tuple(s)
    t2 = [1] * (rank - len(target)) + target
    out = [a if b == 1 else b for a, b in zip(s2, t2)]
    return [expand(reshape(x, s2), out) if out else x]


@handler("Concat")
def concat(n):
    xs = [n.x(i) for i in range(n.n_in) if n.has(i)]
    xs = [x for x in xs if 0 not in shape(x)] or xs[:1]
    a = norm_axis(n.attr("axis"), len(shape(xs[0])))
    return [xs[0].cat(*xs[1:], axis=a) if len(xs) > 1 else xs[0]]


@handler("Split")
def split(n):
    x = n.x(0)
    s = shape(x)
    a = norm_axis(n.attr("axis", 0), len(s))
    d = s[a]
    if not isinstance(d, int):
        raise Unsupported("Split along a symbolic axis")
    sizes = n.opt_ints(1) if n.opset >= 13 else n.opt_ints(99, "split")
    if sizes is None:
        parts = n.attr("num_outputs", n.n_out)
        each = -(-d // parts)
        sizes = [min(each, d - i * each) for i in range(parts)]
    outs, start = [], 0
    for size in sizes:
        outs.append(_slice_axis(x, a, start, start + size))
        start += size
    return outs


def _slice_axis(x: Tensor, a: int, lo: int, hi: int, step: int = 1) -> Tensor:
    key = [slice(None)] * len(shape(x))
    key[a] = slice(lo, hi, step)
    return x[tuple(key)]


@handler("Slice")
def slice_(n):
    x = n.x(0)
    s = shape(x)
    if n.opset < 10:
        starts, ends = list(n.attr("starts")), list(n.attr("ends"))
        ax = list(n.attr("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = n.ints(1), n.ints(2)
        ax = n.ints(3) if n.has(3) else list(range(len(starts)))
        steps = n.ints(4) if n.has(4) else [1] * len(starts)
    key = [slice(None)] * len(s)
    for st, en, a, sp in zip(starts, ends, ax, steps):
        a = norm_axis(a, len(s))
        d = s[a]
        if not isinstance(d, int):
            raise Unsupported("Slice of a symbolic axis")
        key[a] = slice(*_clamp(st, en, sp, d))
    return [x[tuple(key)]]


def _clamp(st: int, en: int, sp: int, d: int) -> tuple:
    """ONNX's start/end clamping as Python slice bounds (None where Python's default means "to the edge")."""
    if sp == 0:
        raise Unsupported("Slice step 0")
    st = st + d if st < 0 else st
    en = en + d if en < 0 else en
    if sp > 0:
        st, en = min(max(st, 0), d), min(max(en, 0), d)
        return st, en, sp
    st = min(max(st, 0), d - 1)
    en = min(max(en, -1), d - 1)
    return st, (en if en >= 0 else None), sp


@handler("Pad")
def pad(n):
    x = n.x(0)
    s = shape(x)
    rank = len(s)
    mode = n.attr("mode", "constant")
    if n.opset < 11:
        pads = list(n.attr("pads", n.attr("paddings", [])))
        value = n.attr("value", 0.0)
        ax = list(range(rank))
    else:
        pads = n.ints(1)
        value = n.s(2).item() if n.has(2) else 0
        ax = norm_axes(n.ints(3), rank) if n.has(3) else list(range(rank))
    k = len(ax)
    widths = [(0, 0)] * rank
    for i, a in enumerate(ax):
        widths[a] = (pads[i], pads[i + k])
    if mode == "constant":
        return [x.pad(widths, value=value)]
    out = x
    for a, (lo, hi) in enumerate(widths):
        if lo or hi:
            out = _pad_axis(out, a, lo, hi, mode)
    return [out]


def _pad_axis(x: Tensor, a: int, lo: int, hi: int, mode: str) -> Tensor:
    d = shape(x)[a]
    if not isinstance(d, int):
        raise Unsupported("Pad of a symbolic axis")
    if lo < 0 or hi < 0:
        x = _slice_axis(x, a, max(-lo, 0), d - max(-hi, 0))
        d = shape(x)[a]
        lo, hi = max(lo, 0), max(hi, 0)
    idx = np.arange(-lo, d + hi)
    if mode == "reflect":
        period = 2 * (d - 1) if d > 1 else 1
        m = np.mod(idx, period)
        idx = np.where(m >= d, period - m, m)
    elif mode == "edge":
        idx = np.clip(idx, 0, d - 1)
    elif mode == "wrap":
        idx = np.mod(idx, d)
    else:
        raise Unsupported(f"Pad mode '{mode}'")
    return take_static(x, a, idx)


def take_static(x: Tensor, a: int, idx: np.ndarray) -> Tensor:
    """``np.take(x, idx, axis=a)`` for indices known at import time, as slices and a concat of runs."""
    pieces = []
    i = 0
    idx = [int(v) for v in idx]
    while i < len(idx):
        j = i + 1
        step = idx[j] - idx[i] if j < len(idx) else 1
        if step in (1, -1):
            while j < len(idx) and idx[j] - idx[j - 1] == step:
                j += 1
        else:
            step = 1
        lo, hi = idx[i], idx[j - 1]
        if step == 1:
            pieces.append(_slice_axis(x, a, lo, hi + 1))
        else:
            pieces.append(_slice_axis(x, a, hi, lo + 1).flip(a))
        i = j
    return pieces[0].cat(*pieces[1:], axis=a) if len(pieces) > 1 else pieces[0]


@handler("Tile")
def tile(n):
    x = n.x(0)
    reps = n.ints(1)
    s = shape(x)
    mid = []
    for d, r in zip(s, reps):
        mid += [1, d]
    big = []
    for d, r in zip(s, reps):
        big += [r, d]
    out = reshape(x, mid).expand(*big)
    return [reshape(out, [d * r for d, r in zip(s, reps)])]


@handler("DepthToSpace", "SpaceToDepth")
def depth_space(n):
    x = n.x(0)
    b = n.attr("blocksize")
    N, C, H, W = shape(x)
    if n.op == "SpaceToDepth":
        order = (0, 1, 3, 5, 2, 4) if n.attr("mode", "DCR") == "CRD" else (0, 3, 5, 1, 2, 4)
        y = x.reshape(N, C, H // b, b, W // b, b).permute(*order)
        return [y.reshape(N, C * b * b, H // b, W // b)]
    if n.attr("mode", "DCR") == "DCR":
        y = x.reshape(N, b, b, C // (b * b), H, W).permute(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(N, C // (b * b), b, b, H, W).permute(0, 1, 4, 2, 5, 3)
    return [y.reshape(N, C // (b * b), H * b, W * b)]
