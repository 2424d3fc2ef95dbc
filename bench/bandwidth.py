"""Memory-bound kernels: ``relu(a*b+c)`` and a sum over 16M floats, softmax over 4096x4096, and a plain copy,
kiln (heuristic opts) against numpy, measured in the same run.

    python bench/bandwidth.py [--devices cpu-llvm,cpu-c] [--repeat 10] [--only elementwise,sum,softmax,copy]

GB/s counts the bytes a kernel must move at least (each input read once, each output written once; softmax:
2 x 64 MiB). "GB/s moved" counts what kiln's schedule moves: every buffer argument of every launch read or
written once (a softmax cut into three kernels reads its input three times). "x copy" compares a row's GB/s with
kiln's own copy of a 4096x4096 array (a function that returns its argument: one copy kernel) in this run. tinygrad
(``DEV=CPU``, its default opts, each call realized) is timed too where ``import tinygrad`` works. Times are never
asserted; results are checked against numpy.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    blas_note,
    clean_blas_env,
    compile_cold_and_cached,
    machine_note,
    moved_bytes,
    optimizing_pipeline,
    print_table,
    timings,
    tinygrad_timings,
)

clean_blas_env()

import numpy as np  # noqa: E402

N = 1 << 24
ROWS = COLS = 4096
V = f"!graph.tensor<{N}xf32>"
M = f"!graph.tensor<{ROWS}x{COLS}xf32>"

PROGRAMS = {
    "elementwise": (
        f"func.func @f(%a: {V}, %b: {V}, %c: {V}) -> {V} {{\n"
        f"  %m = graph.mul %a, %b : ({V}, {V}) -> {V}\n  %s = graph.add %m, %c : ({V}, {V}) -> {V}\n"
        f"  %r = graph.relu %s : {V}\n  func.return %r : {V}\n}}"
    ),
    "sum": (
        f"func.func @f(%x: {V}) -> !graph.tensor<f32> {{\n"
        f"  %r = graph.reduce_sum %x {{axes = array<i64: 0>, keepdims = false}} : ({V}) -> !graph.tensor<f32>\n"
        f"  func.return %r : !graph.tensor<f32>\n}}"
    ),
    "softmax": f"func.func @f(%x: {M}) -> {M} {{\n  %r = graph.softmax %x {{axis = 1 : i64}} : ({M}) -> {M}\n  func.return %r : {M}\n}}",
    "copy": f"func.func @f(%x: {M}) -> {M} {{\n  func.return %x : {M}\n}}",
}


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cases(rng: np.random.Generator) -> dict[str, tuple[list[np.ndarray], Callable[..., np.ndarray], Callable[..., object] | None, int]]:
    """name -> (inputs, numpy reference, the same in tinygrad (None: not timed), bytes moved at least)."""
    v = [rng.standard_normal(N).astype(np.float32) for _ in range(3)]
    m = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    vb, mb = N * 4, ROWS * COLS * 4
    return {
        "elementwise": (v, lambda a, b, c: np.maximum(a * b + c, 0), lambda a, b, c: (a * b + c).relu(), 4 * vb),
        "sum": ([v[0]], lambda x: np.sum(x), lambda x: x.sum(), vb),
        "softmax": ([m], softmax, lambda x: x.softmax(1), 2 * mb),
        "copy": ([m], lambda x: x.copy(), None, 2 * mb),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--only", default=",".join(PROGRAMS))
    args = parser.parse_args()
    print(machine_note())
    print(blas_note())
    table = cases(np.random.default_rng(0))
    rows, chosen = [], []
    copy_gbs: dict[str, float] = {}
    for name in sorted(args.only.split(","), key=lambda n: n != "copy"):  # the copy first: the other rows refer to it
        inputs, reference, tiny, least = table[name]
        want = reference(*inputs)
        numpy_s, numpy_best = timings(lambda: reference(*inputs), args.repeat)
        rows.append([name, "numpy", numpy_s * 1e3, numpy_best * 1e3, least / numpy_s / 1e9, "", 1.0, "", "", ""])
        tiny_times = tinygrad_timings(tiny, inputs, want, args.repeat)
        if tiny_times:
            s, best = tiny_times
            rows.append([name, "tinygrad", s * 1e3, best * 1e3, least / s / 1e9, "", numpy_s / s, "", "", ""])
        for device in args.devices.split(","):
            optimizing_pipeline(device)
            run, cold, cached, opts = compile_cold_and_cached(device, PROGRAMS[name], "f")
            chosen.append(f"{name} {device}: {'; '.join(opts)}")
            got = run(*inputs)[0]
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 * max(1.0, float(np.abs(want).max())))
            s, best = timings(lambda: run(*inputs), args.repeat)
            gbs = least / s / 1e9
            copy_gbs.setdefault(device, gbs)
            moved = moved_bytes(run)
            rows.append([name, device, s * 1e3, best * 1e3, gbs, moved / s / 1e9, numpy_s / s, gbs / copy_gbs[device], cold,
                         cached * 1e3])
    print_table(
        "memory-bound kernels (heuristic); GB/s = bytes moved at least / time; x copy = GB/s / kiln copy's GB/s",
        ["kernel", "runner", "median ms", "best ms", "GB/s", "GB/s moved", "x numpy", "x copy", "cold compile s", "cached compile ms"],
        rows,
    )
    print("\nopts chosen:\n  " + "\n  ".join(chosen))


if __name__ == "__main__":
    main()
