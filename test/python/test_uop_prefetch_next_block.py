"""uop-prefetch-next-block: cpu-llvm's transposing copy of attention's k^T into panels prefetches each next panel's
block of rows, and gives the interpreter's numbers with it; a copy that reads front to back is left alone; the other
pipelines do not run the pass."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler.registry import PIPELINES
from kiln.jit import jit

from tensor_cases import require
from test_uop_prefetch_next_row import prefetches
from test_uop_stash_recomputed import uop_module


def attention_text(heads: int, seq: int, dim: int) -> str:
    qkv, kt, s = (f"!graph.tensor<{heads}x{a}x{b}xf32>" for a, b in ((seq, dim), (dim, seq), (seq, seq)))
    return f"""func.func @f(%q: {qkv}, %k: {qkv}, %v: {qkv}) -> {qkv} {{
  %kt = graph.permute %k {{perm = array<i64: 0, 2, 1>}} : ({qkv}) -> {kt}
  %s = graph.matmul %q, %kt : ({qkv}, {kt}) -> {s}
  %p = graph.softmax %s {{axis = 2 : i64}} : ({s}) -> {s}
  %o = graph.matmul %p, %v : ({s}, {qkv}) -> {qkv}
  func.return %o : {qkv}
}}"""


def block_prefetches(text: str) -> int:
    """Prefetches after the pass (the softmax rows here are far below uop-prefetch-next-row's 16 KiB)."""
    return prefetches(uop_module(text, PIPELINES["lower-to-uop"] + ",uop-prefetch-next-block"))


@pytest.mark.parametrize("seq, dim, lines", [(512, 64, 2), (128, 24, 2), (128, 64, 2)])
def test_the_copy_of_k_transposed_prefetches_the_next_panel(seq: int, dim: int, lines: int) -> None:
    """One panel's block is 32 rows of ``dim`` floats: 2 lines per column of the panel, prefetched once per column."""
    assert block_prefetches(attention_text(2, seq, dim)) == lines


def test_a_copy_read_front_to_back_is_left_alone() -> None:
    t, u = "!graph.tensor<8x512x64xf32>", "!graph.tensor<512x8x64xf32>"
    text = (f"func.func @f(%x: {t}) -> {u} {{\n  %y = graph.permute %x {{perm = array<i64: 1, 0, 2>}} : ({t}) -> {u}\n"
            f"  %z = graph.exp %y : {u}\n  func.return %z : {u}\n}}")
    assert block_prefetches(text) == 0


def test_only_cpu_llvm_runs_the_pass() -> None:
    assert "uop-prefetch-next-block" in PIPELINES["lower-to-llvm"]
    for name in ("lower-to-c", "lower-to-wgsl", "lower-to-ptx"):
        assert "uop-prefetch-next-block" not in PIPELINES[name], name


@pytest.mark.parametrize("heads, seq, dim", [(2, 128, 24), (3, 96, 64)])
def test_attention_with_the_prefetching_copy_matches_the_interpreter(heads: int, seq: int, dim: int) -> None:
    require("cpu-llvm")
    q, k, v = (np.random.default_rng(s).standard_normal((heads, seq, dim)).astype(np.float32) for s in range(3))

    def attention(q, k, v):
        return ((q @ k.transpose(0, 2, 1)) / 8).softmax(-1) @ v

    want = jit(attention, device="interp")(q, k, v).numpy()
    got = jit(attention, device="cpu-llvm")(q, k, v).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
