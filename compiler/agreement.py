"""Whether two results of one computation agree, within tolerances that depend on the dtype, and where they
disagree most: the comparison behind ``--verify-semantics``.

Integers and booleans must be equal. Floats agree where both are the same NaN-or-not, equal infinities, or
finite and within ``rtol * |expected| + rtol * max(1, largest finite |expected|)``: a pass may legitimately
reorder a float sum (splitting a reduction, vectorizing it), which moves a result by a few ulps of the sum's
largest terms, not of the result itself. ``rtol`` is the narrower dtype's (``RTOL``): a pass that computes
f64 in f32 (``KILN_WEBGPU_F64=f32``) is held to f32's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kiln.dialects.types import dtype_name, from_numpy

RTOL: dict[str, float] = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 5e-2}
"""Relative tolerance per float dtype (numpy names); about 100 ulps of f32 and 10 of f16 and bf16, which
software transcendentals and reordered sums stay within."""


@dataclass(frozen=True)
class Mismatch:
    """Where two arrays disagree most."""

    index: tuple[int, ...]
    got: object
    expected: object
    differing: int
    """How many elements disagree."""
    size: int
    tolerance: str
    """The rule the worst element broke, for people (``exact (i32)``, ``|diff| <= 1.2e-04 (f32)``)."""

    def __str__(self) -> str:
        where = f"[{', '.join(map(str, self.index))}]" if self.index else "(the scalar)"
        return (f"at {where}: {self.got!s} where {self.expected!s} was expected ({self.tolerance}); "
                f"{self.differing} of {self.size} elements differ")


def compare(got: np.ndarray, expected: np.ndarray) -> Mismatch | str | None:
    """None when ``got`` agrees with ``expected``; a shape problem as text; else the worst element."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return f"shape {list(got.shape)} where {list(expected.shape)} was expected"
    floats = [d for d in (got.dtype, expected.dtype) if d.name in RTOL]
    if not floats:
        return _compare_exact(got, expected)
    rtol = max(RTOL[d.name] for d in floats)
    return _compare_floats(got, expected, rtol, min(floats, key=lambda d: d.itemsize))


def _compare_exact(got: np.ndarray, expected: np.ndarray) -> Mismatch | None:
    g, e = got.astype(object), expected.astype(object)  # Python ints: no overflow, any signedness
    bad = g != e
    if not bad.any():
        return None
    distance = np.where(bad, np.abs(g - e), 0)
    worst = np.unravel_index(int(np.argmax(distance)), got.shape) if got.ndim else ()
    return Mismatch(tuple(int(i) for i in worst), _item(got, worst), _item(expected, worst), int(bad.sum()),
                    got.size, f"exact ({_name(expected.dtype)})")


def _compare_floats(got: np.ndarray, expected: np.ndarray, rtol: float, dtype: np.dtype) -> Mismatch | None:
    g, e = got.astype(np.float64), expected.astype(np.float64)
    finite_e = np.abs(e[np.isfinite(e)])
    scale = max(1.0, float(finite_e.max())) if finite_e.size else 1.0
    allowed = rtol * np.abs(np.where(np.isfinite(e), e, 0.0)) + rtol * scale
    both_finite = np.isfinite(g) & np.isfinite(e)
    with np.errstate(invalid="ignore"):
        excess = np.where(both_finite, np.abs(g - e) / allowed, 0.0)
    # NaN where the other is not, or a different infinity: worse than any finite difference.
    other = ~both_finite & ~((np.isnan(g) & np.isnan(e)) | (g == e))
    excess = np.where(other, np.inf, excess)
    bad = excess > 1.0
    if not bad.any():
        return None
    worst = np.unravel_index(int(np.argmax(excess)), g.shape) if g.ndim else ()
    return Mismatch(tuple(int(i) for i in worst), _item(got, worst), _item(expected, worst), int(bad.sum()), g.size,
                    f"|difference| <= {float(allowed[worst]):.2g} ({_name(dtype)})")


def _name(dtype: np.dtype) -> str:
    return dtype_name(from_numpy(dtype))


def _item(a: np.ndarray, index: tuple) -> object:
    """The element as numpy prints it in its own dtype (``17.915281`` for an f32, not its f64 expansion)."""
    value = a[index] if index else a[()]
    return int(value) if a.dtype.kind in "iu" else value
