"""kiln.Tensor outside the op table: construction and defaults, laziness and realization, random numbers,
numpy interop, devices, ``to_mlir`` through kiln-opt and kiln-run, and the errors people see."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.jit import Tensor, jit, manual_seed
from kiln.jit.errors import TraceError
from kiln.tools import kiln_opt, kiln_run

from tensor_cases import device_problem

D = "interp"



# ------------------------------------------------------------------------------------------- construction


def test_python_data_gets_the_front_end_defaults() -> None:
    assert Tensor([1.0, 2.0], device=D).dtype == "f32"
    assert Tensor([1, 2], device=D).dtype == "i64"
    assert Tensor([True, False], device=D).dtype == "i1"
    assert Tensor(2.5, device=D).dtype == "f32" and Tensor(2.5, device=D).shape == ()
    assert Tensor([[1, 2]], dtype="ui8", device=D).numpy().dtype == np.uint8
    assert Tensor(np.zeros(3, np.float16), device=D).dtype == "f16"
    assert Tensor(np.float64(1.5), device=D).dtype == "f64"


def test_construction_copies_and_numpy_returns_a_copy() -> None:
    source = np.arange(3, dtype=np.float32)
    x = Tensor(source, device=D)
    source[0] = 99
    out = x.numpy()
    out[1] = 42
    assert x.numpy().tolist() == [0.0, 1.0, 2.0]
    assert Tensor(x[1:], dtype="i32").dtype == "i32"


def test_creation_functions() -> None:
    assert Tensor.zeros(2, 3, device=D).numpy().tolist() == [[0.0] * 3] * 2
    assert Tensor.ones((2,), dtype="i8", device=D).numpy().dtype == np.int8
    full = Tensor.full((2, 2), 7, device=D)
    assert full.dtype == "i64" and full.numpy().tolist() == [[7, 7], [7, 7]]
    for args in [(5,), (2, 9), (9, 2, -2), (0.5, 2.0, 0.25), (3, -3, -1.5), (4, 4)]:
        want = np.arange(*args)
        got = Tensor.arange(*args, device=D).numpy()
        assert got.dtype == want.dtype and np.allclose(got, want), args
    assert Tensor.arange(4, dtype="f16", device=D).numpy().dtype == np.float16


def test_random_tensors_are_reproducible() -> None:
    manual_seed(3)
    a = Tensor.rand(2, 3, device=D).numpy()
    b = Tensor.randn(4, device=D).numpy()
    manual_seed(3)
    assert np.array_equal(Tensor.rand(2, 3, device=D).numpy(), a)
    assert np.array_equal(Tensor.randn(4, device=D).numpy(), b)
    assert a.dtype == np.float32 and (0 <= a).all() and (a < 1).all()
    seeded = Tensor.randn(1000, seed=11, dtype="f64", device=D).numpy()
    assert np.array_equal(seeded, Tensor.randn((1000,), seed=11, dtype="f64", device=D).numpy())
    assert abs(seeded.mean()) < 0.1 and abs(seeded.std() - 1) < 0.1
    assert not np.array_equal(Tensor.rand(2, 3, device=D).numpy(), a)


# ------------------------------------------------------------------------------------------- laziness


def test_nothing_runs_until_a_value_is_needed(compiles: list[str]) -> None:
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device=D)
    y = ((x * 2).exp().sum(axis=1) + 1).log()
    assert compiles == [] and "lazy" in repr(y)
    y.numpy()
    assert compiles == ["main"] and repr(y).startswith("Tensor([")
    y.numpy()
    assert compiles == ["main"]


def test_same_structure_compiles_once(compiles: list[str]) -> None:
    for k in range(3):
        x = Tensor(np.full(4, k, np.float32), device=D)
        assert (x * 3 + 1).sum().item() == 4 * (3 * k + 1)
    assert compiles == ["main"]


def test_realize_many_in_one_program(compiles: list[str]) -> None:
    x = Tensor(np.arange(4, dtype=np.float32), device=D)
    a, b = x.sum(), x.max()
    a.realize(b)
    assert compiles == ["main"] and a.item() == 6.0 and b.item() == 3.0


def test_constants_need_no_program(compiles: list[str]) -> None:
    assert Tensor.full((2,), 1.5, device=D).numpy().tolist() == [1.5, 1.5]
    assert compiles == []


def test_values_as_python_objects() -> None:
    x = Tensor([[1.5, -2.0]], device=D)
    assert x.tolist() == [[1.5, -2.0]]
    assert x[0, 0].item() == 1.5 and float(x[0, 1]) == -2.0 and int(x[0, 0]) == 1
    assert bool(x.sum() < 0) is True
    assert len(x) == 1 and x.ndim == 2
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)


def test_numpy_arrays_on_the_left_give_tensors() -> None:
    x = Tensor([1.0, 2.0], device=D)
    y = np.array([10.0, 20.0], np.float32) + x
    assert isinstance(y, Tensor) and y.numpy().tolist() == [11.0, 22.0]
    assert isinstance(np.float32(2) * x, Tensor)


def test_moving_between_devices() -> None:
    x = Tensor([1.0, 2.0], device=D)
    assert x.to(D) is x
    moved = Tensor(x * 2, dtype="i32", device="cpu-c")
    assert moved.device == "cpu-c" and moved.dtype == "i32"
    if device_problem("cpu-c") is None:
        assert moved.tolist() == [2, 4]
    y = Tensor([1.0], device="cpu-c")
    with pytest.raises(ValueError, match="different devices: interp and cpu-c"):
        x + y


def test_default_device_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_DEVICE", "interp")
    assert Tensor([1.0]).device == "interp"
    monkeypatch.delenv("KILN_DEVICE")
    assert Tensor([1.0]).device == "cpu-llvm"


# ------------------------------------------------------------------------------------------- IR


def test_to_mlir_is_accepted_by_kiln_opt_and_kiln_run(cli, tmp_path) -> None:
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3), device=D)
    y = (x.softmax(axis=1) * 2).sum(0)
    text = y.to_mlir("softmax_sum")
    assert "func.func @softmax_sum(%0: !graph.tensor<2x3xf32>) -> !graph.tensor<3xf32>" in text
    path = tmp_path / "y.mlir"
    path.write_text(text)
    opt = cli(kiln_opt.run, [str(path), "-p", "graph-decompose"])
    assert opt.code == 0, opt.err
    assert "graph.softmax" not in opt.out and "graph.exp_nonpositive " in opt.out
    ran = cli(kiln_run.run, [str(path), "--device", "interp", "--input", "2x3xf32=0,1,2,3,4,5"])
    assert ran.code == 0, ran.err
    shape, values = ran.out.strip().split("=", 1)
    assert shape == "3xf32"
    np.testing.assert_allclose([float(v) for v in values.strip("[]").split()], y.numpy(), rtol=1e-6)


def test_to_mlir_inside_a_trace_shows_the_symbolic_inputs() -> None:
    from kiln.jit import Dim

    seen: list[str] = []

    @jit(dims={"x": {0: Dim("B", 1, 9)}}, device=D)
    def f(x):
        y = x.relu().sum(1)
        seen.append(y.to_mlir())
        return y

    f(Tensor(np.ones((2, 3), np.float32), device=D))
    assert "attributes {graph.dims = #graph.dims<B = [1, 9]>}" in seen[0]
    assert "-> !graph.tensor<Bxf32>" in seen[0]


# ------------------------------------------------------------------------------------------- errors


def test_errors_say_what_is_wrong() -> None:
    x = Tensor(np.zeros((2, 3), np.float32), device=D)
    with pytest.raises(ValueError, match=r"shapes \[2, 3\], \[4\] do not broadcast"):
        x + Tensor(np.zeros(4, np.float32), device=D)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for ui8"):
        Tensor([1, 2], dtype="ui8", device=D) + 300
    with pytest.raises(TypeError, match="boolean negative"):
        -Tensor([True], device=D)
    with pytest.raises(TypeError, match="depends on its values"):
        x[Tensor([True, False], device=D)]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0 with size 2"):
        x[2]
    with pytest.raises(ValueError, match=r"cannot reshape a tensor of shape \(2, 3\) into shape \(4, -1\)"):
        x.reshape(4, -1)
    with pytest.raises(ValueError, match=r"cannot broadcast a tensor of shape \(2, 3\) to \(3, 3\)"):
        x.expand(3, 3)
    with pytest.raises(TypeError, match="unknown dtype"):
        x.cast("f128")
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        Tensor([2], device=D) ** -1
    with pytest.raises(TypeError, match="conv2d needs float tensors"):
        Tensor(np.zeros((1, 1, 3, 3), np.int32), device=D).conv2d(Tensor(np.zeros((1, 1, 1, 1), np.int32), device=D))


def test_escaped_placeholder_is_not_readable() -> None:
    kept = []
    jit(lambda x: kept.append(x) or x + 1, device=D)(Tensor([1.0], device=D))
    with pytest.raises(TraceError, match="escaped"):
        kept[0].item()
