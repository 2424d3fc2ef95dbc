"""kiln-tune: tune every kernel of one or more programs ahead of time, here or on a Ray cluster; compile programs
in bulk into this machine's cache; move tuning results between machines of the same hardware class.

    kiln-tune model.mlir other.mlir --device cpu-llvm --beam 4            # tune here (resumable)
    kiln-tune model.mlir --cluster auto                                   # tune on the Ray cluster
    kiln-tune --compile-only *.mlir --cluster 10.0.0.5:6379               # compile into this machine's cache
    kiln-tune --export tunings.json / --import tunings.json               # move tunings (merge: faster wins)
    kiln-tune --node-resources --device cpu-llvm                          # for `ray start --resources` on a node

A kernel already in the tuning database is skipped, so an interrupted run resumes where it stopped. The
entries are the ones a compile with ``KILN_BEAM=<beam>`` looks up. docs/distributed.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from kiln.capabilities.description import get_target
from kiln.compiler import cluster
from kiln.compiler.bulk_compile import Job, compile_programs
from kiln.compiler.search import SearchBudget
from kiln.compiler.tuning import KernelResult, program_kernels, tune_kernel
from kiln.compiler.driver import LOWERINGS
from kiln.passes.optimize import tuning_db
from kiln.passes.optimize.opts import format_opts
from kiln.support.errors import KilnError
from kiln.support.source import read_source
from kiln.support.cli import ArgumentParser, UserError, run_tool
from kiln.tools.kiln_run import load_module

TOOL = "kiln-tune"
EXPORT_FORMAT = "kiln-tuning/1"


def build_arg_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="Tune or compile kiln programs ahead of time, here or on a Ray cluster.")
    p.add_argument("files", nargs="*", help=".mlir programs")
    p.add_argument("--device", default="cpu-llvm", choices=sorted(LOWERINGS), help="the device (default: cpu-llvm)")
    p.add_argument("--cluster", default="", metavar="ADDRESS",
                   help="a Ray cluster: auto, host:port or ray://host:port (default: $KILN_RAY_ADDRESS, else here)")
    p.add_argument("--beam", type=int, default=4, help="beam width, as KILN_BEAM=N (default 4)")
    p.add_argument("--time-per-kernel", type=float, default=20.0, metavar="S", help="search budget per kernel")
    p.add_argument("--time-total", type=float, default=3600.0, metavar="S", help="budget for the whole run")
    p.add_argument("--max-candidates", type=int, default=400, metavar="N", help="candidates per kernel at most")
    p.add_argument("--workers", type=int, default=0, metavar="N",
                   help="local processes compiling candidates (default 0: one per core)")
    p.add_argument("--compile-only", action="store_true",
                   help="compile every public function into this machine's compile cache instead of tuning")
    p.add_argument("--export", metavar="FILE", help="write this machine's tuning database to FILE")
    p.add_argument("--import", dest="import_", metavar="FILE", help="merge FILE into the tuning database")
    p.add_argument("--node-resources", action="store_true",
                   help="print the --resources JSON for `ray start` on this node (for --device)")
    return p


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    try:
        if args.node_resources:
            print(json.dumps(cluster.node_resources(get_target(args.device))))
        elif args.export:
            return export(args.export)
        elif args.import_:
            return import_(args.import_)
        elif not args.files:
            raise UserError("no programs given (or one of --export, --import, --node-resources)")
        elif args.compile_only:
            return compile_only(args)
        else:
            return tune(args)
    except KilnError as e:
        raise UserError(str(e)) from None
    return 0


def load(path: str) -> ModuleOp:
    return load_module(*read_source(path))


def tune(args: argparse.Namespace) -> int:
    if args.beam < 1:
        raise UserError(f"--beam must be at least 1, got {args.beam}")
    target = get_target(args.device)
    deadline = time.monotonic() + args.time_total
    results: list[tuple[str, KernelResult]] = []
    for path in args.files:
        for kernel in program_kernels(load(path), args.device):
            left = deadline - time.monotonic()
            budget = SearchBudget(args.beam, args.time_per_kernel, max(0.0, left), args.max_candidates,
                                  workers=args.workers, cluster=args.cluster)
            result = tune_kernel(kernel, target, budget)
            results.append((path, result))
            print(f"{TOOL}: {path} @{result.name}: {describe(result)}", file=sys.stderr, flush=True)
    print(summary(results))
    return 0


def describe(result: KernelResult) -> str:
    t = result.tuning
    if t is None:
        return f"{result.status} (not stored)"
    return (f"{result.status}: {t.baseline * 1e3:.3f} ms -> {t.seconds * 1e3:.3f} ms "
            f"({t.baseline / t.seconds:.2f}x) [{format_opts(t.opts)}] on {t.worker}, {result.seconds:.1f} s")


def summary(results: list[tuple[str, KernelResult]]) -> str:
    """The table printed at the end: one row per kernel."""
    rows = [("program", "kernel", "status", "baseline ms", "tuned ms", "speedup", "measured on", "opts")]
    for path, r in results:
        t = r.tuning
        numbers = (f"{t.baseline * 1e3:.3f}", f"{t.seconds * 1e3:.3f}", f"{t.baseline / t.seconds:.2f}x", t.worker,
                   format_opts(t.opts)) if t else ("-", "-", "-", "-", "-")
        rows.append((path, "@" + r.name, r.status, *numbers))
    return table(rows)


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def compile_only(args: argparse.Namespace) -> int:
    jobs = []
    for path in args.files:
        module = load(path)
        text = str(module)
        for f in module.walk():
            if isinstance(f, FuncOp) and (f.sym_visibility is None or f.sym_visibility.data == "public"):
                jobs.append(Job(f"{path}:@{f.sym_name.data}", text, f.sym_name.data))
    outcomes = compile_programs(jobs, args.device, cluster.address(args.cluster))
    print(table([("program", "status", "compiled on"), *((o.label, o.status, o.where) for o in outcomes)]))
    return 0 if all(o.status in ("compiled", "cached") for o in outcomes) else 1


def export(path: str) -> int:
    entries = tuning_db.export_entries()
    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"format": EXPORT_FORMAT, "entries": entries}, f, indent=1)
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror}") from None
    print(f"{TOOL}: exported {len(entries)} tuning entries to {path}", file=sys.stderr)
    return 0


def import_(path: str) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from None
    except ValueError as e:
        raise UserError(f"{path} is not JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT or not isinstance(data.get("entries"), list):
        raise UserError(f"{path} is not a kiln-tune export (format {EXPORT_FORMAT})")
    hardware = {}
    for name in {str(e.get("target")) for e in data["entries"] if isinstance(e, dict)} & set(LOWERINGS):
        try:
            hardware[name] = tuning_db.hardware_class(get_target(name))
        except KilnError:
            continue  # a target this machine does not have: its entries are refused
    report = tuning_db.import_entries(data["entries"], hardware)
    print(f"{TOOL}: imported {path}: {report.added} added, {report.replaced} replaced by faster ones, "
          f"{report.kept} kept (ours are as fast), {report.refused} refused (another hardware class or unreadable)",
          file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
