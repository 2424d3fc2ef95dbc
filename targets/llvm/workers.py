"""Compile LLVM modules in worker processes, so that the objects of one big program compile on several cores.

llvmlite runs every call into LLVM under one process-wide lock (its LLVMContext is not thread-safe), so threads
do not overlap LLVM work: parallel compiles need processes. A worker is ``python -m kiln.targets.llvm.workers``,
started with the running interpreter (not ``multiprocessing``, which would re-import the user's ``__main__``),
that reads requests from its stdin and answers on a private copy of its stdout (pickled tuples); it compiles
through ``toolchain.build_object``; the caller stores the objects in its disk cache (a worker would keep the
cache settings of its start).

``compile_all`` hands out the units the cache does not hold, largest first: the calling thread compiles in this
process while each worker is fed by a thread of its own, so a worker that is still starting (a few tenths of a
second: Python, llvmlite) delays nothing; it joins in when ready. Results go back by unit index, and each unit's
object depends only on its own IR, so the output is the same for any number of workers. A worker that dies
(killed, out of memory) is dropped with a warning and its unit compiled here, as is everything when no worker
can be started; a compile error in a worker is raised here as the ``CompileError`` it was.

One pool serves the process, sized ``usable_cores() - 1`` (``KILN_THREADS`` overrides the core count, and 1
means no workers), started on the first program with at least ``POOL_MIN_UNITS`` units to compile, kept warm for
the next, and stopped at exit (a worker also exits when its stdin closes, should this process die).
"""

from __future__ import annotations

import atexit
import os
import pickle
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import IO, Any

from kiln.capabilities.description import usable_cores
from kiln.support.errors import CompileError

POOL_MIN_UNITS = 2
"""Units to compile below which no worker is started or used: one unit has nothing to overlap."""

WORKER_COMMAND = [sys.executable, "-P", "-m", "kiln.targets.llvm.workers"]
"""How a worker starts (the running interpreter, without the script's folder on ``sys.path``)."""

Request = tuple[str, int, bool]
"""(LLVM IR, opt level, loop vectorizer on): the arguments of ``toolchain.build_object``."""


class WorkerLost(Exception):
    """The worker process exited or its pipe broke; what it was given must be compiled elsewhere."""


class Worker:
    """One worker process, used by one feeding thread at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(WORKER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)

    def compile(self, request: Request) -> bytes:
        """The object for ``request``; raises ``CompileError`` as the worker did, ``WorkerLost`` if it died."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            pickle.dump(request, self.process.stdin)
            self.process.stdin.flush()
            status, payload = pickle.load(self.process.stdout)
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            raise WorkerLost(self.exit_note()) from None
        if status == "error":
            raise CompileError(payload)
        return payload

    def exit_note(self) -> str:
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return "its pipe broke"
        return f"it exited with status {code}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Pool:
    """Worker processes kept between compiles."""

    def __init__(self) -> None:
        self.workers: list[Worker] = []
        self.lock = threading.Lock()

    def take(self, count: int) -> list[Worker]:
        """``count`` live workers, started as needed."""
        with self.lock:
            self.workers = [w for w in self.workers if w.alive()]
            while len(self.workers) < count:
                self.workers.append(Worker())
            return self.workers[:count]

    def drop(self, worker: Worker) -> None:
        with self.lock:
            if worker in self.workers:
                self.workers.remove(worker)
        worker.stop()

    def stop(self) -> None:
        with self.lock:
            workers, self.workers = self.workers, []
        for w in workers:
            w.stop()


_pool = Pool()
atexit.register(_pool.stop)


def worker_count() -> int:
    """Workers beside the calling thread: one per usable core but the caller's."""
    return usable_cores() - 1


def compile_all(requests: Sequence[Request], compile_here: Callable[[str, int, bool], bytes]) -> list[bytes]:
    """The object of each request, in order: with workers when there are at least ``POOL_MIN_UNITS`` and a
    core to spare, else one after another with ``compile_here``."""
    workers = worker_count()
    if len(requests) < POOL_MIN_UNITS or workers < 1:
        return [compile_here(*r) for r in requests]
    results: list[bytes | None] = [None] * len(requests)
    pending = sorted(range(len(requests)), key=lambda i: -len(requests[i][0]))  # largest first
    errors: list[CompileError] = []
    lock = threading.Lock()

    def next_unit() -> int | None:
        with lock:
            return pending.pop(0) if pending and not errors else None

    def run(compile_one: Callable[[int], bytes]) -> None:
        while (i := next_unit()) is not None:
            try:
                results[i] = compile_one(i)
            except CompileError as e:
                with lock:
                    errors.append(e)

    def feed(worker: Worker) -> None:
        def compile_one(i: int) -> bytes:
            try:
                return worker.compile(requests[i])
            except WorkerLost as lost:
                with lock:
                    pending.insert(0, i)
                _pool.drop(worker)
                warnings.warn(f"a kiln compile worker stopped ({lost}); compiling its units in this process",
                              RuntimeWarning, stacklevel=1)
                raise _Stop from None

        try:
            run(compile_one)
        except _Stop:
            pass

    def here(i: int) -> bytes:
        return compile_here(*requests[i])

    try:
        started = _pool.take(min(workers, len(requests) - 1))
    except OSError as e:  # no process could be started (limits, a missing interpreter): compile here
        warnings.warn(f"cannot start a kiln compile worker ({e}); compiling in this process", RuntimeWarning,
                      stacklevel=2)
        started = []
    threads = [threading.Thread(target=feed, args=(w,), daemon=True) for w in started]
    for t in threads:
        t.start()
    run(here)
    for t in threads:
        t.join()
    run(here)  # what a worker lost after this thread ran out of units
    if errors:
        raise errors[0]
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


class _Stop(Exception):
    """A feeding thread's worker is gone."""


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """A worker's loop: compile each request until the stream ends."""
    from kiln.targets.llvm.toolchain import build_object

    while True:
        try:
            request: Any = pickle.load(requests)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", build_object(*request))
        except CompileError as e:
            reply = ("error", str(e))
        pickle.dump(reply, replies)
        replies.flush()


def main() -> None:
    """The worker process: replies go to a private copy of stdout, and fd 1 points at stderr from here on, so
    nothing a library prints can corrupt them."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
