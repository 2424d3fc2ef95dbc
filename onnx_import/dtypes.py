"""ONNX element types <-> kiln dtype names; the types kiln has no dtype for are import errors."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from kiln.onnx.errors import Unsupported
from kiln.onnx.narrow import narrow_type_of

_TO_KILN = {
    TensorProto.FLOAT: "f32", TensorProto.DOUBLE: "f64", TensorProto.FLOAT16: "f16", TensorProto.BFLOAT16: "bf16",
    TensorProto.INT8: "i8", TensorProto.INT16: "i16", TensorProto.INT32: "i32", TensorProto.INT64: "i64",
    TensorProto.UINT8: "ui8", TensorProto.UINT16: "ui16", TensorProto.UINT32: "ui32", TensorProto.UINT64: "ui64",
    TensorProto.BOOL: "i1",
}


def kiln_dtype(elem_type: int) -> str:
    """The kiln dtype of an ONNX element type, or ``Unsupported`` naming it."""
    if elem_type not in _TO_KILN:
        raise Unsupported(f"element type {TensorProto.DataType.Name(elem_type)} has no kiln dtype")
    return _TO_KILN[elem_type]


def numpy_supported(dtype: np.dtype) -> bool:
    """Whether a numpy array of this dtype can be an import-time value: a kiln dtype (ml_dtypes' bfloat16
    included) or a narrow type (float8, int4, ...: ``kiln.onnx.narrow``)."""
    return dtype.kind in "biuf" or str(dtype) == "bfloat16" or narrow_type_of(dtype) is not None


def check_array(array: np.ndarray, what: str) -> np.ndarray:
    if not numpy_supported(array.dtype):
        raise Unsupported(f"{what} has dtype {array.dtype}, which kiln has no dtype for")
    return array
