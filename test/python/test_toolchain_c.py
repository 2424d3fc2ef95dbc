"""The C toolchain: the -Wall -Werror check, building and loading .so files, flags, and the .so cache."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from kiln.support.errors import CompileError, KilnError
from kiln.targets.loaded import LoadedKernels
from kiln.targets.c import toolchain

SOURCE = r"""
#include <math.h>
#include <stdint.h>

void scaled_exp(const float *restrict x, float *restrict out, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = 2.0f * expf(x[i]);
}

int64_t opt_level(void) {
#ifdef __OPTIMIZE__
  return 1;
#else
  return 0;
#endif
}
"""


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.delenv("KILN_CFLAGS", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def run_scaled_exp(kernels: LoadedKernels) -> None:
    x = np.linspace(-3, 3, 101, dtype=np.float32)
    out = np.empty_like(x)
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(kernels.addresses["scaled_exp"])
    fn(x.ctypes.data, out.ctypes.data, x.size)
    np.testing.assert_allclose(out, 2 * np.exp(x), rtol=1e-6)


def optimized(kernels: LoadedKernels) -> bool:
    return bool(ctypes.CFUNCTYPE(ctypes.c_int64)(kernels.addresses["opt_level"])())


def libraries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / toolchain.LIBRARY_NAMESPACE).glob("*.so"))


def test_check_accepts_clean_code() -> None:
    toolchain.check_c(SOURCE)


def test_check_reports_errors_and_warnings_with_locations() -> None:
    with pytest.raises(CompileError, match=r"kernels\.c:6:.*'y' undeclared"):
        toolchain.check_c(SOURCE.replace("expf(x[i])", "expf(y[i])"))
    with pytest.raises(CompileError, match=r"kernels\.c:\d+:\d+: error: unused variable 'unused' \[-Werror"):
        toolchain.check_c(SOURCE.replace("for (", "int unused; for ("))


def test_build_load_and_run(cache_dir: Path) -> None:
    kernels = toolchain.load_c(SOURCE, ["scaled_exp", "opt_level"])
    run_scaled_exp(kernels)
    assert optimized(kernels)
    assert len(libraries(cache_dir)) == 1
    assert not [p for p in (cache_dir / toolchain.LIBRARY_NAMESPACE).iterdir() if p.name.startswith(".tmp")]


def test_compile_error() -> None:
    with pytest.raises(CompileError, match="C compilation failed"):
        toolchain.load_c("void f(void) { return 1 }", ["f"])


def test_missing_function() -> None:
    with pytest.raises(CompileError, match="no function 'nope'"):
        toolchain.load_c(SOURCE, ["scaled_exp", "nope"])


def test_cache_hit_does_not_run_the_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    toolchain.load_c(SOURCE, ["scaled_exp"])

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cache hit must not run the compiler")

    monkeypatch.setattr(subprocess, "run", no_compiler)
    run_scaled_exp(toolchain.load_c(SOURCE, ["scaled_exp"]))


def test_flags_from_argument_and_environment(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    assert toolchain.resolve_flags() == list(toolchain.default_flags(toolchain.compiler()))
    assert not optimized(toolchain.load_c(SOURCE, ["opt_level"], flags="-O0 -std=c11"))
    monkeypatch.setenv("KILN_CFLAGS", "-O1 -std=c11")
    assert toolchain.resolve_flags() == ["-O1", "-std=c11"]
    assert optimized(toolchain.load_c(SOURCE, ["opt_level"]))
    assert len(libraries(cache_dir)) == 2  # the flags are part of the key


@pytest.mark.skipif(shutil.which("clang") is None or shutil.which("gcc") is None, reason="needs clang and gcc")
@pytest.mark.parametrize("cc, family", [("gcc", "GCC_FLAGS"), ("clang", "CLANG_FLAGS")])
def test_default_flags_follow_the_compiler(monkeypatch: pytest.MonkeyPatch, cc: str, family: str) -> None:
    # clang rejects gcc's -ftree-* and -fsched-pressure: each compiler gets flags it accepts, and builds with them
    monkeypatch.setenv("CC", cc)
    assert toolchain.resolve_flags() == list(getattr(toolchain, family))
    assert optimized(toolchain.load_c(SOURCE, ["opt_level"]))
    run_scaled_exp(toolchain.load_c(SOURCE, ["scaled_exp"]))


def test_damaged_library_is_rebuilt(cache_dir: Path) -> None:
    # built but not loaded: a library this process has mapped is never rewritten in place (entries are replaced)
    so = toolchain.compile_c(SOURCE)
    assert libraries(cache_dir) == [so]
    so.write_bytes(so.read_bytes()[:100])
    run_scaled_exp(toolchain.load_c(SOURCE, ["scaled_exp"]))
    assert libraries(cache_dir) == [so] and so.stat().st_size > 100


def test_without_cache_leaves_no_files(monkeypatch: pytest.MonkeyPatch, cache_dir: Path, tmp_path: Path) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    run_scaled_exp(toolchain.load_c(SOURCE, ["scaled_exp"]))
    assert not cache_dir.exists()
    assert not any((tmp_path / "tmp").iterdir())


def test_missing_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-kiln")
    with pytest.raises(KilnError, match="C compiler 'no-such-compiler-kiln' not found"):
        toolchain.load_c(SOURCE, ["scaled_exp"])


def test_unwritable_cache_folder_is_skipped(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp(prefix: str = "", dir: str | None = None) -> str:  # noqa: A002 - tempfile's own name
        if dir is not None:
            raise PermissionError(13, "Permission denied", dir)
        return real_mkdtemp(prefix=prefix)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    run_scaled_exp(toolchain.load_c(SOURCE, ["scaled_exp"]))
    assert libraries(cache_dir) == []
