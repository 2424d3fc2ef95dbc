"""`graph-copy-transposed-rhs{target=T}`: on CPU targets, a matmul whose B is transposed reads a copy of B instead.

A B that is a `graph.permute` moving its source's innermost axis away from the last position (attention's
``q @ k^T``, ``x @ w^T``, a Gemm with ``transB``) gives the matmul kernel no axis its register tile can vectorize:
every output column walks B with a stride, so the CPU heuristic falls back to a tile of scalar accumulators
(docs/optimizer.md, "No vector axis"), 64 of them for the 8 x 8 tile, more than AVX2's 16 registers hold. B is
written once by a `graph.contiguous` copy, and the matmul gets the usual vector tile. The copy is written in
`graph-pack-matmul`'s column panels (N/w, K, w) where B fits them (the copy costs the same; each panel is
contiguous, where a row-major B's K rows of a tile lie N elements apart and share a few L1 sets), else row-major
(..., K, N). It pays when enough rows of A share B (`PACK_MIN_ROWS`, as for packing): the copy reads and writes B
once, the matmul reads B once per tile of rows. Attention 8 x 512 x 64, `q @ k^T` on one core: 5.7 ms with the
8 x 8 tile, 4.4 ms from panels (onnxruntime 4.4 ms; docs/performance.md, "Attention (session 6)").

It runs after `graph-pack-matmul`: a B large enough to be packed is already written once, into panels, straight
from the permuted view, and is no longer a permute here. GPU targets (no CPU threads) are left alone: their tiles
are per-thread and the strided reads are coalesced across threads instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.capabilities.description import target_for_pass
from kiln.dialects import graph
from kiln.passes.pack_matmul import PACK_MIN_ROWS, fits_panels, packed_rhs, panel_width, rows_sharing_b


@dataclass(frozen=True)
class GraphCopyTransposedRhs(ModulePass):
    """Give matmuls whose B is a transposing permute a copy of B (in panels where it fits), on CPU targets."""

    name = "graph-copy-transposed-rhs"

    target: str = "cpu-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target)
        if not target.has_threads:
            return
        copies: dict[SSAValue, SSAValue] = {}  # one copy per permuted value, however many matmuls read it
        for mm in [o for o in op.walk() if isinstance(o, graph.MatmulOp)]:
            if transposed(mm.rhs) and rows_sharing_b(mm) >= PACK_MIN_ROWS:
                if mm.rhs not in copies:
                    w = panel_width(target, mm)
                    copies[mm.rhs] = packed_rhs(mm, w) if fits_panels(mm, w) else _copy_after(mm.rhs)
                mm.operands[1] = copies[mm.rhs]


def transposed(b: SSAValue) -> bool:
    """Whether ``b`` (a matmul's B, at least 2-D) is a permute whose last axis is not its source's innermost one
    (so no column of B is contiguous) and whose columns are more than one."""
    perm_op = b.owner
    if not isinstance(perm_op, graph.PermuteOp) or b.type.rank < 2:  # type: ignore[attr-defined]
        return False
    perm = perm_op.perm.get_values()
    return perm[-1] != len(perm) - 1 and b.type.shape[-1] != 1  # type: ignore[attr-defined]


def _copy_after(b: SSAValue) -> SSAValue:
    """A `graph.contiguous` of ``b``, inserted right after the op that defines it."""
    copy = graph.ContiguousOp.build_op([b], b.type)
    copy.location = b.owner.location  # type: ignore[union-attr]
    Rewriter.insert_op(copy, InsertPoint.after(b.owner))  # type: ignore[arg-type]
    return copy.results[0]
