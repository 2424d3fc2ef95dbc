"""``exp_nonpositive``, softmax's exp(x - max): exp's bits wherever its argument is <= 0 or nan.

`graph-decompose` writes softmax's and log_softmax's exp as ``exp_nonpositive``, and `uop-decompose` leaves
out the software exp's clamp from above for it. Both are checked against plain ``exp`` compiled in the same
way, bit for bit, on every device here, and against the interpreter; the compiled softmax kernel has fewer
comparisons.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from kiln.compiler.driver import compile, lower_program
from kiln.compiler.module import parse_module
from kiln.runtime.devices import device_available

DEVICES = [pytest.param(d, marks=pytest.mark.skipif(not device_available(d), reason=f"no {d}"))
           for d in ("cpu-llvm", "cpu-c", "webgpu")]  # fmt: skip

ROWS, COLS = 12, 64


def softmax_spelled(exp: str, rows: int = ROWS, cols: int = COLS) -> str:
    """``@f``: softmax over the last axis written out as graph-decompose does, with ``exp`` as its exp."""
    t, r = f"!graph.tensor<{rows}x{cols}xf32>", f"!graph.tensor<{rows}x1xf32>"
    return f"""func.func @f(%x: {t}) -> {t} {{
  %m = graph.reduce_max %x {{axes = array<i64: 1>, keepdims = true}} : ({t}) -> {r}
  %d = graph.sub %x, %m : ({t}, {r}) -> {t}
  %e = graph.{exp} %d : {t}
  %s = graph.reduce_sum %e {{axes = array<i64: 1>, keepdims = true}} : ({t}) -> {r}
  %y = graph.div %e, %s : ({t}, {r}) -> {t}
  func.return %y : {t}
}}"""


def softmax_op(rows: int = ROWS, cols: int = COLS) -> str:
    t = f"!graph.tensor<{rows}x{cols}xf32>"
    return f"""func.func @f(%x: {t}) -> {t} {{
  %y = graph.softmax %x {{axis = -1 : i64}} : ({t}) -> {t}
  func.return %y : {t}
}}"""


def elementwise(op: str, n: int, dtype: str) -> str:
    t = f"!graph.tensor<{n}x{dtype}>"
    return f"func.func @f(%x: {t}) -> {t} {{\n  %y = graph.{op} %x : {t}\n  func.return %y : {t}\n}}"


def softmax_rows() -> np.ndarray:
    """Ordinary rows, and rows with -inf, nan, +inf, all -inf, huge values (x - max overflows to -inf) and
    differences whose exp is subnormal or underflows."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((ROWS, COLS)) * 10).astype(np.float32)
    x[1, ::3] = -np.inf
    x[2, 5] = np.nan
    x[3, 7] = np.inf
    x[4] = -np.inf
    x[5, ::2], x[5, 1::2] = 3e38, -3e38  # -3e38 - 3e38 is -inf: exp gives 0
    x[6] = np.linspace(-110, 0, COLS, dtype=np.float32)  # exp(-87.3) is the least normal, exp(-103.9) the least
    x[7, :] = -1e-30
    x[7, 0] = 0.0
    x[8, :] = np.float32(-87.33655)
    x[8, 1] = 0.0
    x[9] = np.float32(3.4e38)
    return x


def nonpositive_inputs() -> np.ndarray:
    """x <= 0 densely, the edges where exp becomes subnormal and 0, -0, -inf and nan."""
    edges = np.array([-87.33655, -103.27893, -103.97208, -104.0, -138.0, -138.62944, -139.0, -1e30, -3.4e38,
                      -1e-30, -0.0, 0.0, -np.inf, np.nan], np.float32)  # fmt: skip
    edges = np.concatenate([edges, np.nextafter(edges, np.float32(1)), np.nextafter(edges, np.float32(-1))])
    grid = np.concatenate([np.linspace(-150, 0, 30_001), np.linspace(-1, 0, 2_001)]).astype(np.float32)
    x = np.concatenate([grid, edges])
    return x[~(x > 0)]


def same_bits(a: np.ndarray, b: np.ndarray, what: str) -> None:
    assert a.dtype == b.dtype and a.shape == b.shape, what
    wrong = a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1)
    bad = wrong.any(axis=1)
    assert not bad.any(), f"{what}: {a.reshape(-1)[bad][:5]} against {b.reshape(-1)[bad][:5]}"


@pytest.mark.parametrize("device", DEVICES)
def test_softmax_is_bit_for_bit_that_of_exp(device: str) -> None:
    x = softmax_rows()
    with np.errstate(all="ignore"):
        (before,) = compile(softmax_spelled("exp"), "f", device)(x)
        (spelled,) = compile(softmax_spelled("exp_nonpositive"), "f", device)(x)
        (decomposed,) = compile(softmax_op(), "f", device)(x)
        (want,) = compile(softmax_op(), "f", "interp")(x)
    same_bits(spelled, before, f"{device}: exp_nonpositive against exp")
    same_bits(decomposed, before, f"{device}: graph.softmax against exp")
    assert np.isnan(want[[2, 3, 4]]).all() and np.isnan(decomposed[[2, 3, 4]]).all()  # nan, +inf, all -inf
    rtol = 1e-4 if device == "webgpu" else 2e-6  # WGSL's exp: 3 + 2|x| ulp
    np.testing.assert_allclose(decomposed, want, rtol=rtol, atol=1e-38 if device == "webgpu" else 0, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["f32", "f16", "f64"])
def test_exp_nonpositive_is_exp_where_x_is_not_positive(device: str, dtype: str) -> None:
    if device == "webgpu" and dtype != "f32":
        pytest.skip("webgpu computes f32")
    with np.errstate(all="ignore"):  # -3.4e38 is -inf in f16
        x = nonpositive_inputs().astype({"f32": np.float32, "f16": np.float16, "f64": np.float64}[dtype])
        (got,) = compile(elementwise("exp_nonpositive", x.size, dtype), "f", device)(x)
        (before,) = compile(elementwise("exp", x.size, dtype), "f", device)(x)
        (want,) = compile(elementwise("exp_nonpositive", x.size, dtype), "f", "interp")(x)
    same_bits(got, before, f"{device} {dtype}")
    np.testing.assert_array_equal(got[np.isneginf(x)], 0)
    assert np.isnan(got[np.isnan(x)]).all()
    np.testing.assert_array_equal(want, np.exp(x))
    if device != "webgpu":
        rtol, atol = 2e-7 if dtype != "f16" else 1e-3, np.finfo(x.dtype).smallest_subnormal  # <= 1 ulp
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_softmax_kernel_has_fewer_comparisons(device: str) -> None:
    """The software exp of softmax keeps its clamp from below only: fewer float comparisons in the kernel's
    source (an ``fcmp`` per vector in LLVM IR, a ``<`` per lane in C) than the same program with exp."""
    pattern = r"fcmp [a-z]+ (<\d+ x )?float" if device == "cpu-llvm" else r" < "

    def comparisons(text: str) -> int:
        return len(re.findall(pattern, lower_program(parse_module(text), "f", device).kernels.source))

    assert comparisons(softmax_op()) < comparisons(softmax_spelled("exp"))
