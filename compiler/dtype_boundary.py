"""The edge between a function's declared dtypes and the narrower ones a target computes in.

After ``graph-legalize-dtypes`` a webgpu program takes and returns i32 where the function declared i64 (and
f32 for f64 when the user opted in), and i32/ui32 where it declared i8, i16, ui8 or ui16. ``wrap`` puts the
conversion at the call: each input is converted to the program's dtype, after a range check where that is
narrower (a value that does not fit is an error naming the input and the value, not a silent wrap), and each
output is converted back (exact: the program keeps widened values in their declared range), so callers see
exactly the function they compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from kiln.compiler.module import find_function, parse_module
from kiln.dialects.types import dtype_name, to_numpy
from kiln.runtime.program import ProgramSpec
from kiln.support.errors import InputError


def declared_dtypes(module: Any, function_name: str) -> tuple[list[str], list[str]]:
    fn = find_function(module if isinstance(module, ModuleOp) else parse_module(module), function_name)
    ft = fn.function_type
    return [dtype_name(t.element_type) for t in ft.inputs], [dtype_name(t.element_type) for t in ft.outputs]  # type: ignore[attr-defined]


def wrap(run: Callable[..., list[np.ndarray]], module: Any, function_name: str, spec: ProgramSpec) -> Callable[..., list[np.ndarray]]:
    """``run`` with inputs narrowed to the program's dtypes and outputs widened to the declared ones (``run``
    itself when they agree)."""
    wanted_in, wanted_out = declared_dtypes(module, function_name)
    buffers = {b.id: b for b in spec.buffers}
    got_in = [t.dtype for t in spec.inputs]
    got_out = [buffers[o].dtype for o in spec.outputs]
    if wanted_in == got_in and wanted_out == got_out:
        return run
    narrow = [(i, to_numpy(g)) for i, (w, g) in enumerate(zip(wanted_in, got_in)) if w != g]
    widen = [(i, to_numpy(w)) for i, (w, g) in enumerate(zip(wanted_out, got_out)) if w != g]

    def call(*arrays: np.ndarray) -> list[np.ndarray]:
        args: list[np.ndarray] = list(arrays)
        for i, dtype in narrow:
            args[i] = _narrowed(args[i], dtype, i, spec)
        outputs = run(*args)
        for i, dtype in widen:
            outputs[i] = outputs[i].astype(dtype)
        return outputs

    call.spec = spec  # type: ignore[attr-defined]
    return call


def _narrowed(a: np.ndarray, dtype: np.dtype, i: int, spec: ProgramSpec) -> np.ndarray:
    a = np.asarray(a)
    if np.issubdtype(dtype, np.integer) and a.size:
        info = np.iinfo(dtype)
        low, high = a.min(), a.max()
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            raise InputError(
                f"{spec.name}: input {i} holds {bad}, which does not fit {np.dtype(dtype).name}: "
                f"{spec.kernels.target} computes 64-bit integers in 32 bits"
            )
    return a.astype(dtype)

