"""DFT as two matmuls with cosine and sine matrices computed at import time (the signal length is static)."""

from __future__ import annotations

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.ops.util import axis as norm_axis, op, static_dims, to_tensor
from kiln.onnx.registry import handler


@handler("DFT")
def dft(n):
    x = n.x(0)
    s = static_dims(x, "DFT")
    rank = len(s)
    if n.opset >= 20:
        a = int(n.s(2).reshape(-1)[0]) if n.has(2) else -2
    else:
        a = n.attr("axis", 1)
    a = norm_axis(a, rank)
    inverse, onesided = n.attr("inverse", 0), n.attr("onesided", 0)
    length = int(n.s(1).reshape(-1)[0]) if n.has(1) and n.proto.input[1] else s[a]
    out_dtype = x.dtype
    x = x.cast("f64")  # sums of N products: f64 keeps them as exact as numpy's FFT
    xr = x[..., 0]
    xi = x[..., 1] if s[-1] == 2 else None
    d = s[a]
    if length != d:  # zero-pad or truncate the signal to the DFT length
        widths = [(0, 0)] * (rank - 1)
        if length > d:
            widths[a] = (0, length - d)
            xr = xr.pad(widths)
            xi = xi.pad(widths) if xi is not None else None
        else:
            key = [slice(None)] * (rank - 1)
            key[a] = slice(0, length)
            xr = xr[tuple(key)]
            xi = xi[tuple(key)] if xi is not None else None
    N = length
    K = N // 2 + 1 if onesided else N
    k = np.arange(K)[None, :]
    t = np.arange(N)[:, None]
    ang = 2 * np.pi * t * k / N
    dt = to_numpy(x.dtype)
    cos, sin = to_tensor(np.cos(ang).astype(dt)), to_tensor(np.sin(ang).astype(dt))
    perm = [i for i in range(rank - 1) if i != a] + [a]
    inv = list(np.argsort(perm))
    xr = xr.permute(*perm)
    xi = xi.permute(*perm) if xi is not None else None
    sign = 1.0 if inverse else -1.0
    re = op("matmul", xr, cos)
    im = op("matmul", xr, sin) * to_tensor(np.array(sign, dt))
    if xi is not None:
        re = re - op("matmul", xi, sin) * to_tensor(np.array(sign, dt))
        im = im + op("matmul", xi, cos)
    if inverse:
        re, im = re / to_tensor(np.array(N, dt)), im / to_tensor(np.array(N, dt))
    re, im = re.permute(*inv), im.permute(*inv)
    return [re.unsqueeze(rank - 1).cat(im.unsqueeze(rank - 1), axis=rank - 1).cast(out_dtype)]
