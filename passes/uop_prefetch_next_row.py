"""``uop-prefetch-next-row``: in a CPU row kernel that reads each row twice, fetch the next row from memory while
the second, compute-heavy pass over this row runs.

Softmax's row (docs/performance.md, "Softmax prefetch, session 9") is a max loop ``L1`` that reads the row from
memory, then a loop ``L2`` that computes ``exp(x - max)`` from the same row (in cache by then) and sums it. ``L1``
waits on memory while the core computes nothing; ``L2`` computes while memory does nothing. Prefetching the next
row during ``L2`` overlaps the two. A prefetch in ``L2``'s body would keep LLVM's loop vectorizer from
vectorizing it (it cannot widen ``llvm.prefetch``), and a burst of prefetches before ``L2`` gained nothing
(measured), so ``L2`` is cut into chunks of ``CHUNK_BYTES``: each chunk first prefetches its share of the next
row (one ``uop.prefetch`` per cache line, in a small loop LLVM unrolls), then runs the chunk's iterations in an
inner loop, which is vectorized as ``L2`` was.

Applied to an outer loop ``R`` and two loops ``L1`` before ``L2`` directly in it, with the same constant bounds,
a trip count that is a multiple of the chunk and a row of at least ``MIN_ROW_BYTES`` (narrower rows were slower
with it), where:
- ``L2`` computes a math function (``exp``, ``log``, ...) and stores, as softmax's stashing exp loop does: a
  second loop of plain arithmetic (``x - mean(x)``, a layernorm) ran 20-30% slower with the chunks, and
  log-softmax's exp loop, which stores nothing, did not gain;
- ``L1`` and ``L2`` both load buffer ``P``, which the kernel never writes, at an index that steps by one element
  along their own loop and by the same constant along ``R`` (the row read twice, contiguously);
- the index is built from index arithmetic only (so it can be computed for ``R + 1``);
- the kernel shares no local memory and has no barriers (CPU kernels).
The prefetched addresses of ``R``'s last iteration lie past the rows this thread runs, possibly past the buffer:
a prefetch never faults (``uop.prefetch``). Results are unchanged, up to the order in which the vectorized
``L2`` adds up a reduction (a horizontal sum per chunk).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from kiln.dialects import uop as U
from kiln.dialects.alu import alu_kind
from kiln.dialects.ops.table import function_names
from kiln.dialects.types import itemsize
from kiln.support import symbolic as S
from kiln.support.statistics import Statistic

CHUNK_BYTES = 1024
"""Elements of ``L2`` per chunk, in bytes of the prefetched buffer: 16 cache lines of the next row are requested
before each chunk (softmax 4096^2 on znver4, one thread: 1 KiB chunks 13% faster, 4 KiB chunks slower than none)."""
LINE_BYTES = 64
"""The cache line: one prefetch per line."""
MIN_ROW_BYTES = 16384
"""Least row (``L2``'s trip count, in bytes of the buffer) worth it. Softmax over 64 MiB on znver4, one thread,
time per call with / without the pass: rows of 4096 and 8192 floats 6.7 / 7.5 and 6.9 / 7.8 ms, rows of 1024 and
2048 floats 7.3 / 5.8 and 7.1 / 6.1 ms (narrow rows ran faster without it: the hardware overlaps them already),
rows of 512 floats in 8 MiB (attention's scores) 0.78 / 0.71 ms."""

PREFETCHED = Statistic("loops-prefetching", "Number of loops cut into chunks that prefetch the next row")

_INDEX_ARITHMETIC = {"add": S.add, "sub": S.sub, "mul": S.mul}


@dataclass(frozen=True)
class UopPrefetchNextRow(ModulePass):
    """Cut the second pass over a row into chunks, each prefetching its part of the next row first."""

    name = "uop-prefetch-next-row"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.ops if isinstance(k, U.UopKernelOp)]:
            ops = list(kernel.body.block.ops)
            if any(isinstance(o, U.DefineLocalOp | U.BarrierOp) for o in ops):
                continue
            cut: set[U.RangeOp] = set()
            for outer, loop, load in RowKernel(kernel).candidates():
                if outer not in cut:  # a loop just cut no longer exists as the outer loop of another candidate
                    _rewrite(kernel, outer, loop, load)
                    cut.add(loop)
                    PREFETCHED.bump()


def index_constant(value: SSAValue) -> int | None:
    """The value of an index ``uop.const``, else None."""
    owner = value.owner
    if isinstance(owner, U.ConstOp) and isinstance(value.type, IndexType):
        return owner.value.value.data  # type: ignore[attr-defined]
    return None


class RowKernel:
    """A kernel's ops with the loop or ``if`` each sits in (``scope``) and the buffers it stores to (``written``);
    shared with ``uop-prefetch-next-block``."""

    def __init__(self, kernel: U.UopKernelOp):
        self.block = kernel.body.block
        self.scope: dict[Operation, Operation | None] = {}
        open_scopes: list[Operation] = []
        for op in self.block.ops:
            if isinstance(op, U.EndOp | U.EndIfOp):
                open_scopes.pop()
            self.scope[op] = open_scopes[-1] if open_scopes else None
            if isinstance(op, U.RangeOp | U.IfOp):
                open_scopes.append(op)
        self.written = {o.ptr for o in self.block.ops if isinstance(o, U.StoreOp)}
        self.function_kinds = set(function_names("c"))

    def candidates(self) -> list[tuple[U.RangeOp, U.RangeOp, U.LoadOp]]:
        """(``R``, ``L2``, ``L2``'s load of ``P``) for each loop to cut, at most one per ``R``."""
        found = []
        for outer in [o for o in self.block.ops if isinstance(o, U.RangeOp)]:
            loops = [o for o in self.block.ops if isinstance(o, U.RangeOp) and self.scope[o] is outer]
            for n, first in enumerate(loops):
                pick = next((p for second in loops[n + 1:] if (p := self._pair(outer, first, second))), None)
                if pick is not None:
                    found.append((outer, *pick))
                    break
        return found

    def _pair(self, outer: U.RangeOp, first: U.RangeOp, second: U.RangeOp) -> tuple[U.RangeOp, U.LoadOp] | None:
        lo, hi = index_constant(second.lo), index_constant(second.hi)
        same_bounds = (index_constant(first.lo), index_constant(first.hi)) == (lo, hi)
        if lo is None or hi is None or not same_bounds or not self._heavy(second):
            return None
        for load in self._row_loads(outer, second):
            size = itemsize(load.result.type)
            if (hi - lo) % (CHUNK_BYTES // size) or (hi - lo) * size < MIN_ROW_BYTES:
                continue
            step = self._step(load.index, outer)
            if any(o.ptr == load.ptr and self._step(o.index, outer) == step for o in self._row_loads(outer, first)):
                return second, load
        return None

    def _heavy(self, loop: U.RangeOp) -> bool:
        """Whether ``loop``'s body computes a math function (exp, log, ...) and stores: the loops that gained."""
        body = [o for o in self.block.ops if self.scope[o] is loop]
        return (any(isinstance(o, U.StoreOp) for o in body)
                and any(alu_kind(o) in self.function_kinds for o in body))

    def _row_loads(self, outer: U.RangeOp, loop: U.RangeOp) -> list[U.LoadOp]:
        """Ungated scalar loads directly in ``loop`` of buffers the kernel never writes, at an index of index
        arithmetic that steps by one along ``loop`` and by a constant along ``outer``."""
        return [o for o in self.block.ops if isinstance(o, U.LoadOp) and self.scope[o] is loop and o.gate is None
                and o.ptr not in self.written and isinstance(o.ptr.type, U.PtrType) and not o.ptr.type.local
                and o.result.type == o.ptr.type.element_type and self._step(o.index, loop) == 1
                and self._step(o.index, outer) is not None]

    def _step(self, index: SSAValue, loop: U.RangeOp) -> int | None:
        """``I(r + 1) - I(r)`` along ``loop`` where it is a constant, else None (also where the index uses
        anything but constants, values from outside, loop indices and index add/sub/mul)."""
        def expr(value: SSAValue, r: S.Expr) -> S.Expr | None:
            if value == loop.result:
                return r
            owner = value.owner
            if (c := index_constant(value)) is not None:
                return S.const(c)
            if isinstance(owner, U.RangeOp | U.ParamOp | U.SpecialOp) or not isinstance(owner, Operation):
                return S.Var(f"v{id(value)}", S.INDEX_MIN, S.INDEX_MAX)
            kind = alu_kind(owner)
            if kind not in _INDEX_ARITHMETIC or not isinstance(value.type, IndexType):
                return None
            parts = [expr(v, r) for v in owner.operands]
            return None if None in parts else _INDEX_ARITHMETIC[kind](*parts)  # type: ignore[arg-type]

        r = S.Var("r", 0, S.INDEX_MAX // 2)
        at, after = expr(index, r), expr(index, S.add(r, 1))
        if at is None or after is None:
            return None
        delta = S.sub(after, at)
        return delta.value if isinstance(delta, S.Const) else None


def _rewrite(kernel: U.UopKernelOp, outer: U.RangeOp, loop: U.RangeOp, load: U.LoadOp) -> None:
    """``for i in lo..hi: body`` becomes ``for c: (prefetch the next row's lines of chunk c); for j in
    0..chunk: body[i := lo + c * chunk + j]``."""
    block = kernel.body.block
    chunk = CHUNK_BYTES // itemsize(load.result.type)
    line = max(1, LINE_BYTES // itemsize(load.result.type))
    lo, hi = index_constant(loop.lo), index_constant(loop.hi)
    assert lo is not None and hi is not None

    constants: dict[int, SSAValue] = {}

    def const(n: int) -> SSAValue:
        if n not in constants:
            op = U.ConstOp.from_number(n, IndexType())
            block.insert_op_before(op, loop)
            constants[n] = op.results[0]
        return constants[n]

    def before(op: Operation) -> SSAValue:
        block.insert_op_before(op, loop)
        return op.results[0]

    zero, one = const(0), const(1)
    chunks = before(U.RangeOp(zero, const((hi - lo) // chunk)))
    start = before(alu_op("mul", chunks, const(chunk)))
    if lo:
        start = before(alu_op("add", start, const(lo)))
    lines = before(U.RangeOp(zero, const(chunk // line)))
    element = before(alu_op("add", start, before(alu_op("mul", lines, const(line)))))
    next_row = before(alu_op("add", outer.result, one))
    end = loop_end(loop)
    body: set[Operation] = set()
    op = loop.next_op
    while op is not end:
        body.add(op)
        op = op.next_op
    index = clone_before(block, load.index, {loop.result: element, outer.result: next_row}, body, loop)
    block.insert_op_before(U.PrefetchOp(load.ptr, index), loop)
    block.insert_op_before(U.EndOp(lines), loop)
    inner = U.RangeOp(zero, const(chunk))
    block.insert_op_before(inner, loop)
    position = before(alu_op("add", start, inner.result))
    end.operands[0] = inner.result
    block.insert_op_after(U.EndOp(chunks), end)
    loop.result.replace_all_uses_with(position)
    loop.detach()
    loop.erase()


def alu_op(kind: str, lhs: SSAValue, rhs: SSAValue) -> Operation:
    """A ``uop`` ALU op of ``kind`` over two operands."""
    return U.ALU[kind](lhs, rhs)  # type: ignore[call-arg]


def loop_end(loop: U.RangeOp) -> Operation:
    """The ``uop.end`` closing ``loop``."""
    return next(u.operation for u in loop.result.uses if isinstance(u.operation, U.EndOp))


def clone_before(block: Block, value: SSAValue, mapping: dict[SSAValue, SSAValue], body: set[Operation],
           before: Operation) -> SSAValue:
    """``value`` computed before ``before`` with ``mapping`` applied: the index arithmetic between it and the
    mapped values, and what of it ``body`` computes, is cloned; the rest is used as it is."""
    if value in mapping:
        return mapping[value]
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.has_trait(Pure) or isinstance(owner, U.RangeOp):
        return value
    operands = [clone_before(block, v, mapping, body, before) for v in owner.operands]
    if operands == list(owner.operands) and owner not in body:
        return value
    clone = owner.clone(value_mapper=dict(zip(owner.operands, operands, strict=True)))
    for result in clone.results:  # the clone computes another row's index: not the original's name
        result.name_hint = None
    block.insert_op_before(clone, before)
    mapping[value] = clone.results[value.index]
    return mapping[value]
