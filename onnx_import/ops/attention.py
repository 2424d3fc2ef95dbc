"""Transformer pieces without an ONNX function body: RotaryEmbedding (rotate pairs of features by position)."""

from __future__ import annotations

from kiln.onnx.ops.indexing import take
from kiln.onnx.ops.util import reshape, static_dims
from kiln.onnx.registry import handler


@handler("RotaryEmbedding")
def rotary_embedding(n):
    x, cos, sin = n.x(0), n.x(1), n.x(2)
    s = static_dims(x, "RotaryEmbedding")
    if len(s) == 4:
        b, heads, seq, h = s
        xs = x.permute(0, 2, 1, 3)
    else:
        b, seq, hidden = s
        heads = n.attr("num_heads")
        h = hidden // heads
        xs = reshape(x, [b, seq, heads, h])
    rot = n.attr("rotary_embedding_dim", 0) or h
    if n.has(3):
        pos = n.x(3).cast("i64")
        cos, sin = take(cos, pos, 0), take(sin, pos, 0)
    cos, sin = cos[..., : rot // 2].unsqueeze(2), sin[..., : rot // 2].unsqueeze(2)
    xr = xs[..., :rot]
    if n.attr("interleaved", 0):
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = xr[..., : rot // 2], xr[..., rot // 2:]
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if n.attr("interleaved", 0):
        out = reshape(real.unsqueeze(4).cat(imag.unsqueeze(4), axis=4), [b, seq, heads, rot])
    else:
        out = real.cat(imag, axis=3)
    if rot < h:
        out = out.cat(xs[..., rot:], axis=3)
    if len(s) == 4:
        return [out.permute(0, 2, 1, 3)]
    return [reshape(out, [b, seq, heads * h])]
