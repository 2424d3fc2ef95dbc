"""f32 matmul: kiln (heuristic opts, or a beam search) against numpy's BLAS, measured in the same run.

    python bench/matmul.py [--sizes 256,512,1024,2048] [--devices cpu-llvm,cpu-c] [--search] [--no-pack] [--repeat 10]

Prints per size and device: median and best time, GFLOP/s (of the median), the ratio to numpy's GFLOP/s, the cold compile time (empty
caches) and the cached compile time (disk-cache hit); tinygrad (DEV=CPU, default opts) too where it runs. Figures only: results are
checked against numpy, times never asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    blas_note,
    clean_blas_env,
    compile_cold_and_cached,
    machine_note,
    optimizing_pipeline,
    print_table,
    timings,
    tinygrad_timings,
    without_pass,
)

clean_blas_env()

import numpy as np  # noqa: E402

SEARCH = "kernel-optimize{{target={device} search=beam beam-width=3 time-per-kernel=60.0}}"


def program(n: int) -> str:
    t = f"!graph.tensor<{n}x{n}xf32>"
    return f"func.func @mm(%a: {t}, %b: {t}) -> {t} {{\n  %r = graph.matmul %a, %b : ({t}, {t}) -> {t}\n  func.return %r : {t}\n}}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,512,1024,2048")
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--search", action="store_true", help="beam search instead of the heuristic")
    parser.add_argument("--no-pack", action="store_true", help="without graph-pack-matmul (B read in place)")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    print(machine_note())
    print(blas_note())
    rows, chosen = [], []
    rng = np.random.default_rng(0)
    for n in (int(s) for s in args.sizes.split(",")):
        a, b = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(2))
        flops = 2 * n**3
        numpy_s, numpy_best = timings(lambda: a @ b, args.repeat)
        rows.append([n, "numpy", numpy_s * 1e3, numpy_best * 1e3, flops / numpy_s / 1e9, 1.0, "", ""])
        tiny = tinygrad_timings(lambda x, y: x @ y, [a, b], a @ b, args.repeat)
        if tiny:
            rows.append([n, "tinygrad", tiny[0] * 1e3, tiny[1] * 1e3, flops / tiny[0] / 1e9, numpy_s / tiny[0], "", ""])
        for device in args.devices.split(","):
            optimizing_pipeline(device, SEARCH.format(device=device) if args.search else None)
            if args.no_pack:
                without_pass(device, "graph-pack-matmul")
            run, cold, cached, opts = compile_cold_and_cached(device, program(n), "mm")
            error = np.abs(run(a, b)[0] - a @ b).max() / np.abs(a @ b).max()
            assert error < 1e-4, f"{device} matmul {n} is wrong: relative error {error:.2e}"
            chosen.append(f"{n} {device}: {'; '.join(opts)}")
            s, best = timings(lambda: run(a, b), args.repeat)
            rows.append([n, device, s * 1e3, best * 1e3, flops / s / 1e9, numpy_s / s, cold, cached * 1e3])
    how = ("beam search" if args.search else "heuristic") + (", B not packed" if args.no_pack else "")
    print_table(f"matmul f32 ({how}); ratio = numpy time / kiln time",
                ["n", "runner", "median ms", "best ms", "GFLOP/s", "x numpy", "cold compile s", "cached compile ms"], rows)
    print("\nopts chosen:\n  " + "\n  ".join(chosen))


if __name__ == "__main__":
    main()
