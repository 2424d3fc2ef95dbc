"""Reverse-mode differentiation of a straight-line graph function: the vector-Jacobian product.

``vjp`` walks the primal ops backwards from the outputs' cotangents, asks each op's rule (``rules.py``) for its
operands' cotangents, and sums the contributions a value receives from all its uses. Only *active* values get
cotangents: floating-point values that depend on a ``wrt`` value. Integer and boolean values (indices, masks,
comparisons) carry none, so ``argmax`` or an index computation beside the differentiated path costs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kiln.dialects.types import DTYPES, is_float
from kiln.passes.autodiff.builder import GradBuilder
from kiln.passes.autodiff.rules import GRADIENTS, NotDifferentiable, Primal


def vjp(
    b: GradBuilder, ops: Sequence[Primal], outputs: Sequence[Any], cotangents: Sequence[Any], wrt: Sequence[Any]
) -> list[Any]:
    """The cotangent of each ``wrt`` value for the given output ``cotangents``; ``ops`` are the primal ops in
    program order (operands before users). A ``wrt`` value nothing depends on gets zeros."""
    floating = lambda v: is_float(DTYPES[b.dtype(v)])  # noqa: E731
    targets = set(wrt)
    active = set(wrt)
    for p in ops:
        if floating(p.result) and any(o in active for o in p.operands):
            active.add(p.result)
    cts: dict[Any, Any] = {}

    def accumulate(v: Any, ct: Any) -> None:
        ct = b.cast(b.sum_to(ct, b.shape(v)), b.dtype(v))
        cts[v] = b.add(cts[v], ct) if v in cts else ct

    for out, ct in zip(outputs, cotangents):
        if out in active:
            accumulate(out, ct)
    for p in reversed(ops):
        g = cts.get(p.result)
        if g is None or p.result in targets:
            continue
        rule = GRADIENTS.get(p.name)
        if rule is None:
            raise NotDifferentiable(f"graph.{p.name} has no gradient rule")
        for operand, d in zip(p.operands, rule(b, p, g)):
            if d is not None and operand in active:
                accumulate(operand, d)
    return [cts[w] if w in cts else b.const(0, b.dtype(w), b.shape(w)) for w in wrt]
