"""The CNN of examples/jit_cnn.py (conv, max-pool, layernorm, cross-entropy, Adam) learns on every CPU and GPU
device: one traced program per training step, loss falling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tensor_cases import require

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "jit_cnn.py"
spec = importlib.util.spec_from_file_location("jit_cnn", EXAMPLE)
assert spec is not None and spec.loader is not None
cnn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cnn)


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_loss_falls(device: str) -> None:
    require(device)
    losses = cnn.train(device, steps=8)
    assert all(np.isfinite(losses))
    assert losses[-1] < 0.3 * losses[0], losses


def test_jitted_steps_equal_eager_steps() -> None:
    """Replaying the traced step (state written back each call) does what running the Python again does."""
    from kiln import Tensor

    images, labels = cnn.bars(16, seed=1)
    results = []
    for jitted in (True, False):
        params = cnn.init_params("cpu-llvm")
        step = cnn.make_trainer(params)
        fn = step if jitted else step.fn
        xs, ys = Tensor(images), Tensor(labels)
        results.append(([fn(xs, ys).item() for _ in range(3)], [p.numpy() for p in params]))
    (jit_losses, jit_params), (eager_losses, eager_params) = results
    np.testing.assert_allclose(jit_losses, eager_losses, rtol=1e-4)
    for a, b in zip(jit_params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
