"""kiln-import-onnx: an ONNX model -> a `graph` dialect .mlir file (and its weights beside it).

    kiln-import-onnx model.onnx -o model.mlir --dim batch=1:64

Weights too large to inline go to ``model.weights.npz`` next to the output, named by the function's
``graph.weights`` attribute; ``kiln-run`` and ``kiln.onnx`` load them. Both files are written atomically and only
when the whole import succeeded: a model kiln cannot import is one message naming the node, the op and the reason,
exit 1, and no file.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

import numpy as np
from xdsl.dialects.builtin import StringAttr

from kiln.onnx.emit import WEIGHTS_FILE_ATTR
from kiln.onnx.errors import NeedStatic, OnnxImportError
from kiln.onnx.importer import import_model, load_model
from kiln.support.cli import ArgumentParser, UserError, run_tool

TOOL = "kiln-import-onnx"


def parse_dim(text: str) -> tuple[str, tuple[int, int]]:
    name, sep, bounds = text.partition("=")
    lo, sep2, hi = bounds.partition(":")
    try:
        if not (sep and sep2 and name):
            raise ValueError
        lo_i, hi_i = int(lo), int(hi)
    except ValueError:
        raise UserError(f"--dim takes NAME=LO:HI (e.g. batch=1:64), got '{text}'") from None
    if not 1 <= lo_i <= hi_i:
        raise UserError(f"--dim {name}: bounds must satisfy 1 <= LO <= HI, got {lo_i}:{hi_i}")
    return name, (lo_i, hi_i)


def build_arg_parser() -> ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="Import an ONNX model into kiln's graph dialect.")
    p.add_argument("model", help="the .onnx file")
    p.add_argument("-o", "--output", required=True, help="the .mlir file to write")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=LO:HI", help="bounds of a symbolic dim")
    p.add_argument("--function", default="main", help="name of the func.func (default: main)")
    return p


def _write_atomic(path: str, write) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".kiln-import-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run(argv: Sequence[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    dims = dict(parse_dim(d) for d in args.dim)
    try:
        imported = import_model(load_model(args.model), name=args.function, dims=dims)
    except NeedStatic as e:
        raise UserError(f"{args.model}: {e}") from None
    except OnnxImportError as e:
        raise UserError(str(e), where=args.model) from None
    func = imported.module.body.block.first_op
    weights_path = None
    if imported.weights:
        stem = os.path.splitext(args.output)[0]
        weights_path = stem + ".weights.npz"
        func.attributes[WEIGHTS_FILE_ATTR] = StringAttr(os.path.basename(weights_path))
    text = str(imported.module) + "\n"
    try:
        if weights_path is not None:
            _write_atomic(weights_path, lambda f: np.savez(f, **imported.weights))
        _write_atomic(args.output, lambda f: f.write(text.encode()))
    except OSError as e:
        raise UserError(f"cannot write '{e.filename or args.output}': {e.strerror}") from None
    return 0


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
