"""Gradients of every differentiable graph op against central finite differences.

Each case is a function of tensors; the check differentiates ``sum(f(x) * r)`` for a random cotangent ``r``
with ``kiln.grad`` (the rules of ``kiln.passes.autodiff``) and compares with central differences of the same
function, in f64 on the interpreter. The same gradients computed by cpu-llvm in f32 must agree with the f64
ones within f32 tolerances. Hypothesis draws shapes, broadcasting and axes for the elementwise ops and
reductions; the composites run on fixed, awkward configurations (strides, padding, dilation, groups).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import kiln
from kiln import Tensor
from kiln.dialects import graph
from kiln.passes.autodiff import GRADIENTS

EPS = 1e-6


def numeric_grads(fn: Callable[..., Tensor], arrays: list[np.ndarray], r: np.ndarray) -> list[np.ndarray]:
    def value(xs: list[np.ndarray]) -> float:
        return float((fn(*[Tensor(x, device="interp") for x in xs]).numpy() * r).sum())

    out = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[i][idx] += EPS
            minus[i][idx] -= EPS
            g[idx] = (value(plus) - value(minus)) / (2 * EPS)
        out.append(g)
    return out


def kiln_grads(fn: Callable[..., Tensor], arrays: list[np.ndarray], r: np.ndarray, device: str, dtype) -> list[np.ndarray]:
    xs = [Tensor(a.astype(dtype), device=device) for a in arrays]
    loss = (fn(*xs) * Tensor(r.astype(dtype), device=device)).sum()
    return [g.numpy() for g in kiln.grad(loss, xs)]


def check(fn: Callable[..., Tensor], *arrays: np.ndarray, seed: int = 0) -> None:
    arrays_ = [np.asarray(a, np.float64) for a in arrays]
    out_shape = fn(*[Tensor(a, device="interp") for a in arrays_]).shape
    r = np.random.default_rng(seed).standard_normal(out_shape)
    exact = kiln_grads(fn, arrays_, r, "interp", np.float64)
    for i, (e, n) in enumerate(zip(exact, numeric_grads(fn, arrays_, r))):
        np.testing.assert_allclose(e, n, rtol=1e-5, atol=1e-6, err_msg=f"gradient of argument {i}")


def data(shape, seed=1, low=-2.0, high=2.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(low, high, shape)


def away_from_zero(shape, seed=1) -> np.ndarray:
    a = data(shape, seed, 0.5, 2.0)
    return a * np.where(np.random.default_rng(seed + 7).random(shape) < 0.5, -1, 1)


UNARY = {
    "neg": (Tensor.neg, away_from_zero), "abs": (Tensor.abs, away_from_zero), "relu": (Tensor.relu, away_from_zero),
    "exp": (Tensor.exp, data), "exp2": (Tensor.exp2, data), "log": (Tensor.log, lambda s, seed=1: data(s, seed, 0.5, 3)),
    "log2": (Tensor.log2, lambda s, seed=1: data(s, seed, 0.5, 3)), "sin": (Tensor.sin, data), "cos": (Tensor.cos, data),
    "sqrt": (Tensor.sqrt, lambda s, seed=1: data(s, seed, 0.5, 3)), "rsqrt": (Tensor.rsqrt, lambda s, seed=1: data(s, seed, 0.5, 3)),
    "reciprocal": (Tensor.reciprocal, away_from_zero), "tanh": (Tensor.tanh, data), "sigmoid": (Tensor.sigmoid, data),
    "gelu": (Tensor.gelu, data), "erf": (Tensor.erf, data), "erfc": (Tensor.erfc, data),
    "tan": (Tensor.tan, lambda s, seed=1: data(s, seed, -1.2, 1.2)), "atan": (Tensor.atan, data),
    "asin": (Tensor.asin, lambda s, seed=1: data(s, seed, -0.9, 0.9)),
    "acos": (Tensor.acos, lambda s, seed=1: data(s, seed, -0.9, 0.9)),
    "sinh": (Tensor.sinh, data), "cosh": (Tensor.cosh, data), "asinh": (Tensor.asinh, data),
    "acosh": (Tensor.acosh, lambda s, seed=1: data(s, seed, 1.2, 3)),
    "atanh": (Tensor.atanh, lambda s, seed=1: data(s, seed, -0.9, 0.9)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str) -> None:
    fn, draw = UNARY[name]
    check(fn, draw((2, 3)))


def _shapes_broadcasting(draw_shape: st.SearchStrategy) -> st.SearchStrategy:
    """Two numpy-broadcastable shapes: some dims of each dropped to 1, leading dims dropped from one."""

    @st.composite
    def pair(draw):
        full = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
        a = [d if draw(st.booleans()) else 1 for d in full]
        b = [d if draw(st.booleans()) else 1 for d in full][draw(st.integers(0, len(full) - 1)) :]
        return tuple(a), tuple(b)

    return pair()


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b, "max": Tensor.maximum, "min": Tensor.minimum, "mod": lambda a, b: a % b,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=6, deadline=None)
@given(shapes=_shapes_broadcasting(st.nothing()), seed=st.integers(0, 100))
def test_binary_broadcasting(name: str, shapes, seed: int) -> None:
    a_shape, b_shape = shapes
    a = data(a_shape, seed, 0.5, 2.0) if name == "pow" else data(a_shape, seed)
    b = away_from_zero(b_shape, seed + 1) if name in ("div", "mod") else data(b_shape, seed + 1)
    if name == "mod":  # stay away from the jumps of a % b
        a = np.round(a * 4) / 4 + 0.1
        b = np.where(np.abs(b) < 1, np.sign(b), np.round(b)) * 1.0
    check(BINARY[name], a, b, seed=seed)


REDUCTIONS = {"sum": Tensor.sum, "prod": Tensor.prod, "max": Tensor.max, "min": Tensor.min, "mean": Tensor.mean}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), data_=st.data(), keepdims=st.booleans())
def test_reductions(name: str, shape, data_, keepdims: bool) -> None:
    axes = data_.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    x = away_from_zero(tuple(shape), seed=len(axes)) if name == "prod" else data(tuple(shape), seed=len(shape))
    check(lambda t: REDUCTIONS[name](t, axis=tuple(axes) or None, keepdims=keepdims), x)


MOVEMENT = {
    "reshape": (lambda t: t.reshape(3, 4), (2, 6)),
    "permute": (lambda t: t.permute(2, 0, 1), (2, 3, 2)),
    "expand": (lambda t: t.expand(2, 3, 4), (3, 1)),
    "pad": (lambda t: t.pad(((1, 0), (2, 1)), value=3.0), (2, 3)),
    "shrink_strided": (lambda t: t[1::2, ::-3], (5, 7)),
    "flip": (lambda t: t.flip(1), (2, 3)),
    "cat": (lambda t: t.cat(t * 2, t[:1], axis=0), (2, 3)),
    "stack": (lambda t: t.stack(t.exp(), axis=1), (2, 3)),
    "contiguous": (lambda t: (t * 2).contiguous() + t, (2, 3)),
    "squeeze_index": (lambda t: t[1, None, :, 0], (2, 3, 2)),
}


@pytest.mark.parametrize("name", sorted(MOVEMENT))
def test_movement(name: str) -> None:
    fn, shape = MOVEMENT[name]
    check(fn, data(shape))


def test_where_and_cast_paths() -> None:
    check(lambda a, b: (a > 0).where(a * b, b.exp()), data((2, 3)), data((3,), seed=2))
    check(lambda a: (a > 0).cast("f64") * a + a.cast("f32").cast("f64") * 0, data((4,)))


def _gather(x: Tensor) -> Tensor:
    return x.gather(1, Tensor(np.array([[0, 3, 3], [2, 0, 1]], np.int64), device=x.device))


COMPOSITES = {
    "matmul_2d": (lambda a, b: a @ b, [(3, 4), (4, 2)]),
    "matmul_vec_mat": (lambda a, b: a @ b, [(4,), (4, 2)]),
    "matmul_mat_vec": (lambda a, b: a @ b, [(3, 4), (4,)]),
    "matmul_batch_broadcast": (lambda a, b: a @ b, [(2, 1, 3, 4), (3, 4, 2)]),
    "softmax": (lambda a: a.softmax(axis=0), [(3, 4)]),
    "log_softmax": (lambda a: a.log_softmax(axis=-1), [(3, 4)]),
    "layernorm": (lambda a: a.layernorm(axis=-1), [(3, 4)]),
    "layernorm_affine_2axes": (lambda a, w, b: a.layernorm(w, b, axis=(1, 2)), [(2, 2, 3), (2, 3), (2, 3)]),
    "conv2d": (lambda x, w, b: x.conv2d(w, b), [(2, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    "conv2d_stride_pad_dilate_groups": (
        lambda x, w: x.conv2d(w, stride=2, padding=(1, 2), dilation=(2, 1), groups=2), [(1, 4, 7, 6), (4, 2, 2, 3)]
    ),
    "max_pool2d": (lambda x: x.max_pool2d(2), [(1, 2, 4, 4)]),
    "max_pool2d_overlap_pad": (lambda x: x.max_pool2d(3, stride=2, padding=1), [(1, 1, 5, 5)]),
    "avg_pool2d": (lambda x: x.avg_pool2d((2, 3), stride=(1, 2), padding=1), [(1, 2, 4, 5)]),
    "gather": (_gather, [(2, 4)]),
    "cumsum": (lambda x: x.cumsum(axis=1), [(2, 4)]),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composites(name: str) -> None:
    fn, shapes = COMPOSITES[name]
    check(fn, *[data(s, seed=i + 3) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("name", ["matmul_batch_broadcast", "conv2d_stride_pad_dilate_groups", "layernorm_affine_2axes",
                                  "max_pool2d_overlap_pad", "log_softmax", "gather"])
def test_cpu_llvm_f32_matches_f64(name: str) -> None:
    fn, shapes = COMPOSITES[name]
    arrays = [data(s, seed=i + 3) for i, s in enumerate(shapes)]
    r = np.random.default_rng(0).standard_normal(fn(*[Tensor(a, device="interp") for a in arrays]).shape)
    exact = kiln_grads(fn, arrays, r, "interp", np.float64)
    got = kiln_grads(fn, arrays, r, "cpu-llvm", np.float32)
    for e, g in zip(exact, got):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, e, rtol=2e-4, atol=2e-5)


def test_every_graph_op_has_a_rule() -> None:
    assert {op.name.removeprefix("graph.") for op in graph.ALL_OPS} <= set(GRADIENTS)


def test_not_differentiable_is_named() -> None:
    x = Tensor(np.ones(4, np.float16), requires_grad=True)
    y = Tensor._of(__import__("kiln.jit.lazy", fromlist=["apply"]).apply("bitcast", [x._node], result=((4,), "bf16")), "cpu-llvm")
    with pytest.raises(RuntimeError, match="graph.bitcast is not differentiable"):
        y.cast("f32").sum().backward()
