"""Resize (and Upsample): separable per axis. For each resized axis, the source coordinate of every output
position follows ONNX's coordinate_transformation_mode; nearest takes one tap, linear two and cubic four, with
weights computed at import time (static shapes) and taps clamped to the edge as onnx's reference does."""

from __future__ import annotations

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.indexing import take
from kiln.onnx.ops.util import is_float_dtype, op, shape, static_dims, to_tensor
from kiln.onnx.registry import handler


def source_coords(mode: str, out_len: int, in_len: int, scale: float, roi: tuple[float, float]) -> np.ndarray:
    o = np.arange(out_len, dtype=np.float64)
    if mode == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = out_len / (scale * in_len)
        center = in_len / 2
        return center * (1 - adjustment) + (o + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if out_len > 1 else np.zeros(out_len)
    if mode == "align_corners":  # ONNX divides by the unrounded output length in_len * scale
        out_f = in_len * scale
        return o * (in_len - 1) / (out_f - 1) if out_len > 1 else np.zeros(out_len)
    if mode == "asymmetric":
        return o / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out_len > 1:
            return start * (in_len - 1) + o * (end - start) * (in_len - 1) / (out_len - 1)
        return np.full(out_len, 0.5 * (start + end) * (in_len - 1))
    raise Unsupported(f"coordinate_transformation_mode '{mode}'")


def nearest_index(x: np.ndarray, mode: str) -> np.ndarray:
    if mode == "round_prefer_floor":
        return np.where(x == np.floor(x) + 0.5, np.floor(x), np.round(x))
    if mode == "round_prefer_ceil":
        return np.floor(x + 0.5)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    raise Unsupported(f"nearest_mode '{mode}'")


def cubic_weights(t: np.ndarray, a: float) -> np.ndarray:
    """The four cubic convolution weights for taps at offsets -1, 0, 1, 2 from floor(x)."""
    d = np.stack([t + 1, t, 1 - t, 2 - t], axis=-1)
    ad = np.abs(d)
    near = ((a + 2) * ad - (a + 3)) * ad * ad + 1
    far = ((a * ad - 5 * a) * ad + 8 * a) * ad - 4 * a
    return np.where(ad <= 1, near, np.where(ad < 2, far, 0.0))


def taps(n, out_len: int, in_len: int, scale: float, roi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indices [out, T], weights [out, T], inside [out]) for one axis."""
    mode = n.attr("mode", "nearest")
    ctm = n.attr("coordinate_transformation_mode", "half_pixel" if n.opset >= 11 else "asymmetric")
    x = source_coords(ctm, out_len, in_len, scale, roi)
    inside = (x >= 0) & (x <= in_len - 1) if ctm == "tf_crop_and_resize" else np.ones(out_len, bool)
    if mode == "nearest":
        legacy = n.op == "Upsample" or n.opset < 11  # before nearest_mode, nearest meant floor
        i = nearest_index(x, "floor" if legacy else n.attr("nearest_mode", "round_prefer_floor"))
        return np.clip(i, 0, in_len - 1)[:, None].astype(np.int64), np.ones((out_len, 1)), inside
    base = np.floor(x)
    t = x - base
    if mode == "linear":
        offs, w = np.array([0, 1]), np.stack([1 - t, t], axis=-1)
    elif mode == "cubic":
        offs, w = np.array([-1, 0, 1, 2]), cubic_weights(t, n.attr("cubic_coeff_a", -0.75))
    else:
        raise Unsupported(f"mode '{mode}'")
    idx = base[:, None].astype(np.int64) + offs[None, :]
    if n.attr("exclude_outside", 0):
        w = np.where((idx >= 0) & (idx < in_len), w, 0.0)
        w = w / w.sum(axis=1, keepdims=True)
    return np.clip(idx, 0, in_len - 1), w, inside


@handler("Resize", "Upsample")
def resize(n):
    x = n.x(0)
    s = static_dims(x, n.op)
    rank = len(s)
    if n.attr("antialias", 0):
        raise Unsupported("antialias")
    if n.op == "Upsample" or n.opset < 11:
        scales = list(n.s(1).reshape(-1)) if n.has(1) else list(n.attr("scales"))
        sizes, roi, ax = None, None, list(range(rank))
    else:
        roi = n.s(1).reshape(-1).astype(np.float64) if n.has(1) and n.s(1).size else None
        scales = list(n.s(2).reshape(-1)) if n.has(2) and n.s(2).size else None
        sizes = [int(v) for v in n.s(3).reshape(-1)] if n.has(3) and n.s(3).size else None
        ax = [a % rank for a in n.attr("axes", range(rank))]
    k = len(ax)
    if sizes is not None:
        in_sz = [s[a] for a in ax]
        policy = n.attr("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            ratios = [o / i for o, i in zip(sizes, in_sz)]
            r = min(ratios) if policy == "not_larger" else max(ratios)
            sizes = [int(np.floor(r * i + 0.5)) for i in in_sz]
            scales = [r] * k
        else:
            scales = [o / i for o, i in zip(sizes, in_sz)]
    else:
        sizes = [int(np.floor(s[a] * float(sc))) for a, sc in zip(ax, scales)]
    rois = [(0.0, 1.0)] * k
    if roi is not None and n.attr("coordinate_transformation_mode", "") == "tf_crop_and_resize":
        rois = [(float(roi[i]), float(roi[i + k])) for i in range(k)]
    out = x if is_float_dtype(x.dtype) else x.cast("f32")
    extrap = n.attr("extrapolation_value", 0.0)
    for (a, size, sc, r) in zip(ax, sizes, scales, rois):
        if size == s[a] and float(sc) == 1.0 and n.attr("coordinate_transformation_mode", "") != "tf_crop_and_resize":
            continue
        idx, w, inside = taps(n, size, s[a], float(sc), r)
        out = _apply_axis(out, a, idx, w, inside, extrap)
    return [out if out.dtype == x.dtype else out.cast(x.dtype)]


def _apply_axis(x, a: int, idx: np.ndarray, w: np.ndarray, inside: np.ndarray, extrap: float):
    rank = len(shape(x))
    dt = to_numpy(x.dtype)
    bshape = [1] * rank
    bshape[a] = idx.shape[0]
    total = None
    for t in range(idx.shape[1]):
        g = take(x, to_tensor(idx[:, t]), a)
        if not np.all(w[:, t] == 1):
            g = g * to_tensor(w[:, t].astype(dt).reshape(bshape))
        total = g if total is None else total + g
    if not inside.all():
        total = op("where", to_tensor(inside.reshape(bshape)), total, to_tensor(np.array(extrap, dtype=dt)))
    return total
