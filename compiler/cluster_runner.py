"""The beam search's runner on a Ray cluster: candidates are compiled and timed as Ray tasks on the nodes that
advertise the kernel's hardware class (``cluster``).

Compiles and timings are separate tasks. A round's compiles are submitted together and fan out over every CPU of
the capable nodes (one CPU each); when they are done, its timings run, each holding the node's one
``kiln-timing`` slot (no two timings on one machine) and placed, where possible, on the node that compiled the
candidate (whose disk cache holds the code). The search's budgets are the local search's: nothing is waited for
past the round's deadline, and a task gets ``task_timeout`` (the per-kernel budget) before it counts as hung.
Faults are handled by ``cluster_gather``; once it reports the cluster gone, ``failed`` is set and the search
ends with what it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kiln.capabilities.description import TargetDescription
from kiln.compiler import cluster, cluster_tasks
from kiln.compiler.cluster_gather import Gathered, Lost, Submit, gather, submitter, task
from kiln.compiler.measure import LOST, Measured
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support.errors import KilnError


class RayRunner:
    def __init__(self, where: str, target: TargetDescription, task_timeout: float):
        self.ray = cluster.connect(where)
        self.device, self.target, self.task_timeout = target.name, target, task_timeout
        self.failed: str | None = None
        hardware = hardware_class(target)
        if not cluster.capable_nodes(self.ray, target):
            raise KilnError(
                f"no node of the Ray cluster at '{where}' offers hardware class {hardware} ({target.name} on this "
                f"machine's CPU); start workers with: ray start --address=... --resources='<kiln-tune "
                f"--node-resources --device {target.name}>'"
            )
        need = {hardware: cluster.SHARE}
        self._compile = task(self.ray, cluster_tasks.compile_task, need)
        self._time = task(self.ray, cluster_tasks.time_task, {**need, cluster.TIMING_RESOURCE: 1})
        self._shipped: dict[int, tuple[object, Any]] = {}

    def measure(self, texts: Sequence[str], inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                best: float, deadline: float) -> list[Measured]:
        """One ``Measured`` per text (see ``measure.LocalRunner.measure``)."""
        if self.failed:
            return [Measured(error=LOST + self.failed) for _ in texts]
        compiled = self._gather([submitter(self._compile, self.device, t) for t in texts], deadline)
        out: list[Measured] = []
        timings: dict[int, Submit] = {}
        shipped_inputs, shipped_reference = self._ship(inputs), self._ship(reference)
        for n, (text, result) in enumerate(zip(texts, compiled.results)):
            if isinstance(result, Lost):
                out.append(Measured(error=result.error()))
                continue
            error, node = result
            out.append(Measured(error=error))
            if error is None:
                place = self._near(node)
                timings[n] = submitter(
                    self._time, self.device, text, shipped_inputs, shipped_reference, best, place=place
                )
        timed = self._gather(list(timings.values()), deadline)
        for n, result in zip(timings, timed.results):
            out[n] = Measured(error=result.error()) if isinstance(result, Lost) else result
        for n, why in [*compiled.retried.items(), *((list(timings)[m], why) for m, why in timed.retried.items())]:
            out[n].retried = why
        return out

    def close(self) -> None:
        """Leave the connection open: the next kernel's search (or a later compile) reuses it."""

    def _ship(self, arrays: list[np.ndarray] | None) -> Any:
        """``arrays`` in the object store, put once per kernel (a search keeps its inputs and reference lists)
        rather than copied into every task."""
        if arrays is None:
            return None
        if id(arrays) not in self._shipped:
            if len(self._shipped) >= 2:
                self._shipped.clear()
            self._shipped[id(arrays)] = (arrays, self.ray.put(arrays))
        return self._shipped[id(arrays)][1]

    def _near(self, node: str) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return NodeAffinitySchedulingStrategy(node, soft=True)

    def _gather(self, submitters: list[Submit], deadline: float) -> Gathered:
        done = gather(self.ray, self.target, submitters, deadline, self.task_timeout)
        self.failed = self.failed or done.failed
        return done
