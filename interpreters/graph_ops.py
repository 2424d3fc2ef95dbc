"""The numpy meaning of every graph op: the oracle every backend and every pass is tested against.

``OPS[name](*operands, **properties)`` computes graph op ``graph.<name>`` on numpy arrays. Operands are
positional, in the op's flat operand order (an absent optional operand is simply left out); properties are
keyword arguments with their contract names (docs/internals.md), as Python values (tuples of ints, ints,
floats, bools); an absent optional property takes the dialect's default. Ops whose result is not fixed by
their operands also take the result ``shape=`` and/or ``dtype=`` (see ``NEEDS_SHAPE`` / ``NEEDS_DTYPE``). Every result is an ``np.ndarray`` of
the exact result dtype (bf16 is ``ml_dtypes.bfloat16``); no numpy RuntimeWarning escapes.

Rules beyond docs/internals.md, fixed here:

- Precision: f16/bf16 math is computed in f32 and rounded back once; their reductions (and matmul, conv,
  cumsum, softmax, layernorm) accumulate in f32. f32 and f64 compute in their own precision, except
  ``erf``/``gelu``, which evaluate erf in f64 (``math.erf``) for every float dtype.
- Integers wrap (two's complement) on overflow, in arithmetic, reductions, cumsum and matmul alike.
- ``cast`` is numpy's ``astype``. Float -> int truncates toward zero; NaN, ±inf and values out of the target
  range give whatever numpy gives on this machine (on x86: INT_MIN for 32/64-bit targets): unspecified, and
  never compared across backends. Float -> i1 is ``x != 0`` (so NaN -> true).
- Shifts read the shift amount as unsigned: a negative amount counts as ≥ the bit width.
- ``relu(x) = max(x, 0)``, so ``relu(nan) = nan``. ``reduce_max``/``reduce_min`` propagate NaN and return
  -inf/+inf (int min/max) over an empty axis; ``argmax``/``argmin`` treat NaN as the extreme (numpy) and
  reject an empty axis. ``mean`` over an empty axis is NaN.
- ``gather`` indices must lie in ``[0, dim)``; anything else is an ``IndexError`` (no Python-style negative
  indexing).
- ``max_pool2d`` pads with -inf (int min for ints); ``avg_pool2d`` and ``mean`` are float-only.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from kiln.dialects.graph import UNARY
from kiln.dialects.ops.spec import Elementwise
from kiln.dialects.ops.table import OPS as ELEMENTWISE, erf_f64


F32 = np.dtype(np.float32)

OPS: dict[str, Callable[..., np.ndarray]] = {}
"""Graph op name (without the ``graph.`` prefix) -> its numpy implementation."""

NEEDS_SHAPE = frozenset({"constant", "iota", "reshape", "expand"})
"""Ops that take the result shape as ``shape=``."""
NEEDS_DTYPE = frozenset({"constant", "iota", "cast", "bitcast", "argmax", "argmin"})
"""Ops that take the result dtype as ``dtype=``."""


def _register(name: str, fn: Callable[..., object]) -> Callable[..., np.ndarray]:
    """Record ``fn`` as graph op ``name``; the recorded function never warns and always returns an ndarray."""

    @functools.wraps(fn)
    def run(*args: object, **kwargs: object) -> np.ndarray:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args, **kwargs))

    OPS[name] = run
    return run


def graph_op(name: str) -> Callable[[Callable[..., object]], Callable[..., np.ndarray]]:
    return lambda fn: _register(name, fn)


# ---------------------------------------------------------------------------------------------
# dtypes


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt.name == "bfloat16"


def compute_dtype(dt: np.dtype) -> np.dtype:
    """The dtype math on ``dt`` is carried out in: f32 for f16/bf16, ``dt`` itself otherwise."""
    if dt.kind == "f":  # by kind and size first: the uop interpreter asks once per scalar op, and .name is slow
        return F32 if dt.itemsize == 2 else dt
    return F32 if dt.kind == "V" and dt.name == "bfloat16" else dt


def lowest(dt: np.dtype) -> float | int | bool:
    """The identity of max: -inf for floats, the minimum for ints, False for bool."""
    if dt == np.bool_:
        return False
    return -np.inf if is_float(dt) else np.iinfo(dt).min


def highest(dt: np.dtype) -> float | int | bool:
    """The identity of min: +inf for floats, the maximum for ints, True for bool."""
    if dt == np.bool_:
        return True
    return np.inf if is_float(dt) else np.iinfo(dt).max


def _require_float(op: str, x: np.ndarray) -> None:
    if not is_float(x.dtype):
        raise TypeError(f"graph.{op} is defined on floats only, got {x.dtype}")


def _require_int(op: str, x: np.ndarray) -> None:
    if x.dtype.kind not in "iu":
        raise TypeError(f"graph.{op} is defined on integers only, got {x.dtype}")


def _in_compute(fn: Callable[..., np.ndarray], *xs: np.ndarray, out: np.dtype | None = None) -> np.ndarray:
    """``fn`` on ``xs`` widened to their compute dtype, rounded to ``out`` (default: the operand dtype)."""
    dt = xs[0].dtype
    cdt = compute_dtype(dt)
    return np.asarray(fn(*(x.astype(cdt, copy=False) for x in xs))).astype(out or dt, copy=False)


# ---------------------------------------------------------------------------------------------
# elementwise


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + erf_f64(x / np.sqrt(x.dtype.type(2))))


_COMPOSITE_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "gelu": _gelu,
    "relu": lambda x: np.maximum(x, x.dtype.type(0)),
}
"""The graph's composite unary ops (``kiln.dialects.graph.COMPOSITE_UNARY``); the primitives' meanings are
declared with them (``kiln.dialects.ops``)."""


def _unary(op: Elementwise | str, fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """A unary op computed in the compute dtype: float-only ops reject other dtypes, predicates return bool."""
    name = op if isinstance(op, str) else op.graph
    classes = UNARY[name]
    out = np.dtype(np.bool_) if isinstance(op, Elementwise) and op.returns_bool else None

    def run(x: np.ndarray) -> np.ndarray:
        if classes == {"float"}:
            _require_float(name, x)
        return _in_compute(fn, x, out=out)

    return run


for _op in ELEMENTWISE:
    if _op.graph and _op.numpy and _op.arity == 1:
        _register(_op.graph, _unary(_op, _op.numpy))
for _name, _fn in _COMPOSITE_UNARY.items():
    _register(_name, _unary(_name, _fn))


@graph_op("not")
def not_(x: np.ndarray) -> np.ndarray:
    """Logical not on i1, bitwise not on integers."""
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


_COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}


def _check_same_dtype(name: str, a: np.ndarray, b: np.ndarray) -> None:
    if a.dtype != b.dtype:
        raise TypeError(f"graph.{name} needs operands of one dtype, got {a.dtype} and {b.dtype}")


def _binary(
    name: str,
    fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
    out: np.dtype | None = None,
    float_only: bool = False,
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _check_same_dtype(name, a, b)
        if float_only:
            _require_float(name, a)
        return _in_compute(fn, a, b, out=out)

    return run


for _op in ELEMENTWISE:
    if _op.graph and _op.numpy and _op.arity == 2:
        _register(_op.graph, _binary(_op.graph, _op.numpy, float_only=_op.graph_classes == {"float"}))
for _name, _fn in _COMPARE.items():
    _register(_name, _binary(_name, _fn, out=np.dtype(np.bool_)))


def _int_division(
    name: str, fn: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Floor division / floor modulo; on integers a zero divisor gives 0."""

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        _check_same_dtype(name, a, b)
        if is_float(a.dtype):
            return _in_compute(fn, a, b)
        zero = b == 0
        return np.where(zero, a.dtype.type(0), fn(a, np.where(zero, b.dtype.type(1), b)))

    return run


_register("idiv", _int_division("idiv", np.floor_divide))
_register("mod", _int_division("mod", np.remainder))


def _shift_amount(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(amount clamped to bits-1 in a's dtype, amount >= bits), reading b as unsigned."""
    bits = a.dtype.itemsize * 8
    unsigned = b.astype(np.dtype(f"u{b.dtype.itemsize}")).astype(np.uint64)
    return np.minimum(unsigned, bits - 1).astype(a.dtype), unsigned >= bits


@graph_op("shl")
def shl(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_same_dtype("shl", a, b)
    _require_int("shl", a)
    amount, too_far = _shift_amount(a, b)
    return np.where(too_far, a.dtype.type(0), np.left_shift(a, amount))


@graph_op("shr")
def shr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Arithmetic on signed (a shift ≥ width leaves the sign: 0 or -1), logical on unsigned (gives 0)."""
    _check_same_dtype("shr", a, b)
    _require_int("shr", a)
    amount, too_far = _shift_amount(a, b)
    shifted = np.right_shift(a, amount)
    return shifted if a.dtype.kind == "i" else np.where(too_far, a.dtype.type(0), shifted)


@graph_op("where")
def where(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_same_dtype("where", a, b)
    return np.where(cond.astype(np.bool_, copy=False), a, b).astype(a.dtype, copy=False)


@graph_op("cast")
def cast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return x.astype(dtype)


@graph_op("bitcast")
def bitcast(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if np.dtype(dtype).itemsize != x.dtype.itemsize or (dtype == np.bool_) != (x.dtype == np.bool_):
        raise TypeError(f"graph.bitcast needs equal bit widths, got {x.dtype} -> {np.dtype(dtype)}")
    return x.copy().view(dtype)


# ---------------------------------------------------------------------------------------------
# constants


@graph_op("constant")
def constant(value: float | int | bool | np.ndarray, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """A splat (Python scalar) or dense (array of the result shape) value; integers wrap to the dtype's width."""
    v = np.asarray(value)
    if v.ndim and v.shape != tuple(shape):
        raise ValueError(f"graph.constant: dense value of shape {v.shape} for a result of shape {tuple(shape)}")
    return np.broadcast_to(v.astype(dtype), shape).copy()


@graph_op("iota")
def iota(shape: Sequence[int], dtype: np.dtype, axis: int) -> np.ndarray:
    """The index along ``axis`` at every element (wrapping for narrow integer dtypes)."""
    along = [1] * len(shape)
    along[axis] = shape[axis]
    return np.broadcast_to(np.arange(shape[axis], dtype=np.int64).astype(dtype).reshape(along), shape).copy()


# ---------------------------------------------------------------------------------------------
# reductions


def _reduce(x: np.ndarray, fn: Callable[..., np.ndarray], axes: Sequence[int], keepdims: bool, **kw: object) -> np.ndarray:
    return fn(x, axis=tuple(axes), keepdims=keepdims, **kw)


@graph_op("reduce_sum")
def reduce_sum(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    """Sum; f16/bf16 accumulate in f32, integers wrap."""
    return _reduce(x, np.sum, axes, keepdims, dtype=compute_dtype(x.dtype)).astype(x.dtype)


@graph_op("reduce_prod")
def reduce_prod(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    return _reduce(x, np.prod, axes, keepdims, dtype=compute_dtype(x.dtype)).astype(x.dtype)


@graph_op("reduce_max")
def reduce_max(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    return _reduce(x, np.max, axes, keepdims, initial=lowest(x.dtype)).astype(x.dtype)


@graph_op("reduce_min")
def reduce_min(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    return _reduce(x, np.min, axes, keepdims, initial=highest(x.dtype)).astype(x.dtype)


@graph_op("mean")
def mean(x: np.ndarray, axes: Sequence[int], keepdims: bool) -> np.ndarray:
    _require_float("mean", x)
    count = math.prod(x.shape[a] for a in axes)
    total = _reduce(x, np.sum, axes, keepdims, dtype=compute_dtype(x.dtype))
    return (total / total.dtype.type(count)).astype(x.dtype)


def _arg_extreme(name: str, fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def run(x: np.ndarray, axis: int, keepdims: bool, dtype: np.dtype = np.dtype(np.int64)) -> np.ndarray:
        """First index of the extreme along ``axis``."""
        if x.shape[axis] == 0:
            raise ValueError(f"graph.{name} over an empty axis {axis}")
        return fn(x, axis=axis, keepdims=keepdims).astype(dtype)

    return run


_register("argmax", _arg_extreme("argmax", np.argmax))
_register("argmin", _arg_extreme("argmin", np.argmin))


# ---------------------------------------------------------------------------------------------
# movement


@graph_op("reshape")
def reshape(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    return x.reshape(tuple(shape))


@graph_op("permute")
def permute(x: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    return np.transpose(x, tuple(perm))


@graph_op("expand")
def expand(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    return np.broadcast_to(x, tuple(shape)).copy()


@graph_op("pad")
def pad(x: np.ndarray, low: Sequence[int], high: Sequence[int], value: float | int | bool) -> np.ndarray:
    fill = np.asarray(value).astype(x.dtype)
    return np.pad(x, list(zip(low, high)), constant_values=fill)


@graph_op("shrink")
def shrink(
    x: np.ndarray, start: Sequence[int], limit: Sequence[int], step: Sequence[int] | None = None
) -> np.ndarray:
    """``x[start:limit:step]`` per axis (step defaults to 1); limit -1 means the whole (symbolic) axis."""
    steps = step or (1,) * x.ndim
    return x[tuple(slice(a, None if b == -1 else b, s) for a, b, s in zip(start, limit, steps))]


@graph_op("flip")
def flip(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    return np.flip(x, tuple(axes))


@graph_op("concat")
def concat(*xs: np.ndarray, axis: int) -> np.ndarray:
    return np.concatenate(xs, axis=axis)


@graph_op("contiguous")
def contiguous(x: np.ndarray) -> np.ndarray:
    return x.copy()


# ---------------------------------------------------------------------------------------------
# composites


@graph_op("matmul")
def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _check_same_dtype("matmul", a, b)
    return _in_compute(np.matmul, a, b)


@graph_op("softmax")
def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    _require_float("softmax", x)

    def stable(v: np.ndarray) -> np.ndarray:
        e = np.exp(v - np.max(v, axis=axis, keepdims=True, initial=-np.inf))
        return e / np.sum(e, axis=axis, keepdims=True)

    return _in_compute(stable, x)


@graph_op("log_softmax")
def log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    _require_float("log_softmax", x)

    def stable(v: np.ndarray) -> np.ndarray:
        shifted = v - np.max(v, axis=axis, keepdims=True, initial=-np.inf)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))

    return _in_compute(stable, x)


@graph_op("layernorm")
def layernorm(
    x: np.ndarray,
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    *,
    axes: Sequence[int],
    epsilon: float = 1e-5,
) -> np.ndarray:
    """(x - mean) / sqrt(biased variance + epsilon) over ``axes``, then * weight + bias."""
    _require_float("layernorm", x)
    cdt = compute_dtype(x.dtype)
    v = x.astype(cdt)
    ax = tuple(axes)
    centered = v - np.mean(v, axis=ax, keepdims=True)
    y = centered / np.sqrt(np.mean(centered * centered, axis=ax, keepdims=True) + cdt.type(epsilon))
    if weight is not None:
        y = y * weight.astype(cdt)
    if bias is not None:
        y = y + bias.astype(cdt)
    return y.astype(x.dtype)


def _windows(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """[N, C, H, W] (already padded) -> [N, C, OH, OW, KH, KW]: the element each kernel tap sees (a view)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    spans = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    return sliding_window_view(x, spans, axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]


def _pad_hw(x: np.ndarray, padding: Sequence[int], value: float | int) -> np.ndarray:
    ph, pw = padding
    return np.pad(x, [(0, 0), (0, 0), (ph, ph), (pw, pw)], constant_values=np.asarray(value).astype(x.dtype))


@graph_op("conv2d")
def conv2d(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None = None,
    *,
    stride: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """NCHW x OIHW -> NOHW cross-correlation (im2col + einsum), symmetric zero padding, grouped channels."""
    _check_same_dtype("conv2d", x, w)
    cdt = compute_dtype(x.dtype)
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    win = _windows(_pad_hw(x, padding, 0).astype(cdt), (kh, kw), stride, dilation)
    oh, ow = win.shape[2:4]
    win = win.reshape(n, groups, c // groups, oh, ow, kh, kw)
    taps = w.astype(cdt).reshape(groups, o // groups, cg, kh, kw)
    out = np.einsum("ngchwij,gocij->ngohw", win, taps).reshape(n, o, oh, ow)
    if bias is not None:
        out = out + bias.astype(cdt).reshape(o, 1, 1)
    return out.astype(x.dtype)


@graph_op("max_pool2d")
def max_pool2d(
    x: np.ndarray, kernel: Sequence[int], stride: Sequence[int] | None = None, padding: Sequence[int] = (0, 0)
) -> np.ndarray:
    """Window max with -inf (int min) padding; the stride defaults to the kernel."""
    win = _windows(_pad_hw(x, padding, lowest(x.dtype)), kernel, stride or kernel, (1, 1))
    return np.max(win, axis=(-2, -1)).astype(x.dtype)


@graph_op("avg_pool2d")
def avg_pool2d(
    x: np.ndarray, kernel: Sequence[int], stride: Sequence[int] | None = None, padding: Sequence[int] = (0, 0)
) -> np.ndarray:
    """Window mean with padding counted as zeros (always divides by the full window size)."""
    _require_float("avg_pool2d", x)
    cdt = compute_dtype(x.dtype)
    win = _windows(_pad_hw(x, padding, 0), kernel, stride or kernel, (1, 1))
    return (np.sum(win, axis=(-2, -1), dtype=cdt) / cdt.type(math.prod(kernel))).astype(x.dtype)


@graph_op("gather")
def gather(x: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """``np.take_along_axis``; every index must lie in [0, x.shape[axis])."""
    _require_int("gather", idx)
    bad = (idx < 0) | (idx >= x.shape[axis])
    if bad.any():
        raise IndexError(
            f"graph.gather: index {idx[bad].flat[0]} out of range [0, {x.shape[axis]}) along axis {axis}"
        )
    return np.take_along_axis(x, idx.astype(np.intp), axis=axis)


@graph_op("cumsum")
def cumsum(x: np.ndarray, axis: int) -> np.ndarray:
    """Inclusive running sum in x's dtype (f16/bf16 accumulate in f32, integers wrap)."""
    return np.cumsum(x, axis=axis, dtype=compute_dtype(x.dtype)).astype(x.dtype)
