"""The MLP of examples/jit_mlp.py trained under ``@kiln.jit``: same losses as numpy, step by step, on every
device; and its compiled program reused by a fresh process through the on-disk cache."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from kiln.jit import Dim, Tensor, jit

from tensor_cases import DEVICES, require

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "jit_mlp.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("jit_mlp", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mlp = load_example()


def numpy_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray, lr: float) -> tuple[float, list[np.ndarray]]:
    """The same training step in numpy (f32 throughout)."""
    w1, b1, w2, b2 = params
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0)
    logits = hidden @ w2 + b2
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    loss = -(log_probs * y).sum(1).mean()
    d_logits = (np.exp(log_probs) - y) / x.shape[0]
    d_hidden = (d_logits @ w2.T) * (pre > 0)
    grads = [x.T @ d_hidden, d_hidden.sum(0), hidden.T @ d_logits, d_logits.sum(0)]
    return float(loss), [p - np.float32(lr) * g for p, g in zip(params, grads)]


@pytest.mark.parametrize("device", DEVICES)
def test_training_loss_decreases_as_numpy_does(device: str) -> None:
    require(device)
    params = mlp.init_params(device=device)
    reference = [p.numpy() for p in params]
    x, y = mlp.quadrants(64, seed=0)
    xs, ys = Tensor(x, device=device), Tensor(y, device=device)
    step = jit(mlp.train_step, device=device)
    losses = []
    for _ in range(25):
        loss, params = step(params, xs, ys, 0.5)
        want, reference = numpy_step(reference, x, y, 0.5)
        assert loss.dtype == "f32" and loss.shape == ()
        np.testing.assert_allclose(loss.item(), want, rtol=2e-4)
        losses.append(loss.item())
    for got, want in zip(params, reference):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-4)
    assert step.trace_count == 1
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("device", ["interp", "cpu-llvm"])
def test_backward_and_sgd_trainer_match_the_hand_written_gradients(device: str) -> None:
    """The example's PyTorch-style step (backward(), optim.SGD, one jitted program) takes the same steps as
    the gradients written by hand in numpy_step, and leaves the last gradients in .grad."""
    require(device)
    params = mlp.init_params(device=device)
    reference = [p.numpy() for p in params]
    x, y = mlp.quadrants(64, seed=0)
    xs, ys = Tensor(x, device=device), Tensor(y, device=device)
    step = mlp.make_trainer(params, lr=0.5)
    for _ in range(10):
        before = reference
        loss = step(xs, ys)
        want, reference = numpy_step(reference, x, y, 0.5)
        np.testing.assert_allclose(loss.item(), want, rtol=2e-4)
    for got, want, old in zip(params, reference, before):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(got.grad.numpy(), (old - want) / 0.5, rtol=1e-2, atol=1e-4)
    assert step.trace_count == 1
    assert len(step.compiled) == 1


@pytest.mark.parametrize("device", DEVICES)
def test_prediction_with_a_symbolic_batch(device: str) -> None:
    require(device)
    params = mlp.init_params(device=device)
    predict = jit(mlp.forward, dims={"x": {0: Dim("N", 1, 1024)}}, device=device)
    w1, b1, w2, b2 = (p.numpy() for p in params)
    for n in (1, 5, 130):
        x, _ = mlp.quadrants(n, seed=n)
        got = predict(params, Tensor(x, device=device))
        np.testing.assert_allclose(got.numpy(), np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-4, atol=1e-5)
    assert predict.trace_count == 1
    program = predict.compiled[0]  # what examples/jit_mlp.py prints: the generated code, where there is some
    assert (program.program is None) == (device == "interp")
    assert program.source != program.graph_ir or device == "interp"


FRESH_PROCESS = textwrap.dedent(
    """
    import importlib.util, json, sys, time
    import kiln.compiler.driver as devices
    import kiln.targets.llvm.toolchain as toolchain
    from kiln.jit import Tensor, jit

    calls = {"lower_program": 0, "llvm_codegen": 0}
    def counting(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapper
    devices.lower_program = counting("lower_program", devices.lower_program)
    toolchain.parse_ir = counting("llvm_codegen", toolchain.parse_ir)

    spec = importlib.util.spec_from_file_location("jit_mlp", sys.argv[1])
    mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mlp)
    params = mlp.init_params(device="cpu-llvm")
    x, y = mlp.quadrants(32, seed=0)
    xs, ys = Tensor(x, device="cpu-llvm"), Tensor(y, device="cpu-llvm")
    for k in calls:
        calls[k] = 0
    start = time.perf_counter()
    loss, _ = jit(mlp.train_step, device="cpu-llvm")(params, xs, ys, 0.5)
    calls["seconds"] = time.perf_counter() - start
    calls["loss"] = loss.item()
    print(json.dumps(calls))
    """
)


def test_fresh_process_reuses_the_compiled_program_from_disk(tmp_path: Path) -> None:
    require("cpu-llvm")
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path), "KILN_NO_CACHE": "0"}

    def run() -> dict:
        command = [sys.executable, "-c", FRESH_PROCESS, str(EXAMPLE)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    cold, warm = run(), run()
    assert cold["lower_program"] == 1 and cold["llvm_codegen"] >= 1
    assert warm["lower_program"] == 0 and warm["llvm_codegen"] == 0, "the second process compiled again"
    assert warm["loss"] == cold["loss"]
