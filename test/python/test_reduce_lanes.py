"""``uop.reduce_lanes``: one order of the lanes (the upper half onto the lower half) on the uop interpreter, the
CPU targets (cpu-llvm's shuffle steps, cpu-c's prelude helpers and its pairwise lanes) and the GPU targets'
decomposition; and the linearizer makes it for a reduce over an unrolled range outside any row."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler.registry import make_context
from kiln.dialects import uop as U
from kiln.dialects.types import to_numpy
from kiln.interpreters.uop import launch
from kiln.passes.uop_decompose import UopDecompose
from xdsl.parser import Parser

from kernel_ir import linearize, ops_of
from test_c_backend import assert_same_floats, build
from test_llvm_backend import jit
from test_vector_alu import QKT

ROWS = """
uop.kernel @rows attributes {core_extent = "R", core_work = 48 : i64, symbols = ["R"]} {
  %x = uop.param 0 : !uop.ptr<T>
  %out = uop.param 1 : !uop.ptr<T>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %n = uop.const N : index
  %c1 = uop.const 1 : index
  %c2 = uop.const 2 : index
  %c3 = uop.const 3 : index
  %i = uop.range %lo, %hi : index
  %at = uop.mul %i, %n : index
  %v = uop.load %x[%at] : vector<NxT>
  %s = uop.reduce_lanes FIRST %v : vector<NxT>
  %m = uop.reduce_lanes max %v : vector<NxT>
  %l = uop.reduce_lanes min %v : vector<NxT>
  %o0 = uop.mul %i, %c3 : index
  %o1 = uop.add %o0, %c1 : index
  %o2 = uop.add %o0, %c2 : index
  uop.store %out[%o0], %s
  uop.store %out[%o1], %m
  uop.store %out[%o2], %l
  uop.end %i
}
"""
"""Each row of N lanes reduced three ways: FIRST (add or mul), max and min."""


def _rows(dtype: str, lanes: int, first: str) -> str:
    return ROWS.replace("vector<NxT>", f"vector<{lanes}x{dtype}>").replace("<T>", f"<{dtype}>").replace(
        "const N", f"const {lanes}").replace("FIRST", first)  # fmt: skip


def _pairwise(x: np.ndarray, combine) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Each row's lanes combined as the op defines: the upper half onto the lower half until one is left."""
    while x.shape[1] > 1:
        half = x.shape[1] // 2
        x = combine(x[:, :half], x[:, half:])
    return x[:, 0]


def _inputs(dtype: str, lanes: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    if dtype.startswith("f"):
        x = (rng.standard_normal((6, lanes)) * 10.0 ** rng.integers(-3, 8, (6, lanes))).astype(to_numpy(dtype))
        x[1, 3] = np.nan
        x[2, :] = -np.inf
        x[3, 0] = np.inf
        x[4, :] = [1e8, 1.0, -1e8, 1.0] * (lanes // 4)  # a chain over the lanes would lose the ones
        return x
    return rng.integers(-1000, 1000, (6, lanes)).astype(to_numpy(dtype))


def _want(x: np.ndarray, first: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        combine = np.add if first == "add" else np.multiply
        parts = [_pairwise(x, combine), _pairwise(x, lambda a, b: np.where(np.isnan(a) | (a > b), a, b)),
                 _pairwise(x, lambda a, b: np.where(np.isnan(a) | (a < b), a, b))]  # fmt: skip
    return np.stack(parts, axis=1).reshape(-1)


def _check(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit (any nan matching any nan)."""
    if got.dtype.kind == "f":
        assert_same_floats(got, want)
    else:
        np.testing.assert_array_equal(got, want)


CASES = [("f32", 16, "add"), ("f32", 4, "mul"), ("f64", 8, "add"), ("i32", 8, "add"), ("i32", 4, "mul")]


@pytest.mark.parametrize(("dtype", "lanes", "first"), CASES)
def test_the_interpreter_combines_the_upper_half_onto_the_lower(dtype: str, lanes: int, first: str) -> None:
    x = _inputs(dtype, lanes)
    out = np.zeros(3 * len(x), x.dtype)
    (kernel,) = Parser(make_context(), _rows(dtype, lanes, first)).parse_module().ops
    launch(kernel, [x.reshape(-1), out], {"R": len(x)})  # type: ignore[arg-type]
    _check(out, _want(x, first))
    if dtype == "f32" and first == "add":
        assert out[12] == lanes // 2  # the halves cancel the 1e8s first: in lane order the ones would be lost


@pytest.mark.parametrize(("dtype", "lanes", "first"), CASES)
@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_the_cpus_reduce_in_the_same_order(device: str, dtype: str, lanes: int, first: str) -> None:
    x = _inputs(dtype, lanes)
    out = np.zeros(3 * len(x), x.dtype)
    text = _rows(dtype, lanes, first)
    if device == "cpu-llvm":
        jit(text, "rows")(x, out, core=(0, len(x)))
    else:
        build(text)["rows"](x, out, 0, len(x))
    _check(out, _want(x, first))


@pytest.mark.parametrize("target", ["webgpu", "cuda"])
def test_the_gpus_get_the_lanes_in_the_same_order(target: str) -> None:
    ctx = make_context()
    module = Parser(ctx, _rows("f32", 8, "add")).parse_module()
    UopDecompose(target=target).apply(ctx, module)
    module.verify()
    (kernel,) = module.ops
    assert not [op for op in ops_of(kernel) if isinstance(op, U.ReduceLanesOp)]  # type: ignore[arg-type]
    x = _inputs("f32", 8)
    out = np.zeros(3 * len(x), x.dtype)
    launch(kernel, [x.reshape(-1), out], {"R": len(x)})  # type: ignore[arg-type]
    assert_same_floats(out, _want(x, "add"))


def test_the_linearizer_reduces_unrolled_k_lanes_whole() -> None:
    """q @ k^T's 4 unrolled k lanes: per column one reduce_lanes of its vector accumulator, no extracts; the
    interpreter's result is numpy's within rounding."""
    k = linearize(QKT)
    reduces = [op for op in ops_of(k) if isinstance(op, U.ReduceLanesOp)]
    assert len(reduces) == 4 and {op.reduce_kind for op in reduces} == {"add"}
    assert not [op for op in ops_of(k) if isinstance(op, U.ExtractOp)]
    rng = np.random.default_rng(5)
    q, kk = (rng.standard_normal((3, 8)).astype(np.float32) for _ in range(2))
    out = np.zeros((3, 3), np.float32)
    launch(k, [q.reshape(-1), kk.reshape(-1), out.reshape(-1)])
    np.testing.assert_allclose(out, q @ kk.T * 0.5, rtol=1e-5, atol=1e-6)
