"""Buffer planning through the whole pipeline: a chain of layers needs the same intermediate storage however long
it is (the compiler's slots and the CPU runtime's arena both reuse dead buffers), and the numbers stay right."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import kiln.onnx  # noqa: E402
from kiln.runtime.devices import device_available  # noqa: E402

F32 = TensorProto.FLOAT


def chain(layers: int, seed: int = 0):
    """x -> (MatMul by a 32x32 weight -> Softmax) x layers: two kernels per layer, each writing a new buffer."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal((32, 32)).astype(np.float32) for _ in range(layers)]
    nodes, previous = [], "x"
    for i in range(layers):
        nodes += [helper.make_node("MatMul", [previous, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Softmax", [f"m{i}"], [f"h{i}"], axis=-1)]
        previous = f"h{i}"
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", F32, [64, 32])],
                              [helper.make_tensor_value_info(previous, F32, [64, 32])],
                              [numpy_helper.from_array(w, f"w{i}") for i, w in enumerate(weights)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), weights


def reference(x: np.ndarray, weights: list[np.ndarray]) -> np.ndarray:
    for w in weights:
        m = x.astype(np.float64) @ w
        e = np.exp(m - m.max(axis=-1, keepdims=True))
        x = e / e.sum(axis=-1, keepdims=True)
    return x


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_a_longer_chain_needs_no_more_intermediate_storage(device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    x = np.random.default_rng(1).standard_normal((64, 32)).astype(np.float32)
    peaks, slots = [], []
    for layers in (2, 5):
        model, weights = chain(layers)
        run = kiln.onnx.load(model, device=device)
        np.testing.assert_allclose(run(x)[0], reference(x, weights), rtol=1e-4, atol=1e-6)
        assert len(run._run.spec.launches) == 2 * layers
        peaks.append(run._run.peak_bytes())
        slots.append(len({b.slot for b in run._run.spec.buffers if b.slot is not None}))
    assert peaks[0] == peaks[1] <= 3 * 64 * 32 * 4, peaks  # two intermediates and the result, at most
    assert slots[0] == slots[1], slots
