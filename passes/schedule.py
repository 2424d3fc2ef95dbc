"""`graph-mark-realize`: decide where values are written to memory, i.e. how the graph is cut into kernels.

Everything not realized is recomputed inside the kernel of its consumer (fusion). The rules follow
tinygrad's rangeify, in terms a user can read in the IR (`graph.realize = "<reason>"` on the op):

- `output`: a function result; `contiguous`: the user asked for it.
- `reduce broadcast`: a reduction reached from its kernel through a broadcast (expand, implicit numpy
  broadcast, gather) would be recomputed for every broadcast element: realize it (softmax, layernorm).
  Except with `target=T` where T's description has `broadcast_reduce_bytes` (CPUs): a thread runs the kernel's
  ranges as nested loops and the linearizer computes a reduction outside the loops it does not depend on, so
  one broadcast only along loops inside every loop it depends on (a row max broadcast along the row) is
  computed once per result in its consumer's kernel, while its row stays in cache: it is fused when it reads
  at most that many bytes per result. Softmax and layernorm become one kernel. Broadcast along an outer loop
  (column sums broadcast over rows) it would be recomputed per row: realized as before. The walk follows the
  loops through elementwise ops, broadcasts, permutes, unit-dim reshapes and reductions; behind any other
  index map the rule above applies.
- `multi-use reduce`: a reduction needed by several consumers is computed once. Several uses at the same
  index in one kernel are one computation there (with a target; without one every path counts). A value
  reached again at an index the walk does not follow (strided slices, pads, concats) is computed again, and so
  are the reductions below it: max pool as nine strided slices of a conv output realizes the conv. A reduction
  whose only use scales or shifts it by a scalar constant is realized after that (through a chain of them), so
  the epilogue is computed once in its kernel: attention's `q k^T / 8`, which the softmax reads twice, and an
  average pool's sum divided by its window.
- `concat read again`: a concat below such a value, or reached through a broadcast (a pool's windows), selects
  among its pieces once per read: realized, the reads are plain loads (a max pool over an Inception module's
  output read each element nine times through a four-way select).
- `shared expensive`: a non-reduce value used along several paths whose recomputation costs more than
  `RECOMPUTE_LIMIT` ops is computed once; not a concat of realized pieces (through nested concats, reshapes
  and slices), which `convert-graph-to-kernel` keeps in place, so that a read of it is one load. Decided only in a round that realizes nothing else: a value under a
  reduction realized in the same round was counted once per path to that reduction (a matmul's broadcast
  product under a sum with two consumers).
- `broadcast expensive`: an elementwise value reached from its kernel through a broadcast is recomputed for
  every broadcast element (a matmul's prologue, once per output column tile): realized when that takes more
  than `BROADCAST_RECOMPUTE_LIMIT` ALU ops (movement ops and constants are free; reductions and realized
  values count as loads). Attention's `softmax(q k^T) v` computed every probability, exp included, once per
  tile of v's columns inside the second matmul; realized, the probabilities are computed once and the matmul
  reads them. A bias and an activation (`relu(x W + b) V`) stay fused.
- `concat piece`: a piece of a concat whose computation holds a reduction. A concat's kernel computes every
  piece at every element (loads outside a piece masked) and selects: a fused conv would run over the whole
  concat, n times its own size (DenseNet's dense blocks: a 32-channel conv computed over 256 channels). The
  piece itself is realized, not the reduction below it, so its bias and activation are computed in the
  reduction's kernel (a fire module's `relu(conv + b)`), and `convert-graph-to-kernel` can store it straight
  into its slice of the concat (concat in place).
- `merged reduce`: a value that computes a reduction (the reduction or its elementwise epilogue), read through
  a reshape that merges its innermost dim with the ones before it (a depthwise conv's 14x14 points as 196, padded
  to the next grouped matmul's panels; a max pool's points as a 1x1 conv's columns). Fused, the consumer's
  kernel divides its innermost index into row and column, and its vectors along that index straddle rows, so
  every tap of the reduction is a masked load per lane (ShuffleNet's depthwise convs 0.56 ms instead of 0.12).
  Realized, the reduction's kernel runs over its own rows and the reshape is a copy.

A reduction reached only through other injective index maps (reshape, permute, pad, shrink, flip) fuses
with its elementwise consumers: matmul + bias + relu is one kernel.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import defaultdict
from dataclasses import dataclass, field, replace

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph
from kiln.dialects.graph import REALIZE_ATTR
from kiln.dialects.types import TensorType, declared_dims, itemsize
from kiln.support import trampoline
from kiln.support.diagnostics import error_at
from kiln.support.trampoline import Walk
from kiln.capabilities.description import TargetDescription, target_for_pass

RECOMPUTE_LIMIT = 24

BROADCAST_RECOMPUTE_LIMIT = 2
"""ALU ops an elementwise value reached through a broadcast may cost and still be recomputed per element."""

REDUCE_NAMES = frozenset(
    {"graph.reduce_sum", "graph.reduce_prod", "graph.reduce_max", "graph.reduce_min", "graph.mean"}
)
ELEMENTWISE = (graph.UnaryOp, graph.BinaryOp, graph.WhereOp, graph.CastOp)
"""The graph ops that cost ALU work per element (movement ops and constants are index maps)."""
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


@dataclass(frozen=True)
class _View:
    """Where a value on a path from a kernel's root is computed, in the loops each thread of a CPU target runs.

    Loops are numbered in nesting order: the root's dims first, then the ranges of each reduction inside the
    reductions enclosing it. `dims` gives per dim of the value the loop its index walks (None: index 0, a
    broadcast dim), or is None where an index map is not followed (pad, concat, gather, shrink, flip, reshapes
    other than of unit dims); `exact`: the same dims mean the same index, so the kernel builder computes the
    value once; `live`: the loops around the computation."""

    dims: tuple[int | None, ...] | None
    live: frozenset[int]
    exact: bool = True


@dataclass
class _Kernel:
    """The state of one root's walk."""

    root: SSAValue
    unit: frozenset[int]
    """The root's dims of size 1: loops that run once."""
    seen: set[tuple] = field(default_factory=set)
    bases: dict[tuple, int] = field(default_factory=dict)
    """First loop number of each reduction's ranges, per (reduction, dims)."""
    next_loop: int = 0

    def base(self, op: Operation, dims: tuple, count: int) -> int:
        key = (op, dims)
        if key not in self.bases:
            self.bases[key], self.next_loop = self.next_loop, self.next_loop + count
        return self.bases[key]


@dataclass
class _Walk:
    """One analysis round over a function: which values would be computed how often."""

    realized: dict[SSAValue, str]
    fuse_bytes: int = 0
    """The target's `broadcast_reduce_bytes`: 0 realizes every reduce broadcast (and follows no loops)."""
    symbols: dict[str, tuple[int, int]] = field(default_factory=dict)

    def run(self, roots: list[SSAValue]) -> dict[SSAValue, str]:
        """New realize decisions found by walking every kernel root (empty when stable)."""
        self.found: dict[SSAValue, str] = {}
        self.computed: dict[SSAValue, set[object]] = defaultdict(set)
        self.below: dict[SSAValue, list[SSAValue]] = {}
        for root in roots:
            t: TensorType = root.type  # type: ignore[assignment]
            kernel = _Kernel(root, frozenset(i for i, d in enumerate(t.shape) if d == 1), next_loop=t.rank)
            view = _View(tuple(range(t.rank)), frozenset(range(t.rank))) if self.fuse_bytes else None
            trampoline.run(self._visit(kernel, root, view, False))
        shared = [v for v, keys in self.computed.items() if len(keys) > 1 and v not in self.realized]
        for v in shared:
            if isinstance(v.owner, Operation) and is_reduce(v.owner) and v not in self.found:
                self.found[_scaled(v, self.realized)] = "multi-use reduce"
        if self.found:
            # A value below one realized now was counted once per path to it: the next round sees it reached once.
            return self.found
        for v in shared:
            if isinstance(v.owner, Operation) and not self._in_place_concat(v) and trampoline.run(self._cost(v, {})) > RECOMPUTE_LIMIT:
                self.found[v] = "shared expensive"
        return self.found

    def _visit(self, k: _Kernel, v: SSAValue, view: _View | None, bcast: bool) -> Walk[None]:
        """Walk the producers of `v` inlined into `k` (a generator driven by `trampoline.run`: a long chain needs no stack)."""
        owner = v.owner
        if not isinstance(owner, Operation) or (v is not k.root and v in self.realized):
            return
        if v is not k.root:  # one computation per path, or per index where the index is known
            self.computed[v].add((k.root, view.dims) if view is not None and view.exact else object())
        if (v, bcast, view) in k.seen:
            if v is not k.root and (view is None or not view.exact):
                # Another path to the same unknown index: everything below is computed again, its nearest
                # reductions too (max pool's nine strided slices of one conv output), and its concats select
                # among their pieces again (a pool over an Inception module's concat).
                again = [v] if isinstance(owner, graph.ConcatOp) else self._reductions_and_concats_below(v)
                for r in again:
                    if isinstance(r.owner, graph.ConcatOp):
                        self.found.setdefault(r, "concat read again")
                    else:
                        self.computed[r].add(object())
            return
        k.seen.add((v, bcast, view))
        if is_reduce(owner):
            if v is not k.root and self._recomputed(k, owner, view, bcast):
                self.found.setdefault(v, "reduce broadcast")
                return
            bcast = False
        elif bcast and isinstance(owner, graph.ConcatOp) and v is not k.root:
            self.found.setdefault(v, "concat read again")
            return
        elif isinstance(owner, graph.ConcatOp) and self._realize_pieces(owner):
            return
        elif isinstance(owner, graph.ReshapeOp) and _merges_rows(owner) and self._realize_merged(owner.operands[0]):
            return
        elif bcast and isinstance(owner, ELEMENTWISE) and v is not k.root and trampoline.run(self._alu_cost(v, {})) > BROADCAST_RECOMPUTE_LIMIT:
            self.found.setdefault(v, "broadcast expensive")
            return
        for i, operand in enumerate(owner.operands):
            yield self._visit(k, operand, self._operand_view(k, owner, i, view), bcast or broadcast_operand(owner, i))

    def _in_place_concat(self, v: SSAValue) -> bool:
        """Is `v` a concat whose pieces (through nested concats along its axis) are all realized values or
        reshapes of them? `convert-graph-to-kernel` keeps such a concat in place, so reading it is a load, and
        copying it once (a DenseNet block's growing concat, shared by the next layer and the next concat) saves
        nothing."""
        c = v.owner
        if not isinstance(c, graph.ConcatOp):
            return False
        stack = list(c.operands)
        while stack:
            x = stack.pop()
            owner = x.owner
            if isinstance(owner, graph.ReshapeOp) and x not in self.realized:  # a conv's output as N x H x W
                x = owner.operands[0]
                if isinstance(x.owner, graph.ShrinkOp) and x not in self.realized:  # its points padded for panels
                    x = x.owner.operands[0]
            if x in self.realized:
                continue
            owner = x.owner
            if not isinstance(owner, graph.ConcatOp) or owner.axis.value.data != c.axis.value.data:
                return False
            stack += owner.operands
        return True

    def _realize_pieces(self, concat: graph.ConcatOp) -> bool:
        """Realize each piece of `concat` that computes a reduction (`concat piece`); True when any was new."""
        new = False
        for x in concat.operands:
            if x in self.realized or x in self.found or not isinstance(x.owner, Operation) or isinstance(x.owner, graph.ConcatOp):
                continue  # a nested concat: its own pieces are decided where the walk reaches it
            if is_reduce(x.owner) or any(is_reduce(r.owner) for r in self._reductions_and_concats_below(x)):
                self.found[x] = "concat piece"
                new = True
        return new

    def _realize_merged(self, x: SSAValue) -> bool:
        """Realize `x`, read through a reshape that merges its rows, when it computes a reduction (`merged
        reduce`); True when new."""
        owner = x.owner
        if x in self.realized or x in self.found or not isinstance(owner, Operation):
            return False
        if is_reduce(owner) or isinstance(owner, ELEMENTWISE) and any(
            is_reduce(r.owner) for r in self._reductions_and_concats_below(x)  # type: ignore[arg-type]
        ):
            self.found[x] = "merged reduce"
            return True
        return False

    def _reductions_and_concats_below(self, v: SSAValue) -> list[SSAValue]:
        """The reductions and concats that computing `v` in a kernel computes: its nearest unrealized ones
        (iterative)."""
        if v not in self.below:
            found: list[SSAValue] = []
            stack, seen = [v], {v}
            while stack:
                u = stack.pop()
                owner = u.owner
                if not isinstance(owner, Operation) or (u is not v and u in self.realized):
                    continue
                if (is_reduce(owner) or isinstance(owner, graph.ConcatOp)) and u is not v:
                    found.append(u)
                    continue
                for o in owner.operands:
                    if o not in seen:
                        seen.add(o)
                        stack.append(o)
            self.below[v] = found
        return self.below[v]

    def _recomputed(self, k: _Kernel, op: Operation, view: _View | None, bcast: bool) -> bool:
        """Would this reduction, reached through a broadcast, be computed more than once per result? Where
        loops are followed: when it is broadcast along a loop outside one it depends on (column sums broadcast
        over rows), or reads more than `fuse_bytes` per result; else only hoisting keeps it once per result."""
        if view is None or view.dims is None:
            return bcast
        depends = {p for p in view.dims if p is not None}
        spread = view.live - depends - k.unit
        if not spread:
            return False
        last = max(depends, default=-1)
        return any(p < last for p in spread) or _read_bytes(op, self.symbols) > self.fuse_bytes

    def _operand_view(self, k: _Kernel, op: Operation, i: int, view: _View | None) -> _View | None:
        """The view of operand i of `op` computed at `view`."""
        if view is None or view.dims is None:
            return view
        ot: TensorType = op.operands[i].type  # type: ignore[assignment]
        rt: TensorType = op.results[0].type  # type: ignore[assignment]
        if is_reduce(op):
            axes = [int(a) for a in op.properties["axes"].get_values()]  # type: ignore[attr-defined]
            keep = rt.rank == ot.rank
            base = k.base(op, view.dims, len(axes))
            out = iter(view.dims)
            inner: list[int | None] = []
            for d in range(ot.rank):
                if d in axes:
                    inner.append(base + axes.index(d))
                    if keep:
                        next(out)
                else:
                    inner.append(next(out))
            depends = frozenset(p for p in view.dims if p is not None)
            return _View(tuple(inner), depends | {base + j for j in range(len(axes))}, view.exact)
        if isinstance(op, graph.BinaryOp | graph.WhereOp | graph.ExpandOp):
            pad = rt.rank - ot.rank
            dims = tuple(None if d == 1 and rt.shape[j + pad] != 1 else view.dims[j + pad] for j, d in enumerate(ot.shape))
            return replace(view, dims=dims)
        if isinstance(op, graph.PermuteOp):
            moved: list[int | None] = [None] * ot.rank
            for j, p in enumerate(op.perm.get_values()):
                moved[p] = view.dims[j]
            return replace(view, dims=tuple(moved))
        if isinstance(op, graph.ReshapeOp) and [d for d in ot.shape if d != 1] == [d for d in rt.shape if d != 1]:
            # Inserting or dropping unit dims: the index polynomials fold back to the same ranges.
            loops = iter(p for p, d in zip(view.dims, rt.shape) if d != 1)
            return replace(view, dims=tuple(None if d == 1 else next(loops) for d in ot.shape))
        if isinstance(op, graph.UnaryOp | graph.CastOp | graph.BitcastOp | graph.ContiguousOp):
            return view
        return _View(None, view.live, False)

    def _cost(self, v: SSAValue, memo: dict[tuple[SSAValue, bool], int], per_element: bool = True) -> Walk[int]:
        """The ops recomputing `v` costs, counting each shared producer once (a generator, like `_visit`).
        `per_element`: a reduction recomputes its operand once per reduced element (a conv under the 9 windows
        of a max pool built from strided slices is 9 convs); behind a broadcast it is computed once per row
        (hoisted out of the broadcast loops: a softmax's row max), so there only its ops count."""
        owner = v.owner
        if not isinstance(owner, Operation) or v in self.realized:
            return 0
        key = (v, per_element)
        if key not in memo:
            memo[key] = 0
            total = 0
            for i, o in enumerate(owner.operands):
                total += yield self._cost(o, memo, per_element and not broadcast_operand(owner, i))
            scale = _reduced_count(owner, self.symbols) if per_element and is_reduce(owner) else 1
            memo[key] = 1 + total * scale
        return memo[key]

    def _alu_cost(self, v: SSAValue, memo: dict[SSAValue, int]) -> Walk[int]:
        """The elementwise ALU ops recomputing `v` costs, each shared producer once; reductions, realized values,
        movement ops and constants cost nothing here (a generator, like `_visit`)."""
        owner = v.owner
        if not isinstance(owner, Operation) or v in self.realized or is_reduce(owner):
            return 0
        if v not in memo:
            memo[v] = 0
            total = int(isinstance(owner, ELEMENTWISE))
            for o in owner.operands:
                total += yield self._alu_cost(o, memo)
            memo[v] = total
        return memo[v]


def _scaled(v: SSAValue, realized: dict[SSAValue, str]) -> SSAValue:
    """``v`` through its chain of only uses that combine it with a scalar constant (a scale, a shift): what a
    multi-use reduce realizes, so that epilogue is computed once in the reduction's kernel instead of at every
    use (attention's ``q k^T / 8``, read twice by the softmax that follows)."""
    while len(uses := list(v.uses)) == 1:
        use = uses[0].operation
        others = [o for o in use.operands if o is not v]
        if not isinstance(use, graph.BinaryOp) or len(others) != 1 or not _scalar_constant(others[0]) \
                or use.results[0] in realized or use.results[0].type != v.type:
            break
        v = use.results[0]
    return v


def _scalar_constant(v: SSAValue) -> bool:
    """Is ``v`` a `graph.constant` of one value (a splat, or one element)?"""
    op = v.owner
    if not isinstance(op, graph.ConstantOp):
        return False
    return not isinstance(op.value, DenseIntOrFPElementsAttr) or math.prod(op.res.type.shape) == 1  # type: ignore[attr-defined]


def _merges_rows(op: graph.ReshapeOp) -> bool:
    """Does the reshape merge its operand's innermost dim with the ones before it (14x14 points as 196)? The
    consumer's kernel then divides its innermost index to find the operand's row and column, and its vectors
    along that index straddle rows: each lane a separate, masked load."""
    def boundaries(t: TensorType) -> list[int] | None:
        if any(isinstance(d, str) for d in t.shape):
            return None
        return list(itertools.accumulate((d for d in t.shape if d != 1), operator.mul))  # type: ignore[arg-type]

    inner, outer = boundaries(op.operands[0].type), boundaries(op.results[0].type)  # type: ignore[arg-type]
    return inner is not None and outer is not None and len(inner) > 1 and inner[-2] not in outer


def _reduced_count(op: Operation, symbols: dict[str, tuple[int, int]]) -> int:
    """The elements a reduction combines per result (symbolic dims at their declared maximum)."""
    xt: TensorType = op.operands[0].type  # type: ignore[assignment]
    axes = op.properties["axes"].get_values()  # type: ignore[attr-defined]
    return math.prod(symbols[d][1] if isinstance(d, str) else d for d in (xt.shape[a] for a in axes))


def _read_bytes(op: Operation, symbols: dict[str, tuple[int, int]]) -> int:
    """The bytes a reduction reads per result."""
    xt: TensorType = op.operands[0].type  # type: ignore[assignment]
    return _reduced_count(op, symbols) * itemsize(xt.element_type)


def decide_realize(fn: func.FuncOp, target: TargetDescription | None = None) -> dict[SSAValue, str]:
    """The realize decisions of one function (value -> reason), iterated to a fixed point; a target that
    hoists reductions keeps those broadcast along inner loops in their consumer's kernel."""
    realized: dict[SSAValue, str] = {}
    body = fn.body.blocks.first
    assert body is not None
    _check_graph_level(fn)
    for op in body.ops:
        if op.name in UNSUPPORTED_IN_KERNELS:
            raise DiagnosticException(f"'{op.name}' must be decomposed before scheduling (run graph-decompose first)")
        if isinstance(op, graph.ContiguousOp):
            realized[op.res] = "contiguous"
        elif isinstance(op, func.ReturnOp):
            for v in op.operands:
                if isinstance(v.owner, Operation) and v not in realized:
                    realized[v] = "output"
    walk = _Walk(realized, target.broadcast_reduce_bytes if target else 0, declared_dims(fn))
    while True:
        found = walk.run(list(realized))
        if not found:
            return realized
        realized.update(found)


def _is_schedule(fn: func.FuncOp) -> bool:
    """A function already at the kernel level (a schedule of `kernel` ops, as the beam search's timing module
    has): nothing left to schedule, so the device pipelines pass it through."""
    return any(op.name.startswith("kernel.") for op in fn.body.ops)


def _check_graph_level(fn: func.FuncOp) -> None:
    """Only a function of graph ops on !graph.tensor values can be scheduled; anything else (plain arith, or IR
    already at the kernel level) is the user's mistake, reported at the first op or type that is not."""
    for op in fn.body.ops:
        if not op.name.startswith("graph.") and not isinstance(op, func.ReturnOp):
            raise error_at(op, f"'{op.name}' is not a graph op: kernels are formed from functions of graph ops "
                           "(lower-to-kernel takes the graph level)")
    for t in (*fn.function_type.inputs.data, *fn.function_type.outputs.data):
        if not isinstance(t, TensorType):
            raise error_at(fn, f"@{fn.sym_name.data} takes or returns {t}: kernels are formed from functions of "
                           "!graph.tensor values (lower-to-kernel takes the graph level)")


@dataclass(frozen=True)
class GraphMarkRealize(ModulePass):
    """Decide the kernels: mark each value that is written to memory with `graph.realize = "<reason>"`."""

    name = "graph-mark-realize"

    target: str | None = None
    """Schedule for this target (its description says which reduce broadcasts it may fuse); none: for any."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target) if self.target is not None else None
        for fn in op.walk():
            if isinstance(fn, func.FuncOp) and not fn.is_declaration and not _is_schedule(fn):
                for v, why in decide_realize(fn, target).items():
                    owner = v.owner
                    assert isinstance(owner, Operation)
                    owner.attributes[REALIZE_ATTR] = StringAttr(why)
