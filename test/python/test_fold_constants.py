"""graph-canonicalize folds ops whose operands are all constants (dense ones too): the folded program gives the
unfolded one's interpreter answers bit for bit, runs on every device, and never lengthens a dense constant."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from kiln.compiler.driver import compile
from kiln.compiler.module import parse_module
from kiln.compiler.registry import get_all_passes, make_context
from kiln.interpreters.graph import run_module

from tensor_cases import require

# Every op below %x's uses has only constant operands: the bias is a matmul of two dense constants, the scale a
# reduction, the mask a compare, the gather reads a dense table, the conv runs on a constant image.
PROGRAM = """
func.func @f(%x: !graph.tensor<2x3xf32>) -> (!graph.tensor<2x3xf32>, !graph.tensor<2x3xi32>, !graph.tensor<1x2x2x2xf32>) {
  %a = graph.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32> : !graph.tensor<2x2xf32>
  %b = graph.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.25, 8.0]]> : tensor<2x3xf32> : !graph.tensor<2x3xf32>
  %ab = graph.matmul %a, %b : (!graph.tensor<2x2xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<2x3xf32>
  %e = graph.exp %ab : !graph.tensor<2x3xf32>
  %s = graph.reduce_sum %b {axes = array<i64: 0, 1>} : (!graph.tensor<2x3xf32>) -> !graph.tensor<f32>
  %t = graph.mul %e, %s : (!graph.tensor<2x3xf32>, !graph.tensor<f32>) -> !graph.tensor<2x3xf32>
  %zero = graph.constant 0.0 : f32 : !graph.tensor<2x3xf32>
  %m = graph.gt %b, %zero : (!graph.tensor<2x3xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<2x3xi1>
  %w = graph.where %m, %t, %b : (!graph.tensor<2x3xi1>, !graph.tensor<2x3xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<2x3xf32>
  %y = graph.add %x, %w : (!graph.tensor<2x3xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<2x3xf32>
  %table = graph.constant dense<[[7, 8, 9, 10], [-1, -2, -3, -4]]> : tensor<2x4xi32> : !graph.tensor<2x4xi32>
  %ix = graph.constant dense<[[3, 0, 1], [2, 2, 0]]> : tensor<2x3xi32> : !graph.tensor<2x3xi32>
  %g = graph.gather %table, %ix {axis = 1 : i64} : (!graph.tensor<2x4xi32>, !graph.tensor<2x3xi32>) -> !graph.tensor<2x3xi32>
  %xi = graph.cast %x : (!graph.tensor<2x3xf32>) -> !graph.tensor<2x3xi32>
  %gi = graph.add %g, %xi : (!graph.tensor<2x3xi32>, !graph.tensor<2x3xi32>) -> !graph.tensor<2x3xi32>
  %img = graph.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]]]]> : tensor<1x1x3x3xf32> : !graph.tensor<1x1x3x3xf32>
  %k = graph.constant dense<[[[[1.0, -1.0], [0.5, 2.0]]], [[[0.0, 1.0], [1.0, 0.0]]]]> : tensor<2x1x2x2xf32> : !graph.tensor<2x1x2x2xf32>
  %c = graph.conv2d %img, %k : (!graph.tensor<1x1x3x3xf32>, !graph.tensor<2x1x2x2xf32>) -> !graph.tensor<1x2x2x2xf32>
  func.return %y, %gi, %c : !graph.tensor<2x3xf32>, !graph.tensor<2x3xi32>, !graph.tensor<1x2x2x2xf32>
}
"""

LENGTHENING = """
func.func @f(%x: !graph.tensor<4x4xf32>) -> !graph.tensor<4x4xf32> {
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : !graph.tensor<4xf32>
  %e = graph.expand %w : (!graph.tensor<4xf32>) -> !graph.tensor<4x4xf32>
  %y = graph.add %x, %e : (!graph.tensor<4x4xf32>, !graph.tensor<4x4xf32>) -> !graph.tensor<4x4xf32>
  func.return %y : !graph.tensor<4x4xf32>
}
"""


def _canonicalized(text: str):
    module = parse_module(text)
    PassPipeline.parse_spec(get_all_passes(), "graph-canonicalize").apply(make_context(), module)
    return module


def _ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("graph.")]


def _x() -> np.ndarray:
    return np.array([[0.5, -1.25, 3.0], [2.0, 0.0, -7.5]], np.float32)


def test_only_the_ops_reading_the_argument_are_left() -> None:
    folded = _canonicalized(PROGRAM)
    assert sorted(op for op in _ops(folded) if op != "graph.constant") == ["graph.add", "graph.add", "graph.cast"]


def test_the_folded_program_gives_the_interpreters_answers_bit_for_bit() -> None:
    want = run_module(parse_module(PROGRAM), "f", [_x()])
    got = run_module(_canonicalized(PROGRAM), "f", [_x()])
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes()


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_a_program_with_constant_subgraphs_runs_on_every_device(device: str) -> None:
    require(device)
    want = run_module(parse_module(PROGRAM), "f", [_x()])
    got = compile(PROGRAM, "f", device)(_x())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5)


def test_a_fold_that_would_lengthen_a_dense_constant_is_left() -> None:
    assert "graph.expand" in _ops(_canonicalized(LENGTHENING))


def test_a_uniform_result_becomes_a_splat() -> None:
    text = LENGTHENING.replace("1.0, 2.0, 3.0, 4.0", "2.0, 2.0, 2.0, 2.0")
    folded = _canonicalized(text)
    assert "graph.expand" not in _ops(folded)
    (const,) = [op for op in folded.walk() if op.name == "graph.constant"]
    assert "dense" not in str(const)
