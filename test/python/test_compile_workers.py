"""Parallel LLVM compiles in worker processes (targets/llvm/workers.py): the same objects as a serial compile,
a worker that dies costs a warning and nothing else, a compile error in a worker is the error it was, and a
one-unit program starts no worker."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

from kiln.support.errors import CompileError
from kiln.targets.llvm import toolchain, workers

SCALE = """
define void @scale{i}(ptr noalias %x, ptr noalias %out, i64 %n) {{
entry:
  %nonempty = icmp sgt i64 %n, 0
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %px
  %r = fmul float %v, {i}.0
  %po = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %po
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}}
"""
FUNCTIONS = 6
IR = "".join(SCALE.format(i=i) for i in range(1, FUNCTIONS + 1))
NAMES = [f"scale{i}" for i in range(1, FUNCTIONS + 1)]


@pytest.fixture(autouse=True)
def small_units(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of ~2 functions (each is 17 lines), an empty cache, two cores, and no worker left from another test."""
    monkeypatch.setattr(toolchain, "UNIT_LINES", 30)
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KILN_THREADS", "2")
    workers._pool.stop()
    yield
    workers._pool.stop()


def run_all(ir: str) -> None:
    kernels = toolchain.load_kernels(ir, NAMES)
    x = np.arange(10, dtype=np.float32)
    for i, name in enumerate(NAMES, 1):
        out = np.empty_like(x)
        ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(kernels.addresses[name])(
            x.ctypes.data, out.ctypes.data, x.size)
        np.testing.assert_array_equal(out, x * i)


def test_big_module_is_split_in_order() -> None:
    units = toolchain.split_units(IR)
    assert len(units) == 3 and all(u.loop_vectorize for u in units)
    assert [[n for n in NAMES if f"@{n}(" in u.ir] for u in units] == [NAMES[0:2], NAMES[2:4], NAMES[4:6]]


def test_parallel_objects_equal_serial(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    parallel = toolchain.compile_objects(IR)
    assert len(workers._pool.workers) == 1
    monkeypatch.setenv("KILN_THREADS", "1")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "serial"))
    assert toolchain.compile_objects(IR) == parallel
    run_all(IR)


def test_a_worker_that_dies_is_replaced_by_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "WORKER_COMMAND", [sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.warns(RuntimeWarning, match=r"compile worker stopped \(it exited with status 3\)"):
        run_all(IR)
    assert workers._pool.workers == []


def test_a_worker_that_cannot_start_costs_a_warning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(workers, "WORKER_COMMAND", [str(tmp_path / "no-such-python")])
    with pytest.warns(RuntimeWarning, match="cannot start a kiln compile worker"):
        run_all(IR)


def test_compile_error_in_a_worker_is_raised_here() -> None:
    bad = "define void @broken() {\n  ret i32 0\n}\n"
    requests = [(bad, 3, True)] * 3  # whichever side takes one, the error comes back
    with pytest.raises(CompileError, match="invalid LLVM IR"):
        workers.compile_all(requests, toolchain.compile_object)


def test_one_unit_starts_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(toolchain, "UNIT_LINES", 4000)
    monkeypatch.setattr(workers, "Worker", None)  # constructing one would fail
    assert len(toolchain.split_units(IR)) == 1
    run_all(IR)


def test_one_core_starts_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_THREADS", "1")
    monkeypatch.setattr(workers, "Worker", None)
    run_all(IR)
