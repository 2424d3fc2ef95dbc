"""A persistent thread pool that splits a CPU kernel launch across cores.

CPU kernels take ``(..., core_start, core_end)``: the half-open slice of their outermost parallel range that one
call computes (docs/internals.md, "CPU calling convention"). A launch whose estimated work (``core_extent`` x
``core_work``) is at least ``PARALLEL_MIN_WORK`` is cut into contiguous chunks: one per thread, and up to
``CHUNKS_PER_THREAD`` per thread when every chunk still holds ``CHUNK_MIN_WORK``. The chunks are a whole number
per thread and differ in size by at most one index: 5 chunks on 2 threads leave one thread 3 to run while the
other waits after 2 (3/5 of the one-thread time instead of 1/2), and a short last chunk does the same. The
calling thread runs the first chunk itself and then takes chunks no worker has taken yet, so a worker that
another process keeps off its core delays a launch by at most the chunk it holds. Smaller launches run inline.

The workers are native (``runtime/runner.c``, driven by ``kiln.runtime.native``): they spin waiting for the next
launch and then sleep, so a hand-off costs about a microsecond while launches follow each other and an idle
process uses no CPU. The spin adapts: up to ``MAX_SPIN_US`` while a call runs and between calls that follow each
other closely, and the workers are kept off the calling thread's CPU; once a thread was seen taken off its core
(other processes want the cores) the spin is ``SPIN_US`` and the workers may use every CPU, for a second. The
Python launch loop (no C compiler, ``KILN_PYTHON_RUNNER=1``) uses ``run`` instead, with Python workers that sleep
on a queue (ctypes releases the GIL during a chunk); waking one costs tens of microseconds.

One pool serves the whole process (``default_pool()``), sized to the cores this process may use
(``KILN_THREADS`` overrides). Several Python threads may launch at once: jobs share one queue, and each
``run`` waits only for its own chunks.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from queue import Empty, SimpleQueue

from kiln.capabilities.description import usable_cores
from kiln.runtime.native import runner

PARALLEL_MIN_WORK = 1 << 18
"""Estimated ALU ops (``core_extent * core_work``) below which a launch runs on one thread. Handing chunks to
the workers and waiting for them costs about 15-40 us (measured on the loaded 2-core build box: a forced split
of a 64-element kernel took 22-50 us per call instead of 5-12 us). At 0.1-1 ns per op (vectorized to scalar),
2^18 ops are some 25-250 us of work, where halving it starts to pay for the hand-off. The native pool's hand-off
is cheaper, but 2^16 measured no better on ShuffleNet and SqueezeNet (load 8-9)."""

CHUNKS_PER_THREAD = 8
"""Chunks a big launch is cut into per thread, each at least ``CHUNK_MIN_WORK``. With the native pool a further
chunk costs about a microsecond, and small chunks bound what a worker that is descheduled mid-chunk holds up:
the caller takes every chunk not yet started. Measured on the loaded 2-core build box (load 7-11, native runner,
same process, 30 rotated rounds; docs/performance.md, "Native runner and spinning pool (session 6)"): ShuffleNet
median 48 -> 41 ms, SqueezeNet 23 -> 20 ms against 4 per thread and 2^25 (the Python pool's setting: 1024 matmul
53 ms with 4 chunks per thread, 76 ms with one)."""

CHUNK_MIN_WORK = 1 << 20
"""Estimated ops below which a launch gets no more than one chunk per thread. The Python pool needed 2^25 (every
chunk a GIL hand-off, and the caller slept on the last one: 256^2 matmul with 8 chunks 15-20 ms, 2 chunks 1.0-1.4
ms at load 17); the native pool's hand-off is a mutex and an atomic counter."""

SPIN_US = 50
"""Microseconds a native worker spins waiting for the next launch before it sleeps on a condition variable when
the machine is busy (a thread was taken off its core while other threads wanted the CPUs, in the last second),
and a caller for its last chunks.
The threads of one process share its CPU share (autogroup scheduling), so on a busy machine a spinning worker
takes time from the caller: spins of 5, 20, 50 and 100 us were within the noise of the load there (load 7-10,
networks and small matmuls), and 50 us still covers the gap between two launches of one call."""

MAX_SPIN_US = 1000
"""The longest spin of a native worker when the machine is not busy: while a call with a split launch runs (the
call wakes sleeping workers when it starts, so they spin by the time its first split launch is posted), and
between calls whose gap is at most half of it (the spin is then ``SPIN_US`` + twice the last gap). A worker
that sleeps between back-to-back calls is woken for every call, late, and often onto the caller's core
(docs/performance.md, "Small matmuls on two cores, session 8")."""

UNKNOWN_CORE_WORK = PARALLEL_MIN_WORK
"""Work assumed per index when the lowering gave no estimate: large, so any extent >= 2 is split."""

Range = tuple[int, int]
_Job = tuple[Callable[..., object], Sequence[object], int, int, "SimpleQueue[BaseException | None]"]


class ThreadPool:
    """``size`` threads in all: ``size - 1`` workers plus the thread that runs a launch. The workers are native
    (``native()``, started on first use, again in a forked child) or, for the Python launch loop, Python
    threads (started by the first ``run``)."""

    def __init__(self, size: int, spin_us: int = SPIN_US, max_spin_us: int = MAX_SPIN_US):
        self.size = max(1, size)
        self.spin_us = spin_us
        self.max_spin_us = max_spin_us
        self._jobs: SimpleQueue[_Job] = SimpleQueue()
        self._lock = threading.Lock()
        self._python_workers = False
        self._native: int | None = None
        self._native_pid: int | None = None

    def native(self) -> int | None:
        """The address of this pool's native workers (``runner.c``) in this process; None when the native runner
        is unavailable. A forked child has none of its parent's threads, so it gets workers of its own."""
        if self._native_pid != _pid:
            with _native_lock:
                if self._native_pid != _pid:
                    lib = runner()
                    self._native = None if lib is None else lib.pool_create(
                        self.size, self.spin_us * 1000, self.max_spin_us * 1000
                    )
                    self._native_pid = _pid
        return self._native

    def __del__(self) -> None:
        if self._native is not None and self._native_pid == os.getpid() and not sys.is_finalizing():
            lib = runner()
            if lib is not None:
                lib.pool_destroy(self._native)

    def split(self, extent: int, core_work: int | None, joined: bool = False) -> tuple[Range, ...]:
        """The chunks to run a launch of ``extent`` indices in: one chunk unless it is worth parallelizing.
        A ``joined`` group of launches (``LaunchSpec.joined``) is cut into up to ``CHUNKS_PER_THREAD`` chunks
        per thread even on one thread and below ``CHUNK_MIN_WORK``: what one stage of a chunk writes, the next
        reads while it is in cache, and the smaller the chunk the more of it is."""
        work = extent * (UNKNOWN_CORE_WORK if core_work is None else core_work)
        if extent < 2 or work < PARALLEL_MIN_WORK or (self.size == 1 and not joined):
            return ((0, extent),)
        most = self.size * CHUNKS_PER_THREAD
        parts = min(extent, most if joined else min(most, work // CHUNK_MIN_WORK))
        parts = min(extent, max(self.size, parts - parts % self.size))
        length, longer = divmod(extent, parts)  # the first `longer` chunks get one index more
        bounds = [i * length + min(i, longer) for i in range(parts + 1)]
        return tuple(zip(bounds, bounds[1:]))

    def run(self, fn: Callable[..., object], args: Sequence[object], ranges: Sequence[Range]) -> None:
        """Call ``fn(*args, lo, hi)`` for every range, in parallel; return when all are done. The calling thread
        runs the first range, then queued ranges (its own or another launch's) until the queue is empty.

        An exception from any chunk is re-raised here after every chunk has finished.
        """
        if not self._python_workers:
            with self._lock:
                if not self._python_workers:
                    for i in range(self.size - 1):
                        threading.Thread(target=self._work, name=f"kiln-worker-{i}", daemon=True).start()
                    self._python_workers = True
        done: SimpleQueue[BaseException | None] = SimpleQueue()
        for lo, hi in ranges[1:]:
            self._jobs.put((fn, args, lo, hi, done))
        error: BaseException | None = None
        try:
            fn(*args, *ranges[0])
        except BaseException as e:  # noqa: BLE001 - re-raised below, after the other chunks finish
            error = e
        while True:
            try:
                job = self._jobs.get_nowait()
            except Empty:
                break
            _execute(*job)
        for _ in range(len(ranges) - 1):
            failure = done.get()
            error = error or failure
        if error is not None:
            raise error

    def _work(self) -> None:
        while True:
            _execute(*self._jobs.get())


def _execute(fn: Callable[..., object], args: Sequence[object], lo: int, hi: int, done: SimpleQueue) -> None:
    """Run one queued chunk; its outcome goes to the launching thread."""
    try:
        fn(*args, lo, hi)
    except BaseException as e:  # noqa: BLE001 - handed to the launching thread
        done.put(e)
    else:
        done.put(None)


_default: ThreadPool | None = None
_default_lock = threading.Lock()
_native_lock = threading.Lock()
"""Guards starting native workers; a module global, so that a forked child can replace it (another thread of
the parent may have held it at the fork)."""


def default_pool() -> ThreadPool:
    """The process-wide pool, created on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = ThreadPool(usable_cores())
    return _default


_pid = os.getpid()
"""This process's id, kept up to date by the fork hook below (``os.getpid`` is a system call, on every call of a
program)."""


def _forget_pool_after_fork() -> None:
    # a forked child has none of the parent's worker threads; it builds its own pool when it needs one, and
    # pools made before the fork start native workers of their own (ThreadPool.native)
    global _default, _default_lock, _native_lock, _pid
    _pid = os.getpid()
    _default = None
    _default_lock = threading.Lock()
    _native_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_after_fork)
