"""Running a batch of Ray tasks so that faults cost candidates, not the whole job: what the cluster search and
bulk compilation share.

A task whose worker or node dies, or that runs past its ``task_timeout`` (hung: cancelled with its worker
killed), is retried once, spread to another node where there is one; tasks unfinished at the ``deadline`` are
cancelled and skipped (as the local search skips compiles it has no time for); when no node of the hardware
class is left, or the cluster cannot be reached, the batch ends with ``failed`` set. A result that never came
is a ``Lost`` reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kiln.capabilities.description import TargetDescription
from kiln.compiler import cluster
from kiln.compiler.measure import LOST, SKIPPED
from kiln.passes.optimize.tuning_db import hardware_class

POLL = 1.0
"""Seconds between checks that a capable node is still alive while waiting for tasks."""

Submit = Callable[[bool], Any]
"""Submits one task (``True``: a retry, to be placed elsewhere) and returns its object ref."""


class Lost(str):
    """Why a task's result never came (a ``str`` so it can stand in a result list)."""

    def error(self) -> str:
        """As a candidate's error: skipped for the budget (as the local search skips), else lost."""
        return str(self) if self == SKIPPED else LOST + self


@dataclass
class Gathered:
    results: list[Any]
    retried: dict[int, str] = field(default_factory=dict)
    """Tasks that ran a second time, and why."""
    failed: str | None = None
    """Why the cluster could run nothing more, if so."""


def task(ray: Any, function: Callable[..., Any], resources: dict[str, float]) -> Callable[[Any], Any]:
    """``function`` as a Ray task of one CPU and ``resources``, given a scheduling strategy; Ray's own retry
    is off (``gather`` retries once, elsewhere)."""
    remote = ray.remote(function)
    return lambda strategy: remote.options(num_cpus=1, resources=resources, max_retries=0, scheduling_strategy=strategy)


def submitter(run: Callable[[Any], Any], *args: Any, place: Any = None) -> Submit:
    """Submits ``run(*args)``: first where asked (or anywhere), on a retry spread over the nodes."""
    return lambda retry: run("SPREAD" if retry else place or "DEFAULT").remote(*args)


def gather(ray: Any, target: TargetDescription, submitters: list[Submit], deadline: float,
           task_timeout: float) -> Gathered:
    """Run the tasks and collect their results (see the module's docstring)."""
    out = Gathered([Lost(SKIPPED)] * len(submitters))
    pending: dict[Any, int] = {}
    due: dict[int, float] = {}

    def start(n: int, retry: bool) -> None:
        pending[submitters[n](retry)] = n
        due[n] = time.monotonic() + task_timeout

    def retry(n: int, why: str) -> None:
        if n in out.retried:
            out.results[n] = Lost(f"{why} twice")
        else:
            out.retried[n] = why
            start(n, True)

    try:
        for n in range(len(submitters)):
            start(n, False)
        while pending:
            now = time.monotonic()
            if now >= deadline:
                _cancel(ray, pending, out, SKIPPED)
                break
            for ref in [ref for ref, n in pending.items() if now >= due[n]]:
                ray.cancel(ref, force=True)
                retry(pending.pop(ref), "it ran past its budget")
            wait = min(POLL, max(0.0, min(deadline, *(due[n] for n in pending.values()), math.inf) - now))
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=wait) if pending else ([], [])
            if not ready:
                if pending and not cluster.capable_nodes(ray, target):
                    out.failed = f"no node of hardware class {hardware_class(target)} is left"
                    _cancel(ray, pending, out, out.failed)
                continue
            n = pending.pop(ready[0])
            try:
                out.results[n] = ray.get(ready[0])
            except ray.exceptions.RayTaskError as e:  # the task raised: a bug in kiln on that input
                out.results[n] = Lost(f"its task failed: {str(e).strip().splitlines()[-1]}")
            except ray.exceptions.RayError as e:  # its worker or node died
                retry(n, f"its worker died ({type(e).__name__})")
    except (ConnectionError, ray.exceptions.RaySystemError, ray.exceptions.RpcError) as e:
        out.failed = f"the cluster went away ({type(e).__name__})"
        for n in pending.values():
            out.results[n] = Lost(out.failed)
    return out


def _cancel(ray: Any, pending: dict[Any, int], out: Gathered, reason: str) -> None:
    """Cancel every pending task (killing its worker: a hung task ignores a polite cancel)."""
    for ref, n in pending.items():
        ray.cancel(ref, force=True)
        out.results[n] = Lost(reason)
    pending.clear()
