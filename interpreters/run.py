"""Run any executable kiln module — ``graph``, ``kernel`` or ``uop`` level — on numpy inputs, picking the
interpreter by what the module holds. This is the one entry point for checks that run a module before and after
a pass and compare (``kiln-opt --verify-semantics``).

Each level's interpreter has the same entry point, ``run_module(module, function_name, inputs, dims=None) ->
outputs``: inputs are numpy arrays of the function's argument types, ``dims`` binds symbolic dims no input
fixes, outputs are fresh arrays shaped like the function's results.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.types import BufferType, TensorType
from kiln.interpreters import graph, kernel, uop
from kiln.interpreters.graph import find_function

Runner = Callable[[ModuleOp, str, Sequence[np.ndarray], "Mapping[str, int] | None"], list[np.ndarray]]

RUNNERS: dict[str, Runner] = {"graph": graph.run_module, "kernel": kernel.run_module, "uop": uop.run_module}
"""Level -> its interpreter's ``run_module``."""


def level_of(module: ModuleOp, function_name: str) -> str:
    """The level ``function_name`` of ``module`` is at: ``graph`` when it takes or returns tensors; otherwise it is
    a schedule, at the level of the kernels the module holds (``uop`` once any kernel was linearized)."""
    f = find_function(module, function_name)
    if any(isinstance(t, TensorType) for t in (*f.function_type.inputs, *f.function_type.outputs)):
        return "graph"
    return "uop" if any(isinstance(op, U.UopKernelOp) for op in module.ops) else "kernel"


def on_arrays(f: func.FuncOp) -> bool:
    """Whether every argument and result of ``f`` is a tensor or a buffer: a graph function or a schedule, which
    the interpreters run, rather than, say, a function over scalars."""
    return all(isinstance(t, TensorType | BufferType) for t in (*f.function_type.inputs, *f.function_type.outputs))


def executable_level(module: ModuleOp, function_name: str) -> str | None:
    """``level_of``, or None when no interpreter runs the module: its kernels were converted to a target dialect
    (LLVM, C, PTX, WGSL), which only a device runs."""
    level = level_of(module, function_name)
    if level == "graph" or all(isinstance(op, func.FuncOp | K.KernelOp | U.UopKernelOp) for op in module.ops):
        return level
    return None


def run_module(
    module: ModuleOp, function_name: str, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run ``function_name`` of ``module`` with the interpreter of its level."""
    return RUNNERS[level_of(module, function_name)](module, function_name, inputs, dims)
