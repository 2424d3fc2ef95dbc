"""graph-copy-transposed-rhs: attention and ``x @ w^T`` give the graph interpreter's numbers on every device, with
shapes that are not multiples of the register tile, batch and head dims, a causal mask; the pass fires on the
traced forms (CPU pipelines) and the PTX of attention, where it does not run, still assembles."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.jit import jit

from tensor_cases import require

DEVICES = ["cpu-llvm", "cpu-c", "webgpu"]


def swap_last_two(t):
    return t.transpose(*range(t.ndim - 2), t.ndim - 1, t.ndim - 2)


def attention(q, k, v):
    return ((q @ swap_last_two(k)) / 8).softmax(-1) @ v


def causal_attention(q, k, v, mask):
    return ((q @ swap_last_two(k)) / 8 + mask).softmax(-1) @ v


def linear(x, w):
    return (x @ w.transpose(1, 0)).relu()


def _normal(*shape: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _causal_mask(seq: int) -> np.ndarray:
    return np.triu(np.full((seq, seq), -np.inf, np.float32), 1)


CASES = {
    # name: (function, inputs); the row counts are >= 64 (the pass's threshold), most not multiples of the tile;
    # B's columns are not a multiple of the panel width (a row-major copy) except in the "panels" cases
    "heads": (attention, [_normal(3, 77, 20, seed=s) for s in range(3)]),
    "batch_heads": (attention, [_normal(2, 3, 70, 24, seed=s) for s in range(3)]),
    "kv_longer": (attention, [_normal(2, 65, 16, seed=0), _normal(2, 93, 16, seed=1), _normal(2, 93, 16, seed=2)]),
    "causal": (causal_attention, [*(_normal(2, 2, 67, 16, seed=s) for s in range(3)), _causal_mask(67)]),
    # 128 keys: k^T's columns fill whole panels (w is 16 or 32 f32), so the copy is written in panels
    "panels": (attention, [_normal(2, 70, 24, seed=0), _normal(2, 128, 24, seed=1), _normal(2, 128, 24, seed=2)]),
    "causal_panels": (causal_attention, [*(_normal(1, 2, 128, 16, seed=s) for s in range(3)), _causal_mask(128)]),
    "linear": (linear, [_normal(100, 50, seed=0), _normal(33, 50, seed=1)]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CASES)
def test_transposed_rhs_matches_the_interpreter(name: str, device: str) -> None:
    require(device)
    fn, inputs = CASES[name]
    want = jit(fn, device="interp")(*inputs).numpy()
    got = jit(fn, device=device)(*inputs).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _copies_after_the_pass(module) -> int:
    module = module.clone()
    PassPipeline.parse_spec(get_all_passes(), "graph-copy-transposed-rhs{target=cpu-llvm}").apply(make_context(), module)
    return sum(op.name == "graph.contiguous" for op in module.walk())


@pytest.mark.parametrize("name", CASES)
def test_the_pass_copies_each_traced_transposed_rhs_once(name: str) -> None:
    fn, inputs = CASES[name]
    traced = jit(fn, device="interp")
    traced(*inputs)
    assert _copies_after_the_pass(traced.compiled[0].module) == 1


def test_the_pass_follows_graph_pack_matmul_in_the_cpu_pipelines_only() -> None:
    for name, pipeline in PIPELINES.items():
        assert ("graph-copy-transposed-rhs" in pipeline) == ("graph-pack-matmul" in pipeline), name
        if "graph-pack-matmul" in pipeline:  # which copies a large transposed B into panels itself
            assert pipeline.index("graph-pack-matmul") < pipeline.index("graph-copy-transposed-rhs"), name
    assert "graph-copy-transposed-rhs" in PIPELINES["lower-to-c"]
    assert "graph-copy-transposed-rhs" not in PIPELINES["lower-to-ptx"] + PIPELINES["lower-to-wgsl"]


ATTENTION_GRAPH = """
func.func @attention(%q: !graph.tensor<3x77x20xf32>, %k: !graph.tensor<3x77x20xf32>, %v: !graph.tensor<3x77x20xf32>) -> !graph.tensor<3x77x20xf32> {
  %kt = graph.permute %k {perm = array<i64: 0, 2, 1>} : (!graph.tensor<3x77x20xf32>) -> !graph.tensor<3x20x77xf32>
  %s = graph.matmul %q, %kt : (!graph.tensor<3x77x20xf32>, !graph.tensor<3x20x77xf32>) -> !graph.tensor<3x77x77xf32>
  %p = graph.softmax %s {axis = 2 : i64} : (!graph.tensor<3x77x77xf32>) -> !graph.tensor<3x77x77xf32>
  %o = graph.matmul %p, %v : (!graph.tensor<3x77x77xf32>, !graph.tensor<3x77x20xf32>) -> !graph.tensor<3x77x20xf32>
  func.return %o : !graph.tensor<3x77x20xf32>
}
"""


def test_the_attention_ptx_still_assembles() -> None:
    from kiln.targets.ptx import emitter, toolchain

    available, why = toolchain.available()
    if not available:
        pytest.skip(why)
    ctx = make_context()
    module = Parser(ctx, ATTENTION_GRAPH).parse_module()
    PassPipeline.parse_spec(get_all_passes(), PIPELINES["lower-to-ptx"]).apply(ctx, module)
    toolchain.assemble(emitter.emit(module), "sm_80")
