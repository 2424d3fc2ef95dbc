"""kiln: an MLIR-style multi-dialect tensor compiler on xDSL (graph -> kernel -> uop -> targets).

The Python front end: ``kiln.Tensor`` (lazy tensors that trace to the graph dialect) and ``@kiln.jit``
(compile once, replay without touching the IR); ``kiln.onnx`` loads ONNX models. See docs/jit.md.

The names below load on first use, so ``import kiln.dialects.graph`` (a compiler engineer reading IR) never
pays for the JIT, the runtime or the compiler driver.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "Dim": "kiln.jit", "Tensor": "kiln.jit", "jit": "kiln.jit", "manual_seed": "kiln.jit", "grad": "kiln.jit",
    "no_grad": "kiln.jit", "cat": "kiln.jit", "stack": "kiln.jit",
}
_MODULES = {"optim": "kiln.jit.optim"}
"""Submodules of the front end that read as top-level ones: ``kiln.optim.SGD``."""

__all__ = ["Dim", "Tensor", "cat", "stack", "grad", "jit", "manual_seed", "no_grad", "optim", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "jit":  # the package, which is also the decorator (kiln/jit/__init__.py)
        return importlib.import_module("kiln.jit")
    if name in _MODULES:
        module = importlib.import_module(_MODULES[name])
        globals()[name] = module
        return module
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kiln' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_MODULES))
