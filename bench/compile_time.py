"""Compile time of the examples with and without the kernel optimizer, cold (empty cache) and cached.

    python bench/compile_time.py [--devices cpu-llvm,cpu-c] [--repeat 3]

"without" compiles through the same pipeline with ``kernel-optimize{search=none}`` (no opts: the kernels as
scheduled); "heuristic" is the default pipeline. A cold compile is the whole path from IR text to loaded machine
code (every pass, code generation and the target's compiler) with an empty cache folder; each is run ``--repeat``
times and the median kept. The issue's bound: the optimizer may not make a cold compile more than 2x slower.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import compile_cold_and_cached, machine_note, optimizing_pipeline, print_table  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def cold_compile(device: str, text: str, function: str, optimize: str, repeat: int) -> tuple[float, float]:
    """(median cold, median cached) compile seconds of ``function`` through ``optimize``."""
    from kiln.compiler import registry

    saved = dict(registry.PIPELINES)
    optimizing_pipeline(device, optimize)
    try:
        runs = [compile_cold_and_cached(device, text, function)[1:3] for _ in range(repeat)]
    finally:
        registry.PIPELINES.clear()
        registry.PIPELINES.update(saved)
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine_note())
    rows = []
    for path in sorted(EXAMPLES.glob("*.mlir")):
        text = path.read_text()
        function = re.search(r"func\.func @([\w.$-]+)", text)
        assert function, f"{path}: no func.func"
        for device in args.devices.split(","):
            bare, _ = cold_compile(device, text, function[1], f"kernel-optimize{{target={device} search=none}}", args.repeat)
            tuned, cached = cold_compile(device, text, function[1], f"kernel-optimize{{target={device}}}", args.repeat)
            rows.append([path.stem, device, bare, tuned, tuned / bare, cached * 1e3])
    print_table(
        "cold compile s (median of --repeat, empty cache) without and with the heuristic; cached = program cache hit",
        ["example", "device", "without s", "heuristic s", "ratio", "cached ms"],
        rows,
    )


if __name__ == "__main__":
    main()
