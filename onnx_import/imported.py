"""What importing an ONNX model gives (``Imported``), in a module of its own: the import cache builds one from
its entry without importing onnx, the importer or ml_dtypes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from kiln.onnx.narrow import NarrowType


@dataclass
class Imported:
    module: ModuleOp | str
    """The `graph` module, or its text when it came from the import cache (``import_cache``)."""
    function: str
    inputs: list[str]
    """The ONNX names of the runtime inputs, in argument order (weights follow them)."""
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    output_dtypes: list[str] = field(default_factory=list)
    output_narrow: list[NarrowType | None] = field(default_factory=list)
    """Per result, the narrow type (float8, int4, ...) its ``ui8`` holds, or None."""
    output_lengths: list[int | None] = field(default_factory=list)
    """Per output, the number of results its sequence is (``sequence.regroup``), or None for a tensor."""
