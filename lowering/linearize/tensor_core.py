"""Tensor cores: a ``kernel.reduce`` marked ``tensor_core = "m16n8k16"`` (the ``tc`` opt) computed by
``uop.wmma``, each 16x8x16 tile spread over the 32 lanes of a warp.

The opt split the matmul's output axes M and N into ``upcast`` ranges M' (16) and N' (8) and its reduce axis
into K (a loop) and the ``unroll`` range K' (16); the reduce's value is ``cast(a) * cast(b)`` with ``a`` moving
along M' and ``b`` along N'. Instead of one thread making the 16x8x16 copies, each lane of the warp holds
fragments in the layout of PTX ``mma.m16n8k16`` (PTX ISA, "Matrix Fragments for mma.m16n8k16"; ``g = lane / 4``,
``t = lane % 4``): A is 8 ``a`` values per lane, B 4 ``b`` values, C/D 4 f32 sums (``FRAGMENTS``). The
instantiator binds M'/N'/K' to these per-lane index expressions instead of to constants:

- the store (and everything computed from the reduce's result) once per C lane, at that lane's (m, n);
- per K iteration, the ``a`` subtree at the 8 A positions and ``b`` at the 4 B positions, ``vectorize``-d into
  fragments and fed with the accumulator (a ``vector<4xf32>``) to ``uop.wmma``; the C lane's value is an
  ``extract`` of the accumulator after the loop;
- elements 2i and 2i+1 of a fragment as a pair for the vectorizer (often neighbours in memory).

The warp is the x dimension of the workgroup (``launch.GpuLaunch``: ``local_size.x`` times 32, the lane is
``local_id.x % 32``). Every lane must execute ``uop.wmma``: no guard may depend on the lane, and none does
(guards depend on workgroup ids and ``local`` ranges only, and the tc opt needs M, N and K divisible).
Targets without tensor cores ignore the mark: the tile is computed in one thread, as the kernel says.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, VectorType
from xdsl.ir import Attribute, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.alu import AluOp
from kiln.dialects.types import dtype_name, parse_dtype
from kiln.lowering.linearize.launch import RangeInfo
from kiln.lowering.linearize.nodes import Node, Program, iadd, idiv, imod, imul
from kiln.capabilities.tensor_cores import TensorCore, tensor_cores
from kiln.capabilities.description import TargetDescription
from kiln.support.diagnostics import error_at

Affine = tuple[int, int, int]
"""``g_coefficient * g + t_coefficient * t + constant``: a matrix coordinate of a fragment element."""

FRAGMENTS: dict[str, list[tuple[Affine, Affine]]] = {
    "a": [((1, 0, 8 * ((e // 2) % 2)), (0, 2, e % 2 + 8 * (e // 4))) for e in range(8)],
    "b": [((0, 2, e % 2 + 8 * (e // 2)), (1, 0, 0)) for e in range(4)],
    "c": [((1, 0, 8 * (e // 2)), (0, 2, e % 2)) for e in range(4)],
}
"""(row, col) of element e of each lane's fragment for mma.m16n8k16 with f16/bf16 A/B (A: m x k row-major,
B: k x n column-major) and f32 C/D (m x n): the PTX ISA's tables, for the shape ``WARP_SHAPE``."""

WARP_SHAPE = (16, 8, 16, 32)
"""(m, n, k, threads) that ``FRAGMENTS`` describes."""

MARK = "tensor_core"
"""The ``kernel.reduce`` attribute the tc opt sets (the tensor core's name)."""


@dataclass(eq=False)
class TensorCorePlan:
    """The reduce computed by ``uop.wmma`` and what the instantiator binds differently for it."""

    reduce: K.ReduceOp
    core: TensorCore
    a: SSAValue
    """The A side of the product before its cast to f32 (moves along M', not N')."""
    b: SSAValue
    m: SSAValue
    n: SSAValue
    k: SSAValue
    dtype: Attribute

    @property
    def fragment_types(self) -> tuple[VectorType, VectorType, VectorType]:
        """The per-lane types of A, B and C/D."""
        accumulator = parse_dtype(self.core.accumulator)
        types = ((self.dtype, "a"), (self.dtype, "b"), (accumulator, "c"))
        a, b, c = (VectorType(t, [len(FRAGMENTS[f])]) for t, f in types)
        return a, b, c

    def positions(self, p: Program, lane: Node, fragment: str) -> list[tuple[Node, Node]]:
        """Index nodes (row, col) of each element of this lane's ``fragment``."""
        g, t = idiv(p, lane, p.index(4)), imod(p, lane, p.index(4))

        def at(f: Affine) -> Node:
            terms = [imul(p, v, p.index(c)) for v, c in ((g, f[0]), (t, f[1])) if c]
            return iadd(p, iadd(p, *terms) if len(terms) == 2 else terms[0], p.index(f[2]))

        return [(at(row), at(col)) for row, col in FRAGMENTS[fragment]]

    def zero(self, p: Program) -> Node:
        t = self.fragment_types[2]
        return p.node("const", (), t, DenseIntOrFPElementsAttr.from_list(t, [0.0]))


def plan_tensor_core(
    kernel: K.KernelOp,
    ranges: dict[SSAValue, RangeInfo],
    deps: dict[SSAValue, tuple[SSAValue, ...]],
    target: TargetDescription,
) -> TensorCorePlan | None:
    """The plan for the kernel's marked reduce on ``target``; None when there is none or the target has no
    tensor cores (the mark is then ignored)."""
    marked = [op for op in kernel.body.block.ops if isinstance(op, K.ReduceOp) and MARK in op.attributes]
    cores = {c.name: c for c in tensor_cores(target)}
    if not marked or not cores:
        return None
    if len(marked) > 1:
        raise error_at(marked[1], "only one reduce per kernel can run on tensor cores")
    reduce = marked[0]
    name = reduce.attributes[MARK].data  # type: ignore[attr-defined]
    core = cores.get(name)
    if core is None or (core.m, core.n, core.k, 32) != WARP_SHAPE:
        raise error_at(reduce, f"target {target.name} has no tensor core '{name}' (it has {', '.join(cores)})")
    product = reduce.value.owner
    casts = [v.owner for v in product.operands] if isinstance(product, AluOp) and product.alu_kind == "mul" else []
    if (
        reduce.kind.data != K.ReduceKind.ADD
        or dtype_name(reduce.result.type) != core.accumulator
        or len(casts) != 2
        or not all(isinstance(c, K.CastOp) and dtype_name(c.input.type) in core.inputs for c in casts)
        or casts[0].input.type != casts[1].input.type  # type: ignore[union-attr]
    ):
        inputs = "/".join(core.inputs)
        raise error_at(reduce, f"a reduce on tensor core {name} must be an {core.accumulator} sum of cast({inputs}) products")
    x, y = (c.input for c in casts)  # type: ignore[union-attr]

    def last(kind: K.AxisKind, size: int, inside: set[SSAValue], outside: set[SSAValue]) -> SSAValue | None:
        """The innermost range the opt split off (later splits of the same axis come before it)."""
        found = [r for r in ranges.values() if r.kind == kind and r.const_size == size and r.value in inside - outside]
        return max(found, key=lambda r: r.position).value if found else None

    dx, dy = set(deps[x]), set(deps[y])
    if (m := last(K.AxisKind.UPCAST, core.m, dx, dy)) is None:
        x, y, dx, dy = y, x, dy, dx
        m = last(K.AxisKind.UPCAST, core.m, dx, dy)
    n = last(K.AxisKind.UPCAST, core.n, dy, dx)
    k = last(K.AxisKind.UNROLL, core.k, dx & dy & set(reduce.ranges), set())
    if m is None or n is None or k is None:
        raise error_at(
            reduce,
            f"a reduce on tensor core {name} needs the ranges the tc opt made (upcast M by {core.m}, N by {core.n}, "
            f"unroll K by {core.k})",
        )
    if any(ranges[r].kind == K.AxisKind.GROUP_REDUCE for r in reduce.ranges):
        raise error_at(reduce, "a reduce on tensor cores cannot also be grouped across the workgroup")
    return TensorCorePlan(reduce, core, x, y, m, n, k, x.type)
