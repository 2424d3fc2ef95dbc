"""kiln's dtypes as plain data: each name's kind and width, and its numpy dtype.

The runtime loads and runs a cached program knowing dtypes by name only, so this table imports no IR library:
a later process that finds its program in the disk cache never imports xDSL. ``kiln.dialects.types`` builds
the MLIR types (``DTYPES``) from it, so the two cannot disagree. Names are MLIR's spellings: ``i1`` is bool,
``i8``-``i64`` signed, ``ui8``-``ui64`` unsigned, ``f16 bf16 f32 f64``; ``index`` (64-bit) exists only at the
kernel and uop levels and is not a tensor dtype.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DtypeFacts:
    """What kind of number a dtype holds and in how many bits."""

    kind: str
    """"bool", "int" (signed), "uint" or "float"."""
    bits: int


DTYPE_FACTS: dict[str, DtypeFacts] = {
    "i1": DtypeFacts("bool", 1),
    "i8": DtypeFacts("int", 8),
    "i16": DtypeFacts("int", 16),
    "i32": DtypeFacts("int", 32),
    "i64": DtypeFacts("int", 64),
    "ui8": DtypeFacts("uint", 8),
    "ui16": DtypeFacts("uint", 16),
    "ui32": DtypeFacts("uint", 32),
    "ui64": DtypeFacts("uint", 64),
    "f16": DtypeFacts("float", 16),
    "bf16": DtypeFacts("float", 16),
    "f32": DtypeFacts("float", 32),
    "f64": DtypeFacts("float", 64),
}
"""Every dtype a tensor may have, by its MLIR spelling, in the order kiln lists them."""

INDEX_BITS = 64
"""The width of ``index`` in host memory (loop counters, index arithmetic; on GPUs see ``index_bits``)."""

_NUMPY: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "index": np.dtype(np.int64),
}
"""dtype name -> numpy dtype, except bf16 (see ``_bfloat16``)."""


@functools.cache
def _bfloat16() -> np.dtype:
    """ml_dtypes' bfloat16, imported on first use: the import costs most of a second, which a program
    without bf16 (and every kiln-opt run) should not pay."""
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def check_dtype_name(name: str) -> str:
    """``name`` if it is a dtype or "index" ("bool" reads as "i1"); ValueError naming the dtypes otherwise."""
    if name == "bool":
        return "i1"
    if name != "index" and name not in DTYPE_FACTS:
        raise ValueError(f"unknown dtype '{name}' (expected one of {', '.join(DTYPE_FACTS)})")
    return name


def dtype_bits(name: str) -> int:
    """The width of dtype ``name`` (or "index") in bits; i1 is 1."""
    return INDEX_BITS if name == "index" else DTYPE_FACTS[name].bits


def dtype_itemsize(name: str) -> int:
    """Bytes per element in memory (bool takes one byte)."""
    return max(1, dtype_bits(name) // 8)


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of dtype ``name`` (bf16 is ml_dtypes.bfloat16; index is int64)."""
    return _bfloat16() if name == "bf16" else _NUMPY[check_dtype_name(name)]


def dtype_of_numpy(dt: np.dtype | type) -> str:
    """The dtype name of a numpy dtype; ValueError if kiln has none."""
    dt = np.dtype(dt)
    for name, candidate in _NUMPY.items():
        if candidate == dt and name != "index":
            return name
    if dt.name == "bfloat16" and dt == _bfloat16():
        return "bf16"
    raise ValueError(f"numpy dtype {dt} has no kiln equivalent")
