"""The native program runner (runtime/runner.c): numerics through it on both CPU targets, split and unsplit
launches, symbolic shapes, several Python threads at once, a forked child, per-launch profile times, the per-chunk
timeline, an idle pool that sleeps instead of spinning, the spin between calls learned from their gap, and when a
lost core counts as a busy machine."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import kiln
from kiln.runtime.device_cpu import load_kernels
from kiln.runtime.program import Executable, LaunchSpec
from kiln.runtime.threads import ThreadPool
from kiln.support.errors import CompileError
from kiln.targets.loaded import LoadedKernels

from test_runtime_program import build, fma_program, inputs

TARGETS = ["cpu-llvm", "cpu-c"]


@pytest.fixture(autouse=True, scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("KILN_NO_CACHE", raising=False)
        patch.delenv("KILN_PYTHON_RUNNER", raising=False)
        patch.setenv("KILN_CACHE_DIR", str(folder))
        yield folder


def native(spec_target: str, work: int | None, pool: ThreadPool) -> Executable:
    exe = build(fma_program(spec_target, work=work), pool)
    assert exe._runner is not None, "the native runner is not in use"
    return exe


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("work", [None, 1], ids=["split", "unsplit"])
def test_two_launches_through_the_native_runner(target: str, work: int | None) -> None:
    pool = ThreadPool(3)
    exe = native(target, work, pool)
    for n in (1, 2, 5, 1000, 65_537):  # N is symbolic: each size is a plan of its own
        a, b, c = inputs(n, seed=n)
        chunks = [len(ranges) for _, _, ranges, _ in exe._plan((n,)).launches]
        assert chunks == [1, 1] if work == 1 or n == 1 else min(chunks) > 1
        np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_native_and_python_loops_agree(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = ThreadPool(2)
    fast = native(target, None, pool)
    monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    slow = build(fma_program(target, work=None), pool)
    assert slow._runner is None
    a, b, c = inputs(10_001)
    np.testing.assert_array_equal(fast(a, b, c)[0], slow(a, b, c)[0])


def test_profile_times_each_launch_natively() -> None:
    exe = native("cpu-llvm", None, ThreadPool(2))
    a, b, c = inputs(50_000)
    (out,), times = exe.profile(a, b, c)
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
    assert len(times) == 2 and all(t > 0 for t in times)


@pytest.mark.parametrize("python_loop", [False, True], ids=["native", "python"])
def test_timeline_records_every_chunk_once(python_loop: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if python_loop:
        monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    pool = ThreadPool(3)
    exe = build(fma_program("cpu-llvm", work=None), pool)
    assert (exe._runner is None) == python_loop
    a, b, c = inputs(50_000)
    for _ in range(5):
        (out,), timeline = exe.timeline(a, b, c)
        np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
        planned = [ranges for _, _, ranges, _ in exe._plan((50_000,)).launches]
        assert [len(chunks) for chunks in timeline] == [len(ranges) for ranges in planned]
        assert all(len(ranges) > 1 for ranges in planned)
        rows = [row for chunks in timeline for row in chunks]
        assert all(0 <= thread < pool.size and 0 <= start <= end for thread, start, end in rows)
        assert min(start for _, start, _ in rows) == 0
        # the launches run in order: every chunk of the second starts after every chunk of the first ended
        assert max(end for _, _, end in timeline[0]) <= min(start for _, start, _ in timeline[1])


def joined_fma(target: str) -> Executable:
    """The fma program with k1 joined to k0: each chunk computes a * b and then + c over the same indices."""
    spec = fma_program(target, work=None)
    first, second = spec.launches
    return build(replace(spec, launches=(first, replace(second, joined=True))), ThreadPool(3))


@pytest.mark.parametrize("python_loop", [False, True], ids=["native", "python"])
@pytest.mark.parametrize("target", TARGETS)
def test_joined_launches_run_chunk_by_chunk(target: str, python_loop: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if python_loop:
        monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    exe = joined_fma(target)
    assert (exe._runner is None) == python_loop
    for n in (1, 7, 50_000):
        a, b, c = inputs(n, seed=n)
        (out,), times = exe.profile(a, b, c)
        np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
        assert len(times) == 2 and times[1] == 0  # the group's time is on its first launch
        (out,), timeline = exe.timeline(a, b, c)
        np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
        [(_, _, ranges, stages)] = exe._plan((n,)).launches
        assert stages == 2 and [len(chunks) for chunks in timeline] == [len(ranges)] * 2
        if n == 50_000:
            assert len(ranges) > 1
    # a joined group is one step of the arena's lifetimes: its temporary is live while its output is written
    assert exe._lifetimes == [(0, 0)]


def test_joined_chunks_share_a_grid() -> None:
    """Extents 4096 and 8 are cut on a grid of 8: chunk c of the first launch is 512 of its indices."""
    exe = joined_fma("cpu-llvm")
    group = [LaunchSpec("k0", (), "4096", 1 << 12), LaunchSpec("k1", (), "8", 1 << 20, joined=True)]
    rows, heads = exe._chunks(group, {})
    assert heads[0][0] == 0 and heads[-1][1] == 8 and all(a[1] == b[0] for a, b in zip(heads, heads[1:]))
    assert len(heads) > 1 and [(lo * 512, hi * 512) for lo, hi in heads] == list(rows)
    assert exe._chunks([LaunchSpec("k0", (), "0", 1), LaunchSpec("k1", (), "0", 1, joined=True)], {}) == [((0, 0),)] * 2


@pytest.mark.parametrize("target", TARGETS)
def test_threads_call_at_once(target: str) -> None:
    pool = ThreadPool(2)
    shared = native(target, None, pool)
    others = [native(target, None, pool) for _ in range(2)]
    cases = [inputs(n, seed=n) for n in (3, 4000, 70_000, 9) * 6]

    def call(i: int) -> np.ndarray:
        exe = shared if i % 2 else others[i % 4 // 2]
        return exe(*cases[i])[0]

    with ThreadPoolExecutor(6) as callers:
        results = list(callers.map(call, range(len(cases))))
    for (a, b, c), out in zip(cases, results):
        np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("target", TARGETS)
def test_a_forked_child_runs_on_a_pool_of_its_own(target: str) -> None:
    pool = ThreadPool(2)
    exe = native(target, None, pool)
    a, b, c = inputs(100_000)
    np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
    parent_workers = pool.native()
    pid = os.fork()
    if pid == 0:  # the child: exit status 0 only if it computed the right result on fresh workers
        try:
            ok = pool.native() != parent_workers and np.allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)  # the parent's pool still works


def test_an_idle_pool_sleeps() -> None:
    """Workers spin at most ``max_spin_us`` after a call, then sleep: half a second idle costs next to no CPU time
    (a spinning worker would cost the whole half second). Calls back to back first, which make the spin between
    calls its longest."""
    pool = ThreadPool(4)
    exe = native("cpu-llvm", None, pool)
    a, b, c = inputs(100_000)
    for _ in range(20):
        exe(a, b, c)
    time.sleep(0.05)  # past the spin
    start = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - start < 0.15


@pytest.mark.parametrize("device", TARGETS)
def test_compiled_programs_run_through_their_emitted_entries(device: str) -> None:
    """Kernels from both emitters, with a symbolic row count and several launches (matmul, bias, relu, matmul)."""

    @kiln.jit(device=device, dims={"x": {0: kiln.Dim("N", 1, 512)}})
    def mlp(x, w1, w2):
        return (x @ w1).relu() @ w2

    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((64, 96)).astype(np.float32), rng.standard_normal((96, 8)).astype(np.float32)
    for n in (1, 37, 300):
        x = rng.standard_normal((n, 64)).astype(np.float32)
        out = mlp(x, w1, w2).numpy()
        np.testing.assert_allclose(out, np.maximum(x @ w1, 0) @ w2, rtol=1e-4, atol=1e-3)
    assert mlp.compiled[0].run._runner is not None


def test_a_kernel_without_its_entry_is_a_compile_error() -> None:
    spec = fma_program("cpu-llvm")
    loaded = load_kernels(spec.kernels, spec.kernel_names())
    without = LoadedKernels({k: v for k, v in loaded.addresses.items() if k != "k1__entry"}, loaded.handle)
    with pytest.raises(CompileError, match="kernel @k1 was loaded without its entry @k1__entry"):
        Executable(spec, without)


def test_the_spin_between_calls_follows_the_gap_between_them() -> None:
    """Calls back to back lengthen the workers' idle spin past ``spin_us`` (up to ``max_spin_us``); a gap too long
    to spin through puts it back to ``spin_us``."""
    pool = ThreadPool(2, spin_us=50, max_spin_us=100_000)
    exe = native("cpu-llvm", None, pool)
    a, b, c = inputs(100_000)
    lib = exe._runner
    spins = []
    for _ in range(10):
        np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
        spins.append(lib.pool_idle_spin(pool.native()))
    assert max(spins) > 50_000 and all(50_000 <= s <= 100_000_000 for s in spins)
    time.sleep(0.2)  # a gap over half the longest spin
    exe(a, b, c)
    assert lib.pool_idle_spin(pool.native()) == 50_000


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_workers_keep_off_the_callers_cpu() -> None:
    """After a split call the workers may run on every usable CPU but the caller's (a worker there could only take
    turns with it) unless the machine is busy; a process with one usable CPU still computes right (the workers are
    left where they are)."""
    usable = os.sched_getaffinity(0)
    pid = os.fork()
    if pid == 0:  # a child: its affinity changes stay its own
        ok = False
        try:
            a, b, c = inputs(100_000)
            cpu = min(usable)
            os.sched_setaffinity(0, {cpu})
            pool = ThreadPool(2)
            exe = native("cpu-llvm", None, pool)
            ok = bool(np.allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6))
            if len(usable) > 1:
                os.sched_setaffinity(0, usable)
                pool = ThreadPool(2)
                exe = native("cpu-llvm", None, pool)
                before = set(os.listdir("/proc/self/task"))
                pool.native()  # its worker starts with every CPU usable
                workers = set(os.listdir("/proc/self/task")) - before
                os.sched_setaffinity(0, {cpu})  # the caller now runs on `cpu` only
                ok = ok and bool(np.allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6))
                # a busy machine (a thread seen off its core) frees the workers to use every CPU again; the call
                # may have found it busy only after its last check of the caller's CPU
                busy = exe._runner.pool_busy(pool.native())
                want = [usable - {cpu}, usable] if busy else [usable - {cpu}]
                ok = ok and len(workers) == 1 and os.sched_getaffinity(int(workers.pop())) in want
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _runnable_threads() -> int:
    """Runnable threads on the machine now (the fourth field of /proc/loadavg, "running/total")."""
    return int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])


@pytest.mark.skipif(not Path("/proc/loadavg").exists() or not hasattr(os, "sched_getaffinity"),
                    reason="no /proc/loadavg or CPU affinity here")
def test_a_lost_core_is_a_busy_machine_only_when_other_threads_want_the_cpus() -> None:
    """A thread that lost its core proves nothing alone (a hypervisor's pause does that on an idle machine, and so
    do the process's own threads taking turns on one CPU); with more threads runnable than usable CPUs, the pool
    treats the machine as busy."""
    cpus = len(os.sched_getaffinity(0))
    lib = native("cpu-llvm", None, ThreadPool(2))._runner
    quiet_pool = ThreadPool(2)
    before = _runnable_threads()
    busy = lib.pool_lost_core(quiet_pool.native())
    if before <= cpus and _runnable_threads() <= cpus:  # nothing else wanted the CPUs around the report
        assert busy == 0
    spinners = []
    for _ in range(2 * cpus + 1):
        pid = os.fork()
        if pid == 0:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                pass
            os._exit(0)
        spinners.append(pid)
    try:
        loaded_pool = ThreadPool(2)
        deadline = time.monotonic() + 4
        while not lib.pool_lost_core(loaded_pool.native()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert lib.pool_busy(loaded_pool.native()) == 1
    finally:
        for pid in spinners:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
