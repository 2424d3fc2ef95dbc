"""``--mlir-timing``: wall time per phase (parsing, each pass, verification, output), reported like mlir-opt."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

RULE = "===" + "-" * 73 + "==="


class Timer:
    """Accumulates wall time per named phase, in first-seen order; a phase seen twice adds up."""

    def __init__(self) -> None:
        self._start = time.perf_counter()
        self._phases: dict[str, float] = {}

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self._phases[name] = self._phases.get(name, 0.0) + time.perf_counter() - start

    def report(self) -> str:
        total = time.perf_counter() - self._start
        rows = [*self._phases.items(), ("Rest", max(0.0, total - sum(self._phases.values()))), ("Total", total)]
        lines = [
            RULE,
            "... Execution time report ...".center(len(RULE)).rstrip(),
            RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        lines += [f"  {t:8.4f} ({100 * t / total if total else 0.0:5.1f}%)  {name}" for name, t in rows]
        return "\n".join(lines) + "\n"
