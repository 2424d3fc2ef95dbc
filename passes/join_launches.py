"""`kernel-join-launches`: consecutive CPU launches whose chunks line up run as one launch, chunk by chunk.

Every launch ends with a barrier: the thread that finishes its chunks first waits for the others, and the next
launch starts only when all have finished. When launch B's chunk reads only what the matching chunk of launch A
wrote, that barrier is not needed: one thread can run A's chunk and then B's, and the data B reads is still in
that core's cache (attention: the softmax of one head's rows, then that head's ``p @ v``). This pass marks such a
launch ``joined``; the CPU runtime then cuts the group's core ranges on a common grid (the gcd of their extents)
and one thread runs grid chunk g of every launch of the group in order (``LaunchSpec.joined``, runtime/runner.c).

The test, per buffer, from the index polynomials of the kernels after ``kernel-optimize``: a launch's core range
(the range the runtime splits: the first ``thread`` range, else the first ``global`` one no reduce loops over, as
the linearizer picks it) with extent ``e`` and a coefficient ``c`` in an access's index, every other term of the
index non-negative and below ``c``, touches ``[c i, c (i + 1))`` at core index ``i``, so ``[c e g / G, c e (g + 1)
/ G)`` in grid chunk g of G. A later stage may read a buffer an earlier stage writes when both spans per grid
chunk are equal (``c e`` of every store of the writer = ``d e'`` of every load of the reader): then what chunk g
reads was written by chunk g only. No stage may write a buffer another stage of the group reads before it or
writes too. Sizes must be constants; the grid must keep ``MIN_GRID`` indices, so that the threads still get
chunks. Launches without a core range, or with any access that is not such a polynomial where it matters, stay
alone.

Memory: the CPU runtime's arena counts a joined group as one step, so no buffer of the group shares bytes with
another of its buffers (the slots of ``kernel-plan-memory``, which the GPU devices use, are not read on CPUs).
An intermediate buffer that only one joined group uses, and that every access of every stage touches with the
same span ``S`` per core range (so grid chunk g touches ``[S g / G, S (g + 1) / G)`` and nothing else), is
**chunk-local**: no chunk reads what another chunk wrote, and nothing after the group reads it. Its
``kernel.alloc`` gets ``chunk_span = S``, and the native runner gives each thread a slice of that size in place
of the whole buffer (``BufferSpec.chunk_span``): attention's scores and probabilities, 8 MiB each, are 512 KiB
per thread that stay in its L2 from one chunk to the next instead of streaming through memory.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import permutations
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, UnitAttr
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import kernel as K
from kiln.dialects.alu import alu_kind
from kiln.passes.optimize.rewrite import body_start, const, reorder
from kiln.passes.optimize.space import const_size, ranges
from kiln.support.statistics import Statistic

JOINED = "joined"
"""The ``kernel.launch`` attribute this pass sets: run chunk by chunk with the launch before it."""

CHUNK_SPAN = "chunk_span"
"""The ``kernel.alloc`` attribute this pass sets on a chunk-local buffer: the elements its group's accesses span."""

MIN_GRID = 16
"""Grid chunks a joined group must keep: enough for up to 8 threads to get one each (this host has 2)."""

LAUNCHES_JOINED = Statistic("launches-joined", "Number of kernel.launch ops joined to the launch before them")
CHUNK_LOCAL = Statistic("chunk-local-buffers", "Number of kernel.alloc buffers marked chunk-local")

Affine = tuple[dict[SSAValue, int], int]
"""An index as coefficients of ranges plus a constant."""


def affine(v: SSAValue, memo: dict[SSAValue, Affine | None]) -> Affine | None:
    """``v`` as a sum of constant multiples of ranges plus a constant; None for anything else. A merged range's
    quotient and remainder (``m / n``, ``m % n``; see ``merge``) are terms of their own until ``combined``.
    ``memo`` holds the values done (index expressions share their parts)."""
    if v in memo:
        return memo[v]
    op = v.owner
    kind = alu_kind(op)  # type: ignore[arg-type]
    form: Affine | None = None
    if isinstance(op, K.RangeOp) or (kind in ("idiv", "mod") and merged_part(v) is not None):
        form = {v: 1}, 0
    elif (c := K.int_constant(v)) is not None:
        form = {}, c
    elif kind in ("add", "mul"):
        parts = [affine(o, memo) for o in op.operands]  # type: ignore[union-attr]
        if None not in parts:
            (a, x), (b, y) = parts  # type: ignore[misc]
            if kind == "add":
                form = {r: a.get(r, 0) + b.get(r, 0) for r in {*a, *b}}, x + y
            elif not (a and b):  # not a product of ranges
                terms, scale = (b, x) if not a else (a, y)
                form = {r: c * scale for r, c in terms.items()}, x * y
    memo[v] = form
    return form


def merged_part(v: SSAValue) -> tuple[str, K.RangeOp, int] | None:
    """("idiv" or "mod", the range, n) when ``v`` is ``range / n`` or ``range % n`` with a constant n > 0."""
    op = v.owner
    kind = alu_kind(op)  # type: ignore[arg-type]
    if kind not in ("idiv", "mod"):
        return None
    r, n = op.operands  # type: ignore[union-attr]
    divisor = K.int_constant(n) or 0
    return (kind, r.owner, divisor) if isinstance(r.owner, K.RangeOp) and divisor > 0 else None


def combined(terms: dict[SSAValue, int]) -> dict[SSAValue, int]:
    """``terms`` with ``(m / n) * n c + (m % n) * c`` written ``m * c``."""
    out = dict(terms)
    for v, coefficient in terms.items():
        part = merged_part(v)
        if part is None or part[0] != "idiv":
            continue
        _, r, n = part
        remainder = next((u for u in out if merged_part(u) == ("mod", r, n)), None)
        if remainder is not None and coefficient == n * out[remainder]:
            out[r.result] = out.get(r.result, 0) + out.pop(remainder)
            del out[v]
    return out


def bound(v: SSAValue) -> int | None:
    """The largest value of a range or of a merged range's quotient or remainder (None: unknown)."""
    if isinstance(v.owner, K.RangeOp):
        size = const_size(v.owner)
        return None if size is None else size - 1
    kind, r, n = merged_part(v)  # type: ignore[misc]
    size = const_size(r)
    return None if size is None else (size - 1) // n if kind == "idiv" else n - 1


def core_range(kernel: K.KernelOp) -> K.RangeOp | None:
    """The range the CPU runtime splits across threads (``CpuLaunch``'s choice)."""
    ranges = [op for op in kernel.body.block.ops if isinstance(op, K.RangeOp)]
    looped = {r for op in kernel.body.block.ops if isinstance(op, K.ReduceOp) for r in op.ranges}
    threads = [r for r in ranges if r.kind.data == K.AxisKind.THREAD and r.result not in looped]
    globals_ = [r for r in ranges if r.kind.data == K.AxisKind.GLOBAL and r.result not in looped]
    return (threads or globals_ or [None])[0]


@dataclass
class Stage:
    """A launch as this pass sees it: its core extent, and per buffer of the schedule the span each core index
    of its loads and stores covers (``c e``, None where an access is not a bounded polynomial)."""

    extent: int
    reads: dict[SSAValue, set[int | None]]
    writes: dict[SSAValue, set[int | None]]


def span(index: SSAValue, core: K.RangeOp, extent: int, memo: dict[SSAValue, Affine | None]) -> int | None:
    """``c e`` of an access (see the module docstring), or None when the index is not bounded that way."""
    form = affine(index, memo)
    if form is None:
        return None
    terms, rest = form
    terms = combined(terms)
    c = terms.get(core.result, 0)
    if c <= 0 or rest < 0:
        return None
    for r, coefficient in terms.items():
        if r is core.result:
            continue
        part = merged_part(r)
        largest = bound(r)
        if coefficient < 0 or largest is None or (part is not None and part[1] is core):
            return None
        rest += coefficient * largest
    return c * extent if rest < c else None


def stage(launch: K.LaunchOp, kernel: K.KernelOp, core: K.RangeOp | None) -> Stage | None:
    """The launch of ``kernel`` with ``core`` as its core range (None: it has none)."""
    extent = const_size(core) if core is not None else None
    if core is None or extent is None or extent < 1:
        return None
    buffers = dict(zip(kernel.body.block.args, launch.args))
    result = Stage(extent, {}, {})
    memo: dict[SSAValue, Affine | None] = {}
    for op in kernel.body.block.ops:
        if isinstance(op, K.LoadOp | K.StoreOp):
            target = result.reads if isinstance(op, K.LoadOp) else result.writes
            target.setdefault(buffers[op.buffer], set()).add(span(op.index, core, extent, memo))
    return result


def joins(group: Sequence[Stage], new: Stage) -> bool:
    """Whether ``new`` may run chunk by chunk after the launches of ``group``."""
    if math.gcd(*(s.extent for s in group), new.extent) < MIN_GRID:
        return False
    for earlier in group:
        if any(b in earlier.reads or b in earlier.writes for b in new.writes):
            return False
        for buffer, spans in new.reads.items():
            written = earlier.writes.get(buffer)
            if written is not None and (len(written | spans) != 1 or None in spans):
                return False
    return True


@dataclass(frozen=True)
class KernelJoinLaunches(ModulePass):
    """Mark consecutive launches whose chunks line up to run as one CPU launch, chunk by chunk."""

    name = "kernel-join-launches"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = {k.sym_name.data: k for k in op.ops if isinstance(k, K.KernelOp)}
        functions = [fn for fn in op.ops if isinstance(fn, func.FuncOp)]
        launched = Counter(launch.callee.string_value() for fn in functions for launch in fn.walk()
                           if isinstance(launch, K.LaunchOp))
        for fn in functions:
            join_function(fn, kernels, launched)


def other_cores(kernel: K.KernelOp, core: K.RangeOp) -> list[K.RangeOp]:
    """The kernel's other ranges that could be its core range if they were moved to its place."""
    looped = {r for op in kernel.body.block.ops if isinstance(op, K.ReduceOp) for r in op.ranges}
    return [op for op in kernel.body.block.ops if isinstance(op, K.RangeOp) and op is not core
            and op.kind.data == core.kind.data and op.result not in looped]


def make_core(kernel: K.KernelOp, core: K.RangeOp, new: K.RangeOp) -> None:
    """Swap ``new`` into the place of ``core`` in the ranges' nesting order, so that the runtime splits it."""
    order = ranges(kernel)
    i, j = order.index(core), order.index(new)
    order[i], order[j] = new, core
    reorder(kernel, order)


def join_function(fn: func.FuncOp, kernels: dict[str, K.KernelOp], launched: Counter[str]) -> None:
    """Join the launches of ``fn`` (``launched``: how often each kernel is launched in the module; a kernel
    launched more than once is never rewritten), then mark its chunk-local buffers."""
    launches = [op for op in fn.body.block.ops if isinstance(op, K.LaunchOp)]
    group: list[Stage] = []
    members: list[K.LaunchOp] = []  # the group's launches, as ``group`` has their stages
    groups: list[tuple[list[K.LaunchOp], list[Stage]]] = []
    last: tuple[K.LaunchOp, K.KernelOp] | None = None  # the group's launch while it has one
    for launch in launches:
        launch.attributes.pop(JOINED, None)
        name = launch.callee.string_value()
        kernel = kernels.get(name)
        core = core_range(kernel) if kernel is not None else None
        new = stage(launch, kernel, core) if kernel is not None else None
        reads_group = new is not None and any(b in s.writes for s in group for b in new.reads)
        if new is not None and group and not joins(group, new) and reads_group:
            options = []  # (grid, the stages that join, the rewrite that makes them)
            if launched[name] == 1:
                options += [(grid(group, s), [*group, s], apply) for s, apply in alternatives(launch, kernel)
                            if joins(group, s)]
            if last is not None and launched[last[0].callee.string_value()] == 1:
                options += [(grid([s], new), [s, new], apply) for s, apply in alternatives(*last)
                            if joins([s], new)]
            if options:
                _, stages, apply = max(options, key=lambda option: option[0])
                apply()
                group[:], new = stages[:-1], stages[-1]
        if new is not None and group and joins(group, new):
            launch.attributes[JOINED] = UnitAttr()
            LAUNCHES_JOINED.bump()
            group.append(new)
            members.append(launch)
            last = None
        else:
            group, members = ([new], [launch]) if new is not None else ([], [])
            groups.append((members, group))
            last = (launch, kernel) if new is not None else None  # type: ignore[assignment]
    mark_chunk_local(fn, [g for g in groups if len(g[0]) > 1])


def mark_chunk_local(fn: func.FuncOp, groups: Sequence[tuple[list[K.LaunchOp], list[Stage]]]) -> None:
    """Set ``chunk_span`` on each ``kernel.alloc`` of ``fn`` that only one joined group uses, every access of
    every stage of it with the same span (not returned: the return is a use outside every group)."""
    for op in fn.body.block.ops:
        if not isinstance(op, K.AllocOp):
            continue
        op.attributes.pop(CHUNK_SPAN, None)
        buffer = op.result
        users = {use.operation for use in buffer.uses}
        for launches, stages in groups:
            if not users or not users <= set(launches):
                continue
            spans = set().union(*(s.reads.get(buffer, set()) | s.writes.get(buffer, set()) for s in stages))
            if len(spans) == 1 and None not in spans:
                op.attributes[CHUNK_SPAN] = IntegerAttr(spans.pop(), 64)
                CHUNK_LOCAL.bump()


def grid(group: Sequence[Stage], new: Stage) -> int:
    return math.gcd(*(s.extent for s in group), new.extent)


def alternatives(launch: K.LaunchOp, kernel: K.KernelOp) -> list[tuple[Stage, Callable[[], None]]]:
    """The launch with another core range: another of its ranges moved to the core range's place, or two of its
    ranges merged into one (``merge``); each with the rewrite of the kernel that makes it so."""
    core = core_range(kernel)
    if core is None:
        return []
    found = []
    for other in other_cores(kernel, core):
        if (s := stage(launch, kernel, other)) is not None:
            found.append((s, lambda other=other: make_core(kernel, core, other)))
    memo: dict[SSAValue, Affine | None] = {}
    stores = [affine(op.index, memo) for op in kernel.body.block.ops if isinstance(op, K.StoreOp)]
    for outer, inner in permutations([core, *other_cores(kernel, core)], 2):
        n = const_size(inner)
        if const_size(outer) is None or n is None or not all(
            form is not None and form[0].get(inner.result, 0) > 0
            and form[0].get(outer.result, 0) == n * form[0][inner.result] for form in stores
        ):
            continue  # the stores would not walk the merged range contiguously: no clone tried
        trial = kernel.clone()
        ranges_of = dict(zip(ranges(kernel), ranges(trial)))
        merged = merge(trial, ranges_of[outer], ranges_of[inner])
        if core_range(trial) is merged and (s := stage(launch, trial, merged)) is not None:
            found.append((s, lambda trial=trial: replace_body(kernel, trial)))
    return found


def merge(kernel: K.KernelOp, outer: K.RangeOp, inner: K.RangeOp) -> K.RangeOp:
    """Replace ``outer`` and ``inner`` by one range ``m`` over both, the kernel's first range (its core range):
    ``outer`` is ``m / size(inner)``, ``inner`` is ``m % size(inner)``."""
    index = IndexType()
    n = const_size(inner)
    merged = K.RangeOp(const(kernel, const_size(outer) * n, index), outer.kind.data)  # type: ignore[operator]
    first = next(op for op in kernel.body.block.ops if isinstance(op, K.RangeOp))
    Rewriter.insert_op(merged, InsertPoint.before(first))
    divisor = const(kernel, n, index)  # type: ignore[arg-type]
    quotient = K.ALU["idiv"](merged.result, divisor)
    Rewriter.insert_op(quotient, body_start(kernel))
    remainder = K.ALU["mod"](merged.result, divisor)
    Rewriter.insert_op(remainder, InsertPoint.after(quotient))
    for old, new in ((outer, quotient), (inner, remainder)):
        old.result.replace_all_uses_with(new.results[0])
        old.detach()
        old.erase()
    return merged


def replace_body(kernel: K.KernelOp, trial: K.KernelOp) -> None:
    """Give ``kernel`` the body of ``trial`` (a rewritten clone of it)."""
    body = trial.body.detach_block(0)
    kernel.body.detach_block(0).erase()
    kernel.body.add_block(body)
