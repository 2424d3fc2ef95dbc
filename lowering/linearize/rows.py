"""The register tile instantiated a row vector at a time.

A store over expanded (upcast/unroll) ranges binds its innermost one, ``u``, to a ``Row``: ``width``
consecutive values of ``u`` at once (``width`` = the target's vector lanes for the stored dtype, a power of two
dividing u's size). Every value that depends on ``u`` is then one node per row instead of one per lane:

- a *vector* value (``vector<width x T>``): a load whose lanes are consecutive in memory (one vector load), an
  ALU op of a kind every target computes lane by lane (``vector_alu.VECTOR_KINDS``) or a cast, on vector
  operands (a value that does not depend on ``u`` is broadcast), a reduce into a vector accumulator;
- *lanes* (a tuple of ``width`` scalar nodes): what has no vector form here (index math, bool loads, other ALU
  kinds, loads that are not consecutive, grouped reduces); each lane is instantiated with ``u`` bound to its
  constant, the scalar path, and gathered (``Program.gather``) where a vector op uses it.

A reduce or store whose value is only gathered lanes (no vector load or vector accumulator feeds it:
``RowValues.sourced``) is done lane by lane instead, which is what ``vector_alu`` made of such lanes (scalar
accumulators; a store of a ``vectorize`` of lanes). Whether an access's lanes are consecutive is read off the kernel's
index math where it shows a step of 1 along ``u`` (``Instantiator._slope``: only each chunk's first index is
made), else proved over every lane's index by the symbolic engine. The store of a row is one vector store when
its indices are consecutive, else its lanes are stored one by one through the scalar path (where ``vectorize``/``vector_alu``
pack what they can, as for any copies). This is the form ``vectorize`` + ``vector_alu`` rebuild from the lanes,
made directly: an 8x16 tile is 8 rows of nodes, not 128 lanes packed back.

A reduce over unrolled ranges only (outside any row: attention's q @ k^T sums 16 unrolled k lanes after the k
loop, and its gated stores go lane by lane) binds its innermost unrolled range to rows the same way, and
combines each row's lanes with one ``uop.reduce_lanes``: the vector accumulators along k that ``vector_alu``
packed the lanes into, summed whole.
"""

from __future__ import annotations

from typing import NamedTuple

from kiln.dialects.alu import element_type, is_vector
from kiln.lowering.linearize.nodes import Node, Program
from kiln.lowering.linearize.vectorize import IndexExprs, aligned_only, consecutive
from kiln.capabilities.description import TargetDescription


class Row(NamedTuple):
    """The binding of an expanded range to ``width`` consecutive values from ``start``."""

    start: int
    width: int


RowValue = Node | tuple[Node, ...]
"""A value under a ``Row`` binding: a vector node, a tuple of lane nodes, or a node that does not depend on the
row (the same in every lane)."""


class RowValues:
    """Conversions between the forms of a row's values, and the consecutive-index test of its accesses."""

    def __init__(self, program: Program, target: TargetDescription):
        self.program = program
        self.expr = IndexExprs()
        self.aligned = aligned_only(target)
        self.sourced: set[Node] = set()
        """Vector values computed from a vector the program has (a row's vector load, a vector accumulator's
        read), not only from gathered lanes: a reduce or store whose value is not one stays lane by lane, as
        ``vector_alu`` leaves lanes it could only gather (scalar accumulators, a ``vectorize`` of lanes stored)."""

    def derived(self, n: Node, operands: list[RowValue]) -> Node:
        """``n``, computed from ``operands``: sourced when one of them is."""
        if not self.sourced.isdisjoint(operands):
            self.sourced.add(n)
        return n

    def lanes(self, x: RowValue, width: int) -> tuple[Node, ...]:
        """The ``width`` scalar lanes of ``x``."""
        if x.__class__ is tuple:
            return x  # type: ignore[return-value]
        assert isinstance(x, Node)
        if is_vector(x.type):  # type: ignore[arg-type]
            t = element_type(x.type)  # type: ignore[arg-type]
            return tuple(self.program.node("extract", (x,), t, lane) for lane in range(width))
        return (x,) * width

    def vector(self, x: RowValue, width: int) -> Node:
        """``x`` as one vector node (lanes gathered, a row-invariant value broadcast)."""
        if x.__class__ is not tuple and is_vector(x.type):  # type: ignore[union-attr]
            return x  # type: ignore[return-value]
        return self.program.gather(self.lanes(x, width))

    def consecutive(self, indices: tuple[Node, ...]) -> bool:
        """Whether an access at ``indices`` (one per lane) is one vector access."""
        return consecutive(self.expr, indices, self.aligned)

