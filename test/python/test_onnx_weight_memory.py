"""kiln.onnx holds a model's weights once: while importing (no copy per read, folded filters replace their
originals) and afterwards (the program's weight arguments are the importer's arrays)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import kiln.onnx  # noqa: E402

F32 = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def conv_bn_matmul():
    """Conv (a 1.1 MiB filter) -> BatchNormalization -> Flatten -> MatMul (a 1 MiB matrix); weights in bytes."""
    w = RNG.standard_normal((128, 64, 3, 3)).astype(np.float32)
    fc = RNG.standard_normal((128 * 4 * 4, 128)).astype(np.float32)
    bn = [RNG.random(128).astype(np.float32) + 0.5, RNG.standard_normal(128).astype(np.float32),
          RNG.standard_normal(128).astype(np.float32), RNG.random(128).astype(np.float32) + 0.5]
    inits = [numpy_helper.from_array(a, n) for a, n in zip([w, fc, *bn], ["w", "fc", "s", "b", "m", "v"])]
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["n"]),
        helper.make_node("Flatten", ["n"], ["f"]),
        helper.make_node("MatMul", ["f", "fc"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", F32, [1, 64, 4, 4])],
                              [helper.make_tensor_value_info("y", F32, [1, 128])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w.nbytes + fc.nbytes


def test_import_holds_each_weight_once():
    """Before: the decoded initializers, a copy per read and the folded filter were all alive at the end of the
    import (over 3x the weights); now at most the decoded weights plus one layer's fold."""
    model, weight_bytes = conv_bn_matmul()
    kiln.onnx.import_model(model)  # loads the op handlers, whose import allocates too
    tracemalloc.start()
    try:
        imported = kiln.onnx.import_model(model)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    held = sum(w.nbytes for w in imported.weights.values())
    assert weight_bytes <= held < weight_bytes * 1.05
    assert current < weight_bytes * 1.5, (current, weight_bytes)
    assert peak < weight_bytes * 2, (peak, weight_bytes)


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_folded_model_matches_onnxruntime(device):
    """The weights the program gets are the importer's own arrays (no copies): the numbers are onnxruntime's."""
    from kiln.runtime.devices import device_available

    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    model, _ = conv_bn_matmul()
    x = RNG.standard_normal((1, 64, 4, 4)).astype(np.float32)
    (want,) = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    run = kiln.onnx.load(model, device=device)
    for _ in range(2):  # the second call runs on the storage the first left
        np.testing.assert_allclose(run(x)[0], want, rtol=1e-3, atol=1e-3)


def test_static_inputs_are_copied_on_entry():
    """The program keeps what ``static`` gave it: a caller changing its array afterwards changes nothing."""
    model = helper.make_model(
        helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "m",
                          [helper.make_tensor_value_info(n, F32, [8, 8]) for n in "xw"],
                          [helper.make_tensor_value_info("y", F32, [8, 8])]),
        opset_imports=[helper.make_opsetid("", 17)])
    w = RNG.standard_normal((8, 8)).astype(np.float32)
    imported = kiln.onnx.import_model(model, static={"w": w})
    assert not any(np.shares_memory(a, w) for a in imported.weights.values())
    assert imported.weights, "the 64-element matrix is a weight argument"
