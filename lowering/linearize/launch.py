"""How a kernel's outer ranges (those no reduce loops over) run on a target: loops, a CPU thread's slice, or
GPU workgroup and thread ids; and the launch attributes of the ``uop.kernel`` that say so.

A value that depends on outer ranges r1..rk (in nesting order) lives inside the scopes ``Launch.bindings``
returns for that path: a CPU loop per range (the core range over ``core_start``..``core_end``), or on a GPU an
index computed from ``group_id``/``local_id`` under a ``uop.if`` guard when the grid overshoots the range.

On a GPU the workgroup is made of the ``local`` and ``group_reduce`` ranges (in range order, the last one x).
A kernel with ``group_reduce`` ranges has barriers, which every thread of a workgroup must reach, so there the
guards are no brackets: ``access_gates`` gives the conditions that gate the loads and stores instead (the
out-of-range threads compute, reach the barriers, and neither read nor write). ``store_gates`` adds
``local_id == 0`` for every workgroup dimension a store does not depend on, so one thread writes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, StringAttr, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects.kernel import AxisKind
from kiln.lowering.linearize.nodes import Node, Program, Scope, ceildiv, const_value, iadd, idiv, imod, imul
from kiln.capabilities.description import TargetDescription
from kiln.support.diagnostics import error_at

AXES = ("x", "y", "z")
DEFAULT_LOCAL_SIZE = 64
"""Threads per workgroup along x when the optimizer chose no local range."""


@dataclass(eq=False)
class RangeInfo:
    """A ``kernel.range``: its kind, position among the kernel's ranges, and size (a const or param node)."""

    value: SSAValue
    kind: AxisKind
    position: int
    size: Node
    size_text: str
    """The size as ``kiln.support.symbolic`` size text: "128" or a symbol name."""
    size_max: int
    name: str | None

    @property
    def const_size(self) -> int | None:
        return const_value(self.size)

    @property
    def op(self) -> Operation:
        """The ``kernel.range`` (where errors about the range are reported)."""
        assert isinstance(self.value.owner, Operation)
        return self.value.owner


def unsupported_kind(r: RangeInfo, target: TargetDescription, why: str = "") -> Exception:
    return error_at(r.op, f"range kind {r.kind.value} not supported on target {target.name}{why}")


NEEDS_LOCAL = ": it needs workgroup-local memory and barriers (a GPU target)"
"""Why ``group_reduce`` ranges are an error where the target has no ``has_local``."""


def describe_range(r: RangeInfo) -> str:
    return f"%{r.name}" if r.name else f"number {r.position}"


Binding = tuple[Node, Scope]
"""What an outer range is inside a path: its index value and the scope where values using it live."""


class Launch:
    """Binds paths of outer ranges to scopes, creating each distinct prefix once. ``groups`` are the kernel's
    ``group_reduce`` ranges (not outer: reduces combine over them)."""

    def __init__(
        self,
        program: Program,
        outer: list[RangeInfo],
        groups: list[RangeInfo],
        target: TargetDescription,
        kernel: Operation,
    ):
        self.program, self.outer, self.groups, self.target, self.kernel = program, outer, groups, target, kernel
        self._prefixes: dict[tuple[RangeInfo, ...], tuple[dict[SSAValue, Binding], Scope, frozenset]] = {
            (): ({}, program.root, frozenset())
        }
        if groups and not target.has_local:
            raise unsupported_kind(groups[0], target, NEEDS_LOCAL)

    def check_kinds(self, unsupported: tuple[AxisKind, ...]) -> None:
        for r in self.outer:
            if r.kind in unsupported:
                raise unsupported_kind(r, self.target)

    def bindings(self, path: tuple[RangeInfo, ...]) -> tuple[dict[SSAValue, Binding], Scope]:
        """Bindings for outer ranges ``path`` (in nesting order) and the innermost scope they open."""
        if path not in self._prefixes:
            self.bindings(path[:-1])
            outer, scope, done = self._prefixes[path[:-1]]
            node, inner, done = self._bind(path[-1], scope, done)
            self._prefixes[path] = ({**outer, path[-1].value: (node, inner)}, inner, done)
        found, scope, _ = self._prefixes[path]
        return found, scope

    def _bind(self, r: RangeInfo, parent: Scope, done: frozenset) -> tuple[Node, Scope, frozenset]:
        """Bind ``r`` inside ``parent``; ``done`` is launch state of the path so far (e.g. guards placed)."""
        raise NotImplementedError

    def loop(self, r: RangeInfo, parent: Scope, lo: Node | None = None, hi: Node | None = None) -> Scope:
        lo = lo if lo is not None else self.program.index(0)
        return self.program.loop(parent, lo, hi if hi is not None else r.size, r.size_max, r.name)

    def attributes(self) -> dict[str, Attribute]:
        raise NotImplementedError

    def access_gates(self, ranges: Sequence[SSAValue]) -> list[Node]:
        """Conditions a load or store depending on ``ranges`` must be gated by (beyond its own gate)."""
        return []

    def store_gates(self, ranges: Sequence[SSAValue]) -> list[Node]:
        """Conditions a store depending on ``ranges`` must be gated by (beyond its own gate)."""
        return self.access_gates(ranges)


# ---------------------------------------------------------------------------------------------
# CPU


class CpuLaunch(Launch):
    """Every outer range is a loop; the first thread range (else the first global range) is the *core range*,
    which the runtime splits across threads: it runs from ``core_start`` to ``core_end``."""

    def __init__(
        self,
        program: Program,
        outer: list[RangeInfo],
        groups: list[RangeInfo],
        target: TargetDescription,
        kernel: Operation,
    ):
        super().__init__(program, outer, groups, target, kernel)
        self.check_kinds((AxisKind.LOCAL,))
        threads = [r for r in outer if r.kind == AxisKind.THREAD]
        globals_ = [r for r in outer if r.kind == AxisKind.GLOBAL]
        self.core = (threads or globals_ or [None])[0]
        if self.core is not None:  # the thread split is outermost
            self.outer = [self.core] + [r for r in outer if r is not self.core]
        self.core_scopes: list[Scope] = []

    def _bind(self, r: RangeInfo, parent: Scope, done: frozenset) -> tuple[Node, Scope, frozenset]:
        if r is self.core:
            start, end = (self.program.node("special", (), r.size.type, s) for s in ("core_start", "core_end"))
            scope = self.loop(r, parent, start, end)
            self.core_scopes.append(scope)
        else:
            scope = self.loop(r, parent)
        return scope.index, scope, done  # type: ignore[return-value]

    def attributes(self) -> dict[str, Attribute]:
        if self.core_scopes:
            extent, work = self.core.size_text, sum(work_per_iteration(s) for s in self.core_scopes)  # type: ignore[union-attr]
        else:
            extent, work = "1", work_per_iteration(self.program.root)
        return {"core_extent": StringAttr(extent), "core_work": IntegerAttr(max(1, work), 64)}


WORK_OPS = frozenset({"alu", "cast", "bitcast", "load", "store"})


def work_per_iteration(scope: Scope) -> int:
    """ALU, conversion and memory ops one iteration of ``scope`` executes, inner loops weighted by their trips;
    a vector op counts its lanes (the scale ``PARALLEL_MIN_WORK`` was set on: the register tile's lanes)."""
    own = sum(_lanes(n.operands[2].type if n.op == "store" else n.type) for n in scope.nodes if n.op in WORK_OPS)
    own += sum(_lanes(n.operands[0].type) - 1 for n in scope.nodes if n.op == "reduce_lanes")  # its ALU steps
    return own + sum(child.trips * work_per_iteration(child) for child in scope.children)


def _lanes(t: Attribute | None) -> int:
    return t.get_shape()[0] if isinstance(t, VectorType) else 1


# ---------------------------------------------------------------------------------------------
# GPU


@dataclass(eq=False)
class GridDim:
    """Global ranges (outer to inner) that share grid axes: their flattened index is ``group * lanes + lane``
    where ``group`` comes from one grid axis, or from two when one axis cannot hold all groups."""

    ranges: list[RangeInfo]
    lanes: int
    axes: tuple[int, ...] = ()
    index: dict[SSAValue, Node] = field(default_factory=dict)
    guard: Node | None = None

    @property
    def size_max(self) -> int:
        return math.prod(r.size_max for r in self.ranges)

    @property
    def groups_max(self) -> int:
        return -(-self.size_max // self.lanes)


class GpuLaunch(Launch):
    """Global ranges become grid dimensions (the last one x, then y, z; more than three are merged, and one
    that exceeds the grid limit spreads over two axes); ``local`` and ``group_reduce`` ranges become thread ids
    in the workgroup. Without them the x dimension is cut into workgroups of ``DEFAULT_LOCAL_SIZE`` threads."""

    def __init__(
        self,
        program: Program,
        outer: list[RangeInfo],
        groups: list[RangeInfo],
        target: TargetDescription,
        kernel: Operation,
        warp: int = 0,
    ):
        super().__init__(program, outer, groups, target, kernel)
        self.check_kinds((AxisKind.THREAD,))
        assert target.max_grid_dims and target.max_workgroup_dims and target.max_workgroup_size
        self.max_grid = target.max_grid_dims
        self.workgroup = sorted([r for r in outer if r.kind == AxisKind.LOCAL] + groups, key=lambda r: r.position)
        self.global_size = ["1", "1", "1"]
        self.local_size = [1, 1, 1]
        self.local_ids: dict[SSAValue, Node] = {}
        self.axis_of: dict[SSAValue, int] = {}
        self.lane: Node | None = None
        """The thread's lane in its warp, for a kernel on tensor cores (``warp`` > 0)."""
        self._map_workgroup(warp)
        self.guards_are_gates = bool(groups)
        """Barriers need uniform control flow: gate the accesses instead of bracketing them (module docstring)."""
        self.dims = self._grid_dims([r for r in outer if r.kind == AxisKind.GLOBAL], bool(self.workgroup) or warp > 0)
        self.dim_of = {r.value: d for d in self.dims for r in d.ranges}
        for d in self.dims:
            self._index_dim(d)

    def _map_workgroup(self, warp: int) -> None:
        """Workgroup ranges (last one x) become ``local_id`` along their axis; their sizes make the workgroup.
        With ``warp`` threads per warp, x is ``warp`` times wider: ``local_id.x % warp`` is the lane and
        ``local_id.x / warp`` the x range (consecutive x ids make a warp)."""
        sizes = self.local_size
        if len(self.workgroup) > 3:
            raise error_at(
                self.kernel, f"{len(self.workgroup)} local and group_reduce ranges; target {self.target.name} has 3 "
                "workgroup axes"
            )
        for axis, r in enumerate(reversed(self.workgroup)):
            if r.const_size is None:
                raise error_at(r.op, f"{r.kind.value} range {describe_range(r)} must have a constant size")
            sizes[axis] = r.const_size
            self.axis_of[r.value] = axis
            self.local_ids[r.value] = self.program.node("special", (), r.size.type, f"local_id.{AXES[axis]}")
        if warp:
            if self.groups:
                raise error_at(self.kernel, "a kernel on tensor cores cannot also group reductions across the workgroup")
            p = self.program
            x = p.node("special", (), IndexType(), "local_id.x")
            self.lane = imod(p, x, p.index(warp))
            if self.workgroup:
                self.local_ids[self.workgroup[-1].value] = idiv(p, x, p.index(warp))
            sizes[0] *= warp
        limits = self.target.max_workgroup_dims
        if math.prod(sizes) > self.target.max_workgroup_size or any(s > m for s, m in zip(sizes, limits)):  # type: ignore[arg-type]
            raise error_at(
                self.kernel,
                f"workgroup of {'x'.join(map(str, sizes))} threads exceeds the limits of target {self.target.name} "
                f"({self.target.max_workgroup_size} threads, {'x'.join(map(str, limits))})",  # type: ignore[arg-type]
            )

    def _lanes(self, ranges: list[RangeInfo], innermost: bool, has_locals: bool) -> int:
        if not innermost or has_locals:
            return 1
        lanes = min(DEFAULT_LOCAL_SIZE, self.target.max_workgroup_size, self.target.max_workgroup_dims[0])  # type: ignore[index,type-var]
        size = math.prod(r.const_size for r in ranges) if all(r.const_size is not None for r in ranges) else None  # type: ignore[misc]
        return max(1, min(lanes, size)) if size is not None else lanes

    def _grid_dims(self, globals_: list[RangeInfo], has_locals: bool) -> list[GridDim]:
        groups = [[r] for r in globals_]
        while True:
            dims = [GridDim(g, self._lanes(g, i == len(groups) - 1, has_locals)) for i, g in enumerate(groups)]
            if self._assign_axes(dims):
                return dims
            if len(groups) < 2:
                raise error_at(
                    self.kernel,
                    f"global size {dims[0].size_max} does not fit the grid of target {self.target.name} "
                    f"({'x'.join(map(str, self.max_grid))} workgroups of {dims[0].lanes})",
                )
            groups = [groups[0] + groups[1]] + groups[2:]

    def _assign_axes(self, dims: list[GridDim]) -> bool:
        """Give each dim one grid axis (innermost dim x), or two when its groups exceed one axis' limit."""
        axis = 0
        for d in reversed(dims):
            if axis < 3 and d.groups_max <= self.max_grid[axis]:
                d.axes, axis = (axis,), axis + 1
            elif axis < 2 and -(-d.groups_max // self.max_grid[axis]) <= self.max_grid[axis + 1]:
                d.axes, axis = (axis, axis + 1), axis + 2
            else:
                return False
        return True

    def _index_dim(self, d: GridDim) -> None:
        """The index of each range of ``d`` from the grid ids, the launch sizes, and the guard if needed."""
        p = self.program
        size, size_text = d.ranges[0].size, d.ranges[0].size_text
        for r in d.ranges[1:]:
            size, size_text = imul(p, size, r.size), f"{size_text}*{r.size_text}"
        lanes = p.index(d.lanes)
        groups = ceildiv(p, size, lanes)
        groups_text = size_text if d.lanes == 1 else f"ceildiv({size_text}, {d.lanes})"
        if len(d.axes) == 1:
            group, launched = self._group_id(d.axes[0], groups), groups
            self.global_size[d.axes[0]] = _text(groups, groups_text)
        else:  # rows x cols workgroups, the columns as few as the axis limit allows
            limit = self.max_grid[d.axes[0]]
            rows = ceildiv(p, groups, p.index(limit))
            cols = ceildiv(p, groups, rows)
            rows_text = f"ceildiv({groups_text}, {limit})"
            group = iadd(p, imul(p, self._group_id(d.axes[1], rows), cols), self._group_id(d.axes[0], cols))
            launched = imul(p, rows, cols)
            self.global_size[d.axes[0]] = _text(cols, f"ceildiv({groups_text}, {rows_text})")
            self.global_size[d.axes[1]] = _text(rows, rows_text)
        flat = group
        if d.lanes > 1:
            self.local_size[0] = d.lanes
            flat = iadd(p, imul(p, group, lanes), p.node("special", (), size.type, "local_id.x"))
        threads = imul(p, launched, lanes)
        exact = threads is size or (const_value(threads) is not None and const_value(threads) == const_value(size))
        d.guard = None if exact else p.alu("cmplt", flat, size)
        for r in reversed(d.ranges):  # the innermost range varies fastest
            d.index[r.value] = flat if r is d.ranges[0] else imod(p, flat, r.size)
            flat = idiv(p, flat, r.size)

    def _group_id(self, axis: int, groups: Node) -> Node:
        """``group_id`` along ``axis``; the constant 0 when there is a single workgroup along it."""
        if const_value(groups) == 1:
            return self.program.index(0)
        return self.program.node("special", (), groups.type, f"group_id.{AXES[axis]}")

    def _bind(self, r: RangeInfo, parent: Scope, done: frozenset) -> tuple[Node, Scope, frozenset]:
        if r.kind == AxisKind.LOCAL:
            return self.local_ids[r.value], parent, done
        if r.kind != AxisKind.GLOBAL:
            scope = self.loop(r, parent)
            return scope.index, scope, done  # type: ignore[return-value]
        d = self.dim_of[r.value]
        if d.guard is not None and d not in done and not self.guards_are_gates:
            return d.index[r.value], self.program.guard(parent, d.guard), done | {d}
        return d.index[r.value], parent, done

    def attributes(self) -> dict[str, Attribute]:
        return {
            "global_size": ArrayAttr([StringAttr(s) for s in self.global_size]),
            "local_size": ArrayAttr([IntegerAttr(n, 64) for n in self.local_size]),
        }

    def access_gates(self, ranges: Sequence[SSAValue]) -> list[Node]:
        if not self.guards_are_gates:
            return []
        dims = {id(d): d for r in ranges if (d := self.dim_of.get(r)) is not None and d.guard is not None}
        return [d.guard for d in dims.values()]  # type: ignore[misc]

    def store_gates(self, ranges: Sequence[SSAValue]) -> list[Node]:
        p, used = self.program, set(ranges)
        first = [p.alu("cmpeq", self.local_ids[r.value], p.index(0)) for r in self.workgroup if r.value not in used]
        return self.access_gates(ranges) + first

    # -- the workgroup as an array of threads (for local memory) -----------------------------

    @property
    def threads(self) -> int:
        return math.prod(self.local_size)

    def stride(self, r: RangeInfo) -> int:
        """How far apart the slots of neighbouring threads along ``r`` lie in ``thread_slot``."""
        return math.prod(self.local_size[: self.axis_of[r.value]])

    def thread_slot(self, skip: Sequence[RangeInfo] = ()) -> Node:
        """This thread's position in the workgroup (x fastest), leaving out the ``skip`` dimensions."""
        p, slot = self.program, self.program.index(0)
        for r in self.workgroup:
            if r not in skip:
                slot = iadd(p, slot, imul(p, self.local_ids[r.value], p.index(self.stride(r))))
        return slot


def _text(n: Node, symbolic: str) -> str:
    """A launch size as size text (``kiln.support.symbolic``): the number when ``n`` folded to a constant."""
    c = const_value(n)
    return symbolic if c is None else str(c)


def make_launch(
    program: Program,
    outer: list[RangeInfo],
    groups: list[RangeInfo],
    target: TargetDescription,
    kernel: Operation,
    warp: int = 0,
) -> Launch:
    """The launch mapping for ``target``: GPU-style when it has workgroups (``max_grid_dims``), else CPU. ``warp``
    > 0 (a kernel on tensor cores, GPUs only) adds the lanes of a warp to the workgroup's x dimension."""
    if target.max_grid_dims is None:
        return CpuLaunch(program, outer, groups, target, kernel)
    return GpuLaunch(program, outer, groups, target, kernel, warp)
