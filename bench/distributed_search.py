"""The figures of docs/distributed.md, all measured in one run on this machine:

1. the same beam search of a matmul here (2 compile processes, timing here) and through a local two-node Ray
   cluster (one CPU and one timing slot per node), every cache cold: wall time, candidates, chosen opts;
2. the scheduling overhead per candidate: the same candidates measured by both runners with every cache warm
   (compiles are cache hits, timings the same work), interleaved, so the difference is what the cluster adds
   (calls, object store, result transfer), and a no-op call's round trip through the worker pool;
3. the scaling of a round with simulated costs (workers whose compile and timing sleep) for N = 1, 2, 4, 8.

    .venv/bin/python bench/distributed_search.py [--skip-real] [--skip-scaling]

Every cluster it starts is local (127.0.0.1) and stopped before it exits. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import tempfile
import time

COMPILE_S, TIME_S, ROUND = 0.20, 0.05, 24
"""Simulated costs: one candidate's compile and timing (seconds), and a round's candidates (beam 4 x 6)."""
REPEATS = 3
"""Interleaved repetitions of the overhead measurement (the median is reported)."""

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


def search_once(cluster_address: str) -> tuple[float, list[str], list[str], float]:
    """One beam search of the matmul with a fresh tuning database and compile cache here: (wall seconds, the
    candidates' timing-module texts, chosen opts, the winner's time as stored)."""
    from kiln.capabilities.description import get_target
    from kiln.compiler import measure, search
    from kiln.passes.optimize import tuning_db

    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-")
    budget = search.SearchBudget(beam_width=2, max_candidates=24, time_per_kernel=120.0, cluster=cluster_address)
    texts: list[str] = []
    original = search.BeamSearch.measure

    def recording(self, candidates, stage, deadline):  # type: ignore[no-untyped-def]
        texts.extend(measure.timing_module(c.kernel) for c in candidates)
        return original(self, candidates, stage, deadline)

    search.BeamSearch.measure = recording  # type: ignore[method-assign]
    start = time.monotonic()
    try:
        search.beam_search_module([matmul()], get_target("cpu-llvm"), budget)
    finally:
        search.BeamSearch.measure = original  # type: ignore[method-assign]
    wall = time.monotonic() - start
    hit = tuning_db.lookup(matmul(), get_target("cpu-llvm"), budget.options_key())
    return wall, texts, [str(o) for o in hit.opts] if hit else [], hit.seconds if hit else math.nan


def matmul():  # type: ignore[no-untyped-def]
    from kiln.compiler.module import parse_module
    from kiln.dialects.kernel import KernelOp

    return next(op for op in parse_module(MATMUL).ops if isinstance(op, KernelOp))


def winner_text(opts: list[str], target):  # type: ignore[no-untyped-def]
    """The timing module of the matmul with ``opts`` (as printed) applied."""
    from kiln.compiler import measure
    from kiln.passes.optimize.apply import apply_opts
    from kiln.passes.optimize.opts import parse_opts

    kernel = matmul()
    apply_opts(kernel, parse_opts(", ".join(opts)), target)
    return measure.timing_module(kernel)


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def real() -> None:
    import ray
    from ray.cluster_utils import Cluster

    from kiln.capabilities.description import get_target
    from kiln.compiler import cluster, cluster_pool, measure
    from kiln.compiler.cluster_runner import RayRunner

    target = get_target("cpu-llvm")
    resources = cluster.node_resources(target, cpus=1)
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": resources})
    nodes.add_node(num_cpus=1, resources=resources)
    try:
        nodes.wait_for_nodes()
        # the nodes' disk caches are a fresh folder of their own, so the cluster's compiles are cold too
        ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False,
                 runtime_env={"env_vars": {"KILN_CACHE_DIR": tempfile.mkdtemp(prefix="kiln-bench-node-")}})
        start = time.monotonic()
        cluster_pool.pool(ray, target)
        print(f"worker pool started in {time.monotonic() - start:.1f} s (once per process; {load()})")

        local_dir = None
        winners = []
        for name, where in (("local search", ""), ("cluster search", nodes.address)):
            wall, texts, opts, seconds = search_once(where)
            local_dir = local_dir or os.environ["KILN_CACHE_DIR"]
            winners.append(opts)
            print(f"{name:15s} {wall:6.1f} s, {len(texts)} candidates, winner {seconds * 1e3:.3f} ms here, "
                  f"opts {opts} ({load()})")

        os.environ["KILN_CACHE_DIR"] = local_dir  # the local search's cache: its candidates compiled here
        inputs = measure.random_inputs(matmul())
        here = measure.LocalRunner("cpu-llvm", 2)
        reference = here.measure(texts[:1], inputs, None, math.inf, math.inf)[0].outputs
        side_by_side = [winner_text(opts, target) for opts in winners]
        times = [here.measure(side_by_side, inputs, reference, math.inf, math.inf) for _ in range(REPEATS)]
        local_best, cluster_best = (statistics.median(t[n].seconds for t in times) * 1e3 for n in range(2))
        print(f"the two winners timed here side by side, median of {REPEATS}: local search's {local_best:.3f} ms, "
              f"cluster search's {cluster_best:.3f} ms ({load()})")
        there = RayRunner(nodes.address, target, task_timeout=120.0)
        walls: dict[str, list[float]] = {"local": [], "cluster": []}
        try:
            for runner in (here, there):  # warm: every candidate compiled on both sides before the clock
                runner.measure(texts, inputs, reference, math.inf, math.inf)
            for _ in range(REPEATS):
                for label, runner in (("local", here), ("cluster", there)):
                    start = time.monotonic()
                    runner.measure(texts, inputs, reference, math.inf, math.inf)
                    walls[label].append(time.monotonic() - start)
        finally:
            here.close()
        local, remote = statistics.median(walls["local"]), statistics.median(walls["cluster"])
        print(f"{len(texts)} warm candidates, median of {REPEATS}: local {local:.3f} s, cluster {remote:.3f} s: "
              f"{(remote - local) / len(texts) * 1e3:+.1f} ms per candidate ({load()})")
        calls = [cluster_pool.Call("ready", ())] * 200
        start = time.monotonic()
        there.pool.run(calls, math.inf, 60.0)
        print(f"a no-op call through the pool: {(time.monotonic() - start) / len(calls) * 1e3:.2f} ms "
              f"(two calls per candidate; {load()})")
    finally:
        ray.shutdown()
        nodes.shutdown()


class SimulatedWorker:
    """A ``NodeWorker`` whose compile and timing only sleep (no CPU used: eight fit on two cores)."""

    def __init__(self, device: str):
        self.device = device

    def ready(self) -> None:
        pass

    def compile(self, text: str) -> None:
        time.sleep(COMPILE_S)

    def time(self, text: str) -> float:
        time.sleep(TIME_S)
        return TIME_S


def scaling() -> None:
    """A round = compile all candidates (over N workers), then time them (N timing slots), through the same
    ``cluster_pool`` as the search: one simulated node of N CPUs and N timing slots, i.e. N single-CPU machines."""
    import ray

    from kiln.capabilities.description import get_target
    from kiln.compiler import cluster
    from kiln.compiler.cluster_pool import Call, Pool

    target = get_target("cpu-llvm")
    for n in (1, 2, 4, 8):
        resources = {**cluster.node_resources(target, cpus=n), cluster.TIMING_RESOURCE: float(n)}
        ray.init(num_cpus=n, resources=resources, logging_level="ERROR", log_to_driver=False, include_dashboard=False)
        try:
            pool = Pool(ray, target, SimulatedWorker)
            pool.start()
            start = time.monotonic()
            pool.run([Call("compile", (str(c),)) for c in range(ROUND)], math.inf, 60.0)
            pool.run([Call("time", (str(c),), timing=True) for c in range(ROUND)], math.inf, 60.0)
            wall = time.monotonic() - start
        finally:
            ray.shutdown()
        ideal = math.ceil(ROUND / n) * (COMPILE_S + TIME_S)
        print(f"N={n}: round of {ROUND} in {wall:5.2f} s = {ROUND / wall:5.1f} candidates/s (ideal {ROUND / ideal:5.1f}; "
              f"overhead {(wall - ideal) / ROUND * 1e3:5.1f} ms/candidate; {load()})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-scaling", action="store_true")
    options = parser.parse_args()
    if not options.skip_real:
        real()
    if not options.skip_scaling:
        scaling()
