"""The numpy API a new user expects: fancy indexing, assignment, reductions and creation functions, checked
against numpy; and unknown devices rejected when the tensor is made."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor

D = "cpu-llvm"
A = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize(
    "key",
    [np.array([1, 0]), [2, -1, 2], (slice(None), [3, -1, 0]), (1, np.array([[0, 1], [3, 2]])),
     (Ellipsis, np.array([0, 0])), np.array([True, False, True]), np.zeros((3, 4), bool) | (A > 6)],
)
def test_getitem_with_arrays_is_numpys(key) -> None:
    np.testing.assert_array_equal(Tensor(A, device=D)[key].numpy(), A[key])


def test_getitem_with_an_integer_tensor_and_a_bool_tensor() -> None:
    t = Tensor(A, device=D)
    np.testing.assert_array_equal(t[Tensor(np.array([2, 0]), device=D)].numpy(), A[[2, 0]])
    with pytest.raises(TypeError, match="depends on its values"):
        t[t > 3]


@pytest.mark.parametrize(
    "key, value",
    [((slice(1, None), slice(None, None, 2)), -1.0), ((0,), np.array([9, 8, 7, 6])), ((slice(None, None, -2), 1), 5.0),
     ((Ellipsis, None, 0), [[1.0], [2.0], [3.0]]), (([0, 2, 0],), np.array([[1.0], [2.0], [3.0]]))],
)
def test_setitem_is_numpys_and_seen_through_every_reference(key, value) -> None:
    t = Tensor(A, device=D)
    alias = t
    want = A.copy()
    want[key] = value
    t[key] = value
    np.testing.assert_array_equal(alias.numpy(), want)


def test_setitem_with_a_mask_and_in_place_operators() -> None:
    t = Tensor(A, device=D)
    t[t > 8] = 0
    t *= 2
    want = np.where(A > 8, 0, A) * 2
    np.testing.assert_array_equal(t.numpy(), want)
    with pytest.raises(IndexError, match="known values"):
        t[Tensor(np.array([0, 1]), device=D)] = 1


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_like_numpy(axis, keepdims: bool) -> None:
    t = Tensor(A, device=D)
    for name in ("var", "std"):
        np.testing.assert_allclose(getattr(t, name)(axis, keepdims).numpy(), getattr(A, name)(axis, keepdims=keepdims), rtol=1e-5)
    np.testing.assert_allclose(t.std(axis, keepdims, ddof=1).numpy(), A.std(axis, keepdims=keepdims, ddof=1), rtol=1e-5)
    np.testing.assert_array_equal((t > 5).any(axis, keepdims).numpy(), (A > 5).any(axis, keepdims=keepdims))
    np.testing.assert_array_equal(t.all(axis, keepdims).numpy(), A.all(axis, keepdims=keepdims))


def test_elementwise_and_sizes() -> None:
    t = Tensor(A, device=D)
    np.testing.assert_array_equal(t.clip(2, 9).numpy(), A.clip(2, 9))
    np.testing.assert_array_equal(t.clip(max=3).numpy(), A.clip(max=3))
    np.testing.assert_array_equal(t.square().numpy(), np.square(A))
    assert t.size == t.numel() == 12


def test_creation_like_numpy() -> None:
    np.testing.assert_array_equal(Tensor.eye(3, 4, device=D).numpy(), np.eye(3, 4, dtype=np.float32))
    np.testing.assert_allclose(Tensor.linspace(-1, 2, 7, device=D).numpy(), np.linspace(-1, 2, 7, dtype=np.float32))
    assert Tensor.empty(2, 3, device=D).shape == (2, 3)
    u = Tensor.uniform(1000, low=2, high=3, seed=0, device=D).numpy()
    assert u.dtype == np.float32 and 2 <= u.min() and u.max() < 3
    r = Tensor.randint(3, 7, size=(50,), seed=1, device=D).numpy()
    assert r.dtype == np.int64 and set(r) <= {3, 4, 5, 6}
    np.testing.assert_array_equal(kiln.cat([Tensor(A), Tensor(A)], axis=1).numpy(), np.concatenate([A, A], 1))
    np.testing.assert_array_equal(kiln.stack([Tensor(A), Tensor(A)]).numpy(), np.stack([A, A]))


def test_unknown_devices_are_rejected_when_made() -> None:
    for make in (lambda: Tensor([1, 2], device="gpu"), lambda: Tensor.zeros(2, device="gpu"),
                 lambda: Tensor.arange(3, device="gpu"), lambda: Tensor(A).to("gpu")):
        with pytest.raises(ValueError, match="unknown device 'gpu'"):
            make()
