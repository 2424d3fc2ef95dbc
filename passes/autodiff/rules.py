"""Gradient rules of the `graph` dialect: one entry per op, keyed by the op's name.

A rule is ``rule(b, p, g) -> [cotangent or None per operand]``: given the builder ``b`` (``builder.py``), the
primal op ``p`` (its ``operands``, ``result`` and ``props``) and the cotangent ``g`` of its result (the
result's shape and dtype), it returns the vector-Jacobian product for each operand. A rule may return a
cotangent of the result's (broadcast) shape: the engine sums it back to the operand's shape. ``None`` means no
gradient flows to that operand: integer operands (indices, conditions), and piecewise-constant ops whose
derivative is zero almost everywhere (floor, sign, comparisons). An op whose derivative is not defined raises
``NotDifferentiable`` when a gradient has to pass through it.

Each rule is a small function named after its op so it can move next to the op's declaration (the design's
"one definition per op") without changing; ``GRADIENTS`` below is the one table the engine reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute

from kiln.dialects.types import is_float, DTYPES
from kiln.passes.autodiff.builder import GradBuilder
from kiln.passes.graph_decompose import _lowest


class NotDifferentiable(Exception):
    """A gradient had to flow through an op that has none; the message names the op."""


@dataclass(frozen=True)
class Primal:
    """One op of the function being differentiated, as the rules see it (IR op or lazy node alike)."""

    name: str
    operands: Sequence[Any]
    result: Any
    props: dict[str, Attribute]

    def ints(self, key: str, default: Sequence[int] = ()) -> tuple[int, ...]:
        attr = self.props.get(key)
        return tuple(int(v) for v in attr.get_values()) if attr is not None else tuple(default)  # type: ignore[attr-defined]

    def int(self, key: str, default: int = 0) -> int:
        attr = self.props.get(key)
        return int(attr.value.data) if attr is not None else default  # type: ignore[attr-defined]

    def flag(self, key: str) -> bool:
        attr = self.props.get(key)
        return bool(attr is not None and attr.value.data)  # type: ignore[attr-defined]

    def float(self, key: str) -> float:
        return float(self.props[key].value.data)  # type: ignore[attr-defined]


Rule = Callable[[GradBuilder, Primal, Any], Sequence[Any]]


def _unary(fn: Callable[[GradBuilder, Any, Any, Any], Any]) -> Rule:
    """A rule from ``fn(b, x, y, g) -> dx`` for a one-operand op."""
    return lambda b, p, g: [fn(b, p.operands[0], p.result, g)]


def no_gradient(b: GradBuilder, p: Primal, g: Any) -> list[None]:
    """Piecewise constant, or integer/boolean valued: nothing flows back."""
    return [None] * len(p.operands)


def not_differentiable(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    raise NotDifferentiable(f"graph.{p.name} is not differentiable: a gradient would have to flow through it")


# ------------------------------------------------------------------------------------------- elementwise

_LN2 = math.log(2.0)


def _gelu(b: GradBuilder, x: Any, y: Any, g: Any) -> Any:
    """d/dx x*Phi(x) = Phi(x) + x * phi(x)."""
    cdf = b.scale(b.add(b.scalar(1, x), b.op("erf", b.scale(x, 1 / math.sqrt(2)))), 0.5)
    pdf = b.scale(b.op("exp", b.scale(b.mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
    return b.mul(g, b.add(cdf, b.mul(x, pdf)))


UNARY_RULES: dict[str, Rule] = {
    "neg": _unary(lambda b, x, y, g: b.neg(g)),
    "abs": _unary(lambda b, x, y, g: b.mul(g, b.op("sign", x))),
    "relu": _unary(lambda b, x, y, g: b.select(b.op("gt", x, b.scalar(0, x)), g)),
    "exp": _unary(lambda b, x, y, g: b.mul(g, y)),
    "exp_nonpositive": _unary(lambda b, x, y, g: b.mul(g, y)),
    "exp2": _unary(lambda b, x, y, g: b.scale(b.mul(g, y), _LN2)),
    "log": _unary(lambda b, x, y, g: b.div(g, x)),
    "log2": _unary(lambda b, x, y, g: b.div(g, b.scale(x, _LN2))),
    "sin": _unary(lambda b, x, y, g: b.mul(g, b.op("cos", x))),
    "cos": _unary(lambda b, x, y, g: b.neg(b.mul(g, b.op("sin", x)))),
    "sqrt": _unary(lambda b, x, y, g: b.div(g, b.scale(y, 2))),
    "rsqrt": _unary(lambda b, x, y, g: b.mul(g, b.scale(b.mul(y, b.mul(y, y)), -0.5))),
    "reciprocal": _unary(lambda b, x, y, g: b.neg(b.mul(g, b.mul(y, y)))),
    "tanh": _unary(lambda b, x, y, g: b.mul(g, b.sub(b.scalar(1, y), b.mul(y, y)))),
    "sigmoid": _unary(lambda b, x, y, g: b.mul(g, b.mul(y, b.sub(b.scalar(1, y), y)))),
    "gelu": _unary(_gelu),
    "erf": _unary(lambda b, x, y, g: b.mul(g, b.scale(b.op("exp", b.neg(b.mul(x, x))), 2 / math.sqrt(math.pi)))),
    "erfc": _unary(lambda b, x, y, g: b.mul(g, b.scale(b.op("exp", b.neg(b.mul(x, x))), -2 / math.sqrt(math.pi)))),
    "tan": _unary(lambda b, x, y, g: b.mul(g, b.add(b.scalar(1, y), b.mul(y, y)))),
    "asin": _unary(lambda b, x, y, g: b.div(g, b.op("sqrt", b.sub(b.scalar(1, x), b.mul(x, x))))),
    "acos": _unary(lambda b, x, y, g: b.neg(b.div(g, b.op("sqrt", b.sub(b.scalar(1, x), b.mul(x, x)))))),
    "atan": _unary(lambda b, x, y, g: b.div(g, b.add(b.scalar(1, x), b.mul(x, x)))),
    "sinh": _unary(lambda b, x, y, g: b.mul(g, b.op("cosh", x))),
    "cosh": _unary(lambda b, x, y, g: b.mul(g, b.op("sinh", x))),
    "asinh": _unary(lambda b, x, y, g: b.div(g, b.op("sqrt", b.add(b.mul(x, x), b.scalar(1, x))))),
    "acosh": _unary(lambda b, x, y, g: b.div(g, b.op("sqrt", b.sub(b.mul(x, x), b.scalar(1, x))))),
    "atanh": _unary(lambda b, x, y, g: b.div(g, b.sub(b.scalar(1, x), b.mul(x, x)))),
    **{name: no_gradient for name in ("sign", "trunc", "floor", "ceil", "round", "not", "isnan", "isinf")},
}


def _pow(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """d/da = b * a**(b-1); d/db = y * log(a), taken as 0 where a == 0 (so 0**b stays finite)."""
    a, e = p.operands
    da = b.mul(g, b.mul(e, b.op("pow", a, b.sub(e, b.scalar(1, e)))))
    at_zero = b.op("eq", a, b.scalar(0, a))
    de = b.op("where", at_zero, b.scalar(0, a), b.mul(g, b.mul(p.result, b.op("log", a))))
    return [da, de]


def _extreme2(cmp: str) -> Rule:
    """max/min of two: the winner gets the gradient; a tie splits it evenly (the central difference)."""

    def rule(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
        x, y = p.operands
        half = b.scale(g, 0.5)
        to_x = b.op("where", b.op(cmp, x, y), g, b.op("where", b.op("eq", x, y), half, b.scalar(0, g)))
        return [to_x, b.sub(g, to_x)]

    return rule


BINARY_RULES: dict[str, Rule] = {
    "add": lambda b, p, g: [g, g],
    "sub": lambda b, p, g: [g, b.neg(g)],
    "mul": lambda b, p, g: [b.mul(g, p.operands[1]), b.mul(g, p.operands[0])],
    "div": lambda b, p, g: [b.div(g, p.operands[1]), b.neg(b.div(b.mul(g, p.result), p.operands[1]))],
    "pow": _pow,
    "max": _extreme2("gt"),
    "min": _extreme2("lt"),
    "mod": lambda b, p, g: [g, b.neg(b.mul(g, b.op("idiv", *p.operands)))],
    **{n: no_gradient for n in ("idiv", "lt", "le", "gt", "ge", "eq", "ne", "and", "or", "xor", "shl", "shr")},
}


def _where(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    cond = p.operands[0]
    return [None, b.select(cond, g), b.op("where", cond, b.scalar(0, g), g)]


def _cast(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    x = p.operands[0]
    return [b.cast(g, b.dtype(x)) if is_float(DTYPES[b.dtype(x)]) else None]


# ------------------------------------------------------------------------------------------- reductions


def _reduce_sum(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    x = p.operands[0]
    return [b.expand(b.keepdims(g, b.shape(x), p.ints("axes")), b.shape(x))]


def _mean(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    x = p.operands[0]
    axes = p.ints("axes")
    return [b.div(b.expand(b.keepdims(g, b.shape(x), axes), b.shape(x)), b.count(x, axes))]


def _reduce_prod(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """g * y / x (exact wherever no element of the product is zero)."""
    x = p.operands[0]
    axes = p.ints("axes")
    y_g = b.mul(b.keepdims(p.result, b.shape(x), axes), b.keepdims(g, b.shape(x), axes))
    return [b.div(b.expand(y_g, b.shape(x)), x)]


def _reduce_extreme(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """The gradient goes to the elements equal to the extreme, split evenly among ties."""
    x = p.operands[0]
    axes = p.ints("axes")
    hit = b.op("eq", x, b.keepdims(p.result, b.shape(x), axes))
    ties = b.sum(b.cast(hit, b.dtype(x)), axes)
    return [b.select(hit, b.div(b.keepdims(g, b.shape(x), axes), ties))]


# ------------------------------------------------------------------------------------------- movement


def _reshape(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    return [b.reshape(g, b.shape(p.operands[0]))]


def _permute(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    perm = p.ints("perm")
    return [b.permute(g, [perm.index(i) for i in range(len(perm))])]


def _pad(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    shape = b.shape(p.operands[0])
    low = p.ints("low")
    limit = [-1 if isinstance(d, str) else lo + d for lo, d in zip(low, shape)]
    return [b.shrink(g, low, limit)]


def _shrink(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    shape = b.shape(p.operands[0])
    return [b.place(g, shape, p.ints("start"), p.ints("step", (1,) * len(shape)))]


def _concat(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    shape = b.shape(p.result)
    axis = p.int("axis") % len(shape)
    out, offset = [], 0
    for x in p.operands:
        n = b.shape(x)[axis]
        start = [offset if a == axis else 0 for a in range(len(shape))]
        limit = [offset + n if a == axis else (-1 if isinstance(d, str) else d) for a, d in enumerate(shape)]
        out.append(b.shrink(g, start, limit))
        offset += n  # type: ignore[operator]
    return out


# ------------------------------------------------------------------------------------------- composites


def _matmul(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """dA = G @ B^T, dB = A^T @ G, on the operands promoted to matrices (1-D ones get a unit axis back)."""
    x, y = p.operands
    xs, ys = b.shape(x), b.shape(y)
    x2 = x if len(xs) >= 2 else b.reshape(x, (1, *xs))
    y2 = y if len(ys) >= 2 else b.reshape(y, (*ys, 1))
    rs = b.shape(p.result)
    batch = rs[: len(rs) - (len(xs) >= 2) - (len(ys) >= 2)]
    g2 = b.reshape(g, (*batch, b.shape(x2)[-2], b.shape(y2)[-1]))
    dx = b.sum_to(b.op("matmul", g2, b.transpose_last(y2)), b.shape(x2))
    dy = b.sum_to(b.op("matmul", b.transpose_last(x2), g2), b.shape(y2))
    return [b.reshape(dx, xs), b.reshape(dy, ys)]


def _softmax(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    y = p.result
    return [b.mul(y, b.sub(g, b.sum(b.mul(g, y), (p.int("axis"),))))]


def _log_softmax(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    return [b.sub(g, b.mul(b.op("exp", p.result), b.sum(g, (p.int("axis"),))))]


def _layernorm(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)), dxhat = g * weight."""
    x, *affine = p.operands
    axes = p.ints("axes")
    centered = b.sub(x, b.mean(x, axes))
    rstd = b.op("rsqrt", b.add(b.mean(b.mul(centered, centered), axes), b.scalar(p.float("epsilon"), x)))
    xhat = b.mul(centered, rstd)
    dxhat = b.mul(g, affine[0]) if affine else g
    inner = b.sub(b.sub(dxhat, b.mean(dxhat, axes)), b.mul(xhat, b.mean(b.mul(dxhat, xhat), axes)))
    dx = b.mul(rstd, inner)
    return [dx, b.mul(g, xhat), g] if affine else [dx]


def _conv2d(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """Both adjoints are convolutions: dx convolves the stride-dilated G with the flipped, transposed filter;
    dw convolves the padded input (channels as batch) with G as the filter, stride and dilation swapped."""
    x, w, *bias = p.operands
    n, c, h, wd = b.shape(x)
    o, cg, kh, kw = b.shape(w)
    oh, ow = b.shape(g)[2:]
    groups = p.int("groups", 1)
    (sh, sw), (ph, pw), (dh, dw) = p.ints("stride", (1, 1)), p.ints("padding", (0, 0)), p.ints("dilation", (1, 1))
    og = o // groups
    # dx
    spread = b.place(g, (n, o, (oh - 1) * sh + 1, (ow - 1) * sw + 1), (0, 0, 0, 0), (1, 1, sh, sw))
    # a full correlation reaches (K-1)*dilation past each end; the low side starts at input row 0 (padding
    # cut), the high side is cut or zero-filled to H at the end (rows the strided windows never read)
    fh, fw = (kh - 1) * dh, (kw - 1) * dw
    spread = b.pad(spread, (0, 0, fh - ph, fw - pw), (0, 0, fh, fw))
    wt = b.reshape(b.permute(b.reshape(w, (groups, og, cg, kh, kw)), (0, 2, 1, 3, 4)), (c, og, kh, kw))
    dx = b.op("conv2d", spread, b.flip(wt, (2, 3)), stride=(1, 1), padding=(0, 0), dilation=(dh, dw), groups=groups)
    got_h, got_w = b.shape(dx)[2:]
    dx = b.pad(dx, (0, 0, 0, 0), (0, 0, h - got_h, wd - got_w))
    # dw
    xp = b.pad(x, (0, 0, ph, pw), (0, 0, ph, pw))
    hp, wp = b.shape(xp)[2:]
    xt = b.reshape(b.permute(b.reshape(xp, (n, groups, cg, hp, wp)), (2, 1, 0, 3, 4)), (cg, groups * n, hp, wp))
    gt = b.reshape(b.permute(b.reshape(g, (n, groups, og, oh, ow)), (1, 2, 0, 3, 4)), (o, n, oh, ow))
    dwt = b.op("conv2d", xt, gt, stride=(dh, dw), padding=(0, 0), dilation=(sh, sw), groups=groups)
    dwt = b.shrink(dwt, (0, 0, 0, 0), (cg, o, kh, kw))
    return [dx, b.permute(dwt, (1, 0, 2, 3)), *([b.sum(g, (0, 2, 3), keepdims=False)] if bias else [])]


def _pool(is_max: bool) -> Rule:
    """Each window offset (i, j) reads a strided slice of the padded input; its share of G is placed back
    through that slice's adjoint: all of G / (KH*KW) for avg, G at the window's maxima (ties split) for max."""

    def rule(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
        x = p.operands[0]
        n, c, h, w = b.shape(x)
        kh, kw = p.ints("kernel")
        sh, sw = p.ints("stride", (kh, kw))
        ph, pw = p.ints("padding", (0, 0))
        oh, ow = b.shape(g)[2:]
        fill = _lowest(DTYPES[b.dtype(x)]) if is_max else 0
        xp = b.pad(x, (0, 0, ph, pw), (0, 0, ph, pw), fill)
        full = b.shape(xp)
        offsets = [(i, j) for i in range(kh) for j in range(kw)]

        def window(i: int, j: int) -> Any:
            limit = (-1 if isinstance(n, str) else n, c, i + (oh - 1) * sh + 1, j + (ow - 1) * sw + 1)
            return b.shrink(xp, (0, 0, i, j), limit, (1, 1, sh, sw))

        if is_max:
            hits = [b.op("eq", window(i, j), p.result) for i, j in offsets]
            ties = b.cast(hits[0], b.dtype(g))
            for hit in hits[1:]:
                ties = b.add(ties, b.cast(hit, b.dtype(g)))
            share = b.div(g, ties)
            parts = [b.select(hit, share) for hit in hits]
        else:
            parts = [b.scale(g, 1 / (kh * kw))] * len(offsets)
        total = None
        for (i, j), part in zip(offsets, parts):
            placed = b.place(part, full, (0, 0, i, j), (1, 1, sh, sw))
            total = placed if total is None else b.add(total, placed)
        limit = (-1 if isinstance(n, str) else n, c, ph + h, pw + w)
        return [b.shrink(total, (0, 0, ph, pw), limit)]

    return rule


def _gather(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """Scatter-add G back along ``axis``: a one-hot comparison of the indices with an iota, summed over them."""
    x, idx = p.operands
    shape = b.shape(x)
    axis = p.int("axis") % len(shape)
    positions = b.op("iota", result=((shape[axis], *[1] * (len(shape) - axis - 1)), b.dtype(idx)), axis=0)
    hit = b.op("eq", b.unsqueeze(idx, axis + 1), positions)  # [.., M, D, ..]
    return [b.sum(b.select(hit, b.unsqueeze(g, axis + 1)), (axis,), keepdims=False), None]


def _cumsum(b: GradBuilder, p: Primal, g: Any) -> list[Any]:
    """The reversed prefix sum: element i gets the sum of G over j >= i."""
    axis = p.int("axis") % len(b.shape(g))
    return [b.flip(b.op("cumsum", b.flip(g, (axis,)), axis=axis), (axis,))]


GRADIENTS: dict[str, Rule] = {
    **UNARY_RULES,
    **BINARY_RULES,
    "where": _where,
    "cast": _cast,
    "bitcast": not_differentiable,
    "constant": no_gradient,
    "iota": no_gradient,
    "reduce_sum": _reduce_sum,
    "reduce_prod": _reduce_prod,
    "reduce_max": _reduce_extreme,
    "reduce_min": _reduce_extreme,
    "mean": _mean,
    "argmax": no_gradient,
    "argmin": no_gradient,
    "reshape": _reshape,
    "expand": lambda b, p, g: [g],
    "permute": _permute,
    "pad": _pad,
    "shrink": _shrink,
    "flip": lambda b, p, g: [b.flip(g, p.ints("axes"))],
    "concat": _concat,
    "contiguous": lambda b, p, g: [g],
    "matmul": _matmul,
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "layernorm": _layernorm,
    "conv2d": _conv2d,
    "max_pool2d": _pool(is_max=True),
    "avg_pool2d": _pool(is_max=False),
    "gather": _gather,
    "cumsum": _cumsum,
}
"""Graph op name (without ``graph.``) -> its gradient rule. Every op of the dialect has an entry."""
