"""Normalizations: BatchNormalization (inference), Instance/Layer/Lp normalization, LRN."""

from __future__ import annotations

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import axis as norm_axis, op, reshape, scalar_like, shape
from kiln.onnx.registry import handler


def _channel(t, rank: int):
    """A per-channel vector [C] shaped to broadcast over NC...: [C, 1, ...]."""
    return reshape(t, [shape(t)[0]] + [1] * (rank - 2))


@handler("BatchNormalization")
def batch_norm(n):
    if n.attr("training_mode", 0) or (n.opset < 9 and not n.attr("is_test", 1) and n.opset < 7):
        raise Unsupported("training_mode (kiln imports inference graphs)")
    if n.n_out > 1 and any(n.proto.output[1:]):
        raise Unsupported("the running statistics outputs of training mode")
    x, scale, bias, mean, var = (n.x(i) for i in range(5))
    rank = len(shape(x))
    eps = n.attr("epsilon", 1e-5)
    inv = (_channel(var, rank) + scalar_like(x, eps)).rsqrt() * _channel(scale, rank)
    return [(x - _channel(mean, rank)) * inv + _channel(bias, rank)]


@handler("InstanceNormalization")
def instance_norm(n):
    x, scale, bias = n.x(0), n.x(1), n.x(2)
    rank = len(shape(x))
    ax = tuple(range(2, rank))
    mean = op("mean", x, axes=ax, keepdims=True)
    c = x - mean
    var = op("mean", c * c, axes=ax, keepdims=True)
    y = c * (var + scalar_like(x, n.attr("epsilon", 1e-5))).rsqrt()
    return [y * _channel(scale, rank) + _channel(bias, rank)]


@handler("LayerNormalization")
def layer_norm(n):
    x = n.x(0)
    rank = len(shape(x))
    a = norm_axis(n.attr("axis", -1), rank)
    ax = tuple(range(a, rank))
    eps = n.attr("epsilon", 1e-5)
    mean = op("mean", x, axes=ax, keepdims=True)
    c = x - mean
    inv = (op("mean", c * c, axes=ax, keepdims=True) + scalar_like(x, eps)).rsqrt()
    y = c * inv
    if n.has(1):
        y = y * n.x(1)
    if n.has(2):
        y = y + n.x(2)
    return [y, mean, inv][: n.n_out]


@handler("LpNormalization")
def lp_norm(n):
    x = n.x(0)
    a = norm_axis(n.attr("axis", -1), len(shape(x)))
    p = n.attr("p", 2)
    if p == 1:
        norm = op("reduce_sum", x.abs(), axes=(a,), keepdims=True)
    elif p == 2:
        norm = op("reduce_sum", x * x, axes=(a,), keepdims=True).sqrt()
    else:
        raise Unsupported(f"p={p}")
    zero = scalar_like(x, 0)
    return [op("where", op("eq", norm, zero), zero, x / norm)]


@handler("LRN")
def lrn(n):
    x = n.x(0)
    size = n.attr("size")
    alpha, beta, bias = n.attr("alpha", 1e-4), n.attr("beta", 0.75), n.attr("bias", 1.0)
    rank = len(shape(x))
    C = shape(x)[1]
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = (x * x).pad([(0, 0), (lo, hi)] + [(0, 0)] * (rank - 2))
    total = None
    for i in range(size):
        win = sq[:, i:i + C]
        total = win if total is None else total + win
    return [x / (scalar_like(x, bias) + scalar_like(x, alpha / size) * total) ** scalar_like(x, beta)]
