"""Random input sets for a function, reproducible from one integer seed: what ``--verify-semantics`` runs every
level of a module on.

A set is a function of its seed and the function's signature alone (argument shapes and dtypes, declared dims),
so the same seed gives the same arrays for a graph function and for the schedule it is lowered to, and a
reported seed replays the set. From the seed:

- symbolic dims: every fourth seed (``seed % 4 == 0``) binds each dim to its lower bound; the others sample it
  from ``[lo, min(hi, lo + DIM_SPAN)]``: small enough that the uop interpreter, one micro-op at a time, stays
  usable, and wide enough to hit sizes that are not multiples of a vector width or a tile;
- values: floats uniform in [-2, 2], signed integers in [-8, 8], unsigned in [0, 16], booleans fair;
- odd seeds put special values in about one element in eight (at least one per non-empty array): ±0, ±inf and
  nan, the float's largest and smallest normal values; the integer's min, max, 0 and -1. Even seeds keep the
  values ordinary, so a NaN that swamps every output does not hide the rest of the computation.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func

from kiln.dialects.types import BufferType, TensorType, declared_dims, to_numpy
from kiln.interpreters.graph import InterpretError, bound_shape

DIM_SPAN = 8
"""Sampled dims lie at most this far above their lower bound."""

SPECIAL_FRACTION = 1 / 8
"""The share of elements an odd seed replaces with special values."""


def sample_dims(bounds: dict[str, tuple[int, int]], rng: np.random.Generator, at_lower_bounds: bool) -> dict[str, int]:
    """A value for every declared dim, within its inclusive bounds."""
    return {
        name: lo if at_lower_bounds else int(rng.integers(lo, min(hi, lo + DIM_SPAN), endpoint=True))
        for name, (lo, hi) in sorted(bounds.items())
    }


def special_values(dtype: np.dtype) -> np.ndarray:
    """The values of ``dtype`` that careless code gets wrong."""
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(sorted({info.min, info.max, 0, -1 if info.min < 0 else 1}), dtype=object).astype(dtype)
    import ml_dtypes  # on first use: it costs most of a second to import; numpy's finfo does not know bfloat16

    limits = ml_dtypes.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, float(limits.max), -float(limits.max), float(limits.tiny)]
    return np.array(values, dtype=np.float64).astype(dtype)


def ordinary_values(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        low, high = (-8, 8) if dtype.kind == "i" else (0, 16)
        return rng.integers(low, high, shape, endpoint=True).astype(dtype)
    return rng.uniform(-2.0, 2.0, shape).astype(dtype)


def random_array(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator, specials: bool) -> np.ndarray:
    values = ordinary_values(dtype, shape, rng)
    if specials and values.size:
        flat = values.reshape(-1)
        count = max(1, int(flat.size * SPECIAL_FRACTION))
        where = rng.choice(flat.size, count, replace=False)
        flat[where] = rng.choice(special_values(dtype), count)
    return values


def random_inputs(f: func.FuncOp, seed: int) -> tuple[list[np.ndarray], dict[str, int]]:
    """The input set ``seed`` of ``f`` (a graph function or a schedule): one array per argument, and the value
    of every declared dim (pass it as ``dims``: a dim may appear in no argument)."""
    rng = np.random.default_rng(seed)
    dims = sample_dims(declared_dims(f), rng, at_lower_bounds=seed % 4 == 0)
    arrays = []
    for i, t in enumerate(f.function_type.inputs.data):
        if not isinstance(t, TensorType | BufferType):
            raise InterpretError(f"@{f.sym_name.data}: argument {i} has type {t}, which no input set can hold")
        shape = bound_shape(t.shape, dims, f"@{f.sym_name.data} argument {i}")
        arrays.append(random_array(to_numpy(t.element_type), shape, rng, specials=seed % 2 == 1))
    return arrays, dims
