"""A two-layer MLP trained with SGD under ``@kiln.jit``, then served with a symbolic batch.

    python examples/jit_mlp.py [--device cpu-llvm|cpu-c|webgpu|interp] [--steps 60]

The training step (forward, softmax cross-entropy, ``loss.backward()``, ``kiln.optim.SGD``'s update) is traced
once into one program and replayed every step. Prediction is compiled once for every batch size N in
[1, 1024]. At the end the script prints the traced graph IR and the generated code of the prediction program.

The functions here are also what ``bench/jit_overhead.py`` times and ``test/python/test_jit_mlp.py`` checks.
"""

from __future__ import annotations

import argparse

import numpy as np

import kiln
from kiln.jit import Dim, Tensor, jit

Params = tuple[Tensor, Tensor, Tensor, Tensor]


def init_params(sizes: tuple[int, int, int] = (2, 32, 4), seed: int = 0, device: str | None = None) -> Params:
    """Glorot-normal weights (drawn on the host, reproducibly) and zero biases, all requiring gradients."""
    n_in, n_hidden, n_out = sizes
    w1 = Tensor.randn(n_in, n_hidden, seed=seed, device=device) * float(np.sqrt(2 / (n_in + n_hidden)))
    w2 = Tensor.randn(n_hidden, n_out, seed=seed + 1, device=device) * float(np.sqrt(2 / (n_hidden + n_out)))
    b1 = Tensor.zeros(n_hidden, device=device)
    b2 = Tensor.zeros(n_out, device=device)
    return w1.requires_grad_(), b1.requires_grad_(), w2.requires_grad_(), b2.requires_grad_()


def forward(params: Params, x: Tensor) -> Tensor:
    """Logits of relu(x @ w1 + b1) @ w2 + b2."""
    w1, b1, w2, b2 = params
    return (x @ w1 + b1).relu() @ w2 + b2


def loss_fn(params: Params, x: Tensor, y: Tensor) -> Tensor:
    """Mean softmax cross-entropy of the logits against one-hot targets ``y``."""
    return -(forward(params, x).log_softmax(axis=1) * y).sum(axis=1).mean()


def train_step(params: Params, x: Tensor, y: Tensor, lr: float) -> tuple[Tensor, Params]:
    """One SGD step in functional form: the parameters come in as arguments and the updated ones go out
    (``kiln.grad`` differentiates with respect to the arguments)."""
    loss = loss_fn(params, x, y)
    grads = kiln.grad(loss, params)
    return loss, tuple(p - lr * g for p, g in zip(params, grads))  # type: ignore[return-value]


def make_trainer(params: Params, lr: float, momentum: float = 0.0) -> kiln.jit.JitFunction:
    """The PyTorch-style step: the parameters live in the optimizer, ``backward()`` fills ``.grad``, and
    ``step()`` assigns the update; ``@kiln.jit`` compiles all three into one program."""
    optimizer = kiln.optim.SGD(params, lr=lr, momentum=momentum)

    @jit
    def step(x: Tensor, y: Tensor) -> Tensor:
        optimizer.zero_grad()
        loss = loss_fn(params, x, y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def quadrants(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in the plane labelled by their quadrant: inputs [n, 2] f32, one-hot targets [n, 4] f32."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    label = (x[:, 0] < 0) * 1 + (x[:, 1] < 0) * 2
    return x, np.eye(4, dtype=np.float32)[label]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()

    params = init_params(device=args.device)
    step = make_trainer(params, lr=0.5)
    x, y = quadrants(256, seed=0)
    xs, ys = Tensor(x, device=args.device), Tensor(y, device=args.device)
    for i in range(args.steps):
        loss = step(xs, ys)
        if i % 10 == 0 or i == args.steps - 1:
            print(f"step {i:3d}  loss {loss.item():.4f}")
    print(f"the training step was traced {step.trace_count} time(s) for {args.steps} steps")

    predict = jit(forward, dims={"x": {0: Dim("N", 1, 1024)}}, device=args.device)
    for n in (1, 7, 300):
        x_test, y_test = quadrants(n, seed=n)
        guess = predict(params, Tensor(x_test, device=args.device)).argmax(axis=1).numpy()
        print(f"batch of {n:3d}: accuracy {np.mean(guess == y_test.argmax(axis=1)):.2f}")
    print(f"prediction was traced {predict.trace_count} time(s) for 3 batch sizes\n")

    program = predict.compiled[0]
    print("traced graph IR:\n" + program.graph_ir)
    if program.program is None:
        print(f"({args.device} runs the graph IR directly: there is no generated code)")
    else:
        print(f"generated code for {args.device}:\n" + program.source)


if __name__ == "__main__":
    main()
