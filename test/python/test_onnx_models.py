"""The CNNs shipped in the onnx wheel (onnx/backend/test/data/light) imported, compiled and run by kiln against
onnxruntime. SqueezeNet on cpu-llvm runs by default; all nine on cpu-llvm and cpu-c with KILN_ONNX_MODELS=1
(18 compiles of 30-120 s each on the shared machine):

    KILN_ONNX_MODELS=1 .venv/bin/python -m pytest test/python/test_onnx_models.py

The light models fill their large weights with one constant (ConstantOfShape = 0.02), which makes every logit
equal and the softmax output uniform whatever the network computed; so the models run with random weights
(``kiln.onnx.random_weights``) and the logits (the Softmax's input) are compared too.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import kiln.onnx  # noqa: E402
from kiln.onnx.random_weights import with_random_weights  # noqa: E402
from kiln.runtime.devices import device_available  # noqa: E402

LIGHT = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
ALL = ["squeezenet", "bvlc_alexnet", "resnet50", "densenet121", "inception_v1", "inception_v2", "shufflenet", "vgg19",
       "zfnet512"]
DEFAULT = ["squeezenet"]
FULL = os.environ.get("KILN_ONNX_MODELS") == "1"


def cases():
    for name in ALL if FULL else DEFAULT:
        for device in ("cpu-llvm", "cpu-c") if FULL else ("cpu-llvm",):
            yield pytest.param(name, device, id=f"{name}-{device}")


def light_model(name: str) -> onnx.ModelProto:
    return onnx.load(os.path.join(LIGHT, f"light_{name}.onnx"))


def with_logits(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with the input of its Softmax as an extra output (the softmax of large logits saturates)."""
    for node in model.graph.node:
        if node.op_type == "Softmax":
            model.graph.output.append(onnx.helper.make_value_info(node.input[0], onnx.TypeProto()))
    return model


def data_input(model: onnx.ModelProto) -> tuple[str, np.ndarray]:
    weights = {i.name for i in model.graph.initializer}
    inp = next(i for i in model.graph.input if i.name not in weights)  # old models list weights as inputs too
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    return inp.name, np.random.default_rng(0).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("name,device", list(cases()))
def test_light_model_matches_onnxruntime(name, device):
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    model = with_logits(with_random_weights(light_model(name)))
    input_name, x = data_input(model)
    got = kiln.onnx.load(model, device=device)(x)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, {input_name: x})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        # float32 sums in another order: errors scale with the output's magnitude, not each element's
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4 * float(np.abs(w).max()))


def test_random_weights_replace_every_fill_by_role():
    """Every float ConstantOfShape becomes an initializer of its shape: He-scaled conv weights, batch-norm
    scales and variances and post-norm Mul factors in [0.5, 1.5]; the same draw for the same seed."""
    original = light_model("densenet121")
    model = with_random_weights(original, seed=3)
    onnx.checker.check_model(model)
    assert not [n for n in model.graph.node if n.op_type == "ConstantOfShape"]
    values = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    shapes = {i.name: onnx.numpy_helper.to_array(i) for i in original.graph.initializer}
    for fill in (n for n in original.graph.node if n.op_type == "ConstantOfShape"):
        assert values[fill.output[0]].shape == tuple(shapes[fill.input[0]])
        assert fill.input[0] not in values  # the shape initializer is gone with its fill
    conv = values["conv1_w_0"]  # 64x3x7x7: fan_in 147
    assert abs(conv.std() - np.sqrt(2 / 147)) < 0.1 * np.sqrt(2 / 147)
    for scale in ("conv2_1/x2/bn_scale_0", "conv2_1/x2/bn_var_0", "conv2_1/x2/bn_w_0"):
        assert values[scale].min() >= 0.5 and values[scale].max() <= 1.5
    assert np.abs(values["conv2_1/x2/bn_mean_0"]).max() < 0.5
    again = with_random_weights(original, seed=3)
    assert all(np.array_equal(values[i.name], onnx.numpy_helper.to_array(i)) for i in again.graph.initializer)
