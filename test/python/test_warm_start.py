"""A later process that finds its model and program in the disk cache imports no xDSL (issue 12: the warm first
result in <= 1 s; xDSL's import is most of a second). What it may import is checked in a fresh process, the way
a user's second run starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


NOT_ON_A_HIT = ("xdsl", "onnx", "ml_dtypes", "kiln.dialects.types", "kiln.compiler.pipeline")
"""Modules a cache hit must not import: the IR library, the model format, and what builds or compiles IR."""

HAS_CPUINFO = Path("/proc/cpuinfo").exists()


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def scaled_relu_model(path: Path) -> Path:
    """``relu(x * w)`` with a 4x8 weight, saved to ``path``."""
    w = numpy_helper.from_array(np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8), "w")
    nodes = [helper.make_node("Mul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_a_warm_process_imports_no_xdsl(tmp_path: Path, device: str) -> None:
    """The first process compiles (so it imports xDSL: the check can fail); the second finds everything in the
    cache and imports none of ``NOT_ON_A_HIT`` nor, on cpu-c, LLVM (the host CPU's description is kept too)."""
    path = scaled_relu_model(tmp_path / "m.onnx")
    not_imported = NOT_ON_A_HIT + (("llvmlite",) if device == "cpu-c" and HAS_CPUINFO else ())
    script = (f"import sys, numpy as np, kiln.onnx\n"
              f"x = np.arange(32, dtype=np.float32).reshape(4, 8) - 16\n"
              f"y = kiln.onnx.load({str(path)!r}, device={device!r})(x=x)[0]\n"
              f"print(y.sum())\n"
              f"print(sorted(m for m in {not_imported!r} if m in sys.modules))\n")
    cold, warm = (subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
                  .stdout.strip().splitlines() for _ in range(2))
    x = np.arange(32, dtype=np.float32).reshape(4, 8) - 16
    w = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_allclose(float(warm[0]), np.maximum(x * w, 0).sum(), rtol=1e-5)
    assert warm[0] == cold[0]
    assert "xdsl" in cold[1] and "kiln.compiler.pipeline" in cold[1]
    assert warm[1] == "[]"


@pytest.mark.skipif(not HAS_CPUINFO, reason="the host CPU is kept under /proc/cpuinfo's identity (Linux)")
def test_the_host_cpu_is_probed_once_per_machine() -> None:
    """The second process reads LLVM's answer from the cache without loading LLVM, and it is the same answer."""
    script = ("import sys\n"
              "from kiln.capabilities.description import host_cpu\n"
              "print(host_cpu(), 'llvmlite' in sys.modules)\n")
    first, second = (subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
                     .stdout.strip() for _ in range(2))
    assert first.endswith(" True") and second == first.removesuffix(" True") + " False"


def test_without_the_cache_the_host_cpu_is_probed(monkeypatch: pytest.MonkeyPatch) -> None:
    import llvmlite.binding as llvm

    from kiln.capabilities.description import host_cpu

    monkeypatch.setenv("KILN_NO_CACHE", "1")
    host_cpu.cache_clear()
    try:
        assert host_cpu() == (llvm.get_process_triple(), llvm.get_host_cpu_name(),
                              llvm.get_host_cpu_features().flatten())
    finally:
        host_cpu.cache_clear()
