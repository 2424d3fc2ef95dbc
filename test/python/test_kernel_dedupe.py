"""``kernel-dedupe`` in the device pipelines: a layer repeated is one compiled kernel launched once per repeat,
and the program still computes what numpy computes (each launch reads and writes its own buffers)."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler.driver import compile, compile_program
from kiln.runtime.devices import device_available

DEVICES = ["cpu-llvm", "cpu-c", "webgpu"]
LAYERS = 4


def layers_module() -> str:
    """``x = relu(x @ w_i + b_i)`` four times, same shapes. The scheduler fuses each bias and relu into the next
    matmul's kernel, so the kernels are: the first matmul, two identical middle ones (bias, relu, matmul), and the
    last (bias, relu, matmul, bias, relu)."""
    t, w, b = "!graph.tensor<8x16xf32>", "!graph.tensor<16x16xf32>", "!graph.tensor<16xf32>"
    args = ", ".join(f"%w{i}: {w}, %b{i}: {b}" for i in range(LAYERS))
    lines = [f"func.func @mlp(%x: {t}, {args}) -> {t} {{"]
    prev = "%x"
    for i in range(LAYERS):
        lines += [f"  %m{i} = graph.matmul {prev}, %w{i} : ({t}, {w}) -> {t}",
                  f"  %a{i} = graph.add %m{i}, %b{i} : ({t}, {b}) -> {t}",
                  f"  %r{i} = graph.relu %a{i} : {t}"]
        prev = f"%r{i}"
    return "\n".join(lines + [f"  func.return {prev} : {t}", "}"])


def reference(x: np.ndarray, params: list[np.ndarray]) -> np.ndarray:
    for w, b in zip(params[::2], params[1::2]):
        x = np.maximum(x @ w + b, 0)
    return x


@pytest.mark.parametrize("device", DEVICES)
def test_repeated_layer_is_one_kernel(device: str, tmp_path, monkeypatch) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    spec = compile_program(layers_module(), "mlp", device)
    kernels = [launch.kernel for launch in spec.launches]
    assert len(kernels) == LAYERS and kernels[1] == kernels[2]
    assert len(set(kernels)) == LAYERS - 1
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    params = [(rng.standard_normal(s) / 4).astype(np.float32) for _ in range(LAYERS) for s in ((16, 16), (16,))]
    (out,) = compile(layers_module(), "mlp", device)(x, *params)
    np.testing.assert_allclose(out, reference(x, params), rtol=1e-4, atol=1e-5)
