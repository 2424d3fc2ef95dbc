"""From a ``kernel.kernel`` to nodes in scopes.

A kernel value lives at the ranges in its backward slice (``kernel.reduce`` removes the ranges it combines
over). Each value is instantiated once per *binding* of those ranges: an outer range is bound by the launch
(``launch.py``), a reduce range by the loop its reduce opens, and an ``upcast``/``unroll`` range to each of
its constant values in turn (the expansion: N copies of everything that depends on it, so the output has no
such ranges). The memo on (value, bindings of its ranges) makes shared values one node and keeps index math
that depends only on outer ranges out of inner loops.

A reduce over loop ranges becomes an accumulator: ``define_acc <identity>`` in the scope its result lives in,
a loop nest, inside it ``acc_get``/combine/``acc_set`` (combining every unrolled copy), and after it an
``acc_get`` that is the reduced value. Independent reduces over the same ranges in the same scope share one
loop nest (an upcast matmul gets one k loop with N accumulators). A reduce over ``group_reduce`` ranges binds
them to the thread's ``local_id``s; its per-thread result is a partial that ``group.py`` combines across the
workgroup through local memory.

On GPUs the launch may ask for extra gates on loads and stores (``Launch.access_gates``/``store_gates``): the
bounds guard where barriers forbid an ``if`` around the code, and ``local_id == 0`` so one thread stores.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import reduce as fold
from math import gcd

from xdsl.dialects.builtin import ArrayAttr, IndexType, StringAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.alu import AluOp, is_vector
from kiln.dialects.types import BufferType, bitwidth, declared_dims, dtype_name, is_bool, is_float, is_unsigned
from kiln.dialects.uop import AccType, PtrType
from kiln.lowering.linearize.group import Grouping, Stage
from kiln.lowering.linearize.launch import GpuLaunch, Launch, RangeInfo, describe_range, make_launch
from kiln.lowering.linearize.nodes import Node, Program, Scope, acc_type, conjunction, iadd, idiv, imul, innermost, vector_type
from kiln.lowering.linearize.rows import Row, RowValue, RowValues
from kiln.lowering.linearize.vector_alu import VECTOR_KINDS
from kiln.lowering.linearize.vectorize import chunk
from kiln.lowering.linearize.tensor_core import WARP_SHAPE, TensorCorePlan, plan_tensor_core
from kiln.support.symbolic import evaluate_size
from kiln.capabilities.description import TargetDescription
from kiln.support.diagnostics import error_at
from kiln.support import trampoline
from kiln.support.trampoline import Walk

EXPANDED = frozenset({K.AxisKind.UPCAST, K.AxisKind.UNROLL})
"""Range kinds the linearizer replaces by copies of the ops that depend on them."""

Bound = tuple[Node, Scope] | int | Row
"""How a range is bound while instantiating: (index node, its scope), a constant for an expanded range, or a
row of its constants (``rows.py``)."""


@dataclass(eq=False)
class Access:
    """A load, store or ``define_acc`` node and where it came from, so the copies of one along an expanded range
    can become one vector access (or accumulator)."""

    node: Node
    op: Operation
    bindings: tuple[tuple[SSAValue, object], ...]
    """(range, bound) for every range of the access, in range order; ints for expanded ranges."""


@dataclass(eq=False)
class Nest:
    """The loops of one or more reduces over the same ranges in the same scope (none when the reduce has only
    group_reduce ranges), and the stage of those that are grouped."""

    scopes: list[Scope]
    owners: set[K.ReduceOp] = field(default_factory=set)
    within: set[K.ReduceOp] = field(default_factory=set)
    """The reduces some owner depends on (the union of their slices): a reduce may join the nest when it is not
    one of them and depends on no owner, checked in time independent of the instances joined (an 8x16 tile's
    reduce joins its nest 128 times)."""
    stage: Stage | None = None


class Instantiator:
    def __init__(self, kernel: K.KernelOp, target: TargetDescription, rows: bool = True):
        """``rows``: instantiate a store's innermost expanded range a row vector at a time (``rows.py``);
        false: lane by lane (the register tile as scalar uops but for the accesses ``vectorize`` packs)."""
        self.kernel, self.target = kernel, target
        self.program = Program()
        self.rows = RowValues(self.program, target) if rows else None
        self._row: SSAValue | None = None
        """The range the store being instantiated binds to ``Row``s (None: lane by lane)."""
        self._slopes: dict[tuple[SSAValue, SSAValue], int | None] = {}
        self.params = self._params()
        self.ranges: dict[SSAValue, RangeInfo] = {}
        self.deps: dict[SSAValue, tuple[SSAValue, ...]] = {}
        self._analyze()
        self.tc: TensorCorePlan | None = plan_tensor_core(kernel, self.ranges, self.deps, target)
        looped = {r for op in self._ops(K.ReduceOp) for r in op.ranges}
        groups = [info for info in self.ranges.values() if info.kind == K.AxisKind.GROUP_REDUCE]
        outer = [
            info
            for info in self.ranges.values()
            if info.kind not in EXPANDED and info.kind != K.AxisKind.GROUP_REDUCE and info.value not in looped
        ]
        warp = WARP_SHAPE[3] if self.tc is not None else 0
        self.launch: Launch = make_launch(self.program, outer, groups, target, kernel, warp)
        self.grouping = Grouping(self.program, self.launch) if isinstance(self.launch, GpuLaunch) else None
        self.accesses: list[Access] = []
        self.accumulators: list[Access] = []
        """The ``define_acc`` of every reduce instance, for ``vector_alu`` (lanes as for accesses)."""
        self._memo: dict[tuple, Node] = {}
        self._nests: dict[tuple, list[Nest]] = {}
        self._slices: dict[K.ReduceOp, set[K.ReduceOp]] = {}
        self._wmma: dict[tuple, Node] = {}
        self.fragment_pairs: list[list[Node]] = []
        """Neighbouring elements of tensor-core fragments, for the vectorizer (``_pair``)."""

    # -- analysis ---------------------------------------------------------------------------

    def _ops(self, cls: type) -> Iterator:
        return (op for op in self.kernel.body.block.ops if isinstance(op, cls))

    def _params(self) -> list[Node]:
        """One param node per kernel argument: buffers as pointers, index arguments as index."""
        out = []
        for i, arg in enumerate(self.kernel.args):
            t = PtrType(arg.type.element_type) if isinstance(arg.type, BufferType) else IndexType()
            out.append(self.program.node("param", (), t, i, name=arg.name_hint))
        return out

    def _symbol_of(self, arg: BlockArgument) -> str:
        symbols = self.kernel.attributes.get("symbols")
        index_args = [a for a in self.kernel.args if isinstance(a.type, IndexType)]
        if not isinstance(symbols, ArrayAttr) or len(symbols.data) != len(index_args):
            raise error_at(self.kernel, "kernel.kernel needs a 'symbols' attribute naming its index arguments")
        name = symbols.data[index_args.index(arg)]
        assert isinstance(name, StringAttr)
        return name.data

    def _analyze(self) -> None:
        """Range infos, and for every value the ranges it depends on (in range order)."""
        position = itertools.count()
        bounds = declared_dims(self.kernel)
        for op in self.kernel.body.block.ops:
            if isinstance(op, K.RangeOp):
                size, text = self._size(op, op.size)
                size_max = evaluate_size(text, {name: hi for name, (lo, hi) in bounds.items()})
                info = RangeInfo(op.result, op.kind.data, next(position), size, text, size_max, op.result.name_hint)
                if info.kind in EXPANDED and info.const_size is None:
                    raise error_at(op, f"{info.kind.value} range {describe_range(info)} must have a constant size")
                self.ranges[op.result] = info
                self.deps[op.result] = (op.result,)
            elif op.results:
                found = self._operand_deps(op)
                if isinstance(op, K.ReduceOp):
                    found -= set(op.ranges)
                for r in op.results:
                    self.deps[r] = tuple(sorted(found, key=lambda v: self.ranges[v].position))

    _SIZE_ALU = {"add": (iadd, "+"), "mul": (imul, "*"), "idiv": (idiv, "//")}

    def _size(self, r: K.RangeOp, v: SSAValue) -> tuple[Node, str]:
        """A range size (a const, an index argument, or ``add``/``mul``/``idiv`` of those, as ``padto`` builds
        for a symbolic size) as a node and as ``kiln.support.symbolic`` size text."""
        owner = v.owner
        if isinstance(owner, K.ConstOp):
            n = owner.value.value.data  # type: ignore[union-attr]
            return self.program.index(n), str(n)
        if isinstance(v, BlockArgument):
            return self.params[v.index], self._symbol_of(v)
        if not (isinstance(owner, AluOp) and owner.alu_kind in self._SIZE_ALU):
            raise error_at(r, "a range size must be a kernel.const, an index argument of the kernel, or add/mul/idiv of those")
        build, symbol = self._SIZE_ALU[owner.alu_kind]
        (a, ta), (b, tb) = (self._size(r, x) for x in owner.operands)
        return build(self.program, a, b), f"({ta} {symbol} {tb})"

    def _operand_deps(self, op: Operation) -> set[SSAValue]:
        return {r for v in op.operands for r in self.deps.get(v, ())}

    def _reduces_in_slice(self, op: K.ReduceOp) -> set[K.ReduceOp]:
        """The reduces ``op``'s value depends on, directly or not."""
        if op not in self._slices:
            found: set[K.ReduceOp] = set()
            stack, seen = [op.value], set()
            while stack:
                v = stack.pop()
                if v in seen or not isinstance(v.owner, Operation):
                    continue
                seen.add(v)
                if isinstance(v.owner, K.ReduceOp):
                    found.add(v.owner)
                stack.extend(v.owner.operands)
            self._slices[op] = found
        return self._slices[op]

    # -- instantiation ----------------------------------------------------------------------

    def run(self) -> Program:
        for op in self._ops(K.StoreOp):
            ranges = sorted(self._operand_deps(op), key=lambda v: self.ranges[v].position)
            expanded = [r for r in ranges if self.ranges[r].kind in EXPANDED]
            outer = {info.value for info in self.launch.outer}
            for r in ranges:
                if r not in outer and r not in expanded:
                    raise error_at(op, f"store depends on range {describe_range(self.ranges[r])}, which a reduce loops over")
            path = tuple(info for info in self.launch.outer if info.value in ranges)
            bindings, _ = self.launch.bindings(path)
            lanes = self._c_lanes(expanded)
            self._row, width = self._row_range(op, expanded)
            for assignment in self._assignments([r for r in expanded if r not in lanes[0] and r is not self._row]):
                env = {**bindings, **assignment}
                if self._row is None:
                    self._pair([self._store(op, tuple(ranges), {**env, **lane}) for lane in lanes])
                    continue
                for start in range(0, self.ranges[self._row].const_size, width):  # type: ignore[arg-type]
                    if not self._row_store(op, tuple(ranges), {**env, self._row: Row(start, width)}):
                        for lane in range(start, start + width):
                            self._store(op, tuple(ranges), {**env, self._row: lane})
            self._row = None
        if self.grouping is not None:
            self.grouping.finish()
        return self.program

    def _row_range(self, op: K.StoreOp, expanded: list[SSAValue]) -> tuple[SSAValue | None, int]:
        """The expanded range a store is instantiated a row at a time along (its innermost one) and the row's
        width (the target's vector lanes for the stored dtype), or (None, 1): lane by lane."""
        dtype = op.operands[2].type
        if self.rows is None or self.tc is not None or not expanded or is_bool(dtype):
            return None, 1
        u = expanded[-1]
        width = chunk(self.ranges[u].const_size or 1, self.target.vector_width(dtype_name(dtype)))
        return (u, width) if width > 1 else (None, 1)

    def _c_lanes(self, ranges: list[SSAValue]) -> list[dict[SSAValue, Bound]]:
        """How a store over ``ranges`` binds the tensor core's M' and N': at the (m, n) of each C element this
        warp lane holds when it depends on them, else not at all (one binding without them)."""
        tc = self.tc
        if tc is None or (tc.m not in ranges and tc.n not in ranges):
            return [{}]
        assert isinstance(self.launch, GpuLaunch) and self.launch.lane is not None
        root = self.program.root
        return [{tc.m: (m, root), tc.n: (n, root)} for m, n in tc.positions(self.program, self.launch.lane, "c")]

    def _assignments(self, expanded: list[SSAValue]) -> list[dict[SSAValue, Bound]]:
        sizes = [range(self.ranges[r].const_size) for r in expanded]  # type: ignore[arg-type]
        return [dict(zip(expanded, values)) for values in itertools.product(*sizes)]

    def _key(self, ranges: tuple[SSAValue, ...], env: dict[SSAValue, Bound]) -> tuple:
        return tuple((r, env[r][0] if env[r].__class__ is tuple else env[r]) for r in ranges)  # type: ignore[index]

    @staticmethod
    def _memo_key(v: SSAValue, ranges: tuple[SSAValue, ...], env: dict[SSAValue, Bound]) -> tuple:
        """``v`` and the bound values of its ``ranges`` (fixed per value, so left out: an SSA value hashes in
        Python, and an 8x16 tile asks for this key tens of thousands of times)."""
        return (v, *[b[0] if b.__class__ is tuple else b for b in map(env.__getitem__, ranges)])  # type: ignore[index]

    def value(self, v: SSAValue, env: dict[SSAValue, Bound]) -> Walk[Node]:
        """The node of `v` under `env`. The descent through a kernel's values is one call per op, so it is a
        generator driven by `trampoline.run` (a call is `x = yield self.value(...)`): no Python stack per op."""
        if v.__class__ is BlockArgument:  # not isinstance: SSAValue is an ABC, and that check is slow
            return self.params[v.index]  # type: ignore[attr-defined]
        key = self._memo_key(v, self.deps[v], env)
        found = self._memo.get(key)
        if found is None:
            mark = self.program.unclaimed.mark()
            self._memo[key] = found = yield self._make(v, env)
            self.program.unclaimed.claim(mark, v.owner.location)  # type: ignore[union-attr]
        return found

    def _scope(self, ranges: tuple[SSAValue, ...], env: dict[SSAValue, Bound]) -> Scope:
        """Where a value depending on ``ranges`` lives: the innermost scope binding one of them."""
        return innermost([b[1] for b in map(env.__getitem__, ranges) if b.__class__ is tuple], self.program.root)  # type: ignore[index]

    def _make(self, v: SSAValue, env: dict[SSAValue, Bound]) -> Walk[Node]:
        op, p = v.owner, self.program
        assert isinstance(op, Operation)
        name, scope = v.name_hint, self._scope(self.deps[v], env)
        row = self._row_of(v, env)
        if row is not None and not self._has_vector_form(op, v):
            return (yield self._lanes(v, env))
        if isinstance(op, K.RangeOp):
            bound = env[v]
            return p.index(bound) if isinstance(bound, int) else bound[0]
        if isinstance(op, K.ConstOp):
            return p.node("const", (), v.type, op.value)
        if isinstance(op, K.ReduceOp):
            return (yield self._reduce(op, env, scope, row))
        if row is not None and isinstance(op, K.LoadOp):
            return (yield self._row_load(v, op, env, scope, name))
        operands = []
        for x in op.operands:
            operands.append((yield self.value(x, env)))
        if isinstance(op, K.LoadOp):
            operands = self._gated(operands, 2, self.launch.access_gates(self.deps[v]))
            n = p.node("load", operands, v.type, scope=scope, name=name)
            self.accesses.append(Access(n, op, self._key(self.deps[v], env)))
            return n
        if row is not None:
            assert self.rows is not None and isinstance(op, AluOp | K.CastOp)
            vectors = [self.rows.vector(x, row.width) for x in operands]
            if isinstance(op, AluOp):
                return self.rows.derived(p.alu(op.alu_kind, *vectors, name=name, scope=scope), operands)
            return self.rows.derived(p.node("cast", vectors, vector_type(v.type, row.width), scope=scope, name=name), operands)
        if isinstance(op, AluOp):
            return p.alu(op.alu_kind, *operands, name=name, scope=scope)
        if isinstance(op, K.CastOp | K.BitcastOp):
            kind = "cast" if isinstance(op, K.CastOp) else "bitcast"
            return p.node(kind, operands, v.type, scope=scope, name=name)
        raise error_at(op, f"the linearizer does not handle {op.name}")

    # -- rows (rows.py) ---------------------------------------------------------------------

    def _row_of(self, v: SSAValue, env: dict[SSAValue, Bound]) -> Row | None:
        """The row ``v`` is instantiated for under ``env``, if it depends on the range bound to one."""
        u = self._row
        if u is None or u not in self.deps[v]:
            return None
        bound = env[u]
        return bound if bound.__class__ is Row else None  # type: ignore[return-value]

    def _has_vector_form(self, op: Operation, v: SSAValue) -> bool:
        """Whether ``v`` (which depends on the row's range) is one vector node per row (else lanes)."""
        t, u = v.type, self._row
        if isinstance(t, IndexType):
            return False
        if isinstance(op, K.LoadOp):
            return not is_bool(t) and not (len(op.operands) > 2 and u in self.deps.get(op.operands[2], ()))
        if isinstance(op, AluOp):
            if op.alu_kind == "div" and u not in self.deps.get(op.operands[1], ()):
                return False  # uop-decompose makes it a product with 1/d, computed once (a broadcast d: per lane)
            return op.alu_kind in VECTOR_KINDS and not any(isinstance(x.type, IndexType) for x in op.operands)
        if isinstance(op, K.CastOp):
            return not isinstance(op.operands[0].type, IndexType)
        if isinstance(op, K.ReduceOp):
            grouped = any(self.ranges[r].kind == K.AxisKind.GROUP_REDUCE for r in op.ranges)
            return not (is_bool(t) or grouped or (self.tc is not None and op is self.tc.reduce))
        return False

    def _lanes(self, v: SSAValue, env: dict[SSAValue, Bound]) -> Walk[tuple[Node, ...]]:
        """``v`` at each lane of its row: instantiated with the row's range bound to the lane's value."""
        u = self._row
        assert u is not None
        row: Row = env[u]  # type: ignore[assignment]
        lanes = []
        for lane in range(row.start, row.start + row.width):
            lanes.append((yield self.value(v, {**env, u: lane})))
        return tuple(lanes)

    def _row_load(self, v: SSAValue, op: K.LoadOp, env: dict[SSAValue, Bound], scope: Scope, name: str | None) -> Walk[RowValue]:
        """A row of a load: vector loads of the consecutive chunks of its lanes (the target's vector width for
        its dtype), each other lane through the scalar path."""
        assert self.rows is not None and self._row is not None
        row: Row = env[self._row]  # type: ignore[assignment]
        width = chunk(row.width, self.target.vector_width(dtype_name(v.type)))
        ptr = yield self.value(op.operands[0], env)
        starts = yield self._row_starts(op.operands[1], env, width)
        gate = []
        for x in op.operands[2:]:
            gate.append((yield self.value(x, env)))
        gate = self._gated(gate, 0, self.launch.access_gates(self.deps[v]))
        lanes: list[Node] = []
        for start, first in zip(range(0, row.width, width), starts):
            if width > 1 and first is not None:
                n = self.program.node("load", (ptr, first, *gate), vector_type(v.type, width), scope=scope, name=name)
                if width == row.width:
                    self.rows.sourced.add(n)
                    return n
                lanes += self.rows.lanes(n, width)
            else:
                for lane in range(start, start + width):
                    lanes.append((yield self.value(v, {**env, self._row: row.start + lane})))
        return tuple(lanes)

    def _row_starts(self, index: SSAValue, env: dict[SSAValue, Bound], width: int) -> Walk[list[Node | None]]:
        """For each chunk of ``width`` lanes of the row ``env`` binds, the index of its first lane when the
        chunk's ``index`` values are consecutive (one vector access), else None. Where the kernel's index math
        shows it (``index`` grows by 1 with the row's range: ``_slope``) and no alignment is asked, only the
        first lanes' indices are made; else every lane's, and the symbolic engine decides (``rows.consecutive``):
        a tile's index lanes were most of the instantiator's nodes, made only to be proved consecutive."""
        assert self.rows is not None and self._row is not None
        u, row = self._row, env[self._row]
        assert isinstance(row, Row)
        if not self.rows.aligned and self._slope(index, u) == 1:
            firsts: list[Node | None] = []
            for start in range(0, row.width, width):
                firsts.append((yield self.value(index, {**env, u: row.start + start})))
            return firsts
        lanes = yield self.value(index, env)
        if lanes.__class__ is not tuple:
            return [None] * (row.width // width)
        return [lanes[s] if self.rows.consecutive(lanes[s : s + width]) else None for s in range(0, row.width, width)]

    def _slope(self, x: SSAValue, u: SSAValue) -> int | None:
        """How much value ``x`` grows when range ``u`` grows by 1 (over u's range, the other ranges fixed), where the
        kernel's ops show it is a constant: sums, differences and products with a constant of index values, any
        op of values that do not change with ``u`` (0), and ``a mod c`` where ``a`` is ``s*u`` plus a non-negative
        multiple of c and ``s*u`` stays below c (a padded tile's column within its chunk of 8: ``_form``); None
        where they do not (a ``min`` clamping a padded index along ``u``, a division of it)."""
        if u not in self.deps.get(x, ()):
            return 0
        if x is u:
            return 1
        key = (x, u)
        if key not in self._slopes:
            op, slope = x.owner, None
            if isinstance(op, AluOp):
                kind, operands = op.alu_kind, op.operands
                slopes = [self._slope(o, u) for o in operands]
                if all(s == 0 for s in slopes):
                    slope = 0
                elif kind in ("add", "sub") and None not in slopes:
                    slope = slopes[0] + slopes[1] if kind == "add" else slopes[0] - slopes[1]  # type: ignore[operator]
                elif kind == "mul":
                    for c, inner in ((operands[0], slopes[1]), (operands[1], slopes[0])):
                        factor = K.int_constant(c)
                        if factor is not None and inner is not None:
                            slope = factor * inner
                            break
                elif kind == "mod":
                    slope = self._slope_of_mod(op, u)
            self._slopes[key] = slope
        return self._slopes[key]

    def _slope_of_mod(self, op: AluOp, u: SSAValue) -> int | None:
        """The slope of ``a mod c`` along ``u`` when it is ``s*u`` over u's range (``_slope``), else None."""
        c, form, size = K.int_constant(op.operands[1]), self._form(op.operands[0], u), self.ranges[u].const_size
        if c is None or c <= 0 or form is None or size is None:
            return None
        s, divisor = form
        return s if 0 <= s and s * (size - 1) < c and divisor % c == 0 else None

    def _form(self, x: SSAValue, u: SSAValue) -> tuple[int, int] | None:
        """``(s, g)``: ``x`` is ``s*u`` plus a non-negative value that g divides (g = 0: plus 0), from ranges,
        non-negative constants, sums and products with a non-negative constant; else None."""
        if x is u:
            return 1, 0
        op = x.owner
        if isinstance(op, K.RangeOp):
            return 0, 1
        if (c := K.int_constant(x)) is not None:
            return (0, c) if c >= 0 else None
        if isinstance(op, AluOp) and op.alu_kind == "add":
            a, b = (self._form(o, u) for o in op.operands)
            return (a[0] + b[0], gcd(a[1], b[1])) if a is not None and b is not None else None
        if isinstance(op, AluOp) and op.alu_kind == "mul":
            for c_value, other in (op.operands, reversed(op.operands)):
                factor = K.int_constant(c_value)
                if factor is not None and factor >= 0 and (inner := self._form(other, u)) is not None:
                    return factor * inner[0], factor * inner[1]
        return None

    def _row_store(self, op: K.StoreOp, ranges: tuple[SSAValue, ...], env: dict[SSAValue, Bound]) -> bool:
        """The store ``op`` of the row ``env`` binds as one vector store, when its indices are consecutive, its
        gate is the same in every lane and its value is computed from a vector (``RowValues.sourced``); whether
        it was."""
        assert self.rows is not None and self._row is not None
        row: Row = env[self._row]  # type: ignore[assignment]
        if len(op.operands) > 3 and self._row in self.deps.get(op.operands[3], ()):
            return False
        (first,) = trampoline.run(self._row_starts(op.operands[1], env, row.width))
        if first is None:
            return False
        value = trampoline.run(self.value(op.operands[2], env))
        if value not in self.rows.sourced:
            return False
        mark = self.program.unclaimed.mark()
        ptr, value, *gate = [trampoline.run(self.value(x, env)) for x in (op.operands[0], *op.operands[2:])]
        operands = self._gated([ptr, first, self.rows.vector(value, row.width), *gate], 3, self.launch.store_gates(ranges))
        self.program.node("store", operands, None, scope=self._scope(ranges, env))
        self.program.unclaimed.claim(mark, op.location)
        return True

    def _store(self, op: K.StoreOp, ranges: tuple[SSAValue, ...], env: dict[SSAValue, Bound]) -> Node:
        """The store ``op`` (which depends on ``ranges``, in range order) under ``env``."""
        mark = self.program.unclaimed.mark()
        values = [trampoline.run(self.value(x, env)) for x in op.operands]
        operands = self._gated(values, 3, self.launch.store_gates(ranges))
        n = self.program.node("store", operands, None, scope=self._scope(ranges, env))
        self.program.unclaimed.claim(mark, op.location)
        self.accesses.append(Access(n, op, self._key(ranges, env)))
        return n

    def _pair(self, lanes: list[Node]) -> None:
        """Offer the vectorizer fragment elements 2i and 2i+1 (loads or stores of one lane), which are often
        neighbours in memory: A's along k, C's along n (``Vectorizer`` checks that they are)."""
        if len(lanes) > 1:
            self.fragment_pairs += [[x, y] for x, y in zip(lanes[::2], lanes[1::2]) if x.op == y.op in ("load", "store")]

    def _gated(self, operands: list[Node], at: int, gates: list[Node]) -> list[Node]:
        """A load's or store's operands with ``gates`` and-ed into its gate (operand ``at``, if present)."""
        gate = conjunction(self.program, operands[at:] + gates)
        return operands[:at] + ([gate] if gate is not None else [])

    def _reduce(self, op: K.ReduceOp, env: dict[SSAValue, Bound], parent: Scope, row: Row | None) -> Walk[Node]:
        """The reduce ``op`` under ``env``: of one lane, or of a ``row`` into a vector accumulator."""
        p, kind, t, name = self.program, op.kind.data.value, op.result.type, op.result.name_hint
        identity = self._identity(kind, t)
        if row is not None:
            assert self.rows is not None
            t, identity = vector_type(t, row.width), p.gather((identity,) * row.width)
        infos = sorted((self.ranges[r] for r in op.ranges), key=lambda info: info.position)
        unrolled = [info.value for info in infos if info.kind in EXPANDED]
        groups = [info for info in infos if info.kind == K.AxisKind.GROUP_REDUCE]
        loops = [info for info in infos if info.kind not in EXPANDED and info not in groups]
        if self.tc is not None and op is self.tc.reduce:
            return (yield self._tensor_core(op, env, parent, [r for r in unrolled if r != self.tc.k], loops))
        if groups:  # each thread reduces at its own point of the group ranges
            assert isinstance(self.launch, GpuLaunch)
            env = {**env, **{g.value: (self.launch.local_ids[g.value], p.root) for g in groups}}

        nest = self._nest(op, loops, groups, parent) if loops or groups else None
        inner_env = {**env, **{info.value: (s.index, s) for info, s in zip(loops, nest.scopes if nest else [])}}
        acc = read = None
        if loops:
            assert nest is not None
            acc = p.node("define_acc", (identity,), acc_type(t), scope=parent)
            read = p.node("acc_get", (acc,), t, scope=nest.scopes[-1])
        values = []
        if (u := self._folded_row(op, unrolled, bool(loops or groups), row)) is not None:
            values = yield self._folded_rows(op, unrolled, u, inner_env)
        else:
            for a in self._assignments(unrolled):
                values.append((yield self.value(op.value, {**inner_env, **a})))
        if row is not None:
            assert self.rows is not None
            if self.rows.sourced.isdisjoint(values):  # gathers only: lane by lane, as vector_alu would leave them
                for n in (read, acc):
                    if n is not None:
                        p.remove(n)
                return (yield self._lanes(op.result, env))
            values = [self.rows.vector(x, row.width) for x in values]
        if acc is None:  # only unrolled (and group) ranges: the copies combine directly
            partial = fold(lambda a, b: p.alu(kind, a, b), values)
        else:
            assert nest is not None and read is not None
            if row is None:
                self.accumulators.append(Access(acc, op, self._key(self.deps[op.result], env)))
            total = fold(lambda a, b: p.alu(kind, a, b), [read, *values])
            p.node("acc_set", (acc, total), None, scope=nest.scopes[-1])
            partial = p.node("acc_get", (acc,), t, scope=parent, after=(nest.scopes[0],), name=None if groups else name)
        if row is not None:
            self.rows.sourced.add(partial)
        if not groups:
            return partial
        assert nest is not None and self.grouping is not None
        nest.stage = nest.stage or self.grouping.stage(parent)
        return self.grouping.combine(nest.stage, kind, identity, partial, groups, parent, name)

    def _tensor_core(
        self, op: K.ReduceOp, env: dict[SSAValue, Bound], parent: Scope, unrolled: list[SSAValue], loops: list[RangeInfo]
    ) -> Walk[Node]:
        """The reduce's value at the C element ``env`` binds M'/N' to: a lane of the warp's D fragment, the sum of
        ``uop.wmma`` over the K loop(s) and the other unrolled copies (module ``tensor_core``)."""
        tc, p = self.tc, self.program
        assert tc is not None and isinstance(self.launch, GpuLaunch) and self.launch.lane is not None
        lane, root = self.launch.lane, p.root
        at = tuple(b if isinstance(b, int) else b[0] for b in (env[tc.m], env[tc.n]))
        c_elements = tc.positions(p, lane, "c")
        if at not in c_elements:
            raise error_at(op, "the result of a reduce on tensor cores can only be used at its own output points")
        key = (parent, self._key(tuple(r for r in self.deps[op.result] if r not in (tc.m, tc.n)), env))
        if key not in self._wmma:
            a_type, b_type, c_type = tc.fragment_types
            nest = self._nest(op, loops, [], parent) if loops else None
            inner_env = {**env, **{info.value: (s.index, s) for info, s in zip(loops, nest.scopes if nest else [])}}
            if nest is not None:
                acc = p.node("define_acc", (tc.zero(p),), AccType(c_type), scope=parent)
                d = p.node("acc_get", (acc,), c_type, scope=nest.scopes[-1])
            else:
                d = tc.zero(p)
            for assignment in self._assignments(unrolled):
                copy = {**inner_env, **assignment}
                a, b = [], []
                for m, k in tc.positions(p, lane, "a"):
                    a.append((yield self.value(tc.a, {**copy, tc.m: (m, root), tc.k: (k, root)})))
                for k, n in tc.positions(p, lane, "b"):
                    b.append((yield self.value(tc.b, {**copy, tc.k: (k, root), tc.n: (n, root)})))
                self._pair(a)
                self._pair(b)
                d = p.node("wmma", (p.node("vectorize", a, a_type), p.node("vectorize", b, b_type), d), c_type, WARP_SHAPE)
            if nest is not None:
                p.node("acc_set", (acc, d), None, scope=nest.scopes[-1])
                d = p.node("acc_get", (acc,), c_type, scope=parent, after=(nest.scopes[0],))
            self._wmma[key] = d
        return p.node("extract", (self._wmma[key],), op.result.type, c_elements.index(at), scope=parent)  # type: ignore[arg-type]

    def _nest(self, op: K.ReduceOp, loops: list[RangeInfo], groups: list[RangeInfo], parent: Scope) -> Nest:
        """A loop nest for ``op`` in ``parent``: an existing one over the same ranges when neither this reduce
        nor any owner of that nest depends on the other, else a new one."""
        key = (parent, tuple(info.value for info in loops + groups))
        below = self._reduces_in_slice(op)
        for nest in reversed(self._nests.get(key, [])):
            if op not in nest.within and below.isdisjoint(nest.owners):
                nest.owners.add(op)
                nest.within |= below
                return nest
        scopes, scope = [], parent
        for info in loops:
            scope = self.program.loop(scope, self.program.index(0), info.size, info.size_max, info.name)
            scopes.append(scope)
        nest = Nest(scopes, {op}, set(below))
        self._nests.setdefault(key, []).append(nest)
        return nest

    def _folded_row(self, op: K.ReduceOp, unrolled: list[SSAValue], looped: bool, row: Row | None) -> SSAValue | None:
        """The innermost of ``unrolled``, when a reduce only over unrolled ranges, outside any row, folds its copies
        along it from rows of that range (``_folded_rows``), else None."""
        if row is not None or looped or not unrolled or self.rows is None or self.tc is not None:
            return None
        t = op.result.type
        if isinstance(t, IndexType) or is_bool(t):
            return None
        u = unrolled[-1]
        return u if chunk(self.ranges[u].const_size or 1, self.target.vector_width(dtype_name(t))) > 1 else None

    def _folded_rows(
        self, op: K.ReduceOp, unrolled: list[SSAValue], u: SSAValue, env: dict[SSAValue, Bound]
    ) -> Walk[list[Node]]:
        """The reduce's value over its ``unrolled`` ranges, in lane order, as the values left to combine: each row
        of ``u`` instantiated as one vector whose lanes ``uop.reduce_lanes`` combines (attention's q @ k^T: vector
        accumulators along k, then the sum of each one's lanes; a chain of extracts and adds was most of that
        kernel's uops). A row computed only from gathered lanes gives its lanes instead, as ``vector_alu`` leaves
        those."""
        assert self.rows is not None
        p, kind = self.program, op.kind.data.value
        size = self.ranges[u].const_size
        width = chunk(size or 1, self.target.vector_width(dtype_name(op.result.type)))
        outer, self._row = self._row, u
        values: list[Node] = []
        try:
            for a in self._assignments(unrolled[:-1]):
                for start in range(0, size, width):  # type: ignore[arg-type]
                    row_env = {**env, **a, u: Row(start, width)}
                    x = yield self.value(op.value, row_env)
                    if x.__class__ is not tuple and is_vector(x.type) and x not in self.rows.sourced:  # type: ignore[union-attr]
                        x = yield self._lanes(op.value, row_env)
                    if x.__class__ is not tuple and is_vector(x.type):  # type: ignore[union-attr]
                        values.append(p.node("reduce_lanes", (x,), op.result.type, kind))
                    else:
                        values += self.rows.lanes(x, width)
        finally:
            self._row = outer
        return values

    def _identity(self, kind: str, t: Attribute) -> Node:
        """The value ``kind`` combines from: add 0, mul 1, max the lowest value, min the highest."""
        if kind in ("add", "mul"):
            return self.program.const(int(kind == "mul"), t)
        if is_float(t):
            return self.program.const(float("-inf") if kind == "max" else float("inf"), t)
        width = bitwidth(t)
        if is_bool(t) or is_unsigned(t):
            lo, hi = 0, (1 if is_bool(t) else 2**width - 1)
        else:
            lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1
        return self.program.const(lo if kind == "max" else hi, t)
