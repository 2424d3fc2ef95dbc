"""The cost of ``kiln-opt --verify-semantics`` on the examples: each lowered to C with and without the check.

    .venv/bin/python bench/verify_semantics.py [--sets N] [examples/mlp.mlir ...]

Runs kiln-opt in this process (no start-up in the numbers), the plain pipeline first as the baseline, and reports
wall and CPU seconds of both and their ratio, with the load average at the start (the CPU seconds are the figure
that load moves least).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import time
from pathlib import Path

from kiln.tools import kiln_opt

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.mlir"))


def timed(argv: list[str]) -> tuple[float, float, int, str]:
    """(wall s, CPU s, exit status, stderr) of one kiln-opt run."""
    err = io.StringIO()
    wall, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stderr(err):
        status = kiln_opt.run_tool("kiln-opt", kiln_opt.run, argv)
    return time.perf_counter() - wall, time.process_time() - cpu, status, err.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=EXAMPLES)
    parser.add_argument("--sets", type=int, default=3, help="input sets (--verify-semantics=N)")
    parser.add_argument("--pipeline", default="lower-to-c")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; -p {args.pipeline}; --verify-semantics={args.sets}")
    print("| example | plain wall / CPU s | verified wall / CPU s | CPU ratio | outcome |")
    print("|---|---|---|---|---|")
    for path in args.files:
        base = [str(path), "-p", args.pipeline, "-o", os.devnull]
        plain = timed(base)
        checked = timed([*base, f"--verify-semantics={args.sets}"])
        outcome = "clean" if checked[2] == 0 else checked[3].strip().splitlines()[0]
        print(f"| {path.name} | {plain[0]:.1f} / {plain[1]:.1f} | {checked[0]:.1f} / {checked[1]:.1f} "
              f"| {checked[1] / plain[1]:.0f}x | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
