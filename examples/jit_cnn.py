"""A small CNN (conv, max-pool, layer normalization, a linear classifier) trained with Adam under ``@kiln.jit``.

    python examples/jit_cnn.py [--device cpu-llvm|cpu-c|webgpu|interp] [--steps 40]

The data are generated: 8x8 single-channel images holding one bar, horizontal or vertical, at a random place,
plus noise; the class is the bar's orientation and half (4 classes). Forward pass, cross-entropy, ``backward()``
and ``kiln.optim.Adam``'s update are traced once into one program and replayed each step; the loss falls.
"""

from __future__ import annotations

import argparse

import numpy as np

import kiln
from kiln import Tensor

Params = tuple[Tensor, Tensor, Tensor, Tensor]


def bars(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Images [n, 1, 8, 8] f32 and one-hot labels [n, 4] f32: 0/1 horizontal bar in the top/bottom half,
    2/3 vertical bar in the left/right half."""
    rng = np.random.default_rng(seed)
    images = rng.normal(0, 0.3, (n, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 4, n)
    where = rng.integers(0, 4, n) + 4 * (labels % 2)
    for i, (label, at) in enumerate(zip(labels, where)):
        if label < 2:
            images[i, 0, at, :] += 1.5
        else:
            images[i, 0, :, at] += 1.5
    return images, np.eye(4, dtype=np.float32)[labels]


def init_params(device: str | None = None, seed: int = 0) -> Params:
    conv = Tensor.randn(6, 1, 3, 3, seed=seed, device=device) * (1 / 3)
    conv_bias = Tensor.zeros(6, device=device)
    dense = Tensor.randn(6 * 4 * 4, 4, seed=seed + 1, device=device) * float(np.sqrt(1 / 96))
    dense_bias = Tensor.zeros(4, device=device)
    return tuple(p.requires_grad_() for p in (conv, conv_bias, dense, dense_bias))  # type: ignore[return-value]


def forward(params: Params, images: Tensor) -> Tensor:
    """Logits: conv 3x3 (padding 1) -> relu -> 2x2 max-pool -> layernorm over (C, H, W) -> linear."""
    conv, conv_bias, dense, dense_bias = params
    x = images.conv2d(conv, conv_bias, padding=1).relu().max_pool2d(2)
    x = x.layernorm(axis=(1, 2, 3))
    return x.reshape(x.shape[0], -1) @ dense + dense_bias


def cross_entropy(logits: Tensor, one_hot: Tensor) -> Tensor:
    return -(logits.log_softmax(axis=1) * one_hot).sum(axis=1).mean()


def make_trainer(params: Params, lr: float = 0.05) -> kiln.jit.JitFunction:
    optimizer = kiln.optim.Adam(params, lr=lr)

    @kiln.jit
    def step(images: Tensor, labels: Tensor) -> Tensor:
        optimizer.zero_grad()
        loss = cross_entropy(forward(params, images), labels)
        loss.backward()
        optimizer.step()
        return loss

    return step


def train(device: str, steps: int, batch: int = 32) -> list[float]:
    """The loss after each step (the training data are the same batch each step)."""
    params = init_params(device)
    step = make_trainer(params)
    images, labels = bars(batch, seed=0)
    xs, ys = Tensor(images, device=device), Tensor(labels, device=device)
    return [step(xs, ys).item() for _ in range(steps)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    losses = train(args.device, args.steps)
    for i in range(0, args.steps, 10):
        print(f"step {i:3d}  loss {losses[i]:.4f}")
    print(f"step {args.steps - 1:3d}  loss {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
