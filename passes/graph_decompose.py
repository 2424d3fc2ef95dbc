"""`graph-decompose`: rewrite composite graph ops into core ops (elementwise, reductions, movement, cast,
constants, iota, where), which is all the scheduler has to fuse and index.

What becomes what (x' is x cast to f32 when x is f16/bf16, so that the interpreter's rule "halves
accumulate in f32" holds in the IR itself; the result is cast back once at the end):

- `matmul`: ``reduce_sum(a'[..., M, 1, K] * permute(b')[..., 1, N, K], K)``; 1-D operands simply skip the
  inserted axis, batch dims broadcast implicitly.
- `softmax` / `log_softmax`: ``e = exp_nonpositive(x' - reduce_max(x'))``, then ``e / reduce_sum(e)`` or
  ``(x' - max) - log(reduce_sum(e))``. ``x' - max`` is <= 0 or nan (nan where the row holds +inf or nan, or is
  all -inf), which `exp_nonpositive` says, so that `uop-decompose` leaves out exp's clamp from above.
- `layernorm`: ``c = x' - mean(x')``, ``c * rsqrt(mean(c * c) + eps)``, then ``* w' + b'``.
- `mean` over static axes: ``reduce_sum(x') / count``. Over a symbolic axis the count is not a constant, so
  `mean` stays: it is a core reduction (the scheduler divides by the bound count).
- `conv2d`: zero `pad`, then sliding windows made of movement ops only (per spatial axis: reshape, expand,
  flatten, pad, reshape, strided shrink: see ``windows``), a grouped broadcast `mul` with the filter and a
  `reduce_sum` over (C/groups, KH, KW); bias is added last.
- `max_pool2d` / `avg_pool2d`: pad with -inf (int min) / 0, the same windows, `reduce_max` /
  ``reduce_sum / (KH*KW)``. A computed input is realized plain first (``contiguous``): fused, each tap read
  the producer (ResNet-50's stem: bias and relu of a flat matmul result) through the padded windows' index
  algebra, which the simplifier leaves dividing per tap, and the pool could not be vectorized (docs/performance.md,
  "ResNet-50, session 7"). Not a concat: the scheduler realizes that one itself, its pieces written in place.
  A `pad` of the pool's fill value in front of the pool (how the ONNX importer writes ceil mode and uneven
  pads) joins the pool's own padding: the value under it is what is realized, not a padded copy of it.
- `cumsum`: ``reduce_sum(where(iota_j <= iota_i, x'[.., 1, n, ..], 0), j)``, the triangular mask of tinygrad.
- `pow` by a constant exponent c that is a multiple of 1/4, 0 < c <= 4 or -1 <= c < 0: multiplies and square roots,
  vector ops where the target's pow is a scalar libm call per element (LRN's ``** 0.75``). ``x ** (n + f)`` is
  ``x ** n`` by squaring times ``sqrt(x)`` (f = 1/2), ``sqrt(sqrt(x))`` (1/4) or both (3/4); numpy's special
  values hold: with a fraction ±0 gives +0 (``(-0.0) ** 0.25`` is +0) and -inf gives +inf (finite
  negatives stay NaN, through sqrt); a negative c is ``1 / x ** -c``, exact on 0, inf and NaN, and never flushes
  a tiny result to 0 because ``|x| ** -c`` with ``-c <= 1`` cannot overflow. Other exponents keep `pow`. The
  exponent's shape does not matter (the interpreter's ``c_pow`` undoes numpy's ``sqrt`` shortcut for a 0-d 0.5).
- `argmax` / `argmin`: ``reduce_min(where(x == reduce_max(x) or x != x, iota, INT_MAX))``: the first index of
  the extreme; ``x != x`` makes the first NaN win, as in numpy. No constant depends on the axis length, so a
  symbolic axis works too.

Kept as core ops, by decision: `gather` (the scheduler lowers it to an indexed, bounds-gated load; a one-hot
sum would cost a reduction over the whole axis) and `concat` (the scheduler indexes its inputs under
validity conditions, cheaper than summing padded copies).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, f32, i32
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import PassFailedException

from kiln.support.statistics import Statistic
from kiln.dialects import graph
from kiln.dialects.types import Dim, TensorType, dtype_name, is_float, to_numpy
from kiln.passes.graph_canonicalize import splat_value


def tensor_type(v: SSAValue) -> TensorType:
    """The ``!graph.tensor`` type of a graph value."""
    t = v.type
    assert isinstance(t, TensorType)
    return t


def is_plain(x: SSAValue) -> bool:
    """A function argument or a realized (``contiguous``) value: reading it again recomputes nothing."""
    return isinstance(x, BlockArgument) or isinstance(x.owner, graph.ContiguousOp)


def realize_plain(b: Builder, x: SSAValue) -> SSAValue:
    """``x`` realized (``graph.contiguous``) unless it is plain. When ``x`` is an epilogue of a realized value
    that nothing else reads (a direct conv's output realized with its bias, then its relu), that first
    realization is dropped: the producer's kernel computes the epilogue and writes once, where a copy kernel
    read it back and wrote it again (VGG-19: one per direct conv layer; docs/performance.md, "VGG-19, session
    10")."""
    if is_plain(x):
        return x
    inner = _realized_under_epilogue(x)
    if inner is not None:
        b.rewriter.replace(inner, [], [inner.operands[0]])
    return b.op("contiguous", x, result=tensor_type(x))


def _realized_under_epilogue(x: SSAValue) -> Operation | None:
    """The ``graph.contiguous`` below ``x`` when ``x`` is a chain of elementwise ops of its shape over it, each
    value of the chain read only by the next, every other operand a constant or a view of a plain value (a
    bias)."""
    v = x
    while not isinstance(v.owner, graph.ContiguousOp):
        op = v.owner
        if not isinstance(op, graph.UnaryOp | graph.BinaryOp | graph.CastOp):
            return None
        chain = [o for o in op.operands if tensor_type(o).shape == tensor_type(v).shape and not _read_only(o)]
        if len(chain) != 1 or not all(o is chain[0] or _read_only(o) for o in op.operands):
            return None
        v = chain[0]
        if len(list(v.uses)) != 1:
            return None
    return v.owner if v is not x else None


def _read_only(x: SSAValue) -> bool:
    """A constant, or a reshape or expand of a plain value or a constant (a bias): read, nothing computed."""
    if not isinstance(x.owner, graph.ReshapeOp | graph.ExpandOp | graph.ConstantOp):
        return False
    while isinstance(x.owner, graph.ReshapeOp | graph.ExpandOp):
        x = x.owner.operands[0]
    return is_plain(x) or isinstance(x.owner, graph.ConstantOp)


def _scalar_attr(value: float | int, dtype: Attribute) -> Attribute:
    return FloatAttr(float(value), dtype) if is_float(dtype) else IntegerAttr(int(value), dtype)  # type: ignore[arg-type]


def _static_axes(x: SSAValue, axes: Sequence[int]) -> bool:
    return not any(isinstance(tensor_type(x).shape[a], str) for a in axes)


def _lowest(dtype: Attribute) -> float | int:
    """The identity of max: -inf, or the smallest integer."""
    return float("-inf") if is_float(dtype) else int(np.iinfo(to_numpy(dtype)).min)


class Builder:
    """Creates core graph ops in front of the op being rewritten, at its location (so kernels and errors
    made from them point at the composite's line); result types are inferred where the op classes can, given
    explicitly otherwise."""

    def __init__(self, rewriter: PatternRewriter, origin: Operation):
        self.rewriter = rewriter
        self.origin = origin

    def op(self, name: str, *operands: SSAValue, result: TensorType | None = None, **props: object) -> SSAValue:
        new = graph.op(name).build_op(list(operands), result, **props)
        new.location = self.origin.location
        self.rewriter.insert(new)
        return new.results[0]

    def const(self, value: float | int, dtype: Attribute) -> SSAValue:
        """A rank-0 splat: implicit broadcasting spreads it."""
        new = graph.ConstantOp.splat(value, TensorType((), dtype))  # type: ignore[attr-defined]
        new.location = self.origin.location
        self.rewriter.insert(new)
        return new.results[0]

    def cast(self, x: SSAValue, dtype: Attribute) -> SSAValue:
        t = tensor_type(x)
        return x if t.element_type == dtype else self.op("cast", x, result=TensorType(t.shape, dtype))

    def widen(self, x: SSAValue) -> SSAValue:
        """x in its compute dtype: f32 for f16/bf16 (see the interpreter's precision rule)."""
        return self.cast(x, f32) if dtype_name(tensor_type(x).element_type) in ("f16", "bf16") else x

    def reshape(self, x: SSAValue, shape: Sequence[Dim]) -> SSAValue:
        t = tensor_type(x)
        return x if t.shape == tuple(shape) else self.op("reshape", x, result=TensorType(shape, t.element_type))

    def expand(self, x: SSAValue, shape: Sequence[Dim]) -> SSAValue:
        t = tensor_type(x)
        return x if t.shape == tuple(shape) else self.op("expand", x, result=TensorType(shape, t.element_type))

    def pad(self, x: SSAValue, low: Sequence[int], high: Sequence[int], value: float | int) -> SSAValue:
        if not any(low) and not any(high):
            return x
        return self.op("pad", x, low=tuple(low), high=tuple(high), value=_scalar_attr(value, tensor_type(x).element_type))

    def shrink_axis(self, x: SSAValue, axis: int, start: int, limit: int, step: int) -> SSAValue:
        """Slice one axis; the others are kept whole (a symbolic axis is kept whole as (0, -1, 1))."""
        shape = tensor_type(x).shape
        starts = [start if a == axis else 0 for a in range(len(shape))]
        limits = [limit if a == axis else (-1 if isinstance(d, str) else d) for a, d in enumerate(shape)]
        steps = [step if a == axis else 1 for a in range(len(shape))]
        return self.op("shrink", x, start=tuple(starts), limit=tuple(limits), step=tuple(steps))

    def reduce(self, name: str, x: SSAValue, axes: Sequence[int], keepdims: bool) -> SSAValue:
        return self.op(name, x, axes=tuple(sorted(axes)), keepdims=keepdims)

    def mean(self, x: SSAValue, axes: Sequence[int], keepdims: bool) -> SSAValue:
        """Sum / count in x's own dtype, or a core `mean` when a reduced axis is symbolic or empty (convert-graph-to-
        kernel writes NaN for it: 0 / 0 of two constants is an error in WGSL, whose compiler evaluates it)."""
        if not _static_axes(x, axes) or any(tensor_type(x).shape[a] == 0 for a in axes):
            return self.reduce("mean", x, axes, keepdims)
        total = self.reduce("reduce_sum", x, axes, keepdims)
        count = prod(tensor_type(x).shape[a] for a in axes)  # type: ignore[misc]
        return self.op("div", total, self.const(count, tensor_type(x).element_type))


# ---------------------------------------------------------------------------------------------
# the decompositions: (builder, op) -> replacement value, or None to keep the op


def _matmul(b: Builder, op: Operation) -> SSAValue:
    x, y = (b.widen(v) for v in op.operands)
    xs, ys = tensor_type(x).shape, tensor_type(y).shape
    both_matrices = len(xs) >= 2 and len(ys) >= 2
    if both_matrices:
        x = b.reshape(x, (*xs[:-1], 1, xs[-1]))  # [..., M, 1, K]
    if len(ys) >= 2:
        perm = (*range(len(ys) - 2), len(ys) - 1, len(ys) - 2)
        y = b.op("permute", y, perm=perm)  # [..., N, K]
        if both_matrices:
            y = b.reshape(y, (*ys[:-2], 1, ys[-1], ys[-2]))  # [..., 1, N, K]
    products = b.op("mul", x, y)
    return b.reduce("reduce_sum", products, (tensor_type(products).rank - 1,), False)


def _axis(op: Operation) -> int:
    return int(op.axis.value.data) % tensor_type(op.operands[0]).rank  # type: ignore[attr-defined]


def _ints(attr: Attribute | None) -> tuple[int, ...]:
    return () if attr is None else tuple(int(v) for v in attr.get_values())  # type: ignore[attr-defined]


def _softmax(b: Builder, op: Operation, log: bool) -> SSAValue:
    x = b.widen(op.operands[0])
    axis = _axis(op)
    shifted = b.op("sub", x, b.reduce("reduce_max", x, (axis,), True))
    e = b.op("exp_nonpositive", shifted)
    total = b.reduce("reduce_sum", e, (axis,), True)
    if log:
        return b.op("sub", shifted, b.op("log", total))
    return b.op("div", e, total)


def _layernorm(b: Builder, op: Operation) -> SSAValue:
    x = b.widen(op.operands[0])
    axes = _ints(op.axes)  # type: ignore[attr-defined]
    centered = b.op("sub", x, b.mean(x, axes, True))
    var = b.mean(b.op("mul", centered, centered), axes, True)
    eps = b.const(op.epsilon.value.data, tensor_type(x).element_type)  # type: ignore[attr-defined]
    y = b.op("mul", centered, b.op("rsqrt", b.op("add", var, eps)))
    affine = op.operands[1:]
    if affine:
        weight, bias = (b.widen(v) for v in affine)
        y = b.op("add", b.op("mul", y, weight), bias)
    return y


def _mean(b: Builder, op: Operation) -> SSAValue | None:
    x = op.operands[0]
    axes = _ints(op.axes)  # type: ignore[attr-defined]
    if not _static_axes(x, axes) or any(tensor_type(x).shape[a] == 0 for a in axes):
        return None  # already the core form
    return b.mean(b.widen(x), axes, bool(op.keepdims.value.data))  # type: ignore[attr-defined]


def windows(b: Builder, x: SSAValue, axis: int, k: int, stride: int, dilation: int, out: int) -> SSAValue:
    """[pre.., D, post..] -> [pre.., k, out, post..] where element (i, o) is x[.., i*dilation + o*stride, ..].

    Movement ops only: expand to k copies of the axis, flatten them (element (i, h) at i*D + h), pad the
    flat axis to k rows of D + dilation, and read column o*stride of row i, which lands on
    i*D + (i*dilation + o*stride): copy i at position i*dilation + o*stride < D, never in the padding.
    Trailing dims (post) ride along inside each flat element block, so they must be static.
    """
    shape = tensor_type(x).shape
    pre, d, post = shape[:axis], shape[axis], shape[axis + 1 :]
    assert isinstance(d, int) and all(isinstance(p, int) for p in post)
    block = prod(post)  # type: ignore[arg-type]
    v = b.expand(b.reshape(x, (*pre, 1, d, *post)), (*pre, k, d, *post))
    v = b.reshape(v, (*pre, k * d * block))
    v = b.pad(v, [0] * (axis + 1), [0] * axis + [k * dilation * block], 0)
    v = b.reshape(v, (*pre, k, d + dilation, *post))
    return b.shrink_axis(v, axis + 1, 0, (out - 1) * stride + 1, stride)


def windows_2d(b: Builder, x: SSAValue, kernel, stride, dilation, out_hw) -> SSAValue:
    """[N, C, H, W] -> [N, C, KH, OH, KW, OW]."""
    x = windows(b, x, 2, kernel[0], stride[0], dilation[0], out_hw[0])
    return windows(b, x, 4, kernel[1], stride[1], dilation[1], out_hw[1])


def pair(op: Operation, name: str, default: Sequence[int]) -> tuple[int, int]:
    """A (height, width) property of a conv or pool op, ``default`` when absent."""
    v = _ints(op.properties.get(name)) or tuple(default)
    return v[0], v[1]


def _conv2d(b: Builder, op: Operation) -> SSAValue:
    x, w = b.widen(op.operands[0]), b.widen(op.operands[1])
    ph, pw = pair(op, "padding", (0, 0))
    x = b.pad(x, (0, 0, ph, pw), (0, 0, ph, pw), 0)
    y = windowed_conv(b, op, x, w, tensor_type(op.results[0]).shape[2:])
    if len(op.operands) == 3:
        o = tensor_type(w).shape[0]
        y = b.op("add", y, b.reshape(b.widen(op.operands[2]), (o, 1, 1)))
    return y


def windowed_conv(b: Builder, op: Operation, x: SSAValue, w: SSAValue, out_hw: Sequence[Dim]) -> SSAValue:
    """``op``'s convolution of the already padded ``x`` by ``w`` as sliding windows times the filter, reduced over
    (C/groups, KH, KW): [N, O, OH, OW] (``out_hw``: OH, OW, which may exceed ``op``'s own to read further zeros)."""
    n = tensor_type(x).shape[0]
    o, cg, kh, kw = tensor_type(w).shape
    groups = int(op.groups.value.data)  # type: ignore[attr-defined]
    win = windows_2d(b, x, (kh, kw), pair(op, "stride", (1, 1)), pair(op, "dilation", (1, 1)), out_hw)
    oh, ow = out_hw
    og = o // groups  # type: ignore[operator]
    win = b.reshape(win, (n, groups, cg, kh, oh, kw, ow))
    win = b.op("permute", win, perm=(0, 1, 4, 6, 2, 3, 5))  # [N, G, OH, OW, Cg, KH, KW]
    win = b.reshape(win, (n, groups, 1, oh, ow, cg, kh, kw))
    taps = b.reshape(w, (groups, og, 1, 1, cg, kh, kw))
    y = b.reduce("reduce_sum", b.op("mul", win, taps), (5, 6, 7), False)  # [N, G, Og, OH, OW]
    return b.reshape(y, (n, o, oh, ow))


def _pool(b: Builder, op: Operation, is_max: bool) -> SSAValue:
    x = op.operands[0]
    fill = _lowest(tensor_type(x).element_type) if is_max else 0
    ph, pw = pair(op, "padding", (0, 0))
    low, high = [0, 0, ph, pw], [0, 0, ph, pw]
    if isinstance(x.owner, graph.PadOp) and x.owner.value.value.data == fill:  # type: ignore[attr-defined]
        # a pad of the pool's fill in front (ONNX's ceil mode or uneven pads) is part of the pool's own
        low = [a + c for a, c in zip(low, _ints(x.owner.low))]  # type: ignore[attr-defined]
        high = [a + c for a, c in zip(high, _ints(x.owner.high))]  # type: ignore[attr-defined]
        x = x.owner.operands[0]
    if not isinstance(x.owner, graph.ConcatOp):
        x = realize_plain(b, x)  # read once per tap: realized plain (module docstring)
    x = b.pad(x if is_max else b.widen(x), low, high, fill)
    kernel = pair(op, "kernel", ())
    win = windows_2d(b, x, kernel, pair(op, "stride", kernel), (1, 1), tensor_type(op.results[0]).shape[2:])
    if is_max:
        return b.reduce("reduce_max", win, (2, 4), False)
    total = b.reduce("reduce_sum", win, (2, 4), False)
    return b.op("div", total, b.const(kernel[0] * kernel[1], tensor_type(total).element_type))


def _cumsum(b: Builder, op: Operation) -> SSAValue:
    x = b.widen(op.operands[0])
    t = tensor_type(x)
    axis = _axis(op)
    pre, n, post = t.shape[:axis], t.shape[axis], t.shape[axis + 1 :]
    rows = b.reshape(x, (*pre, 1, n, *post))  # [.., i=1, j, ..]
    square = TensorType((n, n, *[1] * len(post)), i32)
    i = b.op("iota", result=square, axis=0)
    j = b.op("iota", result=square, axis=1)
    kept = b.op("where", b.op("le", j, i), rows, b.const(0, t.element_type))  # [.., i, j, ..]
    return b.reduce("reduce_sum", kept, (axis + 1,), False)


def _arg_extreme(b: Builder, op: Operation, is_max: bool) -> SSAValue:
    x = op.operands[0]
    t = tensor_type(x)
    axis = _axis(op)
    index_dtype = tensor_type(op.results[0]).element_type
    extreme = b.reduce("reduce_max" if is_max else "reduce_min", x, (axis,), True)
    hit = b.op("eq", x, extreme)
    if is_float(t.element_type):
        hit = b.op("or", hit, b.op("ne", x, x))  # NaN is the extreme: the first NaN wins
    positions = b.op("iota", result=TensorType((t.shape[axis], *[1] * (t.rank - axis - 1)), index_dtype), axis=0)
    never = b.const(int(np.iinfo(to_numpy(index_dtype)).max), index_dtype)
    return b.reduce("reduce_min", b.op("where", hit, positions, never), (axis,), bool(op.keepdims.value.data))  # type: ignore[attr-defined]


POW_MAX_EXPONENT = 4
"""Largest positive constant exponent `pow` is rewritten for (``x ** 4``: two squarings)."""


def _pow_by_constant(b: Builder, op: Operation) -> SSAValue | None:
    x, exponent = op.operands
    c = splat_value(exponent)
    if c is None or tensor_type(x) != tensor_type(op.results[0]):
        return None
    quarters = float(c) * 4
    if not quarters.is_integer() or not -4 <= quarters <= 4 * POW_MAX_EXPONENT or quarters == 0:
        return None
    x = b.widen(x)
    whole, fraction = divmod(int(abs(quarters)), 4)
    factors = []
    square = x
    while whole:  # x ** whole by squaring
        if whole & 1:
            factors.append(square)
        whole >>= 1
        if whole:
            square = b.op("mul", square, square)
    if fraction:
        root = b.op("sqrt", x)
        if fraction >= 2:
            factors.append(root)
        if fraction != 2:
            factors.append(b.op("sqrt", root))
    r = factors[0]
    for f in factors[1:]:
        r = b.op("mul", r, f)
    if fraction:
        dtype = tensor_type(x).element_type  # ±0 -> +0 by a select: WGSL may drop abs(sqrt(-0.0))'s sign fix
        r = b.op("where", b.op("eq", x, b.const(0, dtype)), b.const(0, dtype), r)
        r = b.op("where", b.op("eq", x, b.const(float("-inf"), dtype)), b.const(float("inf"), dtype), r)
    return b.op("reciprocal", r) if quarters < 0 else r


DECOMPOSITIONS: dict[str, Callable[[Builder, Operation], SSAValue | None]] = {
    "graph.matmul": _matmul,
    "graph.softmax": lambda b, op: _softmax(b, op, log=False),
    "graph.log_softmax": lambda b, op: _softmax(b, op, log=True),
    "graph.layernorm": _layernorm,
    "graph.mean": _mean,
    "graph.conv2d": _conv2d,
    "graph.max_pool2d": lambda b, op: _pool(b, op, is_max=True),
    "graph.avg_pool2d": lambda b, op: _pool(b, op, is_max=False),
    "graph.cumsum": _cumsum,
    "graph.pow": _pow_by_constant,
    "graph.argmax": lambda b, op: _arg_extreme(b, op, is_max=True),
    "graph.argmin": lambda b, op: _arg_extreme(b, op, is_max=False),
}
"""Op name -> its decomposition into core ops."""


class DecomposeComposite(RewritePattern):
    """Replace one composite op by the core ops of its decomposition (cast back to the result dtype)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        decompose = DECOMPOSITIONS.get(op.name)
        if decompose is None:
            return
        b = Builder(rewriter, op)
        value = decompose(b, op)
        if value is None:
            return
        want = tensor_type(op.results[0])
        value = b.cast(value, want.element_type)
        if value.type != want:
            raise PassFailedException(f"graph-decompose built {value.type} for {op.name} of type {want}")
        rewriter.replace(op, [], [value])
        OPS_DECOMPOSED.bump()


OPS_DECOMPOSED = Statistic("ops-decomposed", "Number of composite graph ops rewritten into core ops")


class GraphDecompose(ModulePass):
    """Composites -> core ops; implicit broadcasts stay implicit."""

    name = "graph-decompose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DecomposeComposite()).rewrite_module(op)
