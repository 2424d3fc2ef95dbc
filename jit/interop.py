"""numpy interoperability of ``Tensor``: ``np.asarray(t)``, ``np.exp(t)``, ``ndarray + t``, and printing.

``Tensor.__array__`` realizes once and hands numpy one copy in the requested dtype (kiln's buffers are never
written, so numpy gets its own). ``Tensor.__array_ufunc__`` maps the ufuncs kiln has onto tensor ops, so
``np.exp(t)`` and ``ndarray * t`` stay lazy tensors on ``t``'s device; any other ufunc (or a ufunc called
with ``out=``, ``where=``, or as ``.reduce``/``.outer``) returns NotImplemented, and numpy raises its standard
TypeError naming the ufunc.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from kiln.jit.tensor import Tensor

_UNARY: dict[np.ufunc, str] = {
    np.negative: "neg", np.positive: "__pos__", np.absolute: "abs", np.exp: "exp", np.exp2: "exp2", np.log: "log",
    np.log2: "log2", np.sin: "sin", np.cos: "cos", np.sqrt: "sqrt", np.tanh: "tanh", np.floor: "floor",
    np.ceil: "ceil", np.trunc: "trunc", np.sign: "sign", np.invert: "logical_not", np.reciprocal: "reciprocal",
    np.square: "square",
}
"""Unary ufuncs and the Tensor method that computes each."""

_BINARY: dict[np.ufunc, tuple[str, str]] = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"), np.multiply: ("__mul__", "__rmul__"),
    np.true_divide: ("__truediv__", "__rtruediv__"), np.floor_divide: ("__floordiv__", "__rfloordiv__"),
    np.remainder: ("__mod__", "__rmod__"), np.power: ("__pow__", "__rpow__"),
    np.matmul: ("__matmul__", "__rmatmul__"), np.maximum: ("maximum", "maximum"),
    np.minimum: ("minimum", "minimum"), np.less: ("__lt__", "__gt__"), np.less_equal: ("__le__", "__ge__"),
    np.greater: ("__gt__", "__lt__"), np.greater_equal: ("__ge__", "__le__"), np.equal: ("__eq__", "__eq__"),
    np.not_equal: ("__ne__", "__ne__"), np.bitwise_and: ("__and__", "__rand__"),
    np.bitwise_or: ("__or__", "__ror__"), np.bitwise_xor: ("__xor__", "__rxor__"),
    np.left_shift: ("__lshift__", "__rlshift__"), np.right_shift: ("__rshift__", "__rrshift__"),
}
"""Binary ufuncs: (method when the tensor is the first operand, method when it is the second)."""


def apply_ufunc(tensor_type: type, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict) -> Any:
    """The tensor op for ``ufunc(*inputs)``, or NotImplemented (numpy then raises its TypeError)."""
    if method != "__call__" or kwargs:
        return NotImplemented
    if ufunc in _UNARY and len(inputs) == 1:
        return getattr(inputs[0], _UNARY[ufunc])()
    names = _BINARY.get(ufunc)
    if names is None or len(inputs) != 2:
        return NotImplemented
    a, b = inputs
    if isinstance(a, tensor_type):
        return getattr(a, names[0])(b)
    fn: Callable[[Any], Any] = getattr(b, names[1])
    return fn(a)


def to_array(t: Tensor, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
    """The value for numpy: one realization, one copy (in ``dtype`` when given)."""
    if copy is False:
        raise ValueError("a kiln Tensor cannot be viewed by numpy without a copy (its buffer may live on a device)")
    from kiln.jit.realize import realize
    from kiln.jit.trace import check_readable

    check_readable(t._node, "np.asarray()")
    realize([t], "np.asarray()")
    value: np.ndarray = t._node.arg
    return value.astype(dtype) if dtype is not None else value.copy()


def describe(t: Tensor) -> str:
    """``repr``: the values, numpy style, when they are known without computing anything; otherwise what the
    tensor is and that it has not been computed."""
    node = t._node
    suffix = f"dtype={t.dtype}, device={t.device}"
    if node.op == "buffer":
        body = np.array2string(node.arg, separator=", ", prefix="Tensor(")
        return f"Tensor({body}, {suffix})"
    if node.op == "const" and all(isinstance(d, int) for d in node.shape):
        body = np.array2string(np.full(node.shape, node.arg), separator=", ", prefix="Tensor(")
        return f"Tensor({body}, {suffix})"
    from kiln.jit.dims import show_shape

    state = "traced inside @kiln.jit" if node.trace is not None else "lazy, not computed yet (str() or .numpy() computes it)"
    return f"<Tensor {t.dtype}{show_shape(node.shape)} on {t.device}, {state}>"


def show(t: Tensor) -> str:
    """``str`` (``print``): the values as numpy prints them, computing the tensor if needed; a traced tensor,
    which has no value yet, prints its ``repr``."""
    if t._node.trace is not None:
        return describe(t)
    return str(to_array(t))
