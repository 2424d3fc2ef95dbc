"""uop-stash-recomputed: softmax computes each exponential once on the CPU targets, and softmax and attention
still give the graph interpreter's numbers on every device, with -inf, huge and nan-producing rows included."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.dialects import uop as U
from kiln.dialects.alu import lanes
from kiln.interpreters.uop import launch
from kiln.jit import jit

from tensor_cases import require

SOFTMAX = """
func.func @f(%x: !graph.tensor<6x48xf32>) -> !graph.tensor<6x48xf32> {
  %y = graph.softmax %x {axis = 1 : i64} : (!graph.tensor<6x48xf32>) -> !graph.tensor<6x48xf32>
  func.return %y : !graph.tensor<6x48xf32>
}
"""


def special_rows(rows: int, cols: int) -> np.ndarray:
    """Random rows, then: -inf entries, huge magnitudes (exp overflows without the max), values far below the
    max (exp underflows to 0 or a subnormal), all -inf (nan: -inf - -inf), a +inf entry (nan), equal values."""
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32) * 4
    x[1, ::3] = -np.inf
    x[2, :] = np.linspace(-3e38, 3e38, cols, dtype=np.float32)
    x[3, :] = np.linspace(-200, 90, cols, dtype=np.float32)
    x[4, :] = -np.inf
    x[5, 7] = np.inf
    if rows > 6:
        x[6, :] = 1e30
    return x


def uop_module(text: str, pipeline: str):
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    return module


def assert_softmax_kernel_matches_numpy(kernel: U.UopKernelOp, x: np.ndarray) -> None:
    """Run a softmax row kernel in the uop interpreter on ``x`` and compare with numpy's softmax of its rows."""
    out = np.zeros_like(x)
    launch(kernel, [out.reshape(-1), x.reshape(-1)])
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-30, equal_nan=True)


def test_the_stashed_softmax_kernel_computes_exp_once_and_matches_numpy() -> None:
    module = uop_module(SOFTMAX, PIPELINES["lower-to-uop"] + ",uop-stash-recomputed")
    (kernel,) = [k for k in module.ops if isinstance(k, U.UopKernelOp)]
    assert sum(op.name == "uop.exp_nonpositive" for op in kernel.body.block.ops) == 1
    assert_softmax_kernel_matches_numpy(kernel, special_rows(6, 48))


def test_the_cpu_pipelines_stash_and_the_gpu_ones_have_nothing_to_stash() -> None:
    def exps(module) -> int:
        """The exponentials computed per iteration: a vector exp counts its lanes."""
        return sum(lanes(op.results[0].type) for op in module.walk() if op.name == "uop.exp_nonpositive")

    for name in ("lower-to-llvm", "lower-to-c"):  # cpu-c upcasts the 48 columns by a vector: half the exps after
        before = PIPELINES[name].split(",uop-stash-recomputed")[0]
        assert exps(uop_module(SOFTMAX, before)) == 2 * exps(uop_module(SOFTMAX, before + ",uop-stash-recomputed"))
    # on cpu-c the sum loop's exp is one vector op and the output loop's its lanes (divided one by one): the
    # vector itself is stashed and the lanes loaded back
    before = PIPELINES["lower-to-c"].split(",uop-stash-recomputed")[0]
    (exp,) = [op for op in uop_module(SOFTMAX, before + ",uop-stash-recomputed").walk() if op.name == "uop.exp_nonpositive"]
    assert lanes(exp.results[0].type) > 1
    # a GPU thread computes one output element: no output loop for a stash (the pass leaves it unchanged)
    for target in ("webgpu", "cuda"):
        before = PIPELINES[f"lower-to-{'wgsl' if target == 'webgpu' else 'ptx'}"].split(",uop-stash-recomputed")[0]
        plain = uop_module(SOFTMAX, before)
        stashed = uop_module(SOFTMAX, before + ",uop-stash-recomputed")
        assert str(plain) == str(stashed), target


@pytest.mark.parametrize("cols", [300, 40, 1000])
@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_softmax_with_special_values_matches_the_interpreter(device: str, cols: int) -> None:
    """Rows of no whole number of vectors: 300 columns on AVX2 and AVX-512, 40 and 1000 on AVX-512 (cpu-c pads
    the output loop, its last vector moved back, and leaves the reduce loops scalar: nothing stashed)."""
    require(device)
    x = special_rows(7, cols)
    want = jit(lambda t: t.softmax(-1), device="interp")(x).numpy()
    got = jit(lambda t: t.softmax(-1), device=device)(x).numpy()
    rtol = 1e-4 if device == "webgpu" else 2e-6  # WGSL's exp: 3 + 2|x| ulp (x - max reaches -200 here)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-37, equal_nan=True)


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_attention_with_large_scores_matches_the_interpreter(device: str) -> None:
    require(device)
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((2, 24, 16)).astype(np.float32) * s for s in (8, 8, 1))  # scores up to ~1e3

    def attention(q, k, v):
        return ((q @ k.transpose(0, 2, 1)) / 8).softmax(-1) @ v

    want = jit(attention, device="interp")(q, k, v).numpy()
    got = jit(attention, device=device)(q, k, v).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_the_softmax_ptx_still_assembles() -> None:
    from kiln.targets.ptx import emitter, toolchain

    available, why = toolchain.available()
    if not available:
        pytest.skip(why)
    toolchain.assemble(emitter.emit(uop_module(SOFTMAX, PIPELINES["lower-to-ptx"])), "sm_80")
