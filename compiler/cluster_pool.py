"""Warm kiln workers on a Ray cluster, and running calls on them so that faults cost calls, not the job: what
the cluster search and bulk compilation share.

Every node that advertises the target's hardware class gets one worker (``cluster_tasks.NodeWorker``, a Ray
actor pinned to the node, holding one CPU) per CPU; as many of them as the node has ``kiln-timing`` slots
(normally one) hold a slot too, and only those time. A worker imports kiln and builds the device's pipeline
once, when it starts, and stays for the rest of this process (``pool``), across rounds, kernels and programs.
Ray tasks did that per worker process, inside the first candidate's budget, and a task waiting in the
raylet's queue for a CPU took tens of ms to be handed a worker; a call on an idle actor is one direct round
trip (about a millisecond).

``Pool.run`` hands each call to an idle worker, so a call's ``task_timeout`` counts from its start, never from
a wait behind other calls; calls not started by the ``deadline`` are skipped (as the local search skips
compiles it has no time for), while started ones finish. A call whose worker dies (SIGKILL, OOM, its node
lost) or runs past its ``task_timeout`` (the worker is killed) is retried once, on another node where one is
idle, and the worker is replaced. When no node of the hardware class is left, no worker starts within
``STARTUP_TIMEOUT``, or the cluster cannot be reached, the run ends with ``failed`` set. A result that never
came is a ``Lost`` reason.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from kiln.capabilities.description import TargetDescription
from kiln.compiler import cluster, cluster_tasks
from kiln.compiler.measure import LOST, SKIPPED
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support.errors import KilnError

POLL = 1.0
"""Seconds between checks that a node of the class is still alive while waiting for calls."""
WORKER_ENV = {"RAY_worker_niceness": "0"}
"""Ray starts worker processes at niceness 15, below everything else on the node: on a busy machine such a
worker gets a few percent of a core, so its compiles ran past their budget and its timings measured other
people's work (a warm timing call took 50 ms longer than here). Kiln's workers run at the default priority,
as the local search's processes do."""
STARTUP_TIMEOUT = 120.0
"""Seconds the workers get to start (import kiln, build the pipeline) before the cluster counts as unusable."""


class Lost(str):
    """Why a call's result never came (a ``str`` so it can stand in a result list)."""

    def error(self) -> str:
        """As a candidate's error: skipped for the budget (as the local search skips), else lost."""
        return str(self) if self == SKIPPED else LOST + self


@dataclass(frozen=True)
class Call:
    method: str
    """A ``NodeWorker`` method."""
    args: tuple[Any, ...]
    timing: bool = False
    """Needs a worker that holds its node's timing slot."""
    near: str | None = None
    """The node to run on if one of its workers is idle (where the candidate's code is cached)."""


@dataclass
class Gathered:
    results: list[Any]
    nodes: list[str | None]
    """The node each result came from."""
    retried: dict[int, str] = field(default_factory=dict)
    """Calls that ran a second time, and why."""
    failed: str | None = None
    """Why the cluster could run nothing more, if so."""


@dataclass(eq=False)
class Worker:
    actor: Any
    node: str
    timer: bool
    started: Any
    """The ref of its ``ready`` call while it starts; None once it has."""
    since: float
    call: int | None = None
    ref: Any = None
    due: float = math.inf


class Pool:
    def __init__(self, ray: Any, target: TargetDescription, worker: type = cluster_tasks.NodeWorker):
        self.ray, self.target, self.hardware = ray, target, hardware_class(target)
        self._remote = ray.remote(worker)
        self.workers: list[Worker] = []

    def start(self, timeout: float = STARTUP_TIMEOUT) -> None:
        """Start workers on every node of the class and wait until they have started (up to ``timeout``; those
        that could not be placed by then, their CPUs taken by other jobs, join later). A ``KilnError`` if none
        could."""
        if not self._fill():
            raise KilnError(f"no node of the Ray cluster offers hardware class {self.hardware}")
        end = time.monotonic() + timeout
        while (starting := {w.started: w for w in self.workers if w.started is not None}) and time.monotonic() < end:
            ready, _ = self.ray.wait(list(starting), num_returns=len(starting), timeout=end - time.monotonic())
            for ref in ready:
                self._started(starting[ref])
        if not any(w.started is None for w in self.workers):
            raise KilnError(f"no kiln worker started on the Ray cluster's {self.hardware} nodes within "
                            f"{timeout:.0f} s (their CPUs taken by other jobs, or kiln missing there?)")

    def run(self, calls: list[Call], deadline: float, task_timeout: float) -> Gathered:
        """Run the calls and collect their results (see the module's docstring)."""
        out = Gathered([Lost(SKIPPED)] * len(calls), [None] * len(calls))
        queue = list(range(len(calls)))
        avoid: dict[int, str] = {}

        def retry(n: int, why: str, node: str) -> None:
            if n in out.retried:
                out.results[n] = Lost(f"{why} twice")
            else:
                out.retried[n], avoid[n] = why, node
                queue.insert(0, n)

        try:
            if not self._fill():
                out.failed = f"no node of hardware class {self.hardware} is left"
                return out
            while queue or self._busy():
                now = time.monotonic()
                if now >= deadline:
                    queue.clear()
                for w in [w for w in self._busy() if now >= w.due]:
                    n = w.call
                    self._replace(w, kill=True)
                    retry(n, "it ran past its budget", w.node)
                self._dispatch(calls, queue, avoid, task_timeout)
                waiting = {w.ref: w for w in self._busy()} | {w.started: w for w in self.workers if w.started}
                wait = min(POLL, *(w.due - now for w in self._busy()), (deadline - now) if queue else POLL)
                ready, _ = self.ray.wait(list(waiting), num_returns=1, timeout=max(0.0, wait)) if waiting else ([], [])
                if not ready:
                    if reason := self._unusable([calls[n] for n in queue]):
                        out.failed = reason
                        break
                    if not waiting:
                        time.sleep(wait)
                    continue
                w = waiting[ready[0]]
                if w.started is not None and ready[0] == w.started:  # a replacement worker has started
                    self._started(w)
                    continue
                n, node = w.call, w.node
                w.call, w.ref, w.due = None, None, math.inf
                try:
                    out.results[n], out.nodes[n] = self.ray.get(ready[0]), node
                except self.ray.exceptions.RayTaskError as e:  # the method raised: a bug in kiln on that input
                    out.results[n] = Lost(f"its task failed: {str(e).strip().splitlines()[-1]}")
                except self.ray.exceptions.RayError as e:  # its worker or node died
                    self._replace(w, kill=False)
                    retry(n, f"its worker died ({type(e).__name__})", node)
        except (ConnectionError, self.ray.exceptions.RaySystemError, self.ray.exceptions.RpcError) as e:
            out.failed = f"the cluster went away ({type(e).__name__})"
        if out.failed:
            for w in self._busy():
                out.results[w.call] = Lost(out.failed)
                w.call, w.ref, w.due = None, None, math.inf
            for n in queue:
                out.results[n] = Lost(out.failed)
        return out

    def _busy(self) -> list[Worker]:
        return [w for w in self.workers if w.call is not None]

    def _dispatch(self, calls: list[Call], queue: list[int], avoid: dict[int, str], task_timeout: float) -> None:
        """Start queued calls on idle workers: a retry away from the node it failed on, others near the node
        they name, where such a worker is idle."""
        for n in list(queue):
            call = calls[n]
            idle = [w for w in self.workers if w.started is None and w.call is None and (w.timer or not call.timing)]
            if not idle:
                continue
            if n in avoid:
                idle.sort(key=lambda w: w.node == avoid[n])
            elif call.near is not None:
                idle.sort(key=lambda w: w.node != call.near)
            w = idle[0]
            w.call, w.ref = n, getattr(w.actor, call.method).remote(*call.args)
            w.due = time.monotonic() + task_timeout
            queue.remove(n)

    def _started(self, w: Worker) -> None:
        """``w`` answered its ``ready`` call: idle from now on, or gone if it died starting."""
        try:
            self.ray.get(w.started)
            w.started = None
        except self.ray.exceptions.RayError:
            self.workers.remove(w)  # not replaced: a worker that cannot start would only fail again

    def _replace(self, w: Worker, kill: bool) -> None:
        """Drop ``w`` (killing its process: a hung call ignores a polite cancel) and start another on its node
        if the node is still there."""
        if kill:
            self.ray.kill(w.actor, no_restart=True)
        self.workers.remove(w)
        self._fill()

    def _unusable(self, queued: list[Call]) -> str | None:
        """Why nothing more can run here, or None: no node of the class left, or no worker that could take the
        ``queued`` calls (none can start, none times, none started within ``STARTUP_TIMEOUT``)."""
        if not cluster.capable_nodes(self.ray, self.target):
            return f"no node of hardware class {self.hardware} is left"
        if not queued:
            return None
        if not self.workers:
            self._fill()
        if not self.workers:
            return f"no kiln worker can start on the {self.hardware} nodes (they offer no CPU)"
        if any(c.timing for c in queued) and not any(w.timer for w in self.workers):
            return f"no {self.hardware} node offers a {cluster.TIMING_RESOURCE} slot"
        if all(w.started is not None for w in self.workers):
            if time.monotonic() - min(w.since for w in self.workers) > STARTUP_TIMEOUT:
                return f"no kiln worker started on the {self.hardware} nodes within {STARTUP_TIMEOUT:.0f} s"
        return None

    def _fill(self) -> bool:
        """Start the workers missing on the live nodes of the class (new nodes, replaced workers); False when
        there is no such node."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = [n for n in self.ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(self.hardware, 0) > 0]
        for node in nodes:
            have = [w for w in self.workers if w.node == node["NodeID"]]
            cpus = int(node["Resources"].get("CPU", 0))
            timers = min(cpus, int(node["Resources"].get(cluster.TIMING_RESOURCE, 0)))
            new_timers = max(0, timers - sum(w.timer for w in have))
            for k in range(max(0, cpus - len(have))):
                timer = k < new_timers
                resources = {self.hardware: cluster.SHARE, **({cluster.TIMING_RESOURCE: 1} if timer else {})}
                actor = self._remote.options(
                    num_cpus=1, resources=resources, max_restarts=0, max_task_retries=0,
                    runtime_env={"env_vars": WORKER_ENV},
                    scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
                ).remote(self.target.name)
                self.workers.append(Worker(actor, node["NodeID"], timer, actor.ready.remote(), time.monotonic()))
        return bool(nodes)


_pools: dict[tuple[str, str], Pool] = {}


def pool(ray: Any, target: TargetDescription) -> Pool:
    """This process's pool of workers for ``target`` on the connected cluster, started on first use."""
    job = ray.get_runtime_context().get_job_id()
    for key in [key for key in _pools if key[0] != job]:  # a pool of an earlier connection
        del _pools[key]
    if (job, target.name) not in _pools:
        started = Pool(ray, target)
        started.start()
        _pools[job, target.name] = started
    return _pools[job, target.name]
