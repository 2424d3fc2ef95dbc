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

_LAZY = {"Dim": "kiln.jit", "Tensor": "kiln.jit", "jit": "kiln.jit", "manual_seed": "kiln.jit"}

__all__ = ["Dim", "Tensor", "jit", "manual_seed", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "jit":  # the package, which is also the decorator (kiln/jit/__init__.py)
        return importlib.import_module("kiln.jit")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kiln' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
