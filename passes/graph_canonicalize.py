"""`graph-canonicalize`: constant folding, algebraic identities and movement-op folding on the graph level.

Folding computes with the reference interpreter's numpy semantics (one definition of every op), on
splat constants only, so a folded program gives bit-identical answers to the unfolded one.
Identities never change a value's type: `x + 0 -> x` only when the add does not broadcast `x`, and
`x * 0` is left alone (NaN and inf times 0 are not 0).
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from kiln.dialects import graph as G
from kiln.dialects.types import TensorType, to_numpy
from kiln.interpreters.graph_ops import OPS


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


PATTERNS: tuple[RewritePattern, ...] = (FoldConstants(), FoldSplatMovement(), RemoveIdentities(), FoldMovementChains())


class GraphCanonicalize(ModulePass):
    """Fold constants, remove identities and fold movement chains until nothing changes; dead ops go."""

    name = "graph-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier(list(PATTERNS)), apply_recursively=True).rewrite_module(op)


