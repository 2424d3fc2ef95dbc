"""One MLP training step (forward, cross-entropy, backward, SGD update) as one compiled program: kiln's
``@kiln.jit`` against tinygrad's ``TinyJit``, timed in the same run.

    python bench/train_step.py [--device cpu-llvm] [--batch 256] [--sizes 784,512,10] [--steps 200]

Both runners train the same model from the same initial weights on the same batch; the losses after the timed
steps are printed side by side (they should agree to a few digits). Figures only, no assertions. tinygrad is
timed when ``import tinygrad`` works (the ``bench`` extra; its ``DEV=CPU`` needs clang).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import kiln
from kiln.jit import Tensor, jit


def weights(sizes: tuple[int, int, int], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    n_in, n_hidden, n_out = sizes
    return [
        (rng.standard_normal((n_in, n_hidden)) * np.sqrt(2 / (n_in + n_hidden))).astype(np.float32),
        np.zeros(n_hidden, np.float32),
        (rng.standard_normal((n_hidden, n_out)) * np.sqrt(2 / (n_hidden + n_out))).astype(np.float32),
        np.zeros(n_out, np.float32),
    ]


def batch(n: int, sizes: tuple[int, int, int], seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, sizes[0])).astype(np.float32)
    return x, np.eye(sizes[2], dtype=np.float32)[rng.integers(0, sizes[2], n)]


def kiln_step(init: list[np.ndarray], device: str, lr: float) -> Callable[[np.ndarray, np.ndarray], float]:
    params = [Tensor(w, device=device).requires_grad_() for w in init]
    optimizer = kiln.optim.SGD(params, lr=lr)

    @jit
    def step(x: Tensor, y: Tensor) -> Tensor:
        optimizer.zero_grad()
        w1, b1, w2, b2 = params
        logits = (x @ w1 + b1).relu() @ w2 + b2
        loss = -(logits.log_softmax(axis=1) * y).sum(axis=1).mean()
        loss.backward()
        optimizer.step()
        return loss

    def run(x: np.ndarray, y: np.ndarray) -> float:
        return float(step(Tensor(x, device=device), Tensor(y, device=device)).numpy())

    return run


def tinygrad_step(init: list[np.ndarray], lr: float) -> Callable[[np.ndarray, np.ndarray], float] | None:
    try:
        from tinygrad import Tensor as TT, TinyJit  # type: ignore[import-not-found]
    except ImportError:
        return None
    params = [TT(w).realize() for w in init]

    @TinyJit
    def step(x: TT, y: TT) -> TT:
        w1, b1, w2, b2 = params
        logits = (x @ w1 + b1).relu() @ w2 + b2
        loss = -(logits.log_softmax(axis=1) * y).sum(axis=1).mean()
        grads = loss.gradient(*params)  # tinygrad 0.14's functional gradient; the update is SGD's
        for p, g in zip(params, grads):
            p.assign(p - lr * g)
        return loss.realize(*params)

    def run(x: np.ndarray, y: np.ndarray) -> float:
        return float(step(TT(x), TT(y)).numpy())

    return run


def timed(run: Callable[[np.ndarray, np.ndarray], float], x: np.ndarray, y: np.ndarray, steps: int) -> tuple[float, float, float]:
    """(first call s, median step s, loss after the steps): the first call traces and compiles."""
    start = time.perf_counter()
    run(x, y)
    first = time.perf_counter() - start
    times, loss = [], 0.0
    for _ in range(steps):
        start = time.perf_counter()
        loss = run(x, y)
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--sizes", default="784,512,10")
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    assert len(sizes) == 3, "--sizes takes n_in,n_hidden,n_out"
    init, (x, y) = weights(sizes), batch(args.batch, sizes)  # type: ignore[arg-type]
    flops = 3 * 2 * args.batch * (sizes[0] * sizes[1] + sizes[1] * sizes[2])  # forward + two backward matmuls
    print(f"MLP {sizes[0]}->{sizes[1]}->{sizes[2]}, batch {args.batch}, {args.steps} steps; one step = forward, "
          f"cross-entropy, backward, SGD update ({flops / 1e6:.0f} MFLOP in the matmuls)")
    print(f"{'runner':<22}{'first call':>12}{'median step':>14}{'GFLOP/s':>10}{'loss':>12}")
    rows = [(f"kiln {args.device}", kiln_step(init, args.device, 0.01))]
    if (tiny := tinygrad_step(init, 0.01)) is not None:
        rows.append(("tinygrad TinyJit", tiny))
    results = {}
    for name, run in rows:
        time.sleep(0.3)  # let OpenBLAS's spinning threads (numpy above) give the cores back
        first, step, loss = timed(run, x, y, args.steps)
        results[name] = step
        print(f"{name:<22}{first:>11.2f}s{step * 1e3:>12.3f}ms{flops / step / 1e9:>10.1f}{loss:>12.5f}")
    if len(results) == 2:
        (_, mine), (_, theirs) = results.items()
        print(f"\ntinygrad's step time / kiln's: {theirs / mine:.2f} (> 1: kiln is faster)")
    else:
        print("\ntinygrad is not importable here: no TinyJit comparison (pip install -e '.[bench]', apt install clang)")


if __name__ == "__main__":
    main()
