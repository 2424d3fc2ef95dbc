"""The numpy meaning of the ALU ops the ``kernel`` and ``uop`` dialects share (``kiln.dialects.alu.ALU_OPS``).

Both the kernel and the uop interpreter ask ``alu_semantics(kind)`` and nothing else, so when every elementwise
op gets one declaration with its numpy semantics, this one function is what gets re-pointed.

Most kinds mean what the graph op of the same (or the listed) name means, so they are taken from
``kiln.interpreters.graph_ops`` (f16/bf16 computed in f32 and rounded once, integers wrap, shifts by out-of-range
amounts as docs/dialects/kernel.md says). Three differ at these levels and are defined here: ``idiv`` and ``mod``
truncate toward zero as in C (the graph's are floor division), and ``fma`` has no graph op.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln.dialects.alu import ALU_OPS
from kiln.interpreters.graph_ops import OPS, compute_dtype, is_float

_GRAPH_NAME = {"recip": "reciprocal", "cmplt": "lt", "cmple": "le", "cmpeq": "eq", "cmpne": "ne"}
"""ALU kinds whose graph op has another name."""


@np.errstate(all="ignore")
def _c_idiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Division truncated toward zero; floats: ``trunc(a / b)``. An integer zero divisor gives 0 (undefined)."""
    if is_float(a.dtype):
        return np.trunc(a.astype(compute_dtype(a.dtype)) / b.astype(compute_dtype(a.dtype))).astype(a.dtype)
    safe = np.where(b == 0, b.dtype.type(1), b)
    q = a // safe  # floor; C truncates: one more where the signs differ and the division was not exact
    q = np.where((a - q * safe != 0) & ((a < 0) != (safe < 0)), q + 1, q).astype(a.dtype)
    return np.where(b == 0, a.dtype.type(0), q)


@np.errstate(all="ignore")
def _c_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The remainder with the sign of ``a`` (``a - b * idiv(a, b)``); floats: ``fmod``."""
    if is_float(a.dtype):
        return np.fmod(a.astype(compute_dtype(a.dtype)), b.astype(compute_dtype(a.dtype))).astype(a.dtype)
    return (a - b * _c_idiv(a, b)).astype(a.dtype)


@np.errstate(all="ignore")
def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c``, in the compute dtype, rounded once to the operand dtype."""
    cdt = compute_dtype(a.dtype)
    return (a.astype(cdt) * b.astype(cdt) + c.astype(cdt)).astype(a.dtype)


_OWN: dict[str, Callable[..., np.ndarray]] = {"idiv": _c_idiv, "mod": _c_mod, "fma": _fma}
"""Kinds defined here; like graph_ops' functions they never warn (an op on a zero or a NaN is a value)."""


def _on_arrays(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """``fn`` on operands turned into numpy values (Python ints, as the interpreters keep ``index``, become
    int64)."""
    return lambda *operands: np.asarray(fn(*(np.asarray(x) for x in operands)))


_TABLE: dict[str, Callable[..., np.ndarray]] = {
    kind: _on_arrays(_OWN[kind] if kind in _OWN else OPS[_GRAPH_NAME.get(kind, kind)]) for kind in ALU_OPS
}


def alu_semantics(kind: str) -> Callable[..., np.ndarray]:
    """The numpy function of ALU op ``kind``: operands (numpy arrays or scalars of one dtype, ``where``'s
    condition i1) -> an ndarray of the result dtype, lane by lane."""
    return _TABLE[kind]


def _c_idiv_int(a: int, b: int) -> int:
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


INDEX_OPS: dict[str, Callable[[int, int], int | bool]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "idiv": _c_idiv_int,
    "mod": lambda a, b: a - b * _c_idiv_int(a, b),
    "max": max,
    "min": min,
    "cmplt": lambda a, b: a < b,
    "cmple": lambda a, b: a <= b,
    "cmpeq": lambda a, b: a == b,
    "cmpne": lambda a, b: a != b,
}
"""The binary ALU kinds on ``index`` operands as Python int arithmetic, with ``alu_semantics``'s meaning (C
truncation, 0 for a zero divisor) for the values index arithmetic takes: the uop interpreter's fast path for
its address and loop arithmetic, which numpy would run one scalar at a time at ~100x the cost."""
