"""Source locations through lowering: what an op made from several ops, or from none in particular, points at.

Parsed ops carry ``loc("file":line:col)`` (`kiln.support.source`); each lowering gives the ops it makes the
location of the ops they come from, so ``--mlir-print-debuginfo`` and diagnostics lead back to the input line
at every level. A kernel fused from several graph ops gets a ``loc(fused[...])`` of their locations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

from xdsl.dialects.builtin import FusedLoc, LocationAttr, NoneAttr, UnknownLoc
from xdsl.ir import Attribute, Operation


def is_known(loc: Attribute) -> bool:
    return not isinstance(loc, UnknownLoc)


def fused_location(locations: Iterable[Attribute]) -> Attribute:
    """One location for all of ``locations`` (unknown ones and repeats left out): unknown for none, the location
    itself for one, else ``loc(fused[...])`` in the order given."""
    distinct = list(dict.fromkeys(loc for loc in locations if is_known(loc)))
    if not distinct:
        return UnknownLoc()
    if len(distinct) == 1:
        return distinct[0]
    return FusedLoc(distinct, NoneAttr())


def inherit_locations(root: Operation, location: LocationAttr | None = None) -> None:
    """Every op under ``root`` whose location is unknown takes that of its nearest enclosing op that has one
    (``root``'s own, or ``location`` when given)."""
    inherited = location if location is not None else root.location

    def visit(op: Operation, outer: Attribute) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    if not is_known(inner.location):
                        inner.location = outer
                    visit(inner, inner.location)

    visit(root, inherited)


T = TypeVar("T")


class Unclaimed(Generic[T]):
    """Things a lowering made (ops, or nodes that become ops) that no source op has claimed yet.

    A lowering that descends from a value into the ops that produce it makes the producers' things first; when
    an op's descent ends, everything made since it began and not claimed by an inner op is the op's own:
    ``mark = unclaimed.mark()``, descend, ``unclaimed.claim(mark, op.location)``. Each thing is claimed once."""

    def __init__(self, set_location: Callable[[T, Attribute], None]):
        self._items: list[T] = []
        self._set_location = set_location

    def add(self, item: T) -> None:
        self._items.append(item)

    def mark(self) -> int:
        return len(self._items)

    def claim(self, mark: int, location: Attribute) -> None:
        """``location`` for what was made since ``mark``; an unknown one leaves it to the enclosing op."""
        if not is_known(location):
            return
        for item in self._items[mark:]:
            self._set_location(item, location)
        del self._items[mark:]
