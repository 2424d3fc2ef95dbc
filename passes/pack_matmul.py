"""`graph-pack-matmul{target=T}`: on CPU targets, copy a large matmul's B operand into column panels first.

The heuristic's register tile (docs/optimizer.md) computes up to 8 rows x w columns of C, w = CPU_VECTORS
vectors, and per k reads one w-wide row of a column panel of B. In a row-major B (K x N) those rows are N
elements apart: at N = 1024 f32 a panel's K rows lie 4 KiB apart, share a few cache sets, and come from L3 at
every tile (docs/performance.md). BLAS packs B; so does this pass, in the graph: B (..., K, N) is written as
(..., N/w, K, w) by a `graph.contiguous` of its reshape/permute, and the matmul reads it back through the inverse
permute/reshape. `convert-graph-to-kernel` then builds the output columns as panel x lane ranges, panels
outermost: one panel (K*w contiguous elements) stays in L2 while the tile walks every row of A.

It pays when the panels would thrash (B of at least `min-bytes`) and B is reused by enough rows of A to amortize
the copy, or when very many rows sweep a smaller B (PACK_MANY_ROWS); small matmuls stay as they are. N must be
static and a multiple of w (no padding); K and the rows of A may be symbolic, judged by their lower bounds (a
symbolic batch of 1 must not pay for a copy of B).

When B is itself a copy that only this matmul reads, of a reshape whose innermost source dim is a multiple of w
(ResNet-50's stem: an im2col over 112 output columns), the panels are copied from that view directly: one copy
instead of two, and splitting N into panels and lanes divides no source index.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects import graph
from kiln.dialects.types import Dim, TensorType, declared_dims, dtype_name, itemsize
from kiln.passes.optimize.heuristic import CPU_VECTORS
from kiln.passes.schedule import ELEMENTWISE
from kiln.capabilities.description import TargetDescription, target_for_pass

PACK_MIN_BYTES = 256 << 10
"""B must be at least this large (256 KiB, a quarter of this EPYC host's 1 MiB L2 per core) for its panels to
thrash: every tile of rows sweeps all of B, which leaves L2 with A's rows and C streaming past it. One core each, thread CPU time, load 17 (docs/optimizer.md):
512 x 512 x 512 (B 1 MiB) 10.0 ms unpacked, 5.1 ms packed (numpy 4.5); 256^3 (B 256 KiB) 0.85 / 0.72 ms; the
1x1 64->256 conv at 56x56 (B 800 KiB) 4.4 / 2.4 ms. The 2 MiB it was before came from an AVX-512 host."""
PACK_MIN_ROWS = 64
"""Rows of A that share one B: the copy reads and writes B once, the matmul reads it once per tile of rows (8 tiles
of AVX-512's 8 rows, 16 of AVX2's 4)."""
PACK_MANY_ROWS = 512
"""Rows of A from which a B that computes something (``computes``) is packed from half ``min-bytes`` (128 KiB).
Each of the 64 or more tiles of 8 rows sweeps all of B, and unpacked, what B computes (a previous conv's bias and
relu) is computed again at every sweep, in the tile's inner loop (2 vector ops per B vector, 16 FMAs); the copy
into panels computes it once. One core, thread CPU time: 1024 x 256 @ relu(256 x 224 + b) 1.50 -> 1.12 ms, 512 x
128 @ relu(128 x 256 + b) 0.435 -> 0.351; a plain B gains little (1.17 -> 1.12, 0.338 -> 0.334), so it keeps
``min-bytes``. ResNet-50's 1x1 expansions 256 -> 1024 @14 (B 229 KiB with its points padded) and 512 -> 2048 @7
(128 KiB): 1.38 -> 1.20 and 1.69 -> 1.42 ms per layer, copies and residual epilogue included (docs/performance.md,
"Whole networks against onnxruntime, session 11"). A quarter of ``min-bytes`` would copy DenseNet-121's classifier
B (1000 rows, one point padded to 16 columns, 64 KiB) for nothing."""
PACKED_DTYPES = frozenset({"f32", "f64"})
"""dtypes whose matmul is tiled in its own type (f16/bf16 are computed in f32 after a cast)."""


@dataclass(frozen=True)
class GraphPackMatmul(ModulePass):
    """Pack the B operand of large matmuls into contiguous column panels on CPU targets."""

    name = "graph-pack-matmul"

    target: str = "cpu-llvm"
    min_bytes: int = PACK_MIN_BYTES
    """Pack only when B has at least this many bytes (tests lower it)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target)
        if not target.has_threads:
            return
        for mm in [o for o in op.walk() if isinstance(o, graph.MatmulOp)]:
            w = panel_width(target, mm)
            if self._pays(mm, w):
                if (view := _copied_view(mm.rhs, w)) is not None:
                    copy = mm.rhs.owner
                    mm.operands[1] = view
                    Rewriter.erase_op(copy)  # type: ignore[arg-type]
                mm.operands[1] = packed_rhs(mm, w)

    def _pays(self, mm: graph.MatmulOp, w: int) -> bool:
        if not fits_panels(mm, w):
            return False
        b: TensorType = mm.rhs.type  # type: ignore[assignment]
        k = lower_bounds(mm)[b.shape[-2]]
        b_bytes = k * b.shape[-1] * itemsize(b.element_type)  # type: ignore[operator]
        return packing_pays(rows_sharing_b(mm), b_bytes, self.min_bytes, computes(mm.rhs))


def packing_pays(rows: int, b_bytes: int, min_bytes: int = PACK_MIN_BYTES, computed: bool = False) -> bool:
    """Whether a B of ``b_bytes`` that ``rows`` rows of A share is worth copying into panels: from ``min_bytes``
    at PACK_MIN_ROWS rows; a ``computed`` B (elementwise ops over other values) from half of it at
    PACK_MANY_ROWS."""
    many = computed and rows >= PACK_MANY_ROWS and b_bytes >= min_bytes // 2
    return rows >= PACK_MIN_ROWS and b_bytes >= min_bytes or many


_MOVES = (graph.ReshapeOp, graph.PadOp, graph.ShrinkOp, graph.PermuteOp)


def computes(b: SSAValue) -> bool:
    """Whether B computes elementwise ops (a previous conv's bias and relu) that a matmul reading it unpacked would
    recompute in every row tile: looked for through a copy only the matmul reads and through index maps."""
    if isinstance(b.owner, graph.ContiguousOp) and b.has_one_use():
        b = b.owner.input
    while isinstance(b.owner, _MOVES):
        b = b.owner.operands[0]
    return isinstance(b.owner, ELEMENTWISE)


def _copied_view(b: SSAValue, w: int) -> SSAValue | None:
    """The reshape that ``b`` is a single-use copy of, when N is the reshape's trailing source dims (merged) and the
    innermost of them is a multiple of ``w``: each panel then lies within one row of the source, its lanes
    consecutive elements of it. None otherwise (a copy of a pad or of a view whose rows a panel straddles stays:
    the packed copy would divide per element; measured in docs/optimizer.md)."""
    copy = b.owner
    if not isinstance(copy, graph.ContiguousOp) or not b.has_one_use():
        return None
    view = copy.input.owner
    if not isinstance(view, graph.op("reshape")):
        return None
    source: tuple[Dim, ...] = view.operands[0].type.shape  # type: ignore[attr-defined]
    n = b.type.shape[-1]  # type: ignore[attr-defined]
    merged = 1
    for j in range(len(source) - 1, -1, -1):
        if not isinstance(source[j], int):
            return None
        merged *= source[j]  # type: ignore[operator]
        if merged == n:
            return copy.input if source[-1] % w == 0 else None  # type: ignore[operator]
        if merged > n:
            return None
    return None


def panel_width(target: TargetDescription, mm: graph.MatmulOp) -> int:
    """Columns per panel: the register tile's width, `CPU_VECTORS` vectors of B's dtype."""
    return target.vector_width(dtype_name(mm.rhs.type.element_type)) * CPU_VECTORS  # type: ignore[attr-defined]


def fits_panels(mm: graph.MatmulOp, w: int) -> bool:
    """Whether B can be written as panels of ``w`` columns: A and B at least 2-D, B f32/f64 with a static number of
    columns that is a multiple of ``w`` and at least two panels (no padding)."""
    a: TensorType = mm.lhs.type  # type: ignore[assignment]
    b: TensorType = mm.rhs.type  # type: ignore[assignment]
    if a.rank < 2 or b.rank < 2 or dtype_name(b.element_type) not in PACKED_DTYPES:
        return False
    n = b.shape[-1]
    return isinstance(n, int) and n % w == 0 and n >= 2 * w


def lower_bounds(mm: graph.MatmulOp) -> dict[Dim, int]:
    """Each dim of the matmul's operands -> its value, or its declared lower bound when symbolic."""
    bounds = declared_dims(mm)
    dims = (*mm.lhs.type.shape, *mm.rhs.type.shape)  # type: ignore[attr-defined]
    return {d: d if isinstance(d, int) else bounds.get(d, (0, 0))[0] for d in dims}


def rows_sharing_b(mm: graph.MatmulOp) -> int:
    """The rows of A that read one B (a batched B: its own batch's rows), at the dims' lower bounds."""
    a: TensorType = mm.lhs.type  # type: ignore[assignment]
    low = lower_bounds(mm)
    return prod(low[d] for d in (a.shape[:-1] if mm.rhs.type.rank == 2 else a.shape[-2:-1]))  # type: ignore[attr-defined]


def packed_rhs(mm: graph.MatmulOp, w: int) -> SSAValue:
    """B read back from its (..., N/w, K, w) copy, inserted before ``mm``."""
    b: TensorType = mm.rhs.type  # type: ignore[assignment]
    *batch, k, n = b.shape
    r = len(batch)
    split: tuple[Dim, ...] = (*batch, k, n // w, w)
    swap = (*range(r), r + 1, r, r + 2)  # K <-> panels, its own inverse
    ops = [graph.op("reshape").build_op([mm.rhs], TensorType(split, b.element_type))]
    ops.append(graph.op("permute").build_op([ops[-1]], perm=swap))
    ops.append(graph.ContiguousOp.build_op([ops[-1]], ops[-1].results[0].type))
    ops.append(graph.op("permute").build_op([ops[-1]], perm=swap))
    ops.append(graph.op("reshape").build_op([ops[-1]], b))
    for op in ops:
        op.location = mm.location
    Rewriter.insert_op(ops, InsertPoint.before(mm))
    return ops[-1].results[0]

