"""``uop-prefetch-next-block``: in a CPU kernel that reads consecutive blocks of a buffer across (a transposing
copy), fetch the next block while this one is read.

A transposing copy (attention's copy of ``k^T`` into panels: heuristic ``transpose_lanes``) builds each vector it
stores from lanes loaded one by one, each lane from another row of the source. Each iteration of an outer loop
``R`` reads one block of the source (one panel: 32 rows of 64 floats, 8 KiB), column by column: a loop ``L``
walks the block's columns, and in every iteration the lanes touch one element of each row. That order defeats the
hardware prefetchers: on one znver4 core the copy took 0.15 ms with its source in L3 and 0.05 ms with it in L2.
So each iteration of ``L`` first prefetches its share of the next block (``R + 1``): the block's lines spread
evenly over ``L``'s iterations (two 64-byte lines per column for the 8 KiB panel): 0.08-0.11 ms with the source
in L3 (docs/performance.md, "Attention's copy of k^T, session 12").

Applied to a ``uop.vectorize`` of at least two scalar loads of one buffer the kernel never writes, ungated, whose
lanes lie at least a cache line apart (the transposing read; a contiguous read is the hardware's), inside loops
``R`` > ``L`` (> any loops between ``L`` and the loads), where:
- every load's index is index arithmetic, a constant combination of the loop indices and values from outside,
  the lanes differing by a constant step;
- the loops from ``L`` in start at 0 and have constant trip counts, and with the lanes they cover one dense block
  per iteration of ``R`` (strides 1, t1, t1 t2, ... of their trip counts, and ``R``'s stride the block's size);
- the block is at most ``MAX_BLOCK_BYTES`` and its lines divide evenly over ``L``'s iterations, at most
  ``MAX_LINES_PER_STEP`` each.
``R + 1``'s prefetches past the last block point past the rows this thread runs, possibly past the buffer: a
prefetch never faults (``uop.prefetch``). Results are unchanged. cpu-llvm only, as ``uop-prefetch-next-row``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import uop as U
from kiln.dialects.alu import alu_kind
from kiln.dialects.types import itemsize
from kiln.passes.uop_prefetch_next_row import LINE_BYTES, RowKernel, alu_op, clone_before, index_constant, loop_end
from kiln.support.statistics import Statistic

MAX_BLOCK_BYTES = 16384
"""Largest block prefetched: this block and the next stay in a 32 KiB L1 data cache."""
MAX_LINES_PER_STEP = 4
"""Most prefetches per iteration of ``L``: the copy's loop loads 32 lanes per iteration; a few more requests fit."""

BLOCKS_AHEAD = 1
"""Which block is prefetched: the next (2 or 3 ahead: attention's copy of k^T 0.11 ms against 0.09, one core)."""

PREFETCHED = Statistic("blocks-prefetched", "Number of loops prefetching the next block of a transposing read")

Affine = tuple[dict[SSAValue, int], int]
"""An index as coefficients of values (loop indices, values from outside) plus a constant."""


@dataclass(frozen=True)
class UopPrefetchNextBlock(ModulePass):
    """Prefetch the next block of a transposing read, a share of it in each iteration of the loop inside."""

    name = "uop-prefetch-next-block"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.ops if isinstance(k, U.UopKernelOp)]:
            if any(isinstance(o, U.DefineLocalOp | U.BarrierOp) for o in kernel.body.block.ops):
                continue
            vectors = [o for o in kernel.body.block.ops if isinstance(o, U.VectorizeOp)]
            if not vectors:
                continue
            rows = RowKernel(kernel)
            done: set[U.RangeOp] = set()
            for vector in vectors:
                found = _block_read(rows, vector)
                if found is not None and found[0] not in done:
                    _prefetch(kernel, *found)
                    done.add(found[0])
                    PREFETCHED.bump()
                    rows = RowKernel(kernel)  # the new ops have no scope yet


def _affine(value: SSAValue, memo: dict[SSAValue, Affine | None]) -> Affine | None:
    """``value`` as constant multiples of loop indices and outside values plus a constant; None otherwise."""
    if value in memo:
        return memo[value]
    owner = value.owner
    form: Affine | None = None
    if (c := index_constant(value)) is not None:
        form = {}, c
    elif not isinstance(owner, Operation) or isinstance(owner, U.RangeOp | U.ParamOp | U.SpecialOp):
        form = {value: 1}, 0
    elif (kind := alu_kind(owner)) in ("add", "sub", "mul") and isinstance(value.type, IndexType):
        parts = [_affine(v, memo) for v in owner.operands]
        if None not in parts:
            (a, x), (b, y) = parts  # type: ignore[misc]
            if kind != "mul":
                sign = 1 if kind == "add" else -1
                form = {r: a.get(r, 0) + sign * b.get(r, 0) for r in {*a, *b}}, x + sign * y
            elif not (a and b):
                terms, scale = (b, x) if not a else (a, y)
                form = {r: k * scale for r, k in terms.items()}, x * y
    memo[value] = form
    return form


def _block_read(rows: RowKernel, vector: U.VectorizeOp) -> tuple[U.RangeOp, U.RangeOp, U.LoadOp, int] | None:
    """(``R``, ``L``, the first lane's load, the block's elements) for a transposing read of whole blocks."""
    loads = list(vector.elements)
    if len(loads) < 2 or not all(isinstance(v.owner, U.LoadOp) for v in loads):
        return None
    ops: list[U.LoadOp] = [v.owner for v in loads]  # type: ignore[misc]
    ptr = ops[0].ptr
    if any(o.ptr != ptr or o.gate is not None or rows.scope[o] is not rows.scope[ops[0]] for o in ops) or \
            ptr in rows.written or not isinstance(ptr.type, U.PtrType) or ptr.type.local or \
            ops[0].result.type != ptr.type.element_type:
        return None
    memo: dict[SSAValue, Affine | None] = {}
    forms = [_affine(o.index, memo) for o in ops]
    if None in forms or any(f[0] != forms[0][0] for f in forms):  # type: ignore[index]
        return None
    offsets = [f[1] for f in forms]  # type: ignore[index]
    step, line = offsets[1] - offsets[0], LINE_BYTES // itemsize(ops[0].result.type)
    if step < line or any(b - a != step for a, b in zip(offsets, offsets[1:])):
        return None
    coefficients = forms[0][0]  # type: ignore[index]
    chain: list[U.RangeOp] = []
    scope = rows.scope[ops[0]]
    while isinstance(scope, U.RangeOp):
        chain.append(scope)
        scope = rows.scope[scope]
    for depth in range(1, len(chain)):
        inner, outer = chain[:depth], chain[depth]  # inner[-1] is L, directly inside R
        trips = [index_constant(r.hi) if index_constant(r.lo) == 0 else None for r in inner]
        if None in trips:
            return None
        dims = sorted([(coefficients.get(r.result, 0), t) for r, t in zip(inner, trips)] + [(step, len(ops))])
        dense = 1
        for stride, trip in dims:
            dense = dense * trip if stride == dense else 0  # type: ignore[operator]
        block, size = coefficients.get(outer.result, 0), itemsize(ops[0].result.type)
        per_step, ragged = divmod(block, trips[-1] * line)  # type: ignore[operator]
        if dense == block and not ragged and 1 <= per_step <= MAX_LINES_PER_STEP and block * size <= MAX_BLOCK_BYTES:
            return outer, inner[-1], ops[offsets.index(min(offsets))], block
    return None


def _prefetch(kernel: U.UopKernelOp, outer: U.RangeOp, loop: U.RangeOp, load: U.LoadOp, block: int) -> None:
    """At the top of ``loop``'s body: prefetch ``block / trip`` elements of ``outer``'s next block, line by line."""
    body_start = loop.next_op
    assert body_start is not None
    kernel_block = kernel.body.block
    line = LINE_BYTES // itemsize(load.result.type)
    trip = index_constant(loop.hi)
    assert trip is not None

    def emit(op: Operation) -> SSAValue:
        kernel_block.insert_op_before(op, body_start)
        return op.results[0]

    def const(n: int) -> SSAValue:
        return emit(U.ConstOp.from_number(n, IndexType()))

    zero = const(0)
    mapping = {outer.result: emit(alu_op("add", outer.result, const(BLOCKS_AHEAD))), loop.result: zero}
    body: set[Operation] = set()
    op: Operation | None = body_start
    end = loop_end(outer)
    while op is not None and op is not end:  # what the clone must compute anew: the loops inside R from L on
        body.add(op)
        if isinstance(op, U.RangeOp):
            mapping[op.result] = zero
        op = op.next_op
    start = clone_before(kernel_block, load.index, mapping, body, body_start)
    at = emit(alu_op("add", start, emit(alu_op("mul", loop.result, const(block // trip)))))
    for m in range(block // trip // line):
        index = at if m == 0 else emit(alu_op("add", at, const(m * line)))
        kernel_block.insert_op_before(U.PrefetchOp(load.ptr, index), body_start)
