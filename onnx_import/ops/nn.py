"""Linear algebra and convolutions: MatMul, Gemm, Einsum, integer matmuls, Conv/ConvTranspose (1-, 2-, 3-D, on
kiln's conv2d), Softmax family (ONNX's pre-13 flattening semantics included)."""

from __future__ import annotations

import numpy as np

from kiln.jit import Tensor
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import axis as norm_axis, is_float_dtype, op, reshape, scalar_like, shape, spatial_dims, static_dims
from kiln.onnx.registry import handler


@handler("MatMul")
def matmul(n):
    return [op("matmul", n.x(0), n.x(1))]


@handler("MatMulInteger")
def matmul_integer(n):
    a, b = n.x(0).cast("i32"), n.x(1).cast("i32")
    if n.has(2):
        a = a - n.x(2).cast("i32")
    if n.has(3):
        zb = n.x(3).cast("i32")
        b = b - (zb if len(shape(zb)) == 0 else reshape(zb, [1] * (len(shape(b)) - 1) + list(shape(zb))))
    return [op("matmul", a, b)]


@handler("Gemm")
def gemm(n):
    a, b = n.x(0), n.x(1)
    if n.attr("transA", 0):
        a = a.permute(1, 0)
    if n.attr("transB", 0):
        b = b.permute(1, 0)
    y = op("matmul", a, b)
    alpha, beta = n.attr("alpha", 1.0), n.attr("beta", 1.0)
    if alpha != 1.0:
        y = y * scalar_like(y, alpha)
    if n.has(2):
        c = n.x(2)
        if beta != 1.0:
            c = c * scalar_like(c, beta)
        y = y + c
    return [y]


@handler("Softmax", "LogSoftmax", "Hardmax")
def softmax(n):
    x = n.x(0)
    s = shape(x)
    rank = len(s)
    if n.opset < 13:
        a = norm_axis(n.attr("axis", 1), rank)
        lead = s[:a]
        x2 = reshape(x, [*lead, -1] if a > 0 else [1, -1])
        y = _softmax_axis(n.op, x2, len(shape(x2)) - 1)
        return [reshape(y, s)]
    return [_softmax_axis(n.op, x, norm_axis(n.attr("axis", -1), rank))]


def _softmax_axis(kind: str, x: Tensor, a: int) -> Tensor:
    if kind == "Softmax":
        return op("softmax", x, axis=a)
    if kind == "LogSoftmax":
        return op("log_softmax", x, axis=a)
    d = shape(x)[a]
    from kiln.onnx.ops.reduce import arg

    idx = arg("argmax", x, a, True)
    r = [1] * len(shape(x))
    r[a] = d
    pos = Tensor(np.arange(d, dtype=np.int64).reshape(r), device=x.device)
    return op("eq", idx, pos).cast(x.dtype)


@handler("Einsum")
def einsum(n):
    eq = n.attr("equation").replace(" ", "")
    xs = [n.x(i) for i in range(n.n_in)]
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq]
    ell_rank = max((len(shape(x)) - len(t.replace("...", "")) for x, t in zip(xs, terms) if "..." in t), default=0)
    ell = "".join(free[:ell_rank])
    terms = [t.replace("...", ell[ell_rank - (len(shape(x)) - len(t.replace("...", ""))):]) for x, t in zip(xs, terms)]
    if not _:
        counts = {c: sum(t.count(c) for t in terms) for c in set("".join(terms))}
        rhs = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    else:
        rhs = rhs.replace("...", ell)
    labels = list(dict.fromkeys(rhs + "".join(terms)))
    prod = None
    for x, t in zip(xs, terms):
        if len(set(t)) != len(t):
            x, t = _diagonal(x, t)
        perm = sorted(range(len(t)), key=lambda i: labels.index(t[i]))
        y = x.permute(*perm) if len(t) > 1 else x
        tt = [t[i] for i in perm]
        full = [shape(y)[tt.index(c)] if c in tt else 1 for c in labels]
        y = reshape(y, full)
        prod = y if prod is None else prod * y
    summed = tuple(i for i, c in enumerate(labels) if c not in rhs)
    if summed:
        prod = op("reduce_sum", prod, axes=summed, keepdims=False)
    kept = [c for c in labels if c in rhs]
    perm = [kept.index(c) for c in rhs]
    return [prod.permute(*perm) if len(perm) > 1 and perm != sorted(perm) else prod]


def _diagonal(x: Tensor, t: str) -> tuple[Tensor, str]:
    """Take the diagonal of repeated labels in one operand (``ii->i``) by masking and summing."""
    s = static_dims(x, "Einsum diagonal")
    out_t = "".join(dict.fromkeys(t))
    mask = np.ones(s, dtype=bool)
    for c in set(t):
        pos = [i for i, ch in enumerate(t) if ch == c]
        for p in pos[1:]:
            idx = np.indices(s)
            mask &= idx[pos[0]] == idx[p]
    y = op("where", Tensor(mask, device=x.device), x, scalar_like(x, 0))
    drop = tuple(i for i, ch in enumerate(t) if t.index(ch) != i)
    return op("reduce_sum", y, axes=drop, keepdims=False), out_t


def conv_pads(n, spatial: tuple, kernel: list[int], strides: list[int], dil: list[int]) -> list[tuple[int, int]]:
    """(low, high) padding per spatial axis from ``pads`` or ``auto_pad``."""
    auto = n.attr("auto_pad", "NOTSET")
    k = len(spatial)
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        out = []
        for d, kk, s, dl in zip(spatial, kernel, strides, dil):
            o = -(-d // s)
            total = max((o - 1) * s + (kk - 1) * dl + 1 - d, 0)
            lo = total // 2 if auto == "SAME_UPPER" else total - total // 2
            out.append((lo, total - lo))
        return out
    if auto == "VALID":
        return [(0, 0)] * k
    pads = list(n.attr("pads", [0] * (2 * k)))
    return [(pads[i], pads[i + k]) for i in range(k)]


@handler("Conv", "ConvInteger")
def conv(n):
    x, w = n.x(0), n.x(1)
    out_dtype = x.dtype
    if n.op == "ConvInteger":
        x = x.cast("f32") - (n.x(2).cast("f32") if n.has(2) else scalar_like(x.cast("f32"), 0))
        wz = n.x(3).cast("f32") if n.has(3) else scalar_like(w.cast("f32"), 0)
        if len(shape(wz)) == 1:  # one zero point per output channel
            wz = reshape(wz, [shape(wz)[0]] + [1] * (len(shape(w)) - 1))
        w = w.cast("f32") - wz
        out_dtype = "i32"
    if not is_float_dtype(x.dtype):
        raise Unsupported(f"Conv on {x.dtype}")
    ws = static_dims(w, "Conv weight")
    kernel = list(n.attr("kernel_shape", ws[2:]))
    k = len(kernel)
    strides = list(n.attr("strides", [1] * k))
    dil = list(n.attr("dilations", [1] * k))
    pads = conv_pads(n, shape(x)[2:], kernel, strides, dil)
    b = n.x(2) if n.op == "Conv" and n.has(2) else None
    y = convnd(x, w, b, strides, pads, dil, n.attr("group", 1))
    return [y.cast(out_dtype) if y.dtype != out_dtype else y]


def convnd(x: Tensor, w: Tensor, b, strides, pads, dil, groups) -> Tensor:
    """N-d convolution (N = 1, 2, 3) on graph.conv2d; asymmetric padding is an explicit pad first."""
    k = len(strides)
    if any(lo != hi for lo, hi in pads):
        x = x.pad([(0, 0), (0, 0), *pads])
        pads = [(0, 0)] * k
    if k == 1:
        x1 = x.unsqueeze(2)
        w1 = w.unsqueeze(2)
        y = convnd(x1, w1, b, [1, strides[0]], [(0, 0), pads[0]], [1, dil[0]], groups)
        return y.squeeze(2)
    if k == 2:
        kw = {"stride": tuple(strides), "padding": (pads[0][0], pads[1][0]), "dilation": tuple(dil), "groups": groups}
        srcs = [x, w] + ([b] if b is not None else [])
        return op("conv2d", *srcs, **kw)
    if k == 3:
        return _conv3d(x, w, b, strides, pads, dil, groups)
    raise Unsupported(f"{k}-D convolution")


def _conv3d(x, w, b, strides, pads, dil, groups):
    """Sum over the kernel's depth of 2-D convolutions of strided depth slices."""
    if pads[0][0]:
        x = x.pad([(0, 0), (0, 0), pads[0], (0, 0), (0, 0)])
    N, C, D, H, W = shape(x)
    O, _, KD = static_dims(w, "Conv weight")[:3]
    Do = (D - (KD - 1) * dil[0] - 1) // strides[0] + 1
    total = None
    for dz in range(KD):
        start = dz * dil[0]
        xs = x[:, :, start:start + (Do - 1) * strides[0] + 1:strides[0]]
        xs = xs.permute(0, 2, 1, 3, 4).reshape(-1, C, H, W)
        y = convnd(xs, w[:, :, dz], b if dz == 0 else None, strides[1:], pads[1:], dil[1:], groups)
        Ho, Wo = shape(y)[2:]
        y = y.reshape(N, Do, O, Ho, Wo).permute(0, 2, 1, 3, 4)
        total = y if total is None else total + y
    return total


def _dilate(x: Tensor, a: int, s: int) -> Tensor:
    """Insert s-1 zeros between the elements along axis a."""
    if s == 1:
        return x
    d = shape(x)[a]
    widths = [(0, 0)] * (len(shape(x)) + 1)
    widths[a + 1] = (0, s - 1)
    y = x.unsqueeze(a + 1).pad(widths)
    new = list(shape(x))
    new[a] = d * s
    y = reshape(y, new)
    key = [slice(None)] * len(new)
    key[a] = slice(0, d * s - (s - 1))
    return y[tuple(key)]


@handler("ConvTranspose")
def conv_transpose(n):
    x, w = n.x(0), n.x(1)
    ws = static_dims(w, "ConvTranspose weight")
    kernel = list(n.attr("kernel_shape", ws[2:]))
    k = len(kernel)
    strides = list(n.attr("strides", [1] * k))
    dil = list(n.attr("dilations", [1] * k))
    outpad = list(n.attr("output_padding", [0] * k))
    g = n.attr("group", 1)
    spatial = spatial_dims(x, "ConvTranspose")
    full = [s * (d - 1) + op_ + (kk - 1) * dl + 1 for s, d, op_, kk, dl in zip(strides, spatial, outpad, kernel, dil)]
    auto = n.attr("auto_pad", "NOTSET")
    if "output_shape" in n.attrs or auto in ("SAME_UPPER", "SAME_LOWER"):
        target = list(n.attr("output_shape", [d * s for d, s in zip(spatial, strides)]))[-k:]
        pads = []
        for f, t in zip(full, target):
            total = f - t
            if auto == "SAME_UPPER":
                pads.append((total // 2, total - total // 2))
            else:
                pads.append((total - total // 2, total // 2))
    else:
        p = list(n.attr("pads", [0] * (2 * k)))
        pads = [(p[i], p[i + k]) for i in range(k)]
    y = x
    for i, s in enumerate(strides):
        y = _dilate(y, 2 + i, s)
    widths = [(0, 0), (0, 0)] + [
        ((kk - 1) * dl - lo, (kk - 1) * dl - hi + o) for kk, dl, (lo, hi), o in zip(kernel, dil, pads, outpad)
    ]
    y = y.pad(widths)
    C, Og = ws[0], ws[1]
    wt = w.reshape(g, C // g, Og, *kernel).permute(0, 2, 1, *range(3, 3 + k)).reshape(g * Og, C // g, *kernel)
    wt = wt.flip(tuple(range(2, 2 + k)))
    b = n.x(2) if n.has(2) else None
    return [convnd(y, wt, b, [1] * k, [(0, 0)] * k, dil, g)]
