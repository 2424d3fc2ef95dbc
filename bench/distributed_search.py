"""The figures of docs/distributed.md: the same beam search locally and through a local two-node Ray cluster
(wall time, candidates, chosen opts, overhead per candidate), then the scaling of a round of candidates with
simulated costs (sleep-based compile and timing tasks) for N = 1, 2, 4, 8 simulated workers.

    .venv/bin/python bench/distributed_search.py [--skip-real] [--skip-scaling]

Every cluster it starts is local (127.0.0.1) and stopped before it exits. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

COMPILE_S, TIME_S, ROUND = 0.20, 0.05, 24
"""Simulated costs: one candidate's compile and timing (seconds), and a round's candidates (beam 4 x 6)."""

MATMUL = """
kernel.kernel @mm(%a: !kernel.buffer<64x128xf32>, %b: !kernel.buffer<128x128xf32>, %out: !kernel.buffer<64x128xf32>) attributes {symbols = []} {
  %c128 = kernel.const 128 : index
  %cm = kernel.const 64 : index
  %i = kernel.range %cm global
  %j = kernel.range %c128 global
  %k = kernel.range %c128 reduce
  %i1 = kernel.mul %i, %c128 : index
  %ia = kernel.add %i1, %k : index
  %k1 = kernel.mul %k, %c128 : index
  %ib = kernel.add %k1, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %io = kernel.add %i1, %j : index
  kernel.store %out[%io], %s
}
"""


def search_once(cluster_address: str) -> tuple[float, int, list[str], str]:
    """One beam search of the matmul with a fresh tuning database and compile cache: (wall seconds, candidates
    measured, chosen opts, where the winner was measured)."""
    from kiln.capabilities.description import get_target
    from kiln.compiler import search
    from kiln.compiler.module import parse_module
    from kiln.dialects.kernel import KernelOp
    from kiln.passes.optimize import tuning_db

    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-")  # this machine's: cold
    kernel = next(op for op in parse_module(MATMUL).ops if isinstance(op, KernelOp))
    budget = search.SearchBudget(beam_width=2, max_candidates=24, time_per_kernel=120.0, cluster=cluster_address)
    counted: list[int] = []
    measure = search.BeamSearch.measure

    def counting(self, candidates, stage, deadline):  # type: ignore[no-untyped-def]
        counted.append(len(candidates))
        return measure(self, candidates, stage, deadline)

    search.BeamSearch.measure = counting  # type: ignore[method-assign]
    start = time.monotonic()
    try:
        search.beam_search_module([kernel], get_target("cpu-llvm"), budget)
    finally:
        search.BeamSearch.measure = measure  # type: ignore[method-assign]
    wall = time.monotonic() - start
    hit = tuning_db.lookup(next(op for op in parse_module(MATMUL).ops if isinstance(op, KernelOp)),
                           get_target("cpu-llvm"), budget.options_key())
    return wall, sum(counted), [str(o) for o in hit.opts] if hit else [], hit.worker if hit else "-"


def real(args: argparse.Namespace) -> None:
    import ray
    from ray.cluster_utils import Cluster

    from kiln.capabilities.description import get_target
    from kiln.compiler import cluster

    local = search_once("")
    print(f"local search:   {local[0]:6.1f} s, {local[1]} candidates, opts {local[2]}")
    resources = cluster.node_resources(get_target("cpu-llvm"), cpus=1)
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": resources})
    nodes.add_node(num_cpus=1, resources=resources)
    try:
        nodes.wait_for_nodes()
        for run in range(2):
            # the nodes' caches empty too (a fresh folder for this job's workers): every candidate compiles
            ray.shutdown()
            ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False,
                     runtime_env={"env_vars": {"KILN_CACHE_DIR": tempfile.mkdtemp(prefix="kiln-bench-node-")}})
            remote = search_once(nodes.address)
            print(f"cluster run {run + 1}: {remote[0]:6.1f} s, {remote[1]} candidates, opts {remote[2]} "
                  f"measured on {remote[3]}; {(remote[0] - local[0]) / max(1, remote[1]) * 1e3:+.0f} ms per "
                  f"candidate vs local")
    finally:
        ray.shutdown()
        nodes.shutdown()


def _compile(_: int) -> None:
    time.sleep(COMPILE_S)


def _time(_: int) -> None:
    time.sleep(TIME_S)


def scaling() -> None:
    """A round = compile all candidates (fan-out over N workers' CPUs), then time them (one timing per worker),
    through the same ``gather`` as the search; the sleeping tasks use no CPU, so 8 workers fit on 2 cores."""
    import ray

    from kiln.capabilities.description import get_target
    from kiln.compiler.cluster_gather import gather, submitter, task

    most = 8
    ray.init(num_cpus=most, resources={"sim-cpu": most, "sim-timing": most}, logging_level="ERROR",
             log_to_driver=False, include_dashboard=False)
    target = get_target("cpu-llvm")
    try:
        import kiln.compiler.cluster as cluster_module

        cluster_module.capable_nodes = lambda ray, target: ["simulated"]  # the simulated nodes have no kiln class
        for n in (1, 2, 4, 8):
            compile_task = task(ray, _compile, {"sim-cpu": most / n})
            time_task = task(ray, _time, {"sim-timing": most / n})
            for warm in (compile_task, time_task):  # start the worker processes before the clock does
                gather(ray, target, [submitter(warm, c) for c in range(n)], float("inf"), 60)
            start = time.monotonic()
            gather(ray, target, [submitter(compile_task, c) for c in range(ROUND)], float("inf"), 60)
            gather(ray, target, [submitter(time_task, c) for c in range(ROUND)], float("inf"), 60)
            wall = time.monotonic() - start
            ideal = ROUND * (COMPILE_S + TIME_S) / n
            print(f"N={n}: round of {ROUND} in {wall:5.2f} s = {ROUND / wall:5.1f} candidates/s "
                  f"(ideal {ROUND / ideal:5.1f}; overhead {(wall - ideal) / ROUND * 1e3:5.1f} ms/candidate)")
    finally:
        ray.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    options = parser.parse_args()
    if not options.skip_real:
        real(options)
    if not options.skip_scaling:
        scaling()
