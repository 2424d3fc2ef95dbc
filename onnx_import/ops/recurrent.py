"""RNN, GRU and LSTM, unrolled over the (static) sequence length: the input projection of every step is one
matmul, then each step is a small matmul with the recurrent weights and the gate activations."""

from __future__ import annotations

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.elementwise import softplus
from kiln.onnx.ops.util import op, scalar_like, static_dims, to_tensor
from kiln.onnx.registry import handler

_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def activation(name: str, alpha, beta):
    k = lambda x, v: scalar_like(x, v)  # noqa: E731
    fns = {
        "sigmoid": lambda x: x.sigmoid(),
        "tanh": lambda x: x.tanh(),
        "relu": lambda x: x.relu(),
        "affine": lambda x: x * k(x, alpha) + k(x, beta),
        "leakyrelu": lambda x: op("where", op("lt", x, k(x, 0.0)), x * k(x, alpha), x),
        "thresholdedrelu": lambda x: op("where", op("gt", x, k(x, alpha)), x, k(x, 0.0)),
        "scaledtanh": lambda x: (x * k(x, beta)).tanh() * k(x, alpha),
        "hardsigmoid": lambda x: (x * k(x, alpha) + k(x, beta)).maximum(k(x, 0.0)).minimum(k(x, 1.0)),
        "elu": lambda x: op("where", op("gt", x, k(x, 0.0)), x, k(x, alpha) * (x.exp() - k(x, 1.0))),
        "softsign": lambda x: x / (x.abs() + k(x, 1.0)),
        "softplus": softplus,
    }
    key = name.lower()
    if key not in fns:
        raise Unsupported(f"activation '{name}'")
    return fns[key]


_DEFAULT_ALPHA = {"leakyrelu": 0.01, "thresholdedrelu": 1.0, "hardsigmoid": 0.2, "elu": 1.0, "affine": 1.0, "scaledtanh": 1.0}
_DEFAULT_BETA = {"hardsigmoid": 0.5, "affine": 0.0, "scaledtanh": 1.0}


def _acts(n, dirs: int):
    names = n.attr("activations", None) or _DEFAULT_ACTS[n.op] * dirs
    per = len(_DEFAULT_ACTS[n.op])
    if len(names) == per and dirs == 2:
        names = names * 2
    alphas = list(n.attr("activation_alpha", []) or [])
    betas = list(n.attr("activation_beta", []) or [])
    out = []
    for i, name in enumerate(names):
        a = alphas[i] if i < len(alphas) else _DEFAULT_ALPHA.get(name.lower(), 0.0)
        b = betas[i] if i < len(betas) else _DEFAULT_BETA.get(name.lower(), 0.0)
        out.append(activation(name, a, b))
    return [out[d * per:(d + 1) * per] for d in range(dirs)]


@handler("RNN", "GRU", "LSTM")
def recurrent(n):
    x, w, r = n.x(0), n.x(1), n.x(2)
    if n.attr("layout", 0):
        x = x.permute(1, 0, 2)
    seq, batch, _ = static_dims(x, n.op)
    G = _GATES[n.op]
    H = n.attr("hidden_size", None) or static_dims(r, "R")[-1]
    direction = n.attr("direction", "forward")
    dirs = 2 if direction == "bidirectional" else 1
    if n.has(4):
        lens = n.s(4).reshape(-1)
        if not (lens == seq).all():
            raise Unsupported("sequence_lens shorter than the sequence (ragged batches)")
    if n.op == "LSTM" and n.attr("input_forget", 0):
        raise Unsupported("input_forget")
    clip = n.attr("clip", None)
    acts = _acts(n, dirs)
    ys, hs, cs = [], [], []
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        wd, rd = w[d], r[d]
        b = n.x(3)[d] if n.has(3) else None
        h0 = n.x(5)[d] if n.has(5) else to_tensor(np.zeros((batch, H), dtype=to_numpy(x.dtype)))
        c0 = n.x(6)[d] if n.op == "LSTM" and n.has(6) else h0 * scalar_like(h0, 0.0)
        p = n.x(7)[d] if n.op == "LSTM" and n.has(7) else None
        y, h, c = _direction(n.op, x, wd, rd, b, h0, c0, p, acts[d], H, G, seq, reverse, clip, n.attr("linear_before_reset", 0))
        ys.append(y)
        hs.append(h)
        cs.append(c)
    Y = ys[0].unsqueeze(1) if dirs == 1 else ys[0].unsqueeze(1).cat(ys[1].unsqueeze(1), axis=1)
    Yh = hs[0].unsqueeze(0) if dirs == 1 else hs[0].unsqueeze(0).cat(hs[1].unsqueeze(0), axis=0)
    Yc = cs[0].unsqueeze(0) if dirs == 1 else cs[0].unsqueeze(0).cat(cs[1].unsqueeze(0), axis=0)
    if n.attr("layout", 0):
        Y, Yh, Yc = Y.permute(2, 0, 1, 3), Yh.permute(1, 0, 2), Yc.permute(1, 0, 2)
    return [Y, Yh, Yc][: n.n_out]


def _direction(kind, x, w, r, b, h, c, p, acts, H, G, seq, reverse, clip, lbr):
    xp = op("matmul", x, w.permute(1, 0))  # [seq, batch, G*H]
    wb = rb = None
    if b is not None:
        wb, rb = b[: G * H], b[G * H:]
        xp = xp + wb
    rt = r.permute(1, 0)
    steps = range(seq - 1, -1, -1) if reverse else range(seq)
    outs = {}

    def gate(t, i):
        return t[:, i * H:(i + 1) * H]

    def clipped(v):
        if clip is None:
            return v
        return v.maximum(scalar_like(v, -clip)).minimum(scalar_like(v, clip))

    for t in steps:
        xt = xp[t]
        if kind == "GRU":
            hr = op("matmul", h, rt)
            if rb is not None:
                hr = hr + rb
            z = acts[0](clipped(gate(xt, 0) + gate(hr, 0)))
            rr = acts[0](clipped(gate(xt, 1) + gate(hr, 1)))
            if lbr:
                hh = acts[1](clipped(gate(xt, 2) + rr * gate(hr, 2)))
            else:
                rh = op("matmul", rr * h, rt[:, 2 * H:3 * H])
                if rb is not None:
                    rh = rh + rb[2 * H:3 * H]
                hh = acts[1](clipped(gate(xt, 2) + rh))
            h = (scalar_like(z, 1.0) - z) * hh + z * h
        else:
            g = xt + op("matmul", h, rt)
            if rb is not None:
                g = g + rb
            if kind == "RNN":
                h = acts[0](clipped(g))
            else:
                gi, go, gf, gc = (gate(g, i) for i in range(4))
                if p is not None:
                    gi = gi + p[:H] * c
                    gf = gf + p[2 * H:] * c
                i_ = acts[0](clipped(gi))
                f_ = acts[0](clipped(gf))
                c = f_ * c + i_ * acts[1](clipped(gc))
                if p is not None:
                    go = go + p[H:2 * H] * c
                o_ = acts[0](clipped(go))
                h = o_ * acts[2](c)
        outs[t] = h
    ys = [outs[t].unsqueeze(0) for t in range(seq)]
    y = ys[0].cat(*ys[1:], axis=0) if len(ys) > 1 else ys[0]
    return y, h, c
