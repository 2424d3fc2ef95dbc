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

import kiln.onnx  # noqa: E402

NOT_ON_A_HIT = ("xdsl", "onnx", "ml_dtypes", "kiln.dialects.types", "kiln.compiler.pipeline")
"""Modules a cache hit must not import: the IR library, the model format, and what builds or compiles IR."""


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
    path = scaled_relu_model(tmp_path / "m.onnx")
    x = np.arange(32, dtype=np.float32).reshape(4, 8) - 16
    kiln.onnx.load(path, device=device)(x=x)  # fills the import and program caches
    script = (f"import sys, numpy as np, kiln.onnx\n"
              f"x = np.arange(32, dtype=np.float32).reshape(4, 8) - 16\n"
              f"y = kiln.onnx.load({str(path)!r}, device={device!r})(x=x)[0]\n"
              f"print(y.sum())\n"
              f"print(sorted(m for m in {NOT_ON_A_HIT!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    total, imported = done.stdout.strip().splitlines()
    w = np.linspace(-1, 1, 32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_allclose(float(total), np.maximum(x * w, 0).sum(), rtol=1e-5)
    assert imported == "[]"


def test_a_cold_process_does_compile(tmp_path: Path) -> None:
    """The check above can fail: without the cache's entries the same process imports xDSL and compiles."""
    path = scaled_relu_model(tmp_path / "m.onnx")
    script = (f"import sys, numpy as np, kiln.onnx\n"
              f"kiln.onnx.load({str(path)!r})(x=np.ones((4, 8), np.float32))\n"
              f"print('xdsl' in sys.modules, 'kiln.compiler.pipeline' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True True"
