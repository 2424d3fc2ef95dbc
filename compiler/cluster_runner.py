"""The beam search's runner on a Ray cluster: candidates are compiled and timed as Ray tasks on the nodes that
advertise the kernel's hardware class (``cluster``).

Compiles and timings are separate tasks. A round's compiles are submitted together and fan out over every CPU of
the capable nodes (one CPU each); when they are done, its timings run, each holding the node's one
``kiln-timing`` slot (no two timings on one machine) and placed, where possible, on the node that compiled the
candidate (whose disk cache holds the code). The search's budgets are the local search's: nothing is waited for
past the round's deadline or, for one call, past ``task_timeout``.

Faults: a task whose worker or node dies is retried once, spread to another node where there is one; a task
still running when its time is up is cancelled (its worker killed); when no capable node is left, or the
cluster cannot be reached, the runner reports ``failed`` and the search ends with what it has. Every candidate
lost so has a ``measure.LOST`` error saying why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.capabilities.description import TargetDescription
from kiln.compiler import cluster, cluster_tasks
from kiln.compiler.measure import LOST, SKIPPED, Measured
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support.errors import KilnError

POLL = 1.0
"""Seconds between checks that a capable node is still alive while waiting for tasks."""


class Lost(str):
    """Why a task's result never came (a ``str`` so it can stand in a result list)."""

    def error(self) -> str:
        """The candidate's ``Measured.error``: skipped for the budget (as the local search skips), else lost."""
        return str(self) if self == SKIPPED else LOST + self


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
        self._compile = self._task(cluster_tasks.compile_task, need)
        self._time = self._task(cluster_tasks.time_task, {**need, cluster.TIMING_RESOURCE: 1})
        self._shipped: dict[int, tuple[object, Any]] = {}

    def measure(self, texts: Sequence[str], inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                best: float, deadline: float) -> list[Measured]:
        """One ``Measured`` per text (see ``measure.LocalRunner.measure``)."""
        if self.failed:
            return [Measured(error=LOST + self.failed) for _ in texts]
        compiled, retried = self._gather([self._submitter(self._compile, self.device, t) for t in texts], deadline)
        out: list[Measured] = []
        timings: dict[int, Callable[[bool], Any]] = {}
        shipped_inputs, shipped_reference = self._ship(inputs), self._ship(reference)
        for n, (text, result) in enumerate(zip(texts, compiled)):
            if isinstance(result, Lost):
                out.append(Measured(error=result.error()))
                continue
            error, node = result
            out.append(Measured(error=error))
            if error is None:
                place = self._near(node)
                timings[n] = self._submitter(
                    self._time, self.device, text, shipped_inputs, shipped_reference, best, place=place
                )
        timed, timings_retried = self._gather(list(timings.values()), deadline)
        for n, result in zip(timings, timed):
            out[n] = Measured(error=result.error()) if isinstance(result, Lost) else result
        for n, why in [*retried.items(), *((list(timings)[m], why) for m, why in timings_retried.items())]:
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

    def _task(self, function: Callable[..., Any], resources: dict[str, float]) -> Callable[[Any], Any]:
        """``function`` as a Ray task of one CPU and ``resources``, given a scheduling strategy; Ray's own retry
        is off (``_gather`` retries once, elsewhere)."""
        remote = self.ray.remote(function)
        return lambda strategy: remote.options(
            num_cpus=1, resources=resources, max_retries=0, scheduling_strategy=strategy
        )

    def _submitter(self, task: Callable[[Any], Any], *args: Any, place: Any = None) -> Callable[[bool], Any]:
        """Submits ``task(*args)``: first where asked (or anywhere), on a retry spread to another node."""
        return lambda retry: task("SPREAD" if retry else place or "DEFAULT").remote(*args)

    def _gather(self, submitters: list[Callable[[bool], Any]], deadline: float) -> tuple[list[Any], dict[int, str]]:
        """Run the tasks and collect their results. A task whose worker or node dies, or that runs past
        ``task_timeout`` (hung: cancelled, its worker killed), is retried once, elsewhere; tasks unfinished at the
        search's ``deadline`` are cancelled and skipped, as the local search skips compiles. A result that never
        came is a ``Lost`` reason; the second result says which tasks were retried, and why."""
        ray = self.ray
        results: list[Any] = [Lost(SKIPPED)] * len(submitters)
        pending: dict[Any, int] = {}
        due: dict[int, float] = {}
        retried: dict[int, str] = {}

        def retry(n: int, why: str) -> None:
            if n in retried:
                results[n] = Lost(f"{why} twice")
                return
            retried[n] = why
            pending[submitters[n](True)] = n
            due[n] = time.monotonic() + self.task_timeout

        try:
            for n, submit in enumerate(submitters):
                pending[submit(False)] = n
                due[n] = time.monotonic() + self.task_timeout
            while pending:
                now = time.monotonic()
                if now >= deadline:
                    self._cancel(pending, results, SKIPPED)
                    break
                for ref in [ref for ref, n in pending.items() if now >= due[n]]:
                    ray.cancel(ref, force=True)
                    retry(pending.pop(ref), "it ran past its budget")
                wait = min(POLL, max(0.0, min(deadline, *(due[n] for n in pending.values()), math.inf) - now))
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=wait) if pending else ([], [])
                if not ready:
                    if pending and not cluster.capable_nodes(ray, self.target):
                        self.failed = f"no node of hardware class {hardware_class(self.target)} is left"
                        self._cancel(pending, results, self.failed)
                        break
                    continue
                n = pending.pop(ready[0])
                try:
                    results[n] = ray.get(ready[0])
                except ray.exceptions.RayTaskError as e:  # the task raised: a bug in kiln on that candidate
                    results[n] = Lost(f"its task failed: {str(e).strip().splitlines()[-1]}")
                except ray.exceptions.RayError as e:  # its worker or node died
                    retry(n, f"its worker died ({type(e).__name__})")
        except (ConnectionError, ray.exceptions.RaySystemError, ray.exceptions.RpcError) as e:
            self.failed = f"the cluster went away ({type(e).__name__})"
            for n in pending.values():
                results[n] = Lost(self.failed)
        return results, retried

    def _cancel(self, pending: dict[Any, int], results: list[Any], reason: str) -> None:
        """Cancel every pending task (killing its worker: a hung task ignores a polite cancel); ``reason`` is
        the result of each."""
        for ref, n in pending.items():
            self.ray.cancel(ref, force=True)
            results[n] = Lost(reason)
        pending.clear()
