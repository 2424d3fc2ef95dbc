"""Cold compile time of an elementwise chain of N ops through ``kiln.Tensor``: does it grow linearly?

    python bench/chain_compile.py [--devices cpu-llvm,cpu-c] [--ops 1000,2000,5000,10000]

Each chain is ``x = x * 0.99 + 1`` repeated N/2 times on 64 floats, realized once with an empty cache folder
(so every pass, the emitter and the target's compiler run); a small warm-up compile runs first so imports are
not counted. The chain is one fused kernel of N ops, so the figures show whether any walk of the compiler is
superlinear in the length of a chain (the walks that recursed per op are iterative since issue 12).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note, print_table  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the C compiler): on a loaded machine it shows the work
    that the wall time hides behind other processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def cold_chain_seconds(device: str, ops: int) -> tuple[float, float]:
    """(wall, CPU) seconds from building the lazy chain to its result, with an empty compile cache."""
    import numpy as np

    import kiln

    with tempfile.TemporaryDirectory(prefix="kiln-bench-") as folder:
        os.environ["KILN_CACHE_DIR"] = folder  # per chain: main() runs one process per sitting, nothing else reads it
        (kiln.Tensor(np.ones(4, np.float32), device=device) + 1).numpy()  # warm-up: imports, toolchain
        start, cpu = time.perf_counter(), cpu_seconds()
        x = kiln.Tensor(np.ones(64, np.float32), device=device)
        for _ in range(ops // 2):
            x = x * 0.99 + 1
        x.numpy()
        return time.perf_counter() - start, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--ops", default="1000,2000,5000,10000")
    args = parser.parse_args()
    print(machine_note())
    rows = []
    for device in args.devices.split(","):
        for ops in (int(n) for n in args.ops.split(",")):
            s, cpu = cold_chain_seconds(device, ops)
            rows.append([device, ops, s, cpu, cpu / ops * 1e3])
    print_table("cold compile of an N-op elementwise chain", ["device", "ops", "wall s", "CPU s", "CPU ms per op"], rows)


if __name__ == "__main__":
    main()
