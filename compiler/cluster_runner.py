"""The beam search's runner on a Ray cluster: candidates are compiled and timed by the warm kiln workers that
``cluster_pool`` keeps on the nodes advertising the kernel's hardware class (``cluster``).

A round's compiles go out together and fan out over every worker (one per CPU); when they are done, its
timings run, each on a worker that holds its node's one ``kiln-timing`` slot (no two timings on one machine),
on the node that compiled the candidate where that worker is idle (its disk cache holds the code). The inputs
and the reference outputs go to the object store once per kernel. The search's budgets are the local search's:
nothing starts past the round's deadline, and a call gets ``task_timeout`` (the per-kernel budget) from its
start before it counts as hung. Faults are handled by ``cluster_pool``; once it reports the cluster gone,
``failed`` is set and the search ends with what it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kiln.capabilities.description import TargetDescription
from kiln.compiler import cluster, cluster_pool
from kiln.compiler.cluster_pool import Call, Gathered, Lost
from kiln.compiler.measure import LOST, Measured
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support.errors import KilnError


class RayRunner:
    def __init__(self, where: str, target: TargetDescription, task_timeout: float):
        self.ray = cluster.connect(where)
        self.device, self.target, self.task_timeout = target.name, target, task_timeout
        self.failed: str | None = None
        if not cluster.capable_nodes(self.ray, target):
            raise KilnError(
                f"no node of the Ray cluster at '{where}' offers hardware class {hardware_class(target)} "
                f"({target.name} on this machine's CPU); start workers with: ray start --address=... "
                f"--resources='<kiln-tune --node-resources --device {target.name}>'"
            )
        self.pool = cluster_pool.pool(self.ray, target)
        self._shipped: dict[int, tuple[object, Any]] = {}

    def measure(self, texts: Sequence[str], inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                best: float, deadline: float) -> list[Measured]:
        """One ``Measured`` per text (see ``measure.LocalRunner.measure``)."""
        if self.failed:
            return [Measured(error=LOST + self.failed) for _ in texts]
        compiled = self._run([Call("compile", (text,)) for text in texts], deadline)
        out = [Measured(error=r.error() if isinstance(r, Lost) else r) for r in compiled.results]
        shipped = [self._ship(inputs), self._ship(reference)]  # in a list: the worker fetches them once per kernel
        timings = {
            n: Call("time", (texts[n], shipped, best), timing=True, near=compiled.nodes[n])
            for n, m in enumerate(out) if m.error is None
        }
        timed = self._run(list(timings.values()), deadline)
        for n, result in zip(timings, timed.results):
            out[n] = Measured(error=result.error()) if isinstance(result, Lost) else result
        for n, why in [*compiled.retried.items(), *((list(timings)[m], why) for m, why in timed.retried.items())]:
            out[n].retried = why
        return out

    def close(self) -> None:
        """Leave the connection and the workers: the next kernel's search (or a later compile) reuses them."""

    def _ship(self, arrays: list[np.ndarray] | None) -> Any:
        """``arrays`` in the object store, put once per kernel (a search keeps its inputs and reference lists)
        rather than copied into every call."""
        if arrays is None:
            return None
        if id(arrays) not in self._shipped:
            if len(self._shipped) >= 2:
                self._shipped.clear()
            self._shipped[id(arrays)] = (arrays, self.ray.put(arrays))
        return self._shipped[id(arrays)][1]

    def _run(self, calls: list[Call], deadline: float) -> Gathered:
        done = self.pool.run(calls, deadline, self.task_timeout)
        self.failed = self.failed or done.failed
        return done
