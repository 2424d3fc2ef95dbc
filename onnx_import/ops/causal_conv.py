"""CausalConvWithState (opset 27): a causal depthwise 1-D convolution over the past state and the input, as k
shifted slices times the per-channel taps (k is the weight's static width); the new state is the last k-1
positions."""

from __future__ import annotations

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.movement import _slice_axis
from kiln.onnx.ops.util import reshape, shape, static_dims
from kiln.onnx.registry import handler


@handler("CausalConvWithState")
def causal_conv_with_state(n):
    x, w = n.x(0), n.x(1)
    activation = n.attr("activation", "none")
    if activation not in ("none", "silu", "swish"):
        raise Unsupported(f"activation '{activation}' (ONNX defines none, silu and swish)")
    if len(shape(x)) != 3 or len(shape(w)) != 3:
        raise Unsupported("input and weight must be rank 3 (batch, channels, length) and (channels, 1, k)")
    channels, _, k = static_dims(w, "CausalConvWithState weight")
    if k > 1:
        past = n.x(3) if n.has(3) else _zeros(x, k - 1)
        padded = past.cat(x, axis=2)
    else:
        padded = x
    total = shape(padded)[2]
    if not isinstance(total, int):
        raise Unsupported("CausalConvWithState with a symbolic length")
    out = None
    for j in range(k):
        term = _slice_axis(padded, 2, j, total - (k - 1) + j) * reshape(_slice_axis(w, 2, j, j + 1), [channels, 1])
        out = term if out is None else out + term
    if n.has(2):
        out = out + reshape(n.x(2), [channels, 1])
    if activation != "none":  # in f32 for half types, as the reference
        half = out.dtype in ("f16", "bf16")
        f = out.cast("f32") if half else out
        f = f * f.sigmoid()
        out = f.cast(out.dtype) if half else f
    return [out, _slice_axis(padded, 2, total - (k - 1), total)]


def _zeros(x, width: int):
    """Zeros of x's batch and channels, ``width`` positions long."""
    b, c, _ = shape(x)
    return _slice_axis(x, 2, 0, 1).full_like(0.0).expand(b, c, width)
