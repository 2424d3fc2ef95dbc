"""kiln.onnx's import cache (onnx_import/import_cache.py): a second load of the same model file skips the importer
and gives the same results; other bytes, dims or a damaged entry import again; external data is never cached."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import kiln.onnx  # noqa: E402
from kiln.onnx import import_cache, importer  # noqa: E402

F32 = TensorProto.FLOAT


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def imports(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the calls of the importer itself."""
    calls: list[int] = []
    real = importer.import_model

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(importer, "import_model", counted)
    return calls


def gemm_model(seed: int) -> onnx.ModelProto:
    """``relu(x @ w + b)`` with 32x16 weights (arguments, not inlined constants)."""
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(rng.standard_normal((32, 16)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
             helper.make_node("Relu", ["a"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, ["N", 32])],
                              [helper.make_tensor_value_info("y", F32, ["N", 16])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def expected(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    w, b = (numpy_helper.to_array(t) for t in model.graph.initializer)
    return np.maximum(x @ w + b, 0)


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save(model, str(path))
    return path


X = np.random.default_rng(9).standard_normal((3, 32)).astype(np.float32)
DIMS = {"N": (1, 8)}


def test_second_load_skips_the_importer_and_agrees(tmp_path: Path, imports: list[int]) -> None:
    path = save(gemm_model(0), tmp_path / "m.onnx")
    first = kiln.onnx.load(path, dims=DIMS)(X)[0]
    second_model = kiln.onnx.load(path, dims=DIMS)
    assert len(imports) == 1
    assert isinstance(second_model.imported.module, str)
    np.testing.assert_allclose(first, expected(gemm_model(0), X), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(second_model(X)[0], first)


@pytest.mark.parametrize("same_stat", [False, True], ids=["new-stat", "same-size-and-mtime"])
def test_changed_model_bytes_import_again(tmp_path: Path, imports: list[int], same_stat: bool) -> None:
    """Other weights at the same path import again; the file's digest is remembered under its stat, and a rewrite
    of the same size with the old mtime still changes its change time."""
    path = save(gemm_model(0), tmp_path / "m.onnx")
    kiln.onnx.load(path, dims=DIMS)
    before = path.stat()
    save(gemm_model(1), path)
    if same_stat:
        assert path.stat().st_size == before.st_size
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    got = kiln.onnx.load(path, dims=DIMS)(X)[0]
    assert len(imports) == 2
    np.testing.assert_allclose(got, expected(gemm_model(1), X), rtol=1e-5, atol=1e-5)


def test_other_dims_import_again(tmp_path: Path, imports: list[int]) -> None:
    path = save(gemm_model(0), tmp_path / "m.onnx")
    kiln.onnx.load(path, dims=DIMS)
    kiln.onnx.load(path, dims={"N": (1, 4)})
    assert len(imports) == 2


@pytest.mark.parametrize("damage", ["entry", "weights"])
def test_damaged_entry_imports_again(tmp_path: Path, cache_dir: Path, imports: list[int], damage: str) -> None:
    path = save(gemm_model(0), tmp_path / "m.onnx")
    kiln.onnx.load(path, dims=DIMS)
    suffix = ".bin" if damage == "entry" else ".weights"
    (entry,) = (cache_dir / import_cache.NAMESPACE).glob(f"*{suffix}")
    entry.write_bytes(entry.read_bytes()[:-7])  # truncated
    got = kiln.onnx.load(path, dims=DIMS)(X)[0]
    assert len(imports) == 2
    np.testing.assert_allclose(got, expected(gemm_model(0), X), rtol=1e-5, atol=1e-5)
    kiln.onnx.load(path, dims=DIMS)  # re-stored
    assert len(imports) == 2


def test_external_data_is_not_cached(tmp_path: Path, cache_dir: Path, imports: list[int]) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(gemm_model(0), str(path), save_as_external_data=True, all_tensors_to_one_file=True,
              location="m.data", size_threshold=0)
    got = kiln.onnx.load(path, dims=DIMS)(X)[0]
    np.testing.assert_allclose(got, expected(gemm_model(0), X), rtol=1e-5, atol=1e-5)
    kiln.onnx.load(path, dims=DIMS)
    assert len(imports) == 2
    assert not (cache_dir / import_cache.NAMESPACE).exists() or not any((cache_dir / import_cache.NAMESPACE).iterdir())


def test_no_cache_imports_every_time(tmp_path: Path, imports: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    path = save(gemm_model(0), tmp_path / "m.onnx")
    kiln.onnx.load(path, dims=DIMS)
    kiln.onnx.load(path.read_bytes(), dims=DIMS)
    assert len(imports) == 2


def test_a_hit_imports_neither_onnx_nor_ml_dtypes(tmp_path: Path) -> None:
    """A later process that finds the model in the cache never imports onnx or ml_dtypes (~2 s together)."""
    path = save(gemm_model(0), tmp_path / "m.onnx")
    kiln.onnx.load(path, dims=DIMS)
    script = (f"import sys, numpy as np, kiln.onnx\n"
              f"kiln.onnx.load({str(path)!r}, dims={DIMS!r})(np.ones((2, 32), np.float32))\n"
              f"print(sorted(m for m in ('onnx', 'ml_dtypes') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
