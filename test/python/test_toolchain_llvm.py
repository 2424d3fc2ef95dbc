"""The llvmlite toolchain: verification messages, O3 vectorization, JIT loading, and the object cache."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from kiln.support import cache
from kiln.support.errors import CompileError
from kiln.targets.loaded import LoadedKernels
from kiln.targets.llvm import toolchain

SAXPY = """
define void @saxpy(ptr noalias %x, ptr noalias %y, ptr noalias %out, float %a, i64 %n) {
entry:
  %nonempty = icmp sgt i64 %n, 0
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr float, ptr %x, i64 %i
  %py = getelementptr float, ptr %y, i64 %i
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %ax = fmul float %a, %vx
  %r = fadd float %ax, %vy
  %po = getelementptr float, ptr %out, i64 %i
  store float %r, ptr %po
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define float @expf_of(float %v) {
  %e = call float @llvm.exp.f32(float %v)
  ret float %e
}
declare float @llvm.exp.f32(float)
"""

P = ctypes.c_void_p
SAXPY_TYPE = ctypes.CFUNCTYPE(None, P, P, P, ctypes.c_float, ctypes.c_int64)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    return tmp_path


def run_saxpy(kernels: LoadedKernels, n: int = 1003) -> None:
    """Run saxpy from ``kernels`` (which must stay referenced while its code runs)."""
    rng = np.random.default_rng(1)
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    out = np.empty_like(x)
    SAXPY_TYPE(kernels.addresses["saxpy"])(x.ctypes.data, y.ctypes.data, out.ctypes.data, 2.5, n)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6)


def test_parse_error_has_line_and_column() -> None:
    with pytest.raises(CompileError, match=r"<string>:3:20: error: use of undefined value '%zz'"):
        toolchain.parse_ir("define void @f() {\n  %a = add i32 1, 2\n  %b = add i32 %a, %zz\n  ret void\n}")


def test_verifier_error() -> None:
    bad = "define i32 @f(i32 %a) {\nentry:\n  br label %next\nnext:\n  ret i32 %x\nlate:\n  %x = add i32 %a, 1\n  br label %next\n}"
    with pytest.raises(CompileError, match="failed verification: Instruction does not dominate all uses"):
        toolchain.parse_ir(bad)


def test_o3_vectorizes_a_scalar_loop_for_the_host() -> None:
    from kiln.capabilities.description import host_cpu, host_vector_bytes

    optimized = toolchain.optimize_ir(SAXPY)
    assert f'target triple = "{host_cpu()[0]}"' in optimized
    lanes = host_vector_bytes() // 4
    assert f"<{lanes} x float>" in optimized


def test_load_and_run() -> None:
    kernels = toolchain.load_kernels(SAXPY, ["saxpy", "expf_of"])
    run_saxpy(kernels)
    expf = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(kernels.addresses["expf_of"])
    assert expf(1.0) == pytest.approx(np.e, rel=1e-6)  # a libm call resolved from the process


def test_missing_function_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="nope"):
        toolchain.load_kernels(SAXPY, ["saxpy", "nope"])


def test_warm_load_skips_parsing(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    toolchain.load_kernels(SAXPY, ["saxpy"])
    assert len(list((cache_dir / toolchain.OBJECT_NAMESPACE).iterdir())) == 1

    def no_parsing(ir: str) -> None:
        raise AssertionError("a cache hit must not parse IR")

    monkeypatch.setattr(toolchain, "parse_ir", no_parsing)
    run_saxpy(toolchain.load_kernels(SAXPY, ["saxpy"]))
    with pytest.raises(AssertionError):
        toolchain.load_kernels(SAXPY.replace("2", "3"), ["saxpy"])  # a different IR text misses


def test_key_covers_opt_level_and_host() -> None:
    key = toolchain.object_key(SAXPY, 3)
    assert key != toolchain.object_key(SAXPY, 2)
    assert any("llvmlite" in part for part in key)
    from kiln.capabilities.description import host_cpu

    assert set(host_cpu()) <= set(key)


def test_corrupt_object_is_rebuilt(cache_dir: Path) -> None:
    toolchain.load_kernels(SAXPY, ["saxpy"])
    (entry,) = (cache_dir / toolchain.OBJECT_NAMESPACE).iterdir()
    entry.write_bytes(entry.read_bytes()[:200])
    run_saxpy(toolchain.load_kernels(SAXPY, ["saxpy"]))
    assert cache.get(toolchain.OBJECT_NAMESPACE, toolchain.object_key(SAXPY, 3)) is not None


def test_works_without_cache(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    run_saxpy(toolchain.load_kernels(SAXPY, ["saxpy"]))
    assert not any(cache_dir.iterdir())


def test_long_function_is_its_own_unit_without_loop_vectorizer(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    """A function longer than the limit is compiled alone, without the loop vectorizer (whose time grows with the
    square of the loop body); both objects load as one library and every function runs."""
    monkeypatch.setattr(toolchain, "LOOP_VECTORIZE_MAX_LINES", 10)  # saxpy has 19 lines, expf_of 4
    units = toolchain.split_units(SAXPY)
    assert [("@saxpy" in u.ir, "@expf_of" in u.ir, u.loop_vectorize) for u in units] == [(False, True, True), (True, False, False)]
    assert all("declare float @llvm.exp.f32" in u.ir for u in units)
    kernels = toolchain.load_kernels(SAXPY, ["saxpy", "expf_of"])
    run_saxpy(kernels)
    expf = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(kernels.addresses["expf_of"])
    assert expf(1.0) == pytest.approx(np.e, rel=1e-6)
    assert len(list((cache_dir / toolchain.OBJECT_NAMESPACE).iterdir())) == 2


def test_short_functions_stay_one_unit() -> None:
    assert toolchain.split_units(SAXPY) == [toolchain.Unit(SAXPY, True)]
    assert toolchain.split_units(SAXPY, parallel=2) == [toolchain.Unit(SAXPY, True)]


def test_side_by_side_compilers_get_two_units_from_split_min_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a second compiler, functions of ``SPLIT_MIN_LINES`` in all are two units (one per compiler); with
    one, they stay one (a unit's own cost would only add up)."""
    monkeypatch.setattr(toolchain, "SPLIT_MIN_LINES", 20)  # saxpy 19 lines + expf_of 4
    assert toolchain.split_units(SAXPY, parallel=1) == [toolchain.Unit(SAXPY, True)]
    units = toolchain.split_units(SAXPY, parallel=2)
    assert [("@saxpy" in u.ir, "@expf_of" in u.ir, u.loop_vectorize) for u in units] == [(True, False, True), (False, True, True)]
    run_saxpy(toolchain.load_objects([toolchain.build_object(u.ir) for u in units], ["saxpy"]))


def test_a_kernels_entry_stays_in_its_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    """A uniform entry calls its kernel, so it is compiled in the kernel's unit even when the kernel is long."""
    monkeypatch.setattr(toolchain, "LOOP_VECTORIZE_MAX_LINES", 10)
    entry = 'define void @"saxpy__entry"(ptr %"args", i64 %"lo", i64 %"hi")\n{\n  ret void\n}\n'
    units = toolchain.split_units(SAXPY.replace("define float @expf_of", entry + "define float @expf_of"))
    assert [("@saxpy(" in u.ir, "@\"saxpy__entry\"" in u.ir, "@expf_of" in u.ir) for u in units] == [
        (False, False, True),
        (True, True, False),
    ]
