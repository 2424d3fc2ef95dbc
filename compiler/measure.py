"""Timing candidate kernels on the real device: a one-launch program per candidate, compiled in parallel
worker processes, then run in this process on random inputs.

A candidate is the kernel with its opts applied (so the ``opts`` attribute is set and the pipeline's own
``kernel-optimize`` leaves it alone) inside a module whose schedule function launches it once: the buffers
the kernel only reads are the function's inputs, the ones it stores to are allocated and returned. Workers
run the device's whole compile (``Device.compile``), which fills the program and object caches, so compiling
the candidate again here is a cache hit: only loading is left. Timing runs one candidate at a time while the
workers are idle, flushing the caches between runs with a write over ``FLUSH_BYTES``.
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Region

from kiln.dialects import kernel as K
from kiln.dialects.types import DIMS_KEY, BufferType, declared_dims, dtype_name, to_numpy
from kiln.passes.optimize.opts import OptError
from kiln.passes.optimize.space import symbol_names
from kiln.support.errors import KilnError

FUNCTION = "tune"
SKIPPED = "time budget spent"
LOST = "lost: "
"""The prefix of a ``Measured.error`` for a candidate lost to a fault (a worker killed or hung, a cluster
gone), not to the candidate itself; the rest of the message is the reason."""
FLUSH_BYTES = 64 << 20
"""Bytes written between timed runs: twice this machine's 32 MiB L3, so no run starts with warm data."""
RTOL = 1e-3
"""Relative tolerance (of the largest output magnitude) for a candidate's outputs; float sums may reorder."""
MAX_ELEMENTS = 1 << 24
"""Symbolic dims are bound so no buffer exceeds this many elements (their upper bound when it fits)."""


def timing_module(kernel: K.KernelOp) -> str:
    """The text of a module that launches ``kernel`` (a copy) once; its function is ``@tune``."""
    kernel = kernel.clone()
    stored = {op.buffer for op in kernel.body.block.ops if isinstance(op, K.StoreOp)}
    args = kernel.args
    inputs = [a for a in args if isinstance(a.type, BufferType) and a not in stored]
    symbols = symbol_names(kernel)
    if missing := set(symbols) - {d for a in inputs for d in a.type.shape if isinstance(d, str)}:  # type: ignore[attr-defined]
        raise OptError(f"cannot time the kernel: symbols {sorted(missing)} appear in no buffer it reads")
    body = Block(arg_types=[a.type for a in inputs])
    values = dict(zip(inputs, body.args))
    index_args = [a for a in args if isinstance(a.type, IndexType)]
    outputs = []
    for a in args:
        if a in values:
            continue
        op = K.SymbolOp(symbols[index_args.index(a)]) if a in index_args else K.AllocOp(a.type)  # type: ignore[arg-type]
        body.add_op(op)
        values[a] = op.result
        if isinstance(op, K.AllocOp):
            outputs.append(op.result)
    body.add_op(K.LaunchOp(kernel.sym_name.data, [values[a] for a in args]))
    body.add_op(func.ReturnOp(*outputs))
    schedule = func.FuncOp(FUNCTION, ([a.type for a in inputs], [o.type for o in outputs]), Region(body))
    if DIMS_KEY in kernel.attributes:
        schedule.attributes[DIMS_KEY] = kernel.attributes[DIMS_KEY]
    return str(ModuleOp([kernel, schedule]))


def random_inputs(kernel: K.KernelOp, seed: int = 0) -> list[np.ndarray]:
    """Inputs for the timing module of ``kernel``: values in [-1, 1) (0/1 for bools), symbols bound to their
    upper bound, or less so that no buffer exceeds ``MAX_ELEMENTS``."""
    rng = np.random.default_rng(seed)
    bounds = declared_dims(kernel)
    stored = {op.buffer for op in kernel.body.block.ops if isinstance(op, K.StoreOp)}
    shapes = [a.type for a in kernel.args if isinstance(a.type, BufferType) and a not in stored]
    env: dict[str, int] = {}
    for name, (lo, hi) in bounds.items():
        env[name] = hi
        for t in shapes:
            rest = math.prod(d for d in t.shape if isinstance(d, int))
            env[name] = max(lo, min(env[name], MAX_ELEMENTS // max(1, rest)))
    arrays = []
    for t in shapes:
        shape = tuple(env[d] if isinstance(d, str) else d for d in t.shape)
        dt = to_numpy(dtype_name(t.element_type))
        if dt == np.bool_:
            arrays.append(rng.random(shape) < 0.5)
        elif dt.kind == "f" or dt.kind == "V":
            arrays.append(rng.uniform(-1, 1, shape).astype(dt))
        else:
            arrays.append(rng.integers(0, 8, shape).astype(dt))
    return arrays


# ---------------------------------------------------------------------------------------------
# compiling in workers


def compile_candidate(device: str, text: str) -> str | None:
    """Compile one candidate (filling the caches); the error message when it does not compile."""
    from kiln.compiler.driver import compile

    try:
        compile(text, FUNCTION, device)
    except KilnError as e:
        return str(e)
    except Exception as e:  # noqa: BLE001 - a lowering bug on one candidate must not end the search
        return f"internal error: {type(e).__name__}: {e}"
    return None


class Compiler:
    """A pool of worker processes compiling candidates for one device (spawned: this process may hold threads
    and LLVM state that a fork would copy half-initialized)."""

    def __init__(self, device: str, workers: int):
        self.device, self.workers = device, workers
        self._pool: ProcessPoolExecutor | None = None

    def compile_all(self, texts: Sequence[str], deadline: float = math.inf) -> list[str | None]:
        """Compile every text; per text None (compiled) or the error. Compiles not started by ``deadline``
        (a ``time.monotonic()`` value) are skipped, with the error "time budget spent"."""
        if self.workers <= 1 or len(texts) <= 1:
            return [compile_candidate(self.device, t) if time.monotonic() < deadline else SKIPPED for t in texts]
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        results: list[str | None] = [SKIPPED] * len(texts)
        running: dict[Future, int] = {}
        for n, text in enumerate(texts):  # at most `workers` in flight, so nothing starts after the deadline
            if len(running) == self.workers:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    results[running.pop(future)] = future.result()
            if time.monotonic() > deadline:
                break
            running[self._pool.submit(compile_candidate, self.device, text)] = n
        for future in as_completed(running):
            results[running[future]] = future.result()
        return results

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


# ---------------------------------------------------------------------------------------------
# timing


@dataclass
class Timer:
    """Times compiled candidates: the median of ``runs`` calls, cache-flushed, stopping early once a run is
    ``early_stop`` times slower than the best time so far."""

    runs: int = 3
    early_stop: float = 3.0
    flush_bytes: int = FLUSH_BYTES

    def __post_init__(self) -> None:
        self._scratch = np.zeros(self.flush_bytes // 8, dtype=np.int64)

    def flush(self) -> None:
        self._scratch += 1

    def time(self, call: Callable[[], object], best: float = math.inf) -> float:
        """Seconds per call of ``call`` (already warmed up by the caller)."""
        times = []
        for _ in range(self.runs):
            self.flush()
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
            if times[-1] > self.early_stop * best:
                break
        return float(np.median(times))


def load(device: str, text: str, inputs: list[np.ndarray]) -> Callable[[], object]:
    """The compiled candidate as a no-argument call (compiled by a worker before: a cache hit here)."""
    from kiln.compiler.driver import compile

    run = compile(text, FUNCTION, device)
    run(*inputs)  # warm up: first-call allocations, page faults
    return lambda: run(*inputs)


def outputs_agree(outputs: object, reference: list[np.ndarray]) -> bool:
    """Whether a candidate's outputs are the unoptimized kernel's (``RTOL`` of the output's magnitude for
    floats, whose sums may be reordered; exact for integers): a guard against miscompiles."""
    got = [np.asarray(o) for o in outputs]  # type: ignore[attr-defined]
    for g, want in zip(got, reference):
        if g.dtype.kind in "fcV":
            g64, w64 = g.astype(np.float64), want.astype(np.float64)
            scale = np.nanmax(np.abs(w64), initial=0.0, where=np.isfinite(w64))
            if not np.allclose(g64, w64, rtol=RTOL, atol=RTOL * max(scale, 1.0), equal_nan=True):
                return False
        elif not np.array_equal(g, want):
            return False
    return True


@dataclass
class Measured:
    """One candidate's measurement: ``seconds`` is infinite when it did not count (``error`` says why)."""

    seconds: float = math.inf
    error: str | None = None
    worker: str = "local"
    outputs: list[np.ndarray] | None = None
    """Its outputs, when it was measured without a reference (the unoptimized kernel: it becomes one)."""
    retried: str | None = None
    """Why its task had to be run a second time (a worker died or hung), if it did."""


def time_candidate(device: str, text: str, inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                   timer: Timer, best: float) -> Measured:
    """Load a compiled candidate, check its outputs against ``reference`` and time it (where it runs: this
    process, or a cluster worker)."""
    try:
        call = load(device, text, inputs)
    except KilnError as e:
        return Measured(error=str(e))
    outputs = call()
    if reference is not None and not outputs_agree(outputs, reference):
        return Measured(error="its outputs differ from the unoptimized kernel's")
    kept = None if reference is not None else [np.asarray(o) for o in outputs]  # type: ignore[attr-defined]
    return Measured(timer.time(call, best), outputs=kept)


class LocalRunner:
    """Measures candidates on this machine: compiled in parallel worker processes, then timed here one at a
    time while the workers are idle."""

    failed = None
    """Never set: this machine does not go away during a search (see ``cluster_runner.RayRunner``)."""

    def __init__(self, device: str, workers: int, timer: Timer | None = None):
        self.device = device
        self.compiler, self.timer = Compiler(device, workers), timer or Timer()

    def measure(self, texts: Sequence[str], inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                best: float, deadline: float) -> list[Measured]:
        """One ``Measured`` per text. Compiles not started, and timings not started, by ``deadline`` are
        skipped."""
        errors = self.compiler.compile_all(texts, deadline)
        out = []
        for text, error in zip(texts, errors):
            if error is not None or time.monotonic() > deadline:
                out.append(Measured(error=error or SKIPPED))
                continue
            out.append(result := time_candidate(self.device, text, inputs, reference, self.timer, best))
            best = min(best, result.seconds)
        return out

    def close(self) -> None:
        self.compiler.close()
