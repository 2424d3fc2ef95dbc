"""``--mlir-pass-statistics``: the counters each pass bumped (`kiln.support.statistics`), reported as mlir-opt
reports them, one block per pass run in pipeline order."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.passes import ModulePass

from kiln.support.statistics import Statistic, collecting
from kiln.tools.timing import RULE


class PassStatistics:
    def __init__(self) -> None:
        self._runs: list[tuple[str, dict[Statistic, int]]] = []

    @contextmanager
    def collect(self, p: ModulePass) -> Iterator[None]:
        """Record what ``p`` bumps inside the block (a run of ``p``)."""
        with collecting() as counts:
            yield
        self._runs.append((type(p).__name__, counts))

    def report(self) -> str:
        lines = [RULE, "... Pass statistics report ...".center(len(RULE)).rstrip(), RULE]
        for name, counts in self._runs:
            lines.append(name)
            lines += [f"  (S) {n} {stat.name} - {stat.description}" for stat, n in counts.items()]
        return "\n".join(lines) + "\n"
