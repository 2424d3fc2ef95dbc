"""Weights kept beside a .mlir file: a function's trailing arguments tagged ``{graph.weight = "NAME"}`` take their
values from the ``.npz`` file its ``graph.weights`` attribute names (relative to the .mlir file), as
``kiln-import-onnx`` writes them, so megabytes of weights never bloat the IR text."""

from __future__ import annotations

import os
import zipfile

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.func import FuncOp

from kiln.support.cli import UserError

WEIGHT_ATTR = "graph.weight"
WEIGHTS_FILE_ATTR = "graph.weights"


def weight_names(func: FuncOp) -> list[str]:
    """The weight names of the function's tagged arguments (they come last), in order."""
    names = []
    for attrs in func.arg_attrs.data if func.arg_attrs is not None else []:
        v = attrs.data.get(WEIGHT_ATTR)
        if isinstance(v, StringAttr):
            names.append(v.data)
    return names


def load_weights(func: FuncOp, mlir_path: str) -> list[np.ndarray]:
    """The arrays of the function's weight arguments, read from its weights file."""
    names = weight_names(func)
    if not names:
        return []
    attr = func.attributes.get(WEIGHTS_FILE_ATTR)
    if not isinstance(attr, StringAttr):
        raise UserError(f"@{func.sym_name.data} has weight arguments but no {WEIGHTS_FILE_ATTR} attribute naming their file")
    base = os.path.dirname(mlir_path) if mlir_path not in ("-", "<stdin>") else "."
    path = os.path.join(base, attr.data)
    try:
        with np.load(path, allow_pickle=False) as npz:
            missing = [n for n in names if n not in npz.files]
            if missing:
                raise UserError(f"weights file '{path}' has no array '{missing[0]}'")
            return [npz[n] for n in names]
    except (OSError, zipfile.BadZipFile, ValueError) as e:
        raise UserError(f"cannot read weights file '{path}': {getattr(e, 'strerror', None) or e}") from None
