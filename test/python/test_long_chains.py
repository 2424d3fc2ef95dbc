"""A chain of 10,000 elementwise ops compiles and computes what numpy computes.

Every walk of the compiler (the JIT's graph, graph-mark-realize, the scheduler's rangeify, the linearizer, the
emitters) once recursed per op and failed with RecursionError at a few hundred ops; ResNet-50's residual spine
is such a chain. The default run compiles the chain for cpu-c and lowers it to PTX text (no GPU needed); other
devices with ``KILN_LONG_CHAIN_DEVICES=cpu-llvm,webgpu``. How compile time grows with the chain is measured by
``bench/chain_compile.py`` (docs/performance.md), not asserted here.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import kiln
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.runtime.devices import device_available

OPS = 10_000
DEVICES = ["cpu-c"] + [d for d in os.environ.get("KILN_LONG_CHAIN_DEVICES", "").split(",") if d]


def chain_reference(x: np.ndarray, ops: int) -> np.ndarray:
    for _ in range(ops // 2):
        x = x * np.float32(0.99) + np.float32(1)
    return x


def chain_module(ops: int) -> str:
    """``x * 0.99 + 1``, ops/2 times, as graph IR."""
    t = "!graph.tensor<64xf32>"
    lines = [f"func.func @chain(%x: {t}) -> {t} {{",
             f"  %a = graph.constant 0.99 : f32 : {t}", f"  %b = graph.constant 1.0 : f32 : {t}"]
    prev = "%x"
    for i in range(ops // 2):
        lines.append(f"  %m{i} = graph.mul {prev}, %a : ({t}, {t}) -> {t}")
        lines.append(f"  %s{i} = graph.add %m{i}, %b : ({t}, {t}) -> {t}")
        prev = f"%s{i}"
    return "\n".join(lines + [f"  func.return {prev} : {t}", "}"])


@pytest.mark.parametrize("device", DEVICES)
def test_long_chain_through_tensors(device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    x0 = np.random.default_rng(0).random(64).astype(np.float32)
    x = kiln.Tensor(x0, device=device)
    for _ in range(OPS // 2):
        x = x * 0.99 + 1
    np.testing.assert_allclose(x.numpy(), chain_reference(x0, OPS), rtol=1e-5)


def test_long_chain_lowers_to_ptx() -> None:
    spec = lower_program(parse_module(chain_module(OPS)), "chain", "cuda")
    ptx = spec.kernels.source
    assert ptx.count("mul.f32") + ptx.count("add.f32") + ptx.count("fma.rn.f32") >= OPS // 2
