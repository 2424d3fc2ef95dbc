"""Where one call of a bench/kernels.py case spends its time on kiln's thread pool, launch by launch.

    python bench/launches.py [--case attention] [--device cpu-llvm] [--calls 200]

Per launch (joined launches, ``LaunchSpec.joined``, as one row): the best and median wall time
(``Executable.profile``), and from ``Executable.timeline`` over the fastest quarter of the calls, the median of:
the launch's span, how much later than the first chunk the second thread started its first chunk ("join", the
pool's hand-off), how long the thread that finished first waited for the other ("end wait", what a barrier
costs), and how many calls had a worker take part at all. Then the call as a whole: ``@kiln.jit`` wall time, the
native runner's share, and the rest (Python: binding, output arrays; after the kernels the interpreter's data is
out of cache, so this is several times a warm loop's overhead). Times are never asserted; run it on a quiet
machine (a busy one shows the scheduler, and the pool's busy rule turns the worker's early wake-up off).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import clean_blas_env, machine_note, print_table  # noqa: E402

clean_blas_env()

import numpy as np  # noqa: E402


def launch_edges(chunks: list[tuple[int, float, float]]) -> tuple[float, float | None, float | None]:
    """(span, join, end wait) of one launch's chunks in seconds; join and end wait None when one thread ran all."""
    start, end = min(c[1] for c in chunks), max(c[2] for c in chunks)
    first: dict[int, float] = {}
    last: dict[int, float] = {}
    for thread, s, e in chunks:
        first[thread] = min(first.get(thread, s), s)
        last[thread] = max(last.get(thread, e), e)
    if len(first) < 2:
        return end - start, None, None
    starts, ends = sorted(first.values()), sorted(last.values())
    return end - start, starts[1] - starts[0], ends[-1] - ends[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="attention")
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()

    import kiln
    from kernels import cases

    case = cases(np.random.default_rng(0))[args.case]
    arrays = list(case.inputs.values())
    fn = kiln.jit(case.kiln, device=args.device)
    tensors = [kiln.Tensor(a, device=args.device) for a in arrays]
    fn(*tensors)
    compiled = fn.compiled[0]
    exe, program = compiled.run, compiled.program
    native = exe._runner  # noqa: SLF001 - timed from outside, put back below
    if native is None:
        raise SystemExit("bench/launches.py times the native runner: unset KILN_PYTHON_RUNNER (or install a C "
                         "compiler)")
    runner_seconds: list[float] = []

    class TimedRunner:
        def run(self, *a: object) -> None:
            start = time.perf_counter()
            native.run(*a)
            runner_seconds.append(time.perf_counter() - start)

    print(machine_note())
    calls, profiles, timelines = [], [], []
    exe._runner = TimedRunner()  # noqa: SLF001
    try:
        for _ in range(args.calls):
            start = time.perf_counter()
            fn(*tensors)
            calls.append(time.perf_counter() - start)
            profiles.append(exe.profile(*arrays)[1])
            timelines.append(exe.timeline(*arrays)[1])
    finally:
        exe._runner = native  # noqa: SLF001
    call_native = np.array(runner_seconds[0::3])
    ms = 1e3
    fastest = np.argsort([max(c[2] for launch in t for c in launch) for t in timelines])[: max(1, args.calls // 4)]
    groups: list[list[int]] = []  # a launch, or joined launches (one row: their chunks together)
    for i, launch in enumerate(program.launches):
        groups.append(groups.pop() + [i] if launch.joined and groups else [i])
    rows = []
    for group in groups:
        times = np.array([p[group[0]] for p in profiles])  # a joined group's time is on its first launch
        edges = [launch_edges([c for i in group for c in timelines[t][i]]) for t in fastest]
        joins = [j for _, j, _ in edges if j is not None]
        waits = [w for _, _, w in edges if w is not None]
        rows.append(["+".join(program.launches[i].kernel for i in group), len(timelines[0][group[0]]),
                     times.min() * ms, np.median(times) * ms, np.median([s for s, _, _ in edges]) * ms,
                     np.median(joins) * ms if joins else "-", np.median(waits) * ms if waits else "-",
                     f"{len(joins)}/{len(edges)}"])
    print_table(f"{args.case} on {args.device}, {args.calls} calls; span, join and end wait: medians over the fastest "
                "quarter of the timelines", ["launch", "chunks", "best ms", "median ms", "span ms", "join ms",
                                             "end wait ms", "worker took part"], rows)
    whole = np.array(calls)
    outside = whole - call_native
    print_table("the whole call", ["", "best ms", "median ms"], [
        ["@kiln.jit call", whole.min() * ms, np.median(whole) * ms],
        ["native runner", call_native.min() * ms, np.median(call_native) * ms],
        ["outside it (Python)", outside.min() * ms, np.median(outside) * ms],
        ["sum of the launches' bests", sum(float(np.min(column)) for column in zip(*profiles)) * ms, ""],
    ])


if __name__ == "__main__":
    main()
