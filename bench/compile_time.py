"""Compile time of the examples with and without the kernel optimizer, cold (empty cache) and cached.

    python bench/compile_time.py [--devices cpu-llvm,cpu-c] [--repeat 3]

"without" compiles through the same pipeline with ``kernel-optimize{search=none}`` (no opts: the kernels as
scheduled); "heuristic" is the default pipeline. ``--scalar-tile`` adds the heuristic with
``convert-kernel-to-uop{vector_alu=false}`` (the register tile as scalar uops, as before issue 12), measured
in turn with the others. A cold compile is the whole path from IR text to loaded machine
code (every pass, code generation and the target's compiler) with an empty cache folder; each is run ``--repeat``
times and the median kept. The issue's bound: the optimizer may not make a cold compile more than 2x slower.
``--cpu-time`` counts CPU seconds (this process and gcc; ``KILN_THREADS=1`` keeps LLVM in the process) instead of
wall seconds: on a loaded machine the wall time mostly waits for other processes.
"""

from __future__ import annotations

import argparse
import re
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import compile_cold_and_cached, cpu_seconds, machine_note, optimizing_pipeline, print_table  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def cold_compile(
    device: str, text: str, function: str, optimize: str, repeat: int, vector_alu: bool = True, cpu_time: bool = False
) -> tuple[float, float]:
    """(median cold, median cached) compile seconds of ``function`` through ``optimize`` (and the linearizer's
    ``vector_alu`` option)."""
    from kiln.compiler import registry
    from kiln.compiler.driver import LOWERINGS

    saved = dict(registry.PIPELINES)
    optimizing_pipeline(device, optimize)
    if not vector_alu:
        name = LOWERINGS[device][0]
        registry.PIPELINES[name] = re.sub(r"convert-kernel-to-uop\{([^}]*)\}", r"convert-kernel-to-uop{\1 vector_alu=false}", registry.PIPELINES[name])
    try:
        clock = cpu_seconds if cpu_time else time.perf_counter
        runs = [compile_cold_and_cached(device, text, function, clock)[1:3] for _ in range(repeat)]
    finally:
        registry.PIPELINES.clear()
        registry.PIPELINES.update(saved)
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scalar-tile", action="store_true", help="also compile with the tile as scalar uops")
    parser.add_argument("--examples", default="", help="comma-separated example names (default: all)")
    parser.add_argument("--cpu-time", action="store_true", help="CPU seconds instead of wall seconds")
    args = parser.parse_args()
    if args.cpu_time:
        os.environ["KILN_THREADS"] = "1"
    print(machine_note())
    rows = []
    chosen = set(filter(None, args.examples.split(",")))
    for path in sorted(EXAMPLES.glob("*.mlir")):
        if chosen and path.stem not in chosen:
            continue
        text = path.read_text()
        function = re.search(r"func\.func @([\w.$-]+)", text)
        assert function, f"{path}: no func.func"
        for device in args.devices.split(","):
            bare, _ = cold_compile(device, text, function[1], f"kernel-optimize{{target={device} search=none}}", args.repeat, cpu_time=args.cpu_time)
            tuned, cached = cold_compile(device, text, function[1], f"kernel-optimize{{target={device}}}", args.repeat, cpu_time=args.cpu_time)
            row = [path.stem, device, bare, tuned, tuned / bare, cached * 1e3]
            if args.scalar_tile:
                scalar, _ = cold_compile(device, text, function[1], f"kernel-optimize{{target={device}}}", args.repeat, vector_alu=False, cpu_time=args.cpu_time)
                row += [scalar, scalar / bare]
            rows.append(row)
    print_table(
        f"cold compile {'CPU ' if args.cpu_time else ''}s (median of --repeat, empty cache) without and with the heuristic; cached = program cache hit",
        ["example", "device", "without s", "heuristic s", "ratio", "cached ms"] + (["scalar tile s", "ratio"] if args.scalar_tile else []),
        rows,
    )


if __name__ == "__main__":
    main()
