"""Vector loads and stores from the copies an expanded (upcast/unroll) range makes.

The copies of one ``kernel.load`` (or store) that differ only in the value of one expanded range are lanes
of a vector access when their indices are provably consecutive: ``index(u) - index(u0) == u - u0`` by the
symbolic engine. Loads become one ``vector<NxT>`` load whose lanes are ``extract``-ed (ALU stays scalar);
stores become one store of a ``vectorize``. N is the largest power of two that divides the range's size and
fits the target's vector width for the dtype. GPU targets also need the first index to be a multiple of N
(vector memory accesses must be aligned there); CPUs accept unaligned ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import VectorType
from xdsl.ir import SSAValue

from kiln.dialects.alu import dtype_class
from kiln.dialects.types import dtype_name, is_bool
from kiln.lowering.linearize.launch import RangeInfo
from kiln.lowering.linearize.nodes import Node, Program, const_value
from kiln.support import symbolic as S
from kiln.capabilities.description import TargetDescription

if TYPE_CHECKING:  # instantiate uses this module's helpers for its vector rows
    from kiln.lowering.linearize.instantiate import Access

_BUILDERS = {"add": S.add, "sub": S.sub, "mul": S.mul, "idiv": S.cdiv, "mod": S.cmod, "max": S.maximum, "min": S.minimum}


class IndexExprs:
    """Symbolic expressions of index nodes: index ALU ops become expressions, anything else a variable
    (a loop counter bounded by its loop)."""

    def __init__(self) -> None:
        self._memo: dict[Node, S.Expr] = {}

    def __call__(self, n: Node) -> S.Expr:
        if n not in self._memo:
            self._memo[n] = self._make(n)
        return self._memo[n]

    def _make(self, n: Node) -> S.Expr:
        if (c := const_value(n)) is not None:
            return S.Const(c)
        if n.op == "alu" and n.attr in _BUILDERS and dtype_class(n.type) == "index":  # type: ignore[arg-type]
            return _BUILDERS[n.attr](*(self(o) for o in n.operands))  # type: ignore[index]
        lo, hi = (0, n.scope.trips - 1) if n.op == "range" else (S.INDEX_MIN, S.INDEX_MAX)
        return S.Var(f"n{n.seq}", lo, hi, order=n.seq)


def lane_groups(records: Sequence[Access], ranges: dict[SSAValue, RangeInfo]) -> list[list[Node]]:
    """The nodes of ``records`` that are the copies of one kernel op along one expanded range (every other
    binding equal), in lane order; innermost range first. Only complete groups (a node for every lane)."""
    # Keyed on the range's place among the access's ranges and the other bound values, not on (range, value)
    # pairs: one kernel op's accesses all have the same ranges, and an SSA value hashes in Python.
    groups: dict[tuple, dict[int, Node]] = {}
    range_of: dict[tuple, SSAValue] = {}
    for a in records:
        bounds = [b for _, b in a.bindings]
        for i, bound in enumerate(bounds):
            if bound.__class__ is int:
                key = (a.op, i, *bounds[:i], *bounds[i + 1 :])
                groups.setdefault(key, {})[bound] = a.node  # type: ignore[index]
                range_of[key] = a.bindings[i][0]
    out = []
    for key, lanes in sorted(groups.items(), key=lambda kv: -ranges[range_of[kv[0]]].position):
        r = range_of[key]
        nodes = [lanes.get(u) for u in range(ranges[r].const_size or 0)]
        if nodes and all(n is not None for n in nodes):
            out.append(nodes)
    return out


def chunk(lanes: int, width: int) -> int:
    """The largest power of two that divides ``lanes`` and is at most ``width``."""
    c = 1
    while lanes % (c * 2) == 0 and c * 2 <= width:
        c *= 2
    return c


def aligned_only(target: TargetDescription) -> bool:
    """Whether vector accesses must start at a multiple of their lanes (GPUs; see the module docstring)."""
    return target.cpu_cores is None


def consecutive(expr: IndexExprs, indices: Sequence[Node], aligned: bool) -> bool:
    """Whether ``indices`` are provably ``i0, i0 + 1, ...`` (and i0 a multiple of their number, when
    ``aligned``)."""
    first = indices[0]
    base = expr(first)
    if aligned and S.cmod(base, len(indices)) != S.Const(0):
        return False
    return all(_offset(n, first) == lane or S.sub(expr(n), base) == S.Const(lane) for lane, n in enumerate(indices))


def _offset(a: Node, b: Node) -> int | None:
    """``a - b`` when the nodes show it (sums that differ in one constant term), else None: the symbolic engine's
    answer for a tile's lanes at a fraction of its cost (a lane's index is its neighbour's plus a constant)."""
    while a is not b:
        if a.op == "const" and b.op == "const":
            ca, cb = const_value(a), const_value(b)
            return None if ca is None or cb is None else ca - cb
        if not (a.op == b.op == "alu" and a.attr == b.attr == "add"):
            return None
        if a.operands[0] is b.operands[0]:
            a, b = a.operands[1], b.operands[1]
        elif a.operands[1] is b.operands[1]:
            a, b = a.operands[0], b.operands[0]
        else:
            return None
    return 0


def _shape(n: Node) -> tuple[Node, tuple[Node, ...]]:
    """An access's pointer and gate (empty when ungated): what all lanes must share."""
    gate_at = 2 if n.op == "load" else 3
    return n.operands[0], n.operands[gate_at:]


class Vectorizer:
    def __init__(self, program: Program, ranges: dict[SSAValue, RangeInfo], target: TargetDescription):
        self.program, self.ranges, self.target = program, ranges, target
        self.expr = IndexExprs()
        self.aligned_only = aligned_only(target)

    def run(self, accesses: list[Access], pairs: Sequence[list[Node]] = ()) -> None:
        """Vectorize the copies of every access along an expanded range, then the given ``pairs`` of lanes
        (tensor-core fragment elements, which are bound to lane expressions rather than copies)."""
        done: set[Node] = set()
        for nodes in lane_groups(accesses, self.ranges):
            if done.isdisjoint(nodes):
                done.update(self._vectorize(nodes))
        for pair in pairs:
            if not done.intersection(pair):
                done.update(self._vectorize(pair))

    def _vectorize(self, nodes: list[Node]) -> list[Node]:
        """Rewrite runs of ``nodes`` (the lanes in order) into vector accesses; the nodes it used."""
        first = nodes[0]
        dtype = first.type if first.op == "load" else first.operands[2].type
        if dtype is None or is_bool(dtype) or any(_shape(n) != _shape(first) or n.scope is not first.scope for n in nodes):
            return []
        width = chunk(len(nodes), self.target.vector_width(dtype_name(dtype)))
        rewrite = self._load if first.op == "load" else self._store  # before _load makes the first lane an extract
        used: list[Node] = []
        for start in range(0, len(nodes), width) if width > 1 else ():
            part = nodes[start : start + width]
            if consecutive(self.expr, [n.operands[1] for n in part], self.aligned_only):
                rewrite(part, VectorType(dtype, [width]))
                used.extend(part)
        return used

    def _load(self, part: list[Node], t: VectorType) -> None:
        first = part[0]
        vector = self.program.node("load", first.operands, t, scope=first.scope)
        vector.seq = first.seq  # where the first lane was
        for lane, n in enumerate(part):
            n.op, n.operands, n.attr = "extract", (vector,), lane

    def _store(self, part: list[Node], t: VectorType) -> None:
        first = part[0]
        ptr, index, _, *gate = first.operands
        value = self.program.node("vectorize", [n.operands[2] for n in part], t)
        first.operands = (ptr, index, value, *gate)
        for n in part[1:]:
            self.program.remove(n)
