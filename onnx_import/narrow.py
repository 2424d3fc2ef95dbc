"""ONNX's narrow element types (float8 including the E8M0 scale type, float4, 4- and 2-bit integers), which kiln has no dtype for, carried as
their storage byte.

A narrow value in a kiln program is a ``ui8`` tensor holding, per element, the byte ml_dtypes stores it as (the
code in the low bits: an int4 -2 is 0x0E, a float8_e4m3fn 1.0 is 0x38). Import-time constants of these types stay
ml_dtypes arrays (onnx's reference evaluator folds them). Only Cast, CastLike, QuantizeLinear and
DequantizeLinear compute with them (``ops/narrow_cast.py`` lowers the conversions to integer and float graph
ops); the model's narrow inputs and outputs are ``ui8`` arguments and results, which ``to_storage`` and
``from_storage`` convert at the call.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np
from onnx import TensorProto

from kiln.jit import Tensor

STORAGE = "ui8"


@dataclass(frozen=True)
class NarrowType:
    name: str
    """ONNX's name of the element type (FLOAT8E4M3FN, INT4, ...)."""
    numpy: np.dtype
    """ml_dtypes' numpy dtype of it."""
    bits: int

    @property
    def is_float(self) -> bool:
        return self.numpy.kind == "f" or self.name.startswith("FLOAT")

    def codes(self) -> np.ndarray:
        """Every value of the type, indexed by its storage byte."""
        return np.arange(1 << self.bits, dtype=np.uint8).view(self.numpy)

    def byte(self, value: float) -> int:
        """The storage byte ml_dtypes converts a float32 ``value`` to (NaN, infinities and overflow included)."""
        return int(np.array([value], np.float32).astype(self.numpy).view(np.uint8)[0])


_TYPES = {
    TensorProto.FLOAT8E4M3FN: NarrowType("FLOAT8E4M3FN", np.dtype(ml_dtypes.float8_e4m3fn), 8),
    TensorProto.FLOAT8E4M3FNUZ: NarrowType("FLOAT8E4M3FNUZ", np.dtype(ml_dtypes.float8_e4m3fnuz), 8),
    TensorProto.FLOAT8E5M2: NarrowType("FLOAT8E5M2", np.dtype(ml_dtypes.float8_e5m2), 8),
    TensorProto.FLOAT8E5M2FNUZ: NarrowType("FLOAT8E5M2FNUZ", np.dtype(ml_dtypes.float8_e5m2fnuz), 8),
    TensorProto.FLOAT8E8M0: NarrowType("FLOAT8E8M0", np.dtype(ml_dtypes.float8_e8m0fnu), 8),
    TensorProto.FLOAT4E2M1: NarrowType("FLOAT4E2M1", np.dtype(ml_dtypes.float4_e2m1fn), 4),
    TensorProto.INT4: NarrowType("INT4", np.dtype(ml_dtypes.int4), 4),
    TensorProto.UINT4: NarrowType("UINT4", np.dtype(ml_dtypes.uint4), 4),
    TensorProto.INT2: NarrowType("INT2", np.dtype(ml_dtypes.int2), 2),
    TensorProto.UINT2: NarrowType("UINT2", np.dtype(ml_dtypes.uint2), 2),
}
_BY_NUMPY = {t.numpy: t for t in _TYPES.values()}


def narrow_type(elem_type: int) -> NarrowType | None:
    """The narrow type of an ONNX element type, or None for the types kiln has a dtype for (and the others)."""
    return _TYPES.get(elem_type)


def narrow_type_named(name: str) -> NarrowType:
    """The narrow type ONNX calls ``name`` (``NarrowType.name``)."""
    return next(t for t in _TYPES.values() if t.name == name)


def narrow_elem_type(t: NarrowType) -> int:
    """The ONNX element type of a narrow type."""
    return next(k for k, v in _TYPES.items() if v is t)


def narrow_type_of(dtype: np.dtype) -> NarrowType | None:
    """The narrow type of a numpy (ml_dtypes) dtype, or None."""
    return _BY_NUMPY.get(np.dtype(dtype))


@dataclass(frozen=True)
class Narrow:
    """A runtime value of a narrow type: its storage bytes as a ``ui8`` tensor."""

    bits: Tensor
    type: NarrowType

    @property
    def shape(self) -> tuple:
        return self.bits._node.shape


def to_storage(array: np.ndarray) -> np.ndarray:
    """A narrow-typed array as the ``ui8`` argument kiln takes for it (other arrays unchanged)."""
    return array.view(np.uint8) if narrow_type_of(array.dtype) is not None else array


def from_storage(array: np.ndarray, t: NarrowType | None) -> np.ndarray:
    """A ``ui8`` result as the narrow-typed array it stands for (``t`` None: unchanged)."""
    return array if t is None else np.ascontiguousarray(array).view(t.numpy)
