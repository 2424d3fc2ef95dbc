"""numpy interoperability: __array__, __array_ufunc__, printing, from_numpy."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor

D = "cpu-llvm"


def test_array_realizes_once_in_the_requested_dtype(compiles: list[str]) -> None:
    t = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=D) * 2
    a = np.array(t, dtype=np.float64)
    assert a.dtype == np.float64 and a.tolist() == [[2, 4, 6], [8, 10, 12]]
    assert np.asarray(t).dtype == np.float32 and np.asarray(t).shape == (2, 3)
    assert compiles == ["main"]
    np.asarray(t)[0, 0] = 100  # numpy's copy, not kiln's buffer
    assert t.numpy()[0, 0] == 2


def test_ufuncs_become_lazy_tensor_ops(compiles: list[str]) -> None:
    t = Tensor(np.array([0.5, 1.0, 2.0], np.float32), device=D)
    for result in (np.exp(t), np.add(np.ones(3, np.float32), t), np.ones(3, np.float32) * t, np.maximum(t, 1.0),
                   np.less(1.0, t), np.sqrt(t), np.matmul(t, np.ones(3, np.float32))):
        assert isinstance(result, Tensor) and result.device == D
    assert compiles == []
    np.testing.assert_allclose(np.exp(t).numpy(), np.exp([0.5, 1.0, 2.0]), rtol=1e-6)
    assert (np.less(1.0, t).numpy() == [False, False, True]).all()
    np.testing.assert_allclose((np.array([1.0, 2.0, 3.0], np.float32) - t).numpy(), [0.5, 1.0, 1.0])


def test_a_ufunc_kiln_lacks_is_numpys_type_error() -> None:
    t = Tensor([1.0, 2.0], device=D)
    with pytest.raises(TypeError, match="arctan2"):
        np.arctan2(t, t)
    with pytest.raises(TypeError, match="add"):
        np.add(t, t, out=np.zeros(2))


def test_repr_shows_values_without_computing(compiles: list[str]) -> None:
    t = Tensor(np.array([[1, 2], [3, 4]], np.int32), device=D)
    assert repr(t) == "Tensor([[1, 2],\n        [3, 4]], dtype=i32, device=cpu-llvm)"
    lazy = t + 1
    assert repr(lazy) == "<Tensor i32(2, 2) on cpu-llvm, lazy, not computed yet (str() or .numpy() computes it)>"
    assert compiles == []
    assert str(lazy) == "[[2 3]\n [4 5]]"
    assert "..." in str(Tensor(np.arange(5000, dtype=np.float32), device=D))  # summarized like numpy


def test_from_numpy_copies_with_the_dtype() -> None:
    a = np.arange(4, dtype=np.int16)
    t = Tensor.from_numpy(a)
    a[0] = 9
    assert t.dtype == "i16" and t.numpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(TypeError, match="numpy array"):
        Tensor.from_numpy([1, 2])
