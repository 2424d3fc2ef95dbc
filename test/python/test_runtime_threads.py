"""The launch thread pool: when a launch is split, how, and that every chunk runs exactly once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from kiln.runtime.threads import CHUNK_MIN_WORK, CHUNKS_PER_THREAD, PARALLEL_MIN_WORK, ThreadPool, default_pool
from kiln.capabilities.description import usable_cores


def covers(ranges: tuple[tuple[int, int], ...], extent: int) -> bool:
    return ranges[0][0] == 0 and ranges[-1][1] == extent and all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))


@pytest.mark.parametrize("size, extent", [(2, 10), (2, 11), (4, 3), (3, 1000), (8, 8)])
def test_big_launches_get_a_few_contiguous_chunks_per_thread(size: int, extent: int) -> None:
    ranges = ThreadPool(size).split(extent, None)
    assert covers(ranges, extent)
    assert min(size, extent) <= len(ranges) <= size * CHUNKS_PER_THREAD
    assert max(hi - lo for lo, hi in ranges) - min(hi - lo for lo, hi in ranges) <= 1


@pytest.mark.parametrize("size, extent, work", [(2, 64, 97997), (2, 16, 2807122), (3, 1000, None), (4, 7, None)])
def test_every_thread_gets_as_many_chunks(size: int, extent: int, work: int | None) -> None:
    """A chunk count that is not a multiple of the threads leaves one thread an extra chunk while the others wait
    (the 256x784 MLP's last matmul had 5 chunks on 2 threads)."""
    ranges = ThreadPool(size).split(extent, work)
    assert covers(ranges, extent)
    assert len(ranges) % size == 0


def test_chunks_hold_enough_work_to_pay_for_a_hand_off() -> None:
    pool = ThreadPool(4)
    assert len(pool.split(CHUNK_MIN_WORK * 6, 1)) == 4  # a whole number per thread
    assert len(pool.split(CHUNK_MIN_WORK * 9, 1)) == 8
    assert len(pool.split(CHUNK_MIN_WORK * 100, 1)) == 4 * CHUNKS_PER_THREAD
    assert len(pool.split(CHUNK_MIN_WORK * 2, 1)) == 4  # still one per thread
    assert len(pool.split(CHUNK_MIN_WORK + PARALLEL_MIN_WORK, 1)) == 4  # worth splitting, not worth more hand-offs


def test_the_caller_takes_queued_chunks_while_a_worker_is_busy() -> None:
    pool = ThreadPool(2)
    caller = threading.current_thread().name
    ran_here: list[int] = []
    release = threading.Event()

    def chunk(lo: int, hi: int) -> None:
        if threading.current_thread().name != caller:
            assert release.wait(10)
            return
        ran_here.append(lo)
        if len(ran_here) == 3:
            release.set()

    pool.run(chunk, (), ((0, 1), (1, 2), (2, 3), (3, 4)))
    assert len(ran_here) >= 3 and ran_here[0] == 0


def test_small_launches_run_as_one_chunk() -> None:
    pool = ThreadPool(4)
    assert pool.split(100, 1) == ((0, 100),)  # 100 ops: far below the threshold
    assert pool.split(1, None) == ((0, 1),)
    assert pool.split(0, None) == ((0, 0),)
    assert len(pool.split(PARALLEL_MIN_WORK, 1)) == 4
    assert pool.split(PARALLEL_MIN_WORK - 1, 1) == ((0, PARALLEL_MIN_WORK - 1),)
    assert ThreadPool(1).split(10**9, 10**3) == ((0, 10**9),)


def test_run_calls_every_chunk_once_on_distinct_threads() -> None:
    pool = ThreadPool(3)
    calls: list[tuple[str, int, int, str]] = []
    lock = threading.Lock()
    barrier = threading.Barrier(3, timeout=10)  # all three chunks must be running at the same time

    def chunk(tag: str, lo: int, hi: int) -> None:
        barrier.wait()
        with lock:
            calls.append((tag, lo, hi, threading.current_thread().name))

    pool.run(chunk, ("t",), ((0, 4), (4, 8), (8, 10)))
    assert sorted(c[1:3] for c in calls) == [(0, 4), (4, 8), (8, 10)]
    assert len({c[3] for c in calls}) == 3
    assert (0, 4, threading.current_thread().name) in [c[1:] for c in calls]  # the caller runs the first chunk


def test_errors_reach_the_caller_after_all_chunks_finish() -> None:
    pool = ThreadPool(2)
    finished: list[int] = []

    def chunk(lo: int, hi: int) -> None:
        if lo == 5:
            raise ValueError("chunk failed")
        finished.append(lo)

    with pytest.raises(ValueError, match="chunk failed"):
        pool.run(chunk, (), ((0, 5), (5, 10)))
    with pytest.raises(ValueError, match="chunk failed"):
        pool.run(chunk, (), ((5, 10), (0, 5)))
    assert finished == [0, 0]
    pool.run(chunk, (), ((0, 1), (1, 2)))  # the pool still works


def test_concurrent_launches_wait_only_for_their_own_chunks() -> None:
    pool = ThreadPool(2)
    totals: dict[int, int] = {}
    lock = threading.Lock()

    def add(key: int, lo: int, hi: int) -> None:
        with lock:
            totals[key] = totals.get(key, 0) + sum(range(lo, hi))

    with ThreadPoolExecutor(4) as callers:
        list(callers.map(lambda k: pool.run(add, (k,), pool.split(1000 + k, None)), range(16)))
    assert totals == {k: sum(range(1000 + k)) for k in range(16)}


def test_default_pool_is_shared_and_sized_to_the_usable_cores() -> None:
    assert default_pool() is default_pool()
    assert default_pool().size == usable_cores()


def test_kiln_threads_overrides_core_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_THREADS", "3")
    assert usable_cores() == 3
