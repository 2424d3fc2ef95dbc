"""`graph-mark-realize`: decide where values are written to memory, i.e. how the graph is cut into kernels.

Everything not realized is recomputed inside the kernel of its consumer (fusion). The rules follow
tinygrad's rangeify, in terms a user can read in the IR (`graph.realize = "<reason>"` on the op):

- `output`: a function result; `contiguous`: the user asked for it.
- `reduce broadcast`: a reduction reached from its kernel through a broadcast (expand, implicit numpy
  broadcast, gather) would be recomputed for every broadcast element: realize it (softmax, layernorm).
- `multi-use reduce`: a reduction needed by several consumers is computed once.
- `shared expensive`: a non-reduce value used along several paths whose recomputation costs more than
  `RECOMPUTE_LIMIT` ops is computed once.

A reduction reached only through injective index maps (reshape, permute, pad, shrink, flip, concat) fuses
with its elementwise consumers: matmul + bias + relu is one kernel.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.types import TensorType

REALIZE_ATTR = "graph.realize"
RECOMPUTE_LIMIT = 24

REDUCE_NAMES = frozenset(
    {"graph.reduce_sum", "graph.reduce_prod", "graph.reduce_max", "graph.reduce_min", "graph.mean"}
)
NON_INJECTIVE_MOVES = frozenset({"graph.expand"})
UNSUPPORTED_IN_KERNELS = frozenset(op.name for op in graph.COMPOSITE_OPS) | {"graph.argmax", "graph.argmin"}


def is_reduce(op: Operation) -> bool:
    return op.name in REDUCE_NAMES


def broadcast_operand(op: Operation, i: int) -> bool:
    """Does operand i of `op` reach its result through a non-injective (broadcasting) index map?"""
    if op.name in NON_INJECTIVE_MOVES:
        return True
    if op.name == "graph.gather":
        return i == 0
    if isinstance(op, (graph.BinaryOp, graph.WhereOp)):
        ot: TensorType = op.operands[i].type  # type: ignore[assignment]
        rt: TensorType = op.results[0].type  # type: ignore[assignment]
        pad = rt.rank - ot.rank
        return pad > 0 or any(d == 1 and rt.shape[k + pad] != 1 for k, d in enumerate(ot.shape))
    return False


@dataclass
class _Walk:
    """One analysis round over a function: which values would be computed how often."""

    realized: dict[SSAValue, str]

    def run(self, roots: list[SSAValue]) -> dict[SSAValue, str]:
        """New realize decisions found by walking every kernel root (empty when stable)."""
        visits: Counter[SSAValue] = Counter()
        found: dict[SSAValue, str] = {}
        for root in roots:
            seen: set[tuple[SSAValue, bool]] = set()
            self._visit(root, root, False, seen, visits, found)
        for v, n in visits.items():
            if n > 1 and v not in self.realized and v not in found:
                owner = v.owner
                if isinstance(owner, Operation) and is_reduce(owner):
                    found[v] = "multi-use reduce"
                elif isinstance(owner, Operation) and self._cost(v) > RECOMPUTE_LIMIT:
                    found[v] = "shared expensive"
        return found

    def _visit(self, v, root, bcast, seen, visits, found) -> None:
        owner = v.owner
        if not isinstance(owner, Operation) or (v is not root and v in self.realized):
            return
        if v is not root:
            visits[v] += 1
        if (v, bcast) in seen:
            return
        seen.add((v, bcast))
        if is_reduce(owner):
            if bcast and v is not root:
                found.setdefault(v, "reduce broadcast")
                return
            bcast = False
        for i, operand in enumerate(owner.operands):
            self._visit(operand, root, bcast or broadcast_operand(owner, i), seen, visits, found)

    def _cost(self, v: SSAValue, memo: dict[SSAValue, int] | None = None) -> int:
        memo = {} if memo is None else memo
        owner = v.owner
        if not isinstance(owner, Operation) or v in self.realized:
            return 0
        if v not in memo:
            memo[v] = 0
            memo[v] = 1 + sum(self._cost(o, memo) for o in owner.operands)
        return memo[v]


def decide_realize(fn: func.FuncOp) -> dict[SSAValue, str]:
    """The realize decisions of one function (value -> reason), iterated to a fixed point."""
    realized: dict[SSAValue, str] = {}
    body = fn.body.blocks.first
    assert body is not None
    for op in body.ops:
        if op.name in UNSUPPORTED_IN_KERNELS:
            raise DiagnosticException(f"'{op.name}' must be decomposed before scheduling (run graph-decompose first)")
        if isinstance(op, graph.ContiguousOp):
            realized[op.res] = "contiguous"
        elif isinstance(op, func.ReturnOp):
            for v in op.operands:
                if isinstance(v.owner, Operation) and v not in realized:
                    realized[v] = "output"
    walk = _Walk(realized)
    while True:
        found = walk.run(list(realized))
        if not found:
            return realized
        realized.update(found)


class GraphMarkRealize(ModulePass):
    """Decide the kernels: mark each value that is written to memory with `graph.realize = "<reason>"`."""

    name = "graph-mark-realize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and not fn.is_declaration:
                for v, why in decide_realize(fn).items():
                    owner = v.owner
                    assert isinstance(owner, Operation)
                    owner.attributes[REALIZE_ATTR] = StringAttr(why)
