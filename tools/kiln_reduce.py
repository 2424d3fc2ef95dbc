"""kiln-reduce: shrink an IR file while an interestingness command still says it shows the problem (mlir-reduce).

    kiln-reduce bug.mlir --test 'kiln-opt {} -p lower-to-c 2>&1 | grep -q "internal error"' -o small.mlir
    kiln-reduce bug.mlir --test ./interesting.sh          # run as: ./interesting.sh <candidate file>

The command runs in a shell, in the current folder, on a candidate file (``{}`` stands for its path, else the
path is the last argument); exit status 0 means "still interesting". Every candidate is valid IR: kiln removes
ops (their results replaced by an operand of the same type or a constant), drops function results and
arguments, turns dense constants into splats and constants into 0 or 1, and shrinks dims, verifying each
candidate before running the command. The smallest interesting module goes to ``-o`` (or stdout); progress and
a summary go to stderr. A crash reproducer's ``{-# ... #-}`` trailer is kept on every candidate and the result.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import NoReturn

from xdsl.utils.exceptions import ParseError

from kiln.compiler import registry
from kiln.dialects.verify import verify_module
from kiln.support.cli import ArgumentParser, UserError, run_tool
from kiln.support.diagnostics import from_parse_error
from kiln.support.source import Chunk, parse_chunk, read_source
from kiln.tools.kiln_opt import print_mlir
from kiln.tools.reducer import InterestingnessTest, Reduction, count_ops
from kiln.support.reproducer import reproducer_text, split_reproducer

TOOL = "kiln-reduce"


def build_arg_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="IR-aware test-case reducer (mlir-reduce style).")
    p.add_argument("input", help="the IR file to reduce ('-': stdin)")
    p.add_argument("--test", required=True, metavar="CMD",
                   help="shell command that exits 0 when a candidate is still interesting; '{}' stands for the "
                   "candidate file's path, otherwise the path is appended as the last argument")
    p.add_argument("-o", metavar="FILE", dest="output", help="write the reduced IR to FILE (default: stdout)")
    p.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                   help="a test run taking longer counts as not interesting (default: 300)")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    return p


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    if args.timeout <= 0:
        raise UserError(f"--timeout must be positive, got {args.timeout:g}")
    filename, original = read_source(args.input)
    ir_text, pipeline = split_reproducer(original)
    ctx = registry.make_context(args.allow_unregistered_dialect)
    try:
        module = parse_chunk(ctx, Chunk(ir_text), filename)
    except ParseError as e:
        raise from_parse_error(e).as_user_error(filename, original) from None
    if (problem := verify_module(module)) is not None:
        raise problem.as_user_error(filename, original)

    print_module = partial(print_mlir, generic=False, debuginfo=False)
    wrap = (lambda ir: ir) if pipeline is None else (lambda ir: reproducer_text(ir, pipeline))
    with tempfile.TemporaryDirectory(prefix="kiln-reduce-") as folder:
        name = Path(filename).name if args.input != "-" else "input.mlir"
        test = InterestingnessTest(args.test, Path(folder) / name, args.timeout, wrap)
        _check_original(test, original, print_module(module), filename)
        reduction = Reduction(module, print_module(module), print_module, test, _log)
        before_ops, before_bytes = count_ops(module), len(reduction.text)
        try:
            reduction.run()
        except KeyboardInterrupt:
            _log("interrupted: writing the smallest interesting module found so far")
    result = wrap(reduction.text)
    _write(args.output, result)
    seconds = time.monotonic() - reduction.started
    _log(f"{before_ops} -> {count_ops(reduction.module)} ops, {before_bytes} -> {len(reduction.text)} bytes in "
         f"{test.runs} test runs ({reduction.invalid} candidates did not verify and were not run"
         + (f", {test.timeouts} timed out" if test.timeouts else "") + f"), {seconds:.1f} s")
    return 0


def _check_original(test: InterestingnessTest, original: str, printed: str, filename: str) -> None:
    """The command must find the input interesting, as written and as kiln prints it (what every candidate
    looks like), or there is nothing to keep while reducing."""
    as_written = InterestingnessTest(test.command, test.path, test.timeout)
    if not as_written(original):
        raise UserError(f"the test command is not interesting on the input (it exited non-zero on it): "
                        f"{test.command}", where=filename)
    if not test(printed):
        raise UserError("the test command finds the input interesting as written but not as kiln prints it "
                        "(comments, formatting and explicit locations are dropped): it must look at the IR",
                        where=filename)


def _write(path: str | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write output file '{path}': {e.strerror}") from None


def _log(message: str) -> None:
    print(f"{TOOL}: {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
