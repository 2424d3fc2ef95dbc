"""The CNNs shipped in the onnx wheel (onnx/backend/test/data/light) imported, compiled and run by kiln against
onnxruntime. SqueezeNet runs by default; all nine (on cpu-llvm and cpu-c) with KILN_ONNX_MODELS=1:

    KILN_ONNX_MODELS=1 .venv/bin/python -m pytest test/python/test_onnx_models.py
"""

from __future__ import annotations

import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import kiln.onnx  # noqa: E402
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


@pytest.mark.parametrize("name,device", list(cases()))
def test_light_model_matches_onnxruntime(name, device):
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    path = os.path.join(LIGHT, f"light_{name}.onnx")
    model = onnx.load(path)
    weights = {i.name for i in model.graph.initializer}
    inp = next(i for i in model.graph.input if i.name not in weights)  # old models list weights as inputs too
    shape = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    (got,) = kiln.onnx.load(model, device=device)(x)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = sess.run(None, {inp.name: x})
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
