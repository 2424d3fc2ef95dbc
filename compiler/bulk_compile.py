"""Compiling many programs ahead of time into this machine's compile cache, here or on a Ray cluster
(``kiln-tune --compile-only``).

On a cluster each function is one call to a warm kiln worker (``cluster_pool``) on a node of the device's
hardware class (the compiled program depends on the target description, e.g. the host's vector width). The
node sends back its whole compile-cache entry and the key digest it computed; here the digest must be this
machine's own key for the program (same kiln code, same pipeline) and the entry's integrity header must match
its payload (``cache.put_entry``), or the artifact is refused. Faults are ``cluster_pool``'s: a lost call is
retried once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kiln.capabilities.description import get_target
from kiln.compiler import cluster, cluster_pool
from kiln.compiler.cluster_pool import Call, Lost
from kiln.compiler.driver import PROGRAM_NAMESPACE, compile_program, program_key
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support import cache
from kiln.support.errors import KilnError

TASK_TIMEOUT = 600.0
"""Seconds one program's compile may take on a node before it counts as hung."""


@dataclass(frozen=True)
class Job:
    label: str
    """What the user calls it: ``file.mlir:@function``."""
    text: str
    function: str


@dataclass
class Outcome:
    label: str
    status: str
    """``compiled``, ``cached`` (already here), or what went wrong."""
    where: str = "local"


def compile_programs(jobs: list[Job], device: str, where: str | None) -> list[Outcome]:
    """Compile every job for ``device`` into this machine's compile cache: on the cluster at ``where``, else
    here. Jobs already in the cache are not compiled again."""
    parts = {job: program_key(job.text, job.function, device)[0] for job in jobs}
    todo = [job for job in jobs if cache.get(PROGRAM_NAMESPACE, parts[job]) is None]
    done = {job: Outcome(job.label, "cached", "-") for job in jobs if job not in todo}
    if where is None:
        for job in todo:
            try:
                compile_program(job.text, job.function, device)
                done[job] = Outcome(job.label, "compiled")
            except KilnError as e:
                done[job] = Outcome(job.label, f"error: {e}")
    elif todo:
        done.update(_on_cluster(todo, device, where, {job: cache.cache_key(parts[job]) for job in todo}))
    return [done[job] for job in jobs]


def _on_cluster(jobs: list[Job], device: str, where: str, keys: dict[Job, str]) -> dict[Job, Outcome]:
    ray = cluster.connect(where)
    target = get_target(device)
    if not cluster.capable_nodes(ray, target):
        raise KilnError(f"no node of the Ray cluster at '{where}' offers hardware class {hardware_class(target)}")
    calls = [Call("compile_program", (j.text, j.function)) for j in jobs]
    gathered = cluster_pool.pool(ray, target).run(calls, math.inf, TASK_TIMEOUT)
    out = {}
    for job, result in zip(jobs, gathered.results):
        if isinstance(result, Lost):
            out[job] = Outcome(job.label, result.error(), "-")
        elif isinstance(result, str):
            out[job] = Outcome(job.label, f"error: {result}", "-")
        elif result[0] != keys[job]:
            out[job] = Outcome(job.label, "refused: the node's kiln or pipeline differs (another cache key)", result[2])
        elif not cache.put_entry(PROGRAM_NAMESPACE, result[0], result[1]):
            out[job] = Outcome(job.label, "refused: the artifact's integrity header does not match it", result[2])
        else:
            out[job] = Outcome(job.label, "compiled", result[2])
    return out
