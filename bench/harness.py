"""What the benchmarks share: a clean BLAS environment for the numpy baseline, compiling through the optimizing
pipeline (cold and cached), median timings, and the printed table.

Call ``clean_blas_env()`` before numpy is imported: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, when set (this build
machine sets them, and they slow OpenBLAS down), are removed by re-executing the benchmark process without them
(only this process: kiln itself never uses OpenBLAS, numpy is the baseline).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_DROPPED = "KILN_BENCH_DROPPED_BLAS_ENV"


def clean_blas_env() -> None:
    """Re-execute this process without the OpenBLAS tuning variables (a no-op when none is set)."""
    found = [v for v in BLAS_VARIABLES if v in os.environ]
    if found:
        env = {k: v for k, v in os.environ.items() if k not in found}
        env[_DROPPED] = ",".join(f"{v}={os.environ[v]}" for v in found)
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def blas_note() -> str:
    """One line on the numpy baseline's BLAS (threadpoolctl's view when it is installed)."""
    dropped = os.environ.get(_DROPPED)
    note = f"removed {dropped} for numpy" if dropped else "no OpenBLAS variables set"
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return note + " (threadpoolctl not installed)"
    libs = [f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} x{i.get('num_threads')}" for i in threadpool_info()]
    return note + "; " + ", ".join(libs)


def optimizing_pipeline(device: str, optimize: str | None = None) -> None:
    """Make ``device`` compile through ``optimize`` (default: the heuristic) right after ``kernel-dedupe``,
    replacing a kernel-optimize the named pipeline may already have."""
    from xdsl.utils.arg_spec import parse_pipeline

    from kiln.compiler import registry
    from kiln.compiler.driver import LOWERINGS

    name = LOWERINGS[device][0]
    optimize = optimize or f"kernel-optimize{{target={device}}}"
    specs = [str(s) for s in parse_pipeline(registry.PIPELINES[name]) if s.name != "kernel-optimize"]
    registry.PIPELINES[name] = ",".join(specs).replace("kernel-dedupe", f"kernel-dedupe,{optimize}")


def without_pass(device: str, name: str) -> None:
    """Drop pass ``name`` (with any options) from ``device``'s named pipeline."""
    from xdsl.utils.arg_spec import parse_pipeline

    from kiln.compiler import registry
    from kiln.compiler.driver import LOWERINGS

    pipeline = LOWERINGS[device][0]
    registry.PIPELINES[pipeline] = ",".join(str(s) for s in parse_pipeline(registry.PIPELINES[pipeline]) if s.name != name)


def chosen_opts(device: str, text: str) -> list[str]:
    """``kernel: opts`` for each kernel the device's pipeline makes of ``text`` (a search answers from the
    tuning database filled by the compile before)."""
    from xdsl.utils.arg_spec import parse_pipeline

    from kiln.compiler import registry
    from kiln.dialects.kernel import KernelOp
    from kiln.passes.optimize.space import applied
    from kiln.compiler.driver import LOWERINGS
    from kiln.compiler.module import parse_module
    from kiln.compiler.pipeline import build_pipeline

    specs = [str(s) for s in parse_pipeline(registry.PIPELINES[LOWERINGS[device][0]])]
    upto = next(i for i, s in enumerate(specs) if s.startswith("kernel-optimize")) + 1
    module = parse_module(text)
    for step in build_pipeline(",".join(specs[:upto])):
        step.apply(registry.make_context(), module)
    return [f"@{k.sym_name.data}: {','.join(applied(k) or []) or '-'}" for k in module.ops if isinstance(k, KernelOp)]


WARMUP = """func.func @w(%x: !graph.tensor<4xf32>) -> !graph.tensor<4xf32> {
  %y = graph.exp %x : !graph.tensor<4xf32>
  func.return %y : !graph.tensor<4xf32>
}"""


def warm_up_compiler(device: str) -> None:
    """Compile a one-op program for ``device`` so that a compile timed next excludes Python's module imports."""
    from kiln.compiler.driver import compile

    compile(WARMUP, "w", device)


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (gcc): what a compile costs, whatever else runs on
    the machine. LLVM worker processes are not counted (``KILN_THREADS=1`` keeps LLVM in this process)."""
    import resource

    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def compile_cold_and_cached(
    device: str, text: str, function: str, clock: Callable[[], float] = time.perf_counter
) -> tuple[Callable[..., list], float, float, list[str]]:
    """Compile ``function`` with empty caches (a fresh cache folder), then again from the disk cache.

    Returns the callable, both times in seconds (of ``clock``) and the opts chosen per kernel. A warm-up compile of another
    program runs first, so the cold time is the pipeline's own work, not Python imports.
    """
    from kiln.compiler.driver import compile

    old = os.environ.get("KILN_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="kiln-bench-") as folder:
        os.environ["KILN_CACHE_DIR"] = folder
        try:
            warm_up_compiler(device)
            start = clock()
            compile(text, function, device)
            cold = clock() - start
            start = clock()
            run = compile(text, function, device)
            cached = clock() - start
            opts = chosen_opts(device, text)
        finally:
            if old is None:
                del os.environ["KILN_CACHE_DIR"]
            else:
                os.environ["KILN_CACHE_DIR"] = old
    return run, cold, cached, opts


SETTLE_SECONDS = 0.3
"""Pause before each measurement: OpenBLAS's threads spin for about 2^28 cycles (~0.1 s) after a call, holding
a core; kiln timed right after numpy got one core for its two threads (512 matmul: 5.2 ms instead of 1.5)."""


def timings(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, best) wall time of ``repeat`` calls after one warm-up call and a pause (``SETTLE_SECONDS``). The
    best shows what the code can do when other processes leave the cores alone; the median what a caller sees."""
    time.sleep(SETTLE_SECONDS)
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[0]


SETTLE_S = 0.05
"""Pause before each runner's block: onnxruntime's pool threads spin on after a call (and kiln's workers up to 1 ms),
holding a core that the next runner's first calls would otherwise lose to them."""


def rotated_timings(
    fns: dict[str, Callable[[], object]], rounds: int, calls: int
) -> tuple[dict[str, tuple[float, float]], float | None]:
    """(median, best) wall time per runner of ``rounds`` x ``calls`` calls, the runners' order rotated every round
    (onnxruntime's spinning threads slow whatever runs right after it), each block of calls after one untimed call;
    and the share of the machine's CPU time that other processes used while the calls ran (from /proc/stat, less
    this process's own; None where there is no /proc/stat or the calls were too short for its clock ticks): at a
    high share the medians time the scheduler."""
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    busy, own, wall = 0.0, 0.0, 0.0
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            time.sleep(SETTLE_S)
            fns[name]()
            cpu, mine, start = busy_seconds(), _own_seconds(), time.perf_counter()
            for _ in range(calls):
                t = time.perf_counter()
                fns[name]()
                times[name].append(time.perf_counter() - t)
            busy, own, wall = busy + busy_seconds() - cpu, own + _own_seconds() - mine, wall + time.perf_counter() - start
    result = {n: (sorted(v)[len(v) // 2], min(v)) for n, v in times.items()}
    return result, max(0.0, busy - own) / ((os.cpu_count() or 1) * wall) if busy else None


def measure(
    label: str, fns: dict[str, Callable[[], object]], rounds: int, calls: int
) -> dict[str, tuple[float, float]]:
    """(median, best) per runner: interleaved by ``rotated_timings`` when ``rounds`` (printing the CPU share other
    processes took), else each runner's ``calls`` in turn."""
    if not rounds:
        return {name: timings(fn, calls) for name, fn in fns.items()}
    measured, foreign = rotated_timings(fns, rounds, calls)
    share = "an unknown share" if foreign is None else f"{foreign:.0%}"
    print(f"{label}: other processes used {share} of the CPU time while it was timed")
    return measured


def busy_seconds() -> float:
    """CPU seconds every process has used (the non-idle jiffies of /proc/stat); 0 where it does not exist."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except OSError:
        return 0.0
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    t = os.times()
    return t.user + t.system


def moved_bytes(run: object) -> int:
    """Bytes a compiled program moves if every launch reads or writes each buffer argument once (static shapes)."""
    import numpy as np

    from kiln.dialects.types import to_numpy

    spec = run.spec  # type: ignore[attr-defined]
    size = {b.id: int(np.prod(b.shape, dtype=np.int64)) * to_numpy(b.dtype).itemsize for b in spec.buffers}
    return sum(size[v] for launch in spec.launches for kind, v in launch.args if kind == "buf")


def tinygrad_timings(
    fn: Callable[..., object] | None, inputs: Sequence[np.ndarray], want: np.ndarray, repeat: int
) -> tuple[float, float] | None:
    """(median, best) seconds of ``fn`` on tinygrad tensors of ``inputs``, realized and synchronized each call,
    checked against ``want``; None when ``fn`` is None or tinygrad cannot run here (it needs clang for DEV=CPU)."""
    import numpy as np

    if fn is None:
        return None
    os.environ.setdefault("DEV", "CPU")
    try:
        from tinygrad import Device, Tensor
    except ImportError:
        return None
    try:
        tensors = [Tensor(x).realize() for x in inputs]
        got = fn(*tensors).numpy()  # type: ignore[attr-defined]
    except Exception as e:  # no usable tinygrad device (no clang), or an unsupported op
        print(f"tinygrad not timed: {type(e).__name__}: {e}".splitlines()[0])
        return None
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * max(1.0, float(np.abs(want).max())))

    def call() -> None:
        fn(*tensors).realize()  # type: ignore[attr-defined]
        Device[Device.DEFAULT].synchronize()

    return timings(call, repeat)


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in header], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n{title}")
    for n, r in enumerate(cells):
        print("  " + "  ".join(c.rjust(w) if n and i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows])


def _cell(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def machine_note() -> str:
    from kiln.capabilities.description import host_cpu, usable_cores

    _, cpu, _ = host_cpu()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"host {cpu}, {usable_cores()} cores, load average {load:.2f}"
