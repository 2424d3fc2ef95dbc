"""kiln-opt: parse IR, run a pass pipeline, print IR or target code; mlir-opt's flags and error behaviour.

    kiln-opt input.mlir -p graph-canonicalize,cse           # IR after the passes, on stdout
    kiln-opt input.mlir -p lower-to-c -t c -o kernels.c     # a named pipeline, then the C emitter
    kiln-opt invalid.mlir --split-input-file --verify-diagnostics

The IR is verified after parsing and after every pass. A problem with the input is one located message on
stderr and exit 1; a bug in kiln is a one-line internal error and exit 2 (see `kiln.support.cli`).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from io import StringIO
from pathlib import Path
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError

from kiln.compiler import registry
from kiln.compiler.semantic_check import DEFAULT_SETS, SemanticChecker
from kiln.dialects.verify import verify_module
from kiln.support.errors import KilnError
from kiln.support.diagnostics import Diagnostic, from_exception, from_parse_error
from kiln.tools.emit import target_emitter
from kiln.support.cli import ArgumentParser, UserError, positive_int, run_tool
from kiln.tools.ir_printing import IRPrinter
from kiln.tools.pass_statistics import PassStatistics
from kiln.support.reproducer import reproducer_pipeline, reproducer_text, split_reproducer
from kiln.tools.expected import check_diagnostics, parse_expectations
from kiln.compiler.pipeline import build_pipeline, describe_passes, pass_text, pipeline_text
from kiln.support.source import SPLIT_MARKER, Chunk, parse_chunk, read_source, split_input
from kiln.tools.timing import Timer

TOOL = "kiln-opt"


def _version() -> str:
    from importlib.metadata import version

    return f"{TOOL} (kiln {version('kiln')}, xDSL {version('xdsl')})"


def build_arg_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="kiln's modular optimizer driver (mlir-opt style).")
    p.add_argument("input", nargs="?", default="-", help="input file ('-' or nothing: stdin)")
    p.add_argument("-p", "--pass-pipeline", default="", metavar="PIPELINE",
                   help="passes to run, e.g. 'graph-canonicalize,cse' or 'kernel-optimize{target=cpu-c}'; "
                   "named pipelines such as 'lower-to-c' expand inline (see --list-passes)")
    p.add_argument("-t", "--target", default="mlir",
                   help="output: 'mlir' (default) or a code emitter: " + ", ".join(registry.get_all_targets()))
    p.add_argument("--mtriple", metavar="TRIPLE",
                   help="-t llvm: the target triple (and its data layout) to write; default: this host's")
    p.add_argument("-o", metavar="FILE", dest="output", help="write the output to FILE (only if everything succeeds)")
    p.add_argument("--split-input-file", action="store_true",
                   help="process each piece between '// -----' lines on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check emitted diagnostics against 'expected-error {{...}}' annotations in the input")
    p.add_argument("--print-op-generic", action="store_true", help="print ops in the generic form")
    p.add_argument("--mlir-print-debuginfo", action="store_true",
                   help="print each op's location (loc(\"file\":line:col) where it came from the input)")
    p.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass (stderr)")
    p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    p.add_argument("--mlir-print-ir-after-change", action="store_true",
                   help="with --mlir-print-ir-after-all: only after passes that changed the IR")
    p.add_argument("--mlir-print-ir-after-failure", action="store_true",
                   help="print the IR a failing pass left (stderr)")
    p.add_argument("--mlir-print-ir-tree-dir", metavar="DIR",
                   help="write the --mlir-print-ir-* dumps to numbered files under DIR instead of stderr")
    p.add_argument("--mlir-pass-pipeline-crash-reproducer", metavar="FILE",
                   help="when a pass fails, write its input IR and the pipeline that replays it to FILE")
    p.add_argument("--run-reproducer", action="store_true",
                   help="run the pipeline named in the input's mlir_reproducer trailer")
    p.add_argument("--verify-semantics", nargs="?", type=positive_int, const=DEFAULT_SETS, metavar="N",
                   help="run the module before and after every pass on N random input sets (default "
                   f"{DEFAULT_SETS}) with the interpreter of its level; stop at the first pass that changes a "
                   "result, and write a reproducer")
    p.add_argument("--verify-semantics-seed", type=int, default=0, metavar="SEED",
                   help="--verify-semantics: the seed of the first input set (the sets use SEED, SEED+1, ...)")
    p.add_argument("--dump-pass-pipeline", action="store_true", help="print the pipeline to run on stderr")
    p.add_argument("--version", action="version", version=_version())
    p.add_argument("--mlir-timing", action="store_true", help="report wall time per pass on stderr")
    p.add_argument("--mlir-pass-statistics", action="store_true",
                   help="report each pass's counts (kernels formed, ops fused, opts applied, ops decomposed) on stderr")
    p.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    p.add_argument("--list-passes", action="store_true", help="list passes and named pipelines, then exit")
    return p


@dataclasses.dataclass
class Driver:
    """Runs the parsed command line on each chunk of the input."""

    args: argparse.Namespace
    filename: str
    ctx: Context
    passes: list[ModulePass]
    emitter: Callable[[ModuleOp], str] | None
    """The -t target's ``emit(module) -> str``; None prints MLIR."""
    timer: Timer
    printer: IRPrinter
    statistics: PassStatistics
    checker: SemanticChecker | None = None
    """--verify-semantics: the current chunk's input sets and results."""

    def run_chunk(self, chunk: Chunk) -> tuple[str | None, Diagnostic | None]:
        """The chunk's output, or the diagnostic that stopped it."""
        try:
            with self.timer.phase("Parser"):
                module = parse_chunk(self.ctx, chunk, self.filename)
        except ParseError as e:
            return None, from_parse_error(e)
        if (problem := self._verify(module, None)) is not None:
            return None, problem
        if self.args.verify_semantics is not None:
            try:
                with self.timer.phase("Verify semantics"):
                    self.checker = SemanticChecker(module, self.args.verify_semantics, self.args.verify_semantics_seed)
            except KilnError as e:
                return None, Diagnostic("error", str(e))
        for p in self.passes:
            if (problem := self._run_pass(p, module)) is not None:
                return None, problem
        if self.checker is not None:
            self._semantics_summary()
        try:
            with self.timer.phase("Output"):
                text = self.emitter(module) if self.emitter is not None else self.print_mlir(module)
        except DiagnosticException as e:
            return None, from_exception(e)
        return (text if text.endswith("\n") else text + "\n"), None

    def _run_pass(self, p: ModulePass, module: ModuleOp) -> Diagnostic | None:
        """Run one pass and verify its output; on failure, the dumps and the reproducer the flags ask for."""
        given = self.print_mlir(module) if self.args.mlir_pass_pipeline_crash_reproducer else ""
        self.printer.before(p, module)
        try:
            with self.timer.phase(p.name), self.statistics.collect(p):
                p.apply(self.ctx, module)
            problem = self._verify(module, p)
            if problem is None and self.checker is not None:
                with self.timer.phase("Verify semantics"):
                    if (problem := self._check_semantics(p, module)) is not None:
                        self.printer.failed(p, module)  # its reproducer is written: the IR checked before p
                        return problem
        except DiagnosticException as e:
            problem = from_exception(e)
        except Exception:
            self._failed(p, module, given)
            raise
        if problem is None:
            self.printer.after(p, module)
        else:
            self._failed(p, module, given)
        return problem

    def _check_semantics(self, p: ModulePass, module: ModuleOp) -> Diagnostic | None:
        """--verify-semantics after ``p``: the disagreement, with the reproducer written, or None."""
        assert self.checker is not None
        found = self.checker.check(p, module)
        if found is None:
            return None
        path = self.args.mlir_pass_pipeline_crash_reproducer or f"{_stem(self.filename)}.verify-repro.mlir"
        _write_atomically(path, reproducer_text(found.given_ir, found.pipeline))
        replay = f"{TOOL} {path} --run-reproducer --verify-semantics=1 --verify-semantics-seed={found.seed}"
        return Diagnostic("error", f"{found.report()}\nreproducer: '{path}' (the IR the pass was given; replay: {replay})")

    def _semantics_summary(self) -> None:
        assert self.checker is not None
        print(f"{TOOL}: note: --verify-semantics: {self.checker.summary()}", file=sys.stderr)

    def _failed(self, p: ModulePass, module: ModuleOp, given: str) -> None:
        self.printer.failed(p, module)
        if path := self.args.mlir_pass_pipeline_crash_reproducer:
            _write_atomically(path, reproducer_text(given, f"builtin.module({pass_text(p)})"))
            print(f"{TOOL}: note: pass '{p.name}' failed; its input and pipeline are in '{path}' "
                  f"(replay: {TOOL} {path} --run-reproducer)", file=sys.stderr)

    def _verify(self, module: ModuleOp, after: ModulePass | None) -> Diagnostic | None:
        with self.timer.phase("Verifier"):
            problem = verify_module(module)
        if problem is None or after is None:
            return problem
        return dataclasses.replace(problem, message=f"{problem.message} (in the IR after pass '{after.name}')")

    def print_mlir(self, module: ModuleOp) -> str:
        return print_mlir(module, self.args.print_op_generic, self.args.mlir_print_debuginfo)


def print_mlir(module: ModuleOp, generic: bool, debuginfo: bool) -> str:
    """The module as kiln-opt prints it (``--print-op-generic``: in the generic form; ``--mlir-print-debuginfo``:
    with locations), ending in a newline."""
    out = StringIO()
    Printer(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    return out.getvalue() + "\n"


def run(argv: Sequence[str] | None = None) -> int:
    """kiln-opt's logic: returns the exit status, raises UserError for bad input (see `run_tool`)."""
    args = build_arg_parser().parse_args(argv)
    if args.list_passes:
        sys.stdout.write(describe_passes())
        return 0
    timer = Timer()
    filename, text = read_source(args.input)
    passes = build_pipeline(_pipeline(args, text, filename))
    if args.dump_pass_pipeline:
        sys.stderr.write(f"Pass Manager with {len(passes)} passes:\nbuiltin.module({pipeline_text(passes)})\n\n")
    emitter = target_emitter(args.target, args.mtriple)
    text, _ = split_reproducer(text)
    ctx = registry.make_context(args.allow_unregistered_dialect)
    driver = Driver(args, filename, ctx, passes, emitter, timer, _ir_printer(args), PassStatistics())

    outputs: list[str] = []
    failed = False
    for chunk in split_input(text, args.split_input_file):
        if args.split_input_file and not chunk.has_ops():
            continue
        output, problem = driver.run_chunk(chunk)
        if output is not None:
            outputs.append(output)
        if args.verify_diagnostics:
            mismatches = check_diagnostics(
                [problem] if problem else [], parse_expectations(chunk.text, filename), filename
            )
            for line in mismatches:
                print(line, file=sys.stderr)
            failed |= bool(mismatches)
        elif problem is not None:
            print(problem.render(filename, text), file=sys.stderr)
            failed = True

    result = f"{SPLIT_MARKER}\n".join(outputs)
    if args.output is None:
        sys.stdout.write(result)
    elif not failed:
        _write_atomically(args.output, result)
    if args.mlir_pass_statistics:
        sys.stderr.write(driver.statistics.report())
    if args.mlir_timing:
        sys.stderr.write(timer.report())
    return 1 if failed else 0


def _pipeline(args: argparse.Namespace, text: str, filename: str) -> str:
    """The pipeline to run: ``-p``'s, or with ``--run-reproducer`` the one the input's trailer names."""
    if not args.run_reproducer:
        return args.pass_pipeline
    if args.pass_pipeline:
        raise UserError("--run-reproducer runs the pipeline stored in the input; drop -p")
    return reproducer_pipeline(text, filename)


def _ir_printer(args: argparse.Namespace) -> IRPrinter:
    tree = Path(args.mlir_print_ir_tree_dir) if args.mlir_print_ir_tree_dir else None
    return IRPrinter(partial(print_mlir, generic=args.print_op_generic, debuginfo=args.mlir_print_debuginfo),
                     args.mlir_print_ir_before_all, args.mlir_print_ir_after_all, args.mlir_print_ir_after_change,
                     args.mlir_print_ir_after_failure, tree)


def _stem(filename: str) -> str:
    """The input's file name without folder and extension ('stdin' for '-'): the default reproducer's name."""
    return "stdin" if filename in ("-", "<stdin>") else Path(filename).stem


def _write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so no reader sees half of it."""
    folder = os.path.dirname(path) or "."
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as e:
        raise UserError(f"cannot write output file '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; give the output the usual permissions
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise UserError(f"cannot write output file '{path}': {e.strerror}") from None


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
