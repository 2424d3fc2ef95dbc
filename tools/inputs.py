"""Function inputs and results as text, and checking arrays against a function's signature.

Input syntax (IREE's ``iree-run-module``):

- ``@path.npy``: an array saved with ``numpy.save``;
- ``SHAPExDTYPE=VALUES``: ``2x3xf32=1,2,3,4,5,6``; values are separated by commas or spaces, brackets are
  optional grouping (``2x3xf32=[[1 2 3][4 5 6]]``), read in row-major order; one value fills the whole shape;
  ``inf``, ``-inf``, ``nan``, ``true``, ``false`` are accepted; a rank-0 tensor is ``f32=1.5``;
- a bare value (``5``): a rank-0 argument, dtype taken from the function's signature.

Results print in the same syntax, always bracketed (``2x3xf32=[[1 2 3][4 5 6]]``). Floats are printed in the
shortest form that reads back to the same value, without a trailing ``.0``; booleans as ``true``/``false``.

`bind_symbols` is the one check of arrays against a signature (count, dtype, rank, static dims, symbolic dims
consistent and within their declared bounds); kiln-run and the runtime share it. Every error here is a
`kiln.support.errors.InputError` with a message for people.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute

from kiln.dialects.types import (
    BufferType,
    Shape,
    TensorType,
    dtype_name,
    format_shape,
    from_numpy,
    is_dtype,
    numel,
    parse_dtype,
    to_numpy,
)
from kiln.support.errors import InputError


@dataclass(frozen=True)
class Param:
    """One function argument or result as data: a shape (ints and symbol names) and a dtype name."""

    shape: Shape
    dtype: str

    def __str__(self) -> str:
        return "".join(f"{d}x" for d in self.shape) + self.dtype


def param_of(t: Attribute | Param) -> Param:
    """The Param of a ``!graph.tensor`` / ``!kernel.buffer`` type, or of a scalar dtype (rank 0)."""
    if isinstance(t, Param):
        return t
    if isinstance(t, TensorType | BufferType):
        return Param(t.shape, dtype_name(t.element_type))
    if is_dtype(t):
        return Param((), dtype_name(t))
    raise InputError(f"arguments of type {t} cannot be given as arrays (expected a !graph.tensor or a scalar dtype)")


# ---------------------------------------------------------------------------------------------
# reading inputs


def parse_input(text: str, param: Param | None = None) -> np.ndarray:
    """The array an input string stands for. ``param`` (the argument it is for) gives a bare value its dtype."""
    if text.startswith("@"):
        return _load_npy(text[1:])
    if "=" in text:
        return parse_literal(text)
    if param is None or param.shape != ():
        expected = f"argument {param}" if param is not None else "no argument"
        raise InputError(
            f"bare value '{text}' given for {expected}; a bare value is for a rank-0 argument, "
            "otherwise write SHAPExDTYPE=VALUES (e.g. 2x3xf32=1,2,3,4,5,6) or @file.npy"
        )
    return _values(_tokens(text, text), (), param.dtype, text)


def parse_literal(text: str) -> np.ndarray:
    """``2x3xf32=1,2,3,4,5,6`` (see the module docstring) as an array."""
    type_text, _, values_text = text.partition("=")
    *dims, dtype = type_text.strip().split("x")
    try:
        parse_dtype(dtype)
    except ValueError as e:
        raise InputError(f"bad dtype in input '{text}': {e}") from None
    if not all(d.isdigit() for d in dims):
        raise InputError(
            f"bad shape in input '{text}': expected SHAPExDTYPE with non-negative integer dims, such as 2x3xf32"
        )
    shape = tuple(int(d) for d in dims)
    return _values(_tokens(values_text, text), shape, "i1" if dtype == "bool" else dtype, text)


def _tokens(values_text: str, text: str) -> list[str]:
    depth = 0
    tokens: list[str] = []
    for token in re.findall(r"[\[\]]|[^\s,\[\]]+", values_text):
        if token == "[":
            depth += 1
        elif token == "]":
            depth -= 1
            if depth < 0:
                raise InputError(f"unbalanced ']' in input '{text}'")
        else:
            tokens.append(token)
    if depth:
        raise InputError(f"unclosed '[' in input '{text}'")
    return tokens


def _values(tokens: list[str], shape: tuple[int, ...], dtype: str, text: str) -> np.ndarray:
    count = numel(shape)
    if len(tokens) not in (count, 1):
        raise InputError(f"input '{text}' has {len(tokens)} values; its shape {format_shape(shape)} needs {count}")
    np_dtype = to_numpy(dtype)
    flat = np.array([_scalar(tok, dtype, np_dtype, text) for tok in tokens], dtype=np_dtype)
    return np.broadcast_to(flat, (count,)).reshape(shape).copy()


def _scalar(token: str, dtype: str, np_dtype: np.dtype, text: str) -> bool | int | float:
    word = token.lower()
    if dtype == "i1" and word in ("true", "1", "false", "0"):
        return word in ("true", "1")
    try:
        value = int(token) if np_dtype.kind in "iu" else float(token)
    except ValueError:
        value = None
    if value is None or dtype == "i1":
        where = "" if token == text else f" in input '{text}'"
        raise InputError(f"'{token}'{where} is not a valid {dtype} value")
    if isinstance(value, int) and not np.iinfo(np_dtype).min <= value <= np.iinfo(np_dtype).max:
        raise InputError(f"value {value} in input '{text}' is out of range for {dtype}")
    return value


def _load_npy(path: str) -> np.ndarray:
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read input array '{path}': {e}") from None
    if not isinstance(loaded, np.ndarray):
        raise InputError(f"'{path}' holds several arrays (.npz); give each one as its own .npy file")
    return loaded


# ---------------------------------------------------------------------------------------------
# checking inputs against a signature


def bind_symbols(
    arg_types: Sequence[Attribute | Param],
    dims_bounds: Mapping[str, tuple[int, int]],
    arrays: Sequence[np.ndarray],
) -> dict[str, int]:
    """The value of every symbolic dim, read from the arrays' shapes; raises InputError if they do not fit.

    Checks the number of arrays, each array's dtype, rank and static dims, that a symbol has one value
    across all arrays, and that the value lies within the symbol's inclusive bounds.
    """
    params = [param_of(t) for t in arg_types]
    if len(arrays) != len(params):
        raise InputError(
            f"expected {len(params)} inputs ({', '.join(map(str, params)) or 'none'}), got {len(arrays)}"
        )
    bound: dict[str, tuple[int, str]] = {}  # symbol -> (value, where it was read)
    for i, (param, array) in enumerate(zip(params, arrays)):
        got = f"{shape_text(array.shape)}x{_dtype_text(array.dtype)}" if array.ndim else _dtype_text(array.dtype)
        if array.dtype != to_numpy(param.dtype) or array.ndim != len(param.shape):
            raise InputError(f"input {i}: expected {param}, got {got}")
        for axis, (dim, size) in enumerate(zip(param.shape, array.shape)):
            where = f"input {i} (dim {axis})"
            if isinstance(dim, int):
                if dim != size:
                    raise InputError(f"input {i}: expected {param}, got {got} (dim {axis} is {size}, not {dim})")
                continue
            if dim not in dims_bounds:
                raise InputError(f"{where}: symbol {dim} is not declared in the function's graph.dims")
            if dim in bound and bound[dim][0] != size:
                value, first = bound[dim]
                raise InputError(f"{where} gives {dim} = {size}, but {first} gave {dim} = {value}")
            lo, hi = dims_bounds[dim]
            if not lo <= size <= hi:
                raise InputError(f"{where} gives {dim} = {size}, outside its declared bounds [{lo}, {hi}]")
            bound.setdefault(dim, (size, where))
    return {symbol: value for symbol, (value, _) in bound.items()}


def shape_text(shape: Sequence[int | str]) -> str:
    return "x".join(str(d) for d in shape)


def _dtype_text(dt: np.dtype) -> str:
    try:
        return dtype_name(from_numpy(dt))
    except ValueError:
        return f"numpy {dt}"


# ---------------------------------------------------------------------------------------------
# printing results


SUMMARY_THRESHOLD = 1000
"""Arrays with more elements are printed summarized (numpy's ``threshold``)."""
SUMMARY_EDGE = 3
"""Items kept at each end of every summarized axis (numpy's ``edgeitems``)."""


def format_literal(array: np.ndarray, full: bool = False) -> str:
    """An array in input syntax, always bracketed: ``2x3xf32=[[1 2 3][4 5 6]]``, ``f32=1.5``.

    Above ``SUMMARY_THRESHOLD`` elements, unless ``full``, each axis longer than twice ``SUMMARY_EDGE`` shows
    its first and last items around ``...``, as numpy prints (a 1000x256 result is a few lines, not 2.8 MB);
    such text is for reading, not for ``--input``.
    """
    prefix = f"{shape_text(array.shape)}x" if array.ndim else ""
    edge = 0 if full or array.size <= SUMMARY_THRESHOLD else SUMMARY_EDGE
    return f"{prefix}{_dtype_text(array.dtype)}={_nested(array, edge)}"


def _nested(array: np.ndarray, edge: int) -> str:
    if array.ndim == 0:
        return _element(array[()])
    cut = edge and len(array) > 2 * edge
    head, tail = (array[:edge], array[-edge:]) if cut else (array, array[:0])
    if array.ndim == 1:
        parts = [_element(x) for x in head] + (["..."] if cut else []) + [_element(x) for x in tail]
        return "[" + " ".join(parts) + "]"
    parts = [_nested(sub, edge) for sub in head] + (["..."] if cut else []) + [_nested(sub, edge) for sub in tail]
    return "[" + "".join(parts) + "]"


def _element(x: np.generic) -> str:
    if isinstance(x, np.bool_):
        return "true" if x else "false"
    if isinstance(x, np.integer):
        return str(int(x))
    return str(x).removesuffix(".0")
