"""Pass statistics: named counters a pass bumps while it runs, reported by ``kiln-opt --mlir-pass-statistics``.

A pass declares its counters at module level (``KERNELS_FORMED = Statistic("kernels-formed", "...")``) and calls
``KERNELS_FORMED.bump(n)``; whoever runs the pass opens ``collecting()`` around it to receive the counts. Outside
``collecting()`` a bump costs a context-variable read and nothing is kept, so passes bump unconditionally.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

_counts: ContextVar[dict[Statistic, int] | None] = ContextVar("kiln_pass_statistics", default=None)


@dataclass(frozen=True)
class Statistic:
    """One counter: MLIR's ``Pass::Statistic`` (a name and what it counts)."""

    name: str
    description: str

    def bump(self, n: int = 1) -> None:
        counts = _counts.get()
        if counts is not None:
            counts[self] = counts.get(self, 0) + n


@contextmanager
def collecting() -> Iterator[dict[Statistic, int]]:
    """The counts bumped inside the ``with`` block (in first-bumped order)."""
    counts: dict[Statistic, int] = {}
    token = _counts.set(counts)
    try:
        yield counts
    finally:
        _counts.reset(token)


def removed(before: Iterable[str], after: Iterable[str]) -> int:
    """How many of the ``before`` names are missing from ``after`` (as multisets): ops a rewrite replaced."""
    return sum((Counter(before) - Counter(after)).values())
