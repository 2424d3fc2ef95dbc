"""A two-layer MLP trained with SGD under ``@kiln.jit``, then served with a symbolic batch.

    python examples/jit_mlp.py [--device cpu-llvm|cpu-c|interp] [--steps 60]

The training step (forward, softmax cross-entropy, a backward pass written with tensor ops, the SGD update) is
traced once and replayed every step. Prediction is compiled once for every batch size N in [1, 1024]. At the
end the script prints the traced graph IR and the generated code of the prediction program.

The functions here are also what ``bench/jit_overhead.py`` times and ``test/python/test_jit_mlp.py`` checks.
"""

from __future__ import annotations

import argparse

import numpy as np

from kiln.jit import Dim, Tensor, jit

Params = tuple[Tensor, Tensor, Tensor, Tensor]


def init_params(sizes: tuple[int, int, int] = (2, 32, 4), seed: int = 0, device: str | None = None) -> Params:
    """Glorot-normal weights (drawn on the host, reproducibly) and zero biases."""
    n_in, n_hidden, n_out = sizes
    w1 = Tensor.randn(n_in, n_hidden, seed=seed, device=device) * float(np.sqrt(2 / (n_in + n_hidden)))
    w2 = Tensor.randn(n_hidden, n_out, seed=seed + 1, device=device) * float(np.sqrt(2 / (n_hidden + n_out)))
    b1 = Tensor.zeros(n_hidden, device=device)
    b2 = Tensor.zeros(n_out, device=device)
    return w1.realize(), b1.realize(), w2.realize(), b2.realize()


def forward(params: Params, x: Tensor) -> Tensor:
    """Logits of relu(x @ w1 + b1) @ w2 + b2."""
    w1, b1, w2, b2 = params
    return (x @ w1 + b1).relu() @ w2 + b2


def train_step(params: Params, x: Tensor, y: Tensor, lr: float) -> tuple[Tensor, Params]:
    """Mean softmax cross-entropy of one-hot targets ``y``, its gradients by hand, and one SGD update."""
    w1, b1, w2, b2 = params
    batch = x.shape[0]
    pre = x @ w1 + b1
    hidden = pre.relu()
    logits = hidden @ w2 + b2
    log_probs = logits.log_softmax(axis=1)
    loss = -(log_probs * y).sum(axis=1).mean()
    d_logits = (log_probs.exp() - y) / batch
    d_w2 = hidden.T @ d_logits
    d_b2 = d_logits.sum(axis=0)
    d_hidden = (d_logits @ w2.T) * (pre > 0)
    d_w1 = x.T @ d_hidden
    d_b1 = d_hidden.sum(axis=0)
    return loss, (w1 - lr * d_w1, b1 - lr * d_b1, w2 - lr * d_w2, b2 - lr * d_b2)


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
    step = jit(train_step, device=args.device)
    x, y = quadrants(256, seed=0)
    xs, ys = Tensor(x, device=args.device), Tensor(y, device=args.device)
    for i in range(args.steps):
        loss, params = step(params, xs, ys, 0.5)
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
