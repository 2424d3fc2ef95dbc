"""Programs at the edges (issue 16) give the interpreter's (numpy's) answer on every device that runs them.

Each case is a reproducer: narrow-float sums, loops longer than a target allows, zero-size dims, rank-0 arguments,
IEEE special values of decomposed ops. A device that is not available here (webgpu without a driver, cuda without
a GPU) skips; a dtype a device cannot hold (f16 on webgpu without ``shader-f16``) skips that device only.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from ml_dtypes import bfloat16

from xdsl.utils.exceptions import PassFailedException, VerifyException

from kiln.compiler.registry import PIPELINES, make_context
from kiln.runtime.devices import device_available
from kiln.compiler.module import parse_module
from kiln.support.errors import KilnError
from kiln.capabilities.description import get_target
from kiln.compiler.pipeline import build_pipeline
from kiln.compiler.driver import compile

COMPILED = ["cpu-llvm", "cpu-c", "webgpu", "cuda"]


def run(device: str, text: str, *arrays: np.ndarray) -> list[np.ndarray]:
    """``@f`` of ``text`` on ``device``; skips when the device, or a dtype of the program, is missing here."""
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    try:
        program = compile(text, "f", device)
    except KilnError as e:
        if re.search(r"uses (f16|bf16), which \S+ does not support", str(e)):
            pytest.skip(str(e))
        raise
    return program(*arrays)


def same_as_interp(device: str, text: str, *arrays: np.ndarray, rtol: float = 1e-6) -> list[np.ndarray]:
    """Run on ``device`` and on the interpreter; equal values, NaNs and signs of zeros (floats within ``rtol``)."""
    got = run(device, text, *arrays)
    want = compile(text, "f", "interp")(*arrays)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        np.testing.assert_allclose(g64, w64, rtol=rtol, equal_nan=True, err_msg=f"{device}:\n{text}")
        assert (np.signbit(g64) == np.signbit(w64)).all() or np.isnan(w64).any(), f"signs differ on {device}: {g} {w}"
    return got


def lower(text: str, pipeline: str) -> str:
    """``text`` after the passes of ``pipeline``, printed."""
    module, ctx = parse_module(text), make_context()
    for p in build_pipeline(pipeline):
        p.apply(ctx, module)
    return str(module)


def tensor(shape: tuple[int, ...], dtype: str) -> str:
    return f"!graph.tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dtype}>"


def reduce_program(op: str, shape: tuple[int, ...], dtype: str, axes: tuple[int, ...]) -> str:
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    t, r = tensor(shape, dtype), tensor(out, dtype)
    return (
        f"func.func @f(%x: {t}) -> {r} {{\n"
        f"  %s = graph.{op} %x {{axes = array<i64: {', '.join(map(str, axes))}>, keepdims = false}} : ({t}) -> {r}\n"
        f"  func.return %s : {r}\n}}"
    )


# -- 1. f16/bf16 reductions accumulate in f32 -------------------------------------------------------------------


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_narrow_float_sum_accumulates_in_f32(device: str, dtype: str) -> None:
    np_dtype = np.float16 if dtype == "f16" else bfloat16
    x = np.full(1000, 0.1, np_dtype)
    (got,) = same_as_interp(device, reduce_program("reduce_sum", (1000,), dtype, (0,)), x, rtol=1e-2)
    assert abs(float(got) - 100.0) < 0.5  # f16 steps gave 105.2 (cpu-c), bf16 ones 32


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize("op, value", [("reduce_sum", 0.1), ("reduce_prod", 1.001), ("mean", 0.3)])
def test_narrow_float_reductions_keep_f32_through_partial_sums(device: str, op: str, value: float) -> None:
    """64 rows of 4096: long enough for unrolled, upcast and grouped partial results on every target."""
    x = np.full((64, 4096), value, np.float16)
    same_as_interp(device, reduce_program(op, (64, 4096), "f16", (1,)), x, rtol=2e-3)


@pytest.mark.parametrize("target", ["cpu-llvm", "cpu-c", "webgpu", "cuda"])
def test_narrow_float_accumulators_are_f32_after_every_optimization(target: str) -> None:
    pipeline = PIPELINES["lower-to-uop"].replace("cpu-llvm", target)
    lowered = lower(reduce_program("reduce_sum", (64, 4096), "f16", (1,)), pipeline)
    accumulators = re.findall(r"uop\.define_(?:acc|local) .*", lowered)
    assert accumulators and all("f16" not in a for a in accumulators), accumulators


def test_narrow_float_reduce_is_an_f32_kernel_reduce() -> None:
    text = lower(reduce_program("reduce_sum", (1000,), "bf16", (0,)), PIPELINES["lower-to-kernel"])
    assert re.search(r"kernel\.reduce add .* : f32", text) and "kernel.cast" in text


# -- 2. loops longer than webgpu runs -------------------------------------------------------------------------------


MATMUL_LONG_K = """func.func @f(%x: !graph.tensor<1x70001xf32>, %y: !graph.tensor<70001x3xf32>) -> !graph.tensor<1x3xf32> {
  %m = graph.matmul %x, %y : (!graph.tensor<1x70001xf32>, !graph.tensor<70001x3xf32>) -> !graph.tensor<1x3xf32>
  func.return %m : !graph.tensor<1x3xf32>
}"""


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize(
    "shape, axes",
    [((2, 70001), (1,)), ((301, 301), (0, 1)), ((1, 65535), (1,)), ((1, 65536), (1,))],
    ids=["2x70001", "301x301-nested", "limit", "limit-plus-one"],
)
def test_long_reductions_are_complete(device: str, shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
    (got,) = same_as_interp(device, reduce_program("reduce_sum", shape, "f32", axes), np.ones(shape, np.float32))
    assert np.all(got == np.prod([shape[a] for a in axes]))


@pytest.mark.parametrize("device", COMPILED)
def test_matmul_with_a_long_k_is_complete(device: str) -> None:
    (got,) = same_as_interp(device, MATMUL_LONG_K, np.ones((1, 70001), np.float32), np.ones((70001, 3), np.float32))
    assert np.all(got == 70001)


def _kernel_optimize(shape: tuple[int, ...], search: str) -> str:
    pipeline = PIPELINES["lower-to-kernel"] + f",kernel-optimize{{target=webgpu search={search}}}"
    return lower(reduce_program("reduce_sum", shape, "f32", (1,)), pipeline)


def test_webgpu_loop_limit_is_data_and_crossing_it_by_one_splits_the_loop() -> None:
    assert get_target("webgpu").max_loop_iterations == 65535
    assert get_target("cpu-llvm").max_loop_iterations is None
    assert "grouptop" not in _kernel_optimize((1, 65535), "heuristic")
    assert re.search(r'opts = \[.*"grouptop:0:\d+"', _kernel_optimize((1, 65536), "heuristic"))


def test_webgpu_refuses_a_loop_it_would_cut_short() -> None:
    _kernel_optimize((1, 65535), "none")
    with pytest.raises(PassFailedException, match="would run 65536 loop iterations, more than target webgpu allows"):
        _kernel_optimize((1, 65536), "none")


# -- 3. zero-size dims --------------------------------------------------------------------------------------------

EMPTY_MATMUL = """func.func @f(%x: !graph.tensor<0x5xf32>, %y: !graph.tensor<5x0xf32>) -> !graph.tensor<5x5xf32> {
  %m = graph.matmul %y, %x : (!graph.tensor<5x0xf32>, !graph.tensor<0x5xf32>) -> !graph.tensor<5x5xf32>
  func.return %m : !graph.tensor<5x5xf32>
}"""

EMPTY_VALUES = """func.func @f(%x: !graph.tensor<0x5xf32>, %y: !graph.tensor<5xf32>) -> (!graph.tensor<0x5xf32>, !graph.tensor<5x0xf32>) {
  %e = graph.exp %x : !graph.tensor<0x5xf32>
  %a = graph.add %e, %y : (!graph.tensor<0x5xf32>, !graph.tensor<5xf32>) -> !graph.tensor<0x5xf32>
  %t = graph.permute %a {perm = array<i64: 1, 0>} : (!graph.tensor<0x5xf32>) -> !graph.tensor<5x0xf32>
  func.return %a, %t : !graph.tensor<0x5xf32>, !graph.tensor<5x0xf32>
}"""


@pytest.mark.parametrize("device", COMPILED)
def test_matmul_over_an_empty_k_is_zeros(device: str) -> None:
    (got,) = same_as_interp(device, EMPTY_MATMUL, np.zeros((0, 5), np.float32), np.zeros((5, 0), np.float32))
    assert got.shape == (5, 5) and not got.any()


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("op, identity", [("reduce_sum", 0.0), ("reduce_prod", 1.0), ("mean", np.nan)])
def test_reductions_over_an_empty_axis_are_their_identity(device: str, dtype: str, op: str, identity: float) -> None:
    x = np.zeros((0, 5), np.float16 if dtype == "f16" else np.float32)
    (got,) = same_as_interp(device, reduce_program(op, (0, 5), dtype, (0,)), x)
    assert got.shape == (5,) and np.array_equal(got, np.full(5, identity, got.dtype), equal_nan=True)


@pytest.mark.parametrize("device", COMPILED)
def test_values_with_no_elements_flow_through(device: str) -> None:
    a, t = same_as_interp(device, EMPTY_VALUES, np.zeros((0, 5), np.float32), np.ones(5, np.float32))
    assert a.shape == (0, 5) and t.shape == (5, 0)


def test_empty_matmul_lowers_to_a_kernel_without_an_empty_loop() -> None:
    text = lower(EMPTY_MATMUL, PIPELINES["lower-to-kernel"])
    assert "reduce" not in text and "kernel.store" in text


@pytest.mark.parametrize("op", ["reduce_max", "reduce_min"])
def test_max_and_min_over_an_empty_axis_do_not_verify(op: str) -> None:
    with pytest.raises((VerifyException, KilnError), match="axis 0 has size 0"):
        parse_module(reduce_program(op, (0, 5), "f32", (0,))).verify()


# -- 4. rank-0 arguments ----------------------------------------------------------------------------------------

SCALAR = """func.func @f(%s: !graph.tensor<f32>, %x: !graph.tensor<3xf32>) -> (!graph.tensor<f32>, !graph.tensor<3xf32>) {
  %n = graph.neg %s : !graph.tensor<f32>
  %m = graph.mul %s, %x : (!graph.tensor<f32>, !graph.tensor<3xf32>) -> !graph.tensor<3xf32>
  func.return %n, %m : !graph.tensor<f32>, !graph.tensor<3xf32>
}"""


@pytest.mark.parametrize("device", COMPILED)
def test_rank0_arguments_bind_as_scalars(device: str) -> None:
    n, m = same_as_interp(device, SCALAR, np.array(1.5, np.float32), np.array([1, 2, 3], np.float32))
    assert n.shape == () and float(n) == -1.5 and list(m) == [1.5, 3.0, 4.5]


# -- 5. IEEE special values of decomposed ops --------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -3.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30, 100.0], np.float32)
"""Special values whose results are normal numbers, infinities or NaN: WGSL lets a device flush subnormal inputs and
results to zero, and lavapipe does (0.5 ** 127 is 0 there)."""


def _elementwise(op: str, arity: int, n: int) -> str:
    t = tensor((n,), "f32")
    params = ", ".join(f"%a{i}: {t}" for i in range(arity))
    operands = ", ".join(f"%a{i}" for i in range(arity))
    sig = f"({', '.join([t] * arity)}) -> {t}" if arity == 2 else t
    return f"func.func @f({params}) -> {t} {{\n  %r = graph.{op} {operands} : {sig}\n  func.return %r : {t}\n}}"


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize("op", ["pow", "mod", "div"])
def test_binary_special_values_match_numpy(device: str, op: str) -> None:
    x, y = (a.ravel().copy() for a in np.meshgrid(SPECIAL, SPECIAL))
    same_as_interp(device, _elementwise(op, 2, x.size), x, y, rtol=1e-5)


@pytest.mark.parametrize("device", COMPILED)
@pytest.mark.parametrize("op", ["tanh", "erf", "exp", "log", "sqrt", "sign", "sigmoid", "exp2", "log2"])
def test_unary_special_values_match_numpy(device: str, op: str) -> None:
    same_as_interp(device, _elementwise(op, 1, SPECIAL.size), SPECIAL, rtol=1e-5)


@pytest.mark.parametrize("device", COMPILED)
def test_pow_of_negative_zero_keeps_its_sign(device: str) -> None:
    x = np.array([-0.0, -0.0, -0.0, 0.0], np.float32)
    y = np.array([-1.0, 3.0, 2.0, -1.0], np.float32)
    (got,) = same_as_interp(device, _elementwise("pow", 2, 4), x, y)
    assert list(got) == [-np.inf, 0.0, 0.0, np.inf] and list(np.signbit(got)) == [True, True, False, False]


POW_EXPONENTS = (0.25, 0.5, 0.75, 1.0, 2.0, 3.0, 3.5, 4.0, -0.25, -0.5, -0.75, -1.0)
"""Constant exponents graph-decompose turns into multiplies and square roots (LRN's 0.75 among them)."""


def _pow_by_constants(n: int) -> str:
    t = tensor((n,), "f32")
    body = "".join(f"  %c{i} = graph.constant {c:e} : f32 : !graph.tensor<f32>\n"
                   f"  %r{i} = graph.pow %x, %c{i} : ({t}, !graph.tensor<f32>) -> {t}\n" for i, c in enumerate(POW_EXPONENTS))
    results = ", ".join(f"%r{i}" for i in range(len(POW_EXPONENTS)))
    types = ", ".join([t] * len(POW_EXPONENTS))
    return f"func.func @f(%x: {t}) -> ({types}) {{\n{body}  func.return {results} : {types}\n}}"


@pytest.mark.parametrize("device", COMPILED)
def test_pow_by_a_constant_matches_numpy(device: str) -> None:
    """Special values (-0.0 ** 0.5 is +0, -inf ** 0.75 is +inf, finite negatives NaN) and accuracy on positives."""
    x = np.concatenate([SPECIAL, np.geomspace(1e-3, 1e3, 49, dtype=np.float32)])
    got = same_as_interp(device, _pow_by_constants(x.size), x, rtol=1e-5)
    for c, g in zip(POW_EXPONENTS, got):
        np.testing.assert_allclose(g[SPECIAL.size:], np.power(x[SPECIAL.size:].astype(np.float64), c), rtol=1e-5)
    assert "graph.pow" not in lower(_pow_by_constants(x.size), "graph-decompose")


BF16_COPY = """func.func @f(%x: !graph.tensor<1xbf16>, %y: !graph.tensor<4xf32>) -> (!graph.tensor<2x1xbf16>, !graph.tensor<4xbf16>) {
  %e = graph.expand %x : (!graph.tensor<1xbf16>) -> !graph.tensor<2x1xbf16>
  %c = graph.cast %y : (!graph.tensor<4xf32>) -> !graph.tensor<4xbf16>
  func.return %e, %c : !graph.tensor<2x1xbf16>, !graph.tensor<4xbf16>
}"""


@pytest.mark.parametrize("device", COMPILED)
def test_bf16_copies_and_casts_need_no_runtime_library(device: str) -> None:
    """LLVM calls __truncsfbf2 for bf16 on hosts without AVX512-BF16 (the JIT process had none)."""
    y = np.array([0.1, np.nan, -np.inf, 3.0e38], np.float32)
    same_as_interp(device, BF16_COPY, np.array([0.546875], bfloat16), y)
