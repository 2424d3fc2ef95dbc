"""The table of ONNX op handlers: ``@handler("Add", "Sub")`` registers one function per family of ops.

A handler takes the node view (``kiln.onnx.node.NodeView``) and returns one value per node output: a kiln
``Tensor`` (computed by the program) or a numpy array (known at import time), or None for an absent output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

HANDLERS: dict[str, Callable[[Any], list[Any]]] = {}


def handler(*op_types: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for op_type in op_types:
            assert op_type not in HANDLERS, f"two handlers for {op_type}"
            HANDLERS[op_type] = fn
        return fn

    return register


def load_all() -> None:
    """Import every family module once (each registers its handlers on import)."""
    from kiln.onnx.ops import (  # noqa: F401
        attention, causal_conv, control, elementwise, indexing, loops, movement, nn, normalization, pooling, quant, recurrent, reduce, resize, scatter, sequence, shape, sorting, spectral,
    )
