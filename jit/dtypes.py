"""dtypes of the front end: names, defaults, and numpy's promotion rules (asked of numpy itself).

Tensors carry kiln dtype names (``"f32"``, ``"i1"``, ``"ui8"``). kiln's graph ops need equal operand dtypes, so
the front end computes each op's dtype the way numpy 2 would and inserts ``graph.cast``. Rather than copying
numpy's tables, ``promote`` runs the numpy function that defines the op on one-element arrays and reads the result
dtype (memoized), so every rule, including NEP 50's weak Python scalars (``x_f16 * 2.0`` stays f16), is numpy's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from kiln.dialects.types import DTYPES, from_numpy, dtype_name as _mlir_name, to_numpy

DEFAULT_FLOAT = "f32"
"""dtype of Python floats in ``Tensor(...)``, and the default of ``rand``/``randn``/``zeros``/``ones``/``full``
(as in tinygrad and torch; numpy arrays keep their own dtype)."""
DEFAULT_INT = "i64"
"""dtype of Python ints in ``Tensor(...)`` and of ``arange`` over ints (numpy's default)."""

DTypeLike = str | np.dtype | type


def dtype_name(dtype: DTypeLike) -> str:
    """The kiln name of a dtype given as a kiln name (``"f32"``, ``"bool"``), a numpy dtype, or a Python type."""
    if isinstance(dtype, str):
        if dtype == "bool":
            return "i1"
        if dtype in DTYPES:
            return dtype
    if dtype is float:
        return DEFAULT_FLOAT
    if dtype is int:
        return DEFAULT_INT
    try:
        return _mlir_name(from_numpy(np.dtype(dtype)))
    except (TypeError, ValueError):
        raise TypeError(f"unknown dtype {dtype!r} (expected one of {', '.join(DTYPES)}, or a numpy dtype)") from None


def is_float(name: str) -> bool:
    return name in ("f16", "bf16", "f32", "f64")


def is_bool(name: str) -> bool:
    return name == "i1"


def is_int(name: str) -> bool:
    """Signed or unsigned integer, not bool."""
    return not is_float(name) and not is_bool(name)


Scalar = bool | int | float


def _probe(operand: str | type) -> Any:
    """What numpy sees for an operand: a one-element array of a tensor dtype, or a weak Python scalar."""
    if isinstance(operand, str):
        return np.zeros(1, to_numpy(operand))
    return operand(0)


@lru_cache(maxsize=4096)
def _promote(fn: Callable[..., Any], operands: tuple[str | type, ...]) -> str:
    with np.errstate(all="ignore"):
        return dtype_name(np.asarray(fn(*map(_probe, operands))).dtype)


def promote(fn: Callable[..., Any], *operands: str | Scalar) -> str:
    """The result dtype of numpy's ``fn`` on tensors of the given dtype names and Python scalars (weak).

    Raises numpy's own errors: TypeError for unsupported combinations, OverflowError for a Python int that does
    not fit the tensor dtype (``uint8 + 300``).
    """
    kinds = tuple(o if isinstance(o, str) else type(o) for o in operands)
    result = _promote(fn, kinds)
    for o in operands:
        if type(o) is int and not isinstance(o, bool) and is_int(result):
            info = np.iinfo(to_numpy(result))
            if not info.min <= o <= info.max:
                raise OverflowError(f"Python integer {o} out of bounds for {result}")
    return result


def float_result(name: str) -> str:
    """The dtype of a float-valued function (exp, sigmoid, ...) of a ``name`` tensor: numpy's ``np.exp`` rule
    (i8 -> f16, i16 -> f32, wider ints -> f64, floats unchanged)."""
    return promote(np.exp, name)


def scalar_dtype(value: Scalar) -> str:
    """The dtype a Python scalar gets on its own (``Tensor(2.0)``): bool i1, int DEFAULT_INT, float DEFAULT_FLOAT."""
    if isinstance(value, bool):
        return "i1"
    return DEFAULT_INT if isinstance(value, int) else DEFAULT_FLOAT
