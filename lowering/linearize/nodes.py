"""The linearizer's data model: nodes (future uop ops) placed in a tree of scopes (future brackets).

A ``Scope`` is the root of the kernel, a loop (``uop.range``/``uop.end``) or a guard (``uop.if``/``uop.endif``).
A ``Node`` is one future uop op; it lives in one scope and may use nodes of that scope or of enclosing ones.
``Program`` creates nodes: pure ones are hash-consed (so a value several consumers share is made once), and a
node's scope defaults to the innermost scope among its operands' — the innermost loop it requires, which is
loop-invariant code motion by construction.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IndexType, IntegerAttr, VectorType, i1
from xdsl.ir import Attribute

from kiln.dialects.alu import ALU_OPS, like
from kiln.dialects.types import is_bool, is_float
from kiln.dialects.uop import AccType
from kiln.support.locations import Unclaimed
from kiln.support.prototypes import number_key

PURE_OPS = frozenset(
    {"param", "special", "const", "alu", "cast", "bitcast", "vectorize", "extract", "reduce_lanes", "wmma"}
)
"""Node ops without side effects: equal ones (same op, operands, type, attribute) are one node."""

_SEQ = itertools.count()


class Scope:
    """A bracket of the linear program: ``root``, ``loop`` (``opener`` = (lo, hi)) or ``if`` (``opener`` = (cond,))."""

    def __init__(self, kind: str, parent: Scope | None = None, opener: Sequence[Node] = (), trips: int = 1):
        self.kind, self.parent, self.opener = kind, parent, tuple(opener)
        self.trips = trips
        """Upper bound of the iterations of a loop (1 for root and guards): weights for ``core_work``."""
        self.depth = parent.depth + 1 if parent else 0
        self.nodes: dict[Node, None] = {}
        """The nodes placed here, in creation order (a dict: the vectorizers remove lanes, a list took O(n) each)."""
        self.children: list[Scope] = []
        self.index: Node | None = None
        """A loop's counter, defined by the bracket itself."""
        self.seq = next(_SEQ)
        if parent is not None:
            parent.children.append(self)

    def walk(self) -> Iterator[Scope]:
        """This scope and every scope nested in it."""
        yield self
        for child in self.children:
            yield from child.walk()


class Node:
    """One future uop op: ``op`` is param, special, const, alu (``attr`` = kind), cast, bitcast, load, store,
    define_acc, acc_get, acc_set, vectorize, extract (``attr`` = lane), reduce_lanes (``attr`` = ALU kind),
    define_local (``attr`` = size), barrier, wmma (``attr`` = (m, n, k, threads)) or range (a loop's counter)."""

    def __init__(
        self,
        op: str,
        operands: Sequence[Node],
        type: Attribute | None,
        attr: object,
        scope: Scope,
        after: Sequence[Node | Scope] = (),
        name: str | None = None,
    ):
        self.op, self.operands, self.type, self.attr = op, tuple(operands), type, attr
        self.scope = scope
        self.after: tuple[Node | Scope, ...] = tuple(after)
        """Ordering without data flow: loops that must have finished before this node (an accumulator read
        after its loop), or nodes with effects that must come first (a barrier after the local stores it
        publishes, a local load after that barrier). Nodes listed here are live when this one is."""
        self.name = name
        self.seq = next(_SEQ)
        self.location: Attribute | None = None
        """The location of the kernel op this node was made for (the first one, for a shared pure node)."""

    def __repr__(self) -> str:
        return f"<{self.op} {self.attr if self.attr is not None else ''} #{self.seq}>"


def innermost(scopes: Sequence[Scope], default: Scope) -> Scope:
    """The deepest of scopes that lie on one chain of nesting."""
    return max(scopes, key=lambda s: s.depth, default=default)


class Program:
    """The root scope and the factory for nodes."""

    def __init__(self) -> None:
        self.root = Scope("root")
        self._pure: dict[tuple, Node] = {}
        self.unclaimed: Unclaimed[Node] = Unclaimed(_set_location)
        """Nodes no kernel op has claimed yet: the instantiator claims them per kernel op."""

    def node(
        self,
        op: str,
        operands: Sequence[Node],
        type: Attribute | None,
        attr: object = None,
        scope: Scope | None = None,
        after: Sequence[Node | Scope] = (),
        name: str | None = None,
    ) -> Node:
        """A node in ``scope`` (by default the innermost scope of its operands); equal pure nodes are shared."""
        where = scope
        if where is None:  # innermost(...) inlined: every node of a tile's lanes passes here
            where = self.root
            for o in operands:
                if o.scope.depth > where.depth:
                    where = o.scope
        key = (op, tuple(operands), type, attr, where) if op in PURE_OPS else None
        if key is not None and key in self._pure:
            found = self._pure[key]
            found.name = found.name or name
            return found
        n = Node(op, operands, type, attr, where, after, name)
        where.nodes[n] = None
        self.unclaimed.add(n)
        if key is not None:
            self._pure[key] = n
        return n

    def const(self, value: int | float, type: Attribute) -> Node:
        attr = _float_attr(float(value).hex(), type) if is_float(type) else _integer_attr(int(value), type)  # type: ignore[arg-type]
        return self.node("const", (), type, attr)

    def index(self, value: int) -> Node:
        return self.const(value, INDEX)

    def alu(self, kind: str, *operands: Node, name: str | None = None, scope: Scope | None = None) -> Node:
        t = operands[-1].type
        result_type = _bool_like(t) if ALU_OPS[kind].returns_bool else t
        return self.node("alu", operands, result_type, kind, scope=scope, name=name)

    def gather(self, lanes: Sequence[Node]) -> Node:
        """``vectorize(lanes)``: a vector constant when every lane is one (non-bool) constant."""
        first = lanes[0]
        t = vector_type(first.type, len(lanes))
        if first.op == "const" and not is_bool(first.type) and all(n is first for n in lanes):
            return self.node("const", (), t, _splat(t, first.attr.value.data))  # type: ignore[union-attr]
        return self.node("vectorize", lanes, t)

    def loop(self, parent: Scope, lo: Node, hi: Node, trips: int, name: str | None = None) -> Scope:
        """A new loop nested in ``parent``; its counter is ``scope.index``."""
        scope = Scope("loop", parent, (lo, hi), trips)
        scope.index = Node("range", (), INDEX, None, scope, name=name)
        return scope

    def guard(self, parent: Scope, cond: Node) -> Scope:
        return Scope("if", parent, (cond,))

    def remove(self, node: Node) -> None:
        del node.scope.nodes[node]


def in_loop(scope: Scope) -> bool:
    """Whether ``scope`` is a loop or lies inside one (so what it does runs more than once per thread)."""
    s: Scope | None = scope
    while s is not None:
        if s.kind == "loop":
            return True
        s = s.parent
    return False


def conjunction(p: Program, conditions: Sequence[Node]) -> Node | None:
    """``c0 and c1 and ...`` (None for no conditions)."""
    out: Node | None = None
    for c in conditions:
        out = c if out is None else p.alu("and", out, c)
    return out


# integer index arithmetic that folds constants, so sizes and launch math stay readable


def const_value(n: Node) -> int | None:
    return n.attr.value.data if n.op == "const" and isinstance(n.attr, IntegerAttr) else None  # type: ignore[union-attr]


def iadd(p: Program, a: Node, b: Node) -> Node:
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return p.index(ca + cb)
    if cb == 0:
        return a
    if ca == 0:
        return b
    return p.alu("add", a, b)


def imul(p: Program, a: Node, b: Node) -> Node:
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return p.index(ca * cb)
    if cb == 1:
        return a
    if ca == 1:
        return b
    return p.alu("mul", a, b)


def idiv(p: Program, a: Node, b: Node) -> Node:
    """``a / b`` for non-negative a and positive b."""
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return p.index(ca // cb)
    return a if cb == 1 else p.alu("idiv", a, b)


def imod(p: Program, a: Node, b: Node) -> Node:
    ca, cb = const_value(a), const_value(b)
    if ca is not None and cb is not None:
        return p.index(ca % cb)
    return p.index(0) if cb == 1 else p.alu("mod", a, b)


def ceildiv(p: Program, a: Node, b: Node) -> Node:
    """``ceil(a / b)`` for non-negative a and positive b."""
    cb = const_value(b)
    b_minus_1 = p.index(cb - 1) if cb is not None else p.alu("sub", b, p.index(1))
    return idiv(p, iadd(p, a, b_minus_1), b)


# Attributes are immutable, and building one verifies it (tens of microseconds): the linearizer makes the same
# few types and index constants for every lane of a tile, so it builds each once.
@functools.lru_cache(maxsize=4096)
def _integer_attr(value: int, type: Attribute) -> IntegerAttr:
    return IntegerAttr(value, type)  # type: ignore[arg-type]


INDEX = IndexType()


@functools.lru_cache(maxsize=256)
def _bool_like(t: Attribute) -> Attribute:
    """The type of a comparison of ``t`` values: i1, or a vector of them."""
    return like(t, i1)


@functools.lru_cache(maxsize=256)
def vector_type(element: Attribute, lanes: int) -> VectorType:
    """``vector<lanes x element>``."""
    return VectorType(element, [lanes])


@functools.lru_cache(maxsize=4096)
def _float_attr(value: str, type: Attribute) -> FloatAttr:
    """``value`` given as ``float.hex`` text: as a key it keeps -0.0 apart from 0.0."""
    return FloatAttr(float.fromhex(value), type)  # type: ignore[arg-type]


def _splat(t: VectorType, value: int | float) -> DenseIntOrFPElementsAttr:
    """``value`` in every lane of ``t``, built once per (type, value): keyed by ``number_key``, which keeps -0.0
    apart from 0.0 (equal, and equal hashes, as floats)."""
    return _splat_of_key(t, number_key(value))


@functools.lru_cache(maxsize=256)
def _splat_of_key(t: VectorType, key: int | str) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(t, [float.fromhex(key) if isinstance(key, str) else key])


@functools.lru_cache(maxsize=256)
def acc_type(value: Attribute) -> AccType:
    """The type of an accumulator of ``value``'s type."""
    return AccType(value)


def _set_location(node: Node, location: Attribute) -> None:
    node.location = location
