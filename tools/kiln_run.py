"""kiln-run: compile one function of a .mlir file for a device and run it on inputs given on the command line.

    kiln-run model.mlir --function dense --input @x.npy --input 64x32xf32=0.5 --device interp
    kiln-run model.mlir --input 2x3xf32=1,2,3,4,5,6 --output @out.npy

Inputs use IREE's ``iree-run-module`` syntax (see `kiln.tools.inputs`) and are checked against the function's
signature before anything is compiled. Without ``--output``, each result is printed on its own line in the
same syntax (summarized above 1000 elements, as numpy prints; ``--print-full`` for all of them, ``--output``
for the exact values). ``--explain`` (or ``KILN_DEBUG=1``) says on stderr whether the program came from the
cache, and if it was compiled, why. Exit status: 0 on success, 1 for bad input or a device error, 2 for a bug
in kiln.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import ParseError

from kiln.compiler import registry
from kiln.dialects.types import declared_dims
from kiln.compiler.driver import Explain, compile
from kiln.compiler.semantic_check import DEFAULT_SETS
from kiln.support import debug
from kiln.runtime.devices import DEFAULT_DEVICE, device_names
from kiln.support.errors import InputError, KilnError
from kiln.dialects.verify import verify_module
from kiln.support.diagnostics import from_parse_error
from kiln.support.cli import ArgumentParser, UserError, positive_int, run_tool
from kiln.tools.inputs import Param, bind_symbols, format_literal, param_of, parse_input
from kiln.support.source import Chunk, parse_chunk, read_source
from kiln.tools.weights import load_weights

TOOL = "kiln-run"


def build_arg_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="Run a function of a kiln .mlir file on a device.")
    p.add_argument("file", help="the .mlir file ('-' for stdin)")
    p.add_argument("--function", help="the func.func to run (default: the first public one)")
    p.add_argument("--input", action="append", default=[], metavar="VALUE",
                   help="one per argument, in order: @file.npy, SHAPExDTYPE=VALUES (2x3xf32=1,2,3,4,5,6) "
                   "or a bare value for a rank-0 argument")
    p.add_argument("--output", action="append", default=[], metavar="@FILE.npy",
                   help="save the results as .npy files, one per result, in order (default: print them)")
    p.add_argument("--device", default=DEFAULT_DEVICE,
                   help=f"one of {', '.join(device_names())} (default: {DEFAULT_DEVICE})")
    p.add_argument("--no-cache", action="store_true", help="compile afresh, ignoring the program cache")
    p.add_argument("--explain", action="store_true",
                   help="say whether the program came from the cache and, if compiled, why (also KILN_DEBUG=1)")
    p.add_argument("--verify-semantics", nargs="?", type=positive_int, const=DEFAULT_SETS, default=None, metavar="N",
                   help="check the compile on N random input sets (default 3): after every pass with the "
                   "interpreters, then the compiled program against the last interpreted level (also "
                   "KILN_VERIFY_SEMANTICS=N); a disagreement names the pass or backend and writes a reproducer")
    p.add_argument("--print-full", action="store_true",
                   help="print every element of large results (default: summarized as numpy prints them)")
    return p


def run(argv: Sequence[str] | None = None) -> int:
    """kiln-run's logic: returns the exit status, raises UserError for bad input (see `run_tool`)."""
    args = build_arg_parser().parse_args(argv)
    filename, text = read_source(args.file)
    module = load_module(filename, text)
    func = select_function(module, args.function)
    inputs, results = signature(func)
    output_paths = _output_paths(args.output, results)
    weights = load_weights(func, filename)
    arrays = parse_inputs(args.input, inputs[: len(inputs) - len(weights)], func.sym_name.data) + weights
    try:
        bind_symbols(inputs, declared_dims(func), arrays)
    except InputError as e:
        raise UserError(f"@{func.sym_name.data}: {e}") from None

    if args.no_cache:
        os.environ["KILN_NO_CACHE"] = "1"
    explain = debug.log if args.explain or debug.level() else None
    if args.verify_semantics:
        os.environ["KILN_VERIFY_SEMANTICS"] = str(args.verify_semantics)  # what the driver reads, as for the JIT
    outs = _execute(module, func.sym_name.data, args.device, arrays, explain)

    if output_paths:
        for path, out in zip(output_paths, outs, strict=True):
            _save(path, out)
    else:
        for out in outs:
            print(format_literal(out, full=args.print_full))
    return 0


def load_module(filename: str, text: str) -> ModuleOp:
    """The parsed and verified module of a source file; bad IR is a located UserError."""
    try:
        module = parse_chunk(registry.make_context(), Chunk(text), filename)
    except ParseError as e:
        raise from_parse_error(e).as_user_error(filename, text) from None
    if (problem := verify_module(module)) is not None:
        raise problem.as_user_error(filename, text)
    return module


def select_function(module: ModuleOp, name: str | None) -> FuncOp:
    """The func.func called ``name``, or (without a name) the first public one."""
    funcs = [op for op in module.walk() if isinstance(op, FuncOp)]
    public = [f for f in funcs if f.sym_visibility is None or f.sym_visibility.data == "public"]
    if name is None:
        if not public:
            raise UserError("the module has no public func.func to run")
        return public[0]
    for f in funcs:
        if f.sym_name.data == name:
            return f
    available = ", ".join(f.sym_name.data for f in public) or "none"
    raise UserError(f"no function @{name} in the module (public functions: {available})")


def signature(func: FuncOp) -> tuple[list[Param], list[Param]]:
    """The function's arguments and results as Params."""
    try:
        return (
            [param_of(t) for t in func.function_type.inputs.data],
            [param_of(t) for t in func.function_type.outputs.data],
        )
    except InputError as e:
        raise UserError(f"@{func.sym_name.data}: {e}") from None


def parse_inputs(texts: Sequence[str], params: Sequence[Param], func_name: str) -> list[np.ndarray]:
    """One array per ``--input``; their number must match the function's arguments."""
    if len(texts) != len(params):
        signature = ", ".join(map(str, params)) or "no arguments"
        raise UserError(f"@{func_name} takes {len(params)} inputs ({signature}); got {len(texts)} --input")
    arrays: list[np.ndarray] = []
    for i, (text, param) in enumerate(zip(texts, params)):
        try:
            arrays.append(parse_input(text, param))
        except InputError as e:
            raise UserError(f"input {i}: {e}") from None
    return arrays


def _output_paths(outputs: Sequence[str], results: Sequence[Param]) -> list[str]:
    if outputs and len(outputs) != len(results):
        raise UserError(f"the function has {len(results)} results; got {len(outputs)} --output")
    bad = [o for o in outputs if not o.startswith("@")]
    if bad:
        raise UserError(f"--output takes @FILE.npy, got '{bad[0]}'")
    return [o[1:] for o in outputs]


def _execute(
    module: ModuleOp, function: str, device: str, arrays: list[np.ndarray], explain: Explain | None
) -> list[np.ndarray]:
    """Compile and run through the runtime's device API; its errors (KilnError) are the user's to read."""
    try:
        executable = compile(module, function, device, explain)
        return list(executable(*arrays))
    except KilnError as e:
        raise UserError(str(e)) from None


def _save(path: str, array: np.ndarray) -> None:
    try:
        with open(path, "wb") as f:
            np.save(f, array, allow_pickle=False)
    except OSError as e:
        raise UserError(f"cannot write output file '{path}': {e.strerror}") from None


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
