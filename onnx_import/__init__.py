"""kiln's ONNX front end (``kiln.onnx``): import an ONNX model into the `graph` dialect and run it.

    import kiln.onnx
    run = kiln.onnx.load("model.onnx", device="cpu-llvm", dims={"batch": (1, 64)})
    (y,) = run(x)

The package lives in the folder ``onnx_import/`` (mapped to ``kiln.onnx`` in pyproject.toml) because the repository
root is the ``kiln`` package and ``python -m pytest`` puts it on ``sys.path``: a folder named ``onnx/`` there
would shadow the real ``onnx`` package. See docs/onnx.md.
"""

from __future__ import annotations

import importlib
from typing import Any

from kiln.onnx.errors import OnnxImportError

_LAZY = {"Imported": "kiln.onnx.imported", "import_model": "kiln.onnx.importer", "load_model": "kiln.onnx.importer",
         "Model": "kiln.onnx.run", "load": "kiln.onnx.run"}
"""Names that load their module on first use: a ``load`` that hits the import cache never imports onnx, the
importer or ml_dtypes (together ~2 s)."""

__all__ = ["Imported", "Model", "OnnxImportError", "import_model", "load", "load_model"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kiln.onnx' has no attribute '{name}'")
