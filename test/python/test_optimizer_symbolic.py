"""``padto`` on symbolic ranges and the CPU register tile of a matmul with a symbolic row count (a JIT batch):
numerics against numpy at row counts around the tile's 8 rows, on cpu-llvm and cpu-c."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler import measure
from kiln.passes.optimize.apply import apply_opts
from kiln.passes.optimize.opts import parse_opts
from kiln.runtime.devices import device_available
from kiln.compiler.driver import compile
from kiln.capabilities.description import get_target

from kernel_ir import parse_kernel

CPU = get_target("cpu-llvm")

ROWS = (1, 7, 8, 9, 1023)

GRAPH = """
func.func @mm(%a: !graph.tensor<Nx64xf32>, %b: !graph.tensor<64x64xf32>) -> !graph.tensor<Nx64xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %c = graph.matmul %a, %b : (!graph.tensor<Nx64xf32>, !graph.tensor<64x64xf32>) -> !graph.tensor<Nx64xf32>
  func.return %c : !graph.tensor<Nx64xf32>
}
"""

KERNEL = """
kernel.kernel @mm(%a: !kernel.buffer<NxKxf32>, %b: !kernel.buffer<Kx16xf32>, %out: !kernel.buffer<Nx16xf32>, %N: index, %K: index)
    attributes {graph.dims = #graph.dims<N = [1, 64], K = [1, 64]>, symbols = ["N", "K"]} {
  %c16 = kernel.const 16 : index
  %i = kernel.range %N global
  %j = kernel.range %c16 global
  %k = kernel.range %K reduce
  %iK = kernel.mul %i, %K : index
  %ia = kernel.add %iK, %k : index
  %k16 = kernel.mul %k, %c16 : index
  %ib = kernel.add %k16, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce REDUCE %p over %k : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %j : index
  kernel.store %out[%io], %s
}
"""


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_symbolic_rows_matmul_computes_the_same(device: str) -> None:
    """The heuristic's padded 8-row tile (``padto:0:8,upcast:0:8``): masked rows are neither read nor written."""
    if not device_available(device):
        pytest.skip(f"{device} is not available")
    mm = compile(GRAPH, "mm", device)
    rng = np.random.default_rng(0)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    for n in ROWS:
        a = rng.standard_normal((n, 64)).astype(np.float32)
        (got,) = mm(a, b)
        np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not device_available("cpu-llvm"), reason="cpu-llvm is not available")
@pytest.mark.parametrize(
    "reduce, opts",
    [
        ("add", "padto:0:8,upcast:0:8"),
        ("add", "padto:0:8,upcast:0:4,upcast:0:2,upcast:1:16"),
        ("add", "padto:2:4,upcast:2:4"),  # partial sums over a padded symbolic reduce
        ("max", "padto:2:8,unroll:0:8,padto:0:4,upcast:0:4"),  # padded points combine -inf: the data is negative
    ],
)
def test_padded_symbolic_ranges_compute_the_same(reduce: str, opts: str) -> None:
    k = parse_kernel(KERNEL.replace("REDUCE", reduce))
    apply_opts(k, parse_opts(opts), CPU)
    run = compile(measure.timing_module(k), measure.FUNCTION, "cpu-llvm")
    rng = np.random.default_rng(1)
    want = np.max if reduce == "max" else np.sum
    for n, depth in [(1, 1), (7, 5), (8, 64), (9, 13), (33, 30)]:
        a = -rng.uniform(0.5, 1.5, (n, depth)).astype(np.float32)
        b = rng.uniform(0.5, 1.5, (depth, 16)).astype(np.float32)
        (got,) = run(a, b)
        np.testing.assert_allclose(got, want(a[:, :, None] * b[None], axis=1), rtol=1e-4, atol=1e-4)
