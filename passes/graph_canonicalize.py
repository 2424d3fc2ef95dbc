"""`graph-canonicalize`: constant folding, algebraic identities and movement-op folding on the graph level.

Folding computes with the reference interpreter's numpy semantics (one definition of every op), so a folded
program gives the interpreter's answers bit for bit. Elementwise ops on splats fold at any shape, symbolic
too; any other op whose operands are all constants of static shapes folds when its value is uniform (a splat)
or, dense, has no more elements than its largest dense operand and at most ``DENSE_INLINE_LIMIT``: kiln lowers
a dense constant as a select chain per read element, so folding must never make one longer (an expand of a
16-element constant stays an expand).
Identities never change a value's type: `x + 0 -> x` only when the add does not broadcast `x`, and
`x * 0` is left alone (NaN and inf times 0 are not 0).
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, ModuleOp
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from kiln.dialects import graph as G
from kiln.dialects.types import TensorType, numel, to_numpy
from kiln.interpreters.graph import property_value, run_op, wrap_ints
from kiln.interpreters.graph_ops import OPS, is_float
from kiln.support.errors import KilnError


def splat_value(v: SSAValue) -> float | int | bool | None:
    """The scalar of a splat `graph.constant`, else None."""
    op = v.owner
    if isinstance(op, G.ConstantOp) and isinstance(op.value, FloatAttr | IntegerAttr):
        return op.value.value.data
    return None


def _at(old: Operation, new: Operation) -> Operation:
    """``new``, at the location of the op it replaces."""
    new.location = old.location
    return new


def _replace_with_splat(rewriter: PatternRewriter, op: Operation, value: object) -> None:
    t: TensorType = op.results[0].type  # type: ignore[assignment]
    scalar = np.asarray(value).item()
    rewriter.replace(op, _at(op, G.ConstantOp.splat(scalar, t)))


class FoldConstants(RewritePattern):
    """Elementwise ops on splat constants become a splat constant (computed with the interpreter)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, G.UnaryOp | G.BinaryOp | G.WhereOp | G.CastOp):
            return
        values = [splat_value(o) for o in op.operands]
        if any(v is None for v in values):
            return
        args = [np.asarray(v, dtype=to_numpy(o.type.element_type)) for v, o in zip(values, op.operands)]  # type: ignore[attr-defined]
        short = op.name.removeprefix("graph.")
        kwargs = {"dtype": to_numpy(op.results[0].type.element_type)} if short == "cast" else {}  # type: ignore[attr-defined]
        _replace_with_splat(rewriter, op, OPS[short](*args, **kwargs))


def _constant_array(op: G.ConstantOp) -> np.ndarray:
    """The value of a `graph.constant` of static shape, as the interpreter holds it."""
    t: TensorType = op.res.type  # type: ignore[assignment]
    dtype = to_numpy(t.element_type)
    value = property_value(op.value)
    if isinstance(value, np.ndarray):
        return value
    scalar = value if is_float(dtype) else wrap_ints([int(value)], dtype)[0]  # type: ignore[call-overload]
    return np.full(t.shape, scalar, dtype=dtype)


def _uniform(a: np.ndarray) -> bool:
    """Every element has the first one's bits (so NaN and -0.0 count as themselves)."""
    flat = a.reshape(-1)
    bits = flat.view(f"u{flat.dtype.itemsize}")
    return bool((bits == bits[0]).all())


class FoldConstantOperands(RewritePattern):
    """Any op whose operands are all constants of static shapes becomes one constant (computed with the
    interpreter): a splat when its value is uniform, else dense when no longer than its largest dense operand
    and at most ``DENSE_INLINE_LIMIT`` elements. An op the interpreter rejects (a gather index out of range)
    is left for run time to report."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, G.ConstantOp) or not op.operands or op.name.removeprefix("graph.") not in OPS:
            return
        if len(op.results) != 1 or not isinstance(rt := op.results[0].type, TensorType) or not rt.is_static():
            return
        owners = [o.owner for o in op.operands]
        if not all(isinstance(c, G.ConstantOp) and c.res.type.is_static() for c in owners):  # type: ignore[attr-defined]
            return
        env = {o: _constant_array(c) for o, c in zip(op.operands, owners)}  # type: ignore[arg-type]
        try:
            run_op(op, env, {})
        except KilnError:
            return
        value = env[op.results[0]]
        if value.size and _uniform(value):
            rewriter.replace(op, _at(op, G.ConstantOp.splat(value.reshape(-1)[0].item(), rt)))
            return
        dense = [c.value.type for c in owners if isinstance(c.value, DenseIntOrFPElementsAttr)]  # type: ignore[attr-defined]
        longest = max((numel(tuple(t.get_shape())) for t in dense), default=0)
        if value.size == 0 or value.size > min(longest, G.DENSE_INLINE_LIMIT):
            return
        values = value.reshape(-1).astype(np.float64 if is_float(value.dtype) else value.dtype).tolist()
        attr = DenseIntOrFPElementsAttr.from_list(BuiltinTensorType(rt.element_type, list(rt.shape)), values)
        rewriter.replace(op, _at(op, G.ConstantOp.build(properties={"value": attr}, result_types=[rt])))


class FoldSplatMovement(RewritePattern):
    """Movement ops (and `contiguous` is not one) of a splat constant are a splat of the new shape."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, G.ReshapeOp | G.ExpandOp | G.PermuteOp | G.FlipOp | G.ShrinkOp):
            v = splat_value(op.operands[0])
            if v is not None:
                _replace_with_splat(rewriter, op, v)


class RemoveIdentities(RewritePattern):
    """x+0, x-0, x*1, x/1, cast to the same dtype, reshape/expand to the same shape, neg(neg x),
    contiguous(contiguous x), shrink of everything, pad by nothing."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        res = op.results[0] if op.results else None
        if res is None:
            return
        same = lambda v: v.type == res.type  # noqa: E731
        x: SSAValue | None = None
        if isinstance(op, G.BinaryOp) and not op.RESULT_BOOL:
            short = op.name.removeprefix("graph.")
            lhs, rhs = op.operands
            r, l_ = splat_value(rhs), splat_value(lhs)
            if short in ("add", "sub") and r == 0 and not isinstance(r, bool) and same(lhs):
                x = lhs
            elif short == "add" and l_ == 0 and same(rhs):
                x = rhs
            elif short in ("mul", "div") and r == 1 and same(lhs):
                x = lhs
            elif short == "mul" and l_ == 1 and same(rhs):
                x = rhs
        elif isinstance(op, G.CastOp | G.ReshapeOp | G.ExpandOp) and same(op.operands[0]):
            x = op.operands[0]
        elif isinstance(op, G.UnaryOp) and op.name == "graph.neg" and isinstance(op.operands[0].owner, G.UnaryOp):
            inner = op.operands[0].owner
            if inner.name == "graph.neg":
                x = inner.operands[0]
        elif isinstance(op, G.ContiguousOp) and isinstance(op.input.owner, G.ContiguousOp):
            x = op.input
        elif isinstance(op, G.ShrinkOp | G.PadOp) and same(op.operands[0]):
            x = op.operands[0]
        elif isinstance(op, G.PermuteOp) and list(_ints(op.perm)) == list(range(len(_ints(op.perm)))):
            x = op.input
        if x is not None:
            rewriter.replace(op, [], [x])


def _ints(attr: object) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values()) if isinstance(attr, DenseArrayBase) else ()  # type: ignore[union-attr]


class FoldMovementChains(RewritePattern):
    """permute(permute x) -> one permute; reshape(reshape x) -> one reshape; expand(expand x) -> one
    expand; flip(flip x) on the same axes -> x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inner = op.operands[0].owner if op.operands else None
        if type(inner) is not type(op):
            return
        assert isinstance(inner, Operation)
        src = inner.operands[0]
        if isinstance(op, G.PermuteOp):
            p_in, p_out = _ints(inner.properties["perm"]), _ints(op.perm)
            perm = [p_in[p] for p in p_out]
            rewriter.replace(op, _at(op, G.PermuteOp.build_op([src], perm=tuple(perm))))
        elif isinstance(op, G.ReshapeOp | G.ExpandOp):
            rewriter.replace(op, _at(op, type(op).build_op([src], result_type=op.results[0].type)))
        elif isinstance(op, G.FlipOp) and _ints(op.axes) == _ints(inner.properties["axes"]):
            rewriter.replace(op, [], [src])


PATTERNS: tuple[RewritePattern, ...] = (
    FoldConstants(), FoldSplatMovement(), FoldConstantOperands(), RemoveIdentities(), FoldMovementChains(),
)


class GraphCanonicalize(ModulePass):
    """Fold constants, remove identities and fold movement chains until nothing changes; dead ops go."""

    name = "graph-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(PATTERNS)), apply_recursively=True).rewrite_module(op)


