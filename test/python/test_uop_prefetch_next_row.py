"""uop-prefetch-next-row: cpu-llvm's softmax over rows of 16 KiB or more prefetches the next row in chunks of its
exp loop; it and the row kernels the pass leaves alone (log-softmax, centering, variance) give the interpreter's
numbers, special values included; the other pipelines do not run the pass."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import llvm

from kiln.compiler.registry import PIPELINES
from kiln.dialects import uop as U
from kiln.jit import jit
from kiln.passes import uop_prefetch_next_row as prefetch_pass

from tensor_cases import require
from test_uop_stash_recomputed import assert_softmax_kernel_matches_numpy, special_rows, uop_module


def softmax_text(rows: int, cols: int) -> str:
    t = f"!graph.tensor<{rows}x{cols}xf32>"
    return (f"func.func @f(%x: {t}) -> {t} {{\n  %y = graph.softmax %x {{axis = 1 : i64}} : ({t}) -> {t}\n"
            f"  func.return %y : {t}\n}}")


def prefetches(module) -> int:
    return sum(isinstance(op, U.PrefetchOp) or (isinstance(op, llvm.CallIntrinsicOp) and "prefetch" in op.intrin.data)
               for op in module.walk())


@pytest.mark.parametrize("cols, cut", [(4096, True), (8192, True), (2048, False), (4100, False)])
def test_the_cpu_llvm_softmax_prefetches_where_rows_are_16_kib_and_whole_chunks(cols: int, cut: bool) -> None:
    assert prefetches(uop_module(softmax_text(3, cols), PIPELINES["lower-to-llvm"])) == int(cut)


def test_log_softmax_whose_exp_loop_stores_nothing_is_left_alone() -> None:
    text = softmax_text(3, 4096).replace("graph.softmax", "graph.log_softmax")
    assert prefetches(uop_module(text, PIPELINES["lower-to-llvm"])) == 0


def test_the_other_pipelines_do_not_prefetch() -> None:
    for name in ("lower-to-c", "lower-to-wgsl", "lower-to-ptx"):
        assert "uop-prefetch-next-row" not in PIPELINES[name]
        assert prefetches(uop_module(softmax_text(3, 4096), PIPELINES[name].rsplit(",", 1)[0])) == 0, name


def test_the_cut_kernel_matches_numpy_in_the_uop_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefetch_pass, "MIN_ROW_BYTES", 2048)  # two chunks of a 512-float row: a short interpretation
    module = uop_module(softmax_text(7, 512), PIPELINES["lower-to-llvm"].split(",uop-decompose")[0])
    (kernel,) = [k for k in module.ops if isinstance(k, U.UopKernelOp)]
    assert prefetches(module) == 1
    assert_softmax_kernel_matches_numpy(kernel, special_rows(7, 512))


ROW_KERNELS = {
    "softmax": lambda t: t.softmax(-1),
    "log_softmax": lambda t: t.log_softmax(-1),
    "centered": lambda t: t - t.mean(-1, keepdims=True),
    "variance": lambda t: t.var(-1, keepdims=True) + t,
}


@pytest.mark.parametrize("name", sorted(ROW_KERNELS))
@pytest.mark.parametrize("cols", [4096, 5120])
def test_row_kernels_match_the_interpreter_on_cpu_llvm(name: str, cols: int) -> None:
    require("cpu-llvm")
    x = special_rows(9, cols) if name == "softmax" else np.random.default_rng(3).standard_normal((9, cols)).astype(np.float32)
    want = jit(ROW_KERNELS[name], device="interp")(x).numpy()
    got = jit(ROW_KERNELS[name], device="cpu-llvm")(x).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6 if name != "softmax" else 1e-37, equal_nan=True)
