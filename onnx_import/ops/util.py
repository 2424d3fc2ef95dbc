"""Small helpers every op family shares: raw graph ops on tensors, constants, axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.jit import Tensor
from kiln.jit import lazy
from kiln.onnx.errors import Unsupported
from kiln.onnx.values import DEVICE, shape, to_tensor


def op(name: str, *srcs: Tensor, result: tuple | None = None, **props) -> Tensor:
    """``graph.<name>`` of tensors of one dtype, no promotion (ONNX's operands already agree); ``result`` is
    (shape, dtype) for ops whose result type is not inferred."""
    return Tensor._of(lazy.apply(name, [s._node for s in srcs], result=result, **props), srcs[0].device)


def const(value, dtype: str) -> Tensor:
    """A rank-0 constant of a kiln dtype."""
    return Tensor(np.array(value, dtype=to_numpy(dtype)), device=DEVICE)


def scalar_like(t: Tensor, value) -> Tensor:
    return const(value, t.dtype)


def axis(a: int, rank: int) -> int:
    if not -rank <= a < max(rank, 1):
        raise Unsupported(f"axis {a} is out of range for rank {rank}")
    return a % rank if rank else 0


def axes(values: Sequence[int], rank: int) -> list[int]:
    return sorted({axis(int(a), rank) for a in values})


def is_float_dtype(dtype: str) -> bool:
    return dtype.startswith("f") or dtype == "bf16"


def reshape(t: Tensor, new_shape: Sequence) -> Tensor:
    """Reshape to dims that may be symbol names (str) and one -1 (inferred from the static dims when the
    symbolic ones carry over)."""
    new = list(new_shape)
    if -1 in new:
        old = shape(t)
        sym_old = sorted(d for d in old if isinstance(d, str))
        sym_new = sorted(d for d in new if isinstance(d, str))
        if sym_old != sym_new:
            raise Unsupported(f"cannot infer -1 reshaping {list(old)} to {new}")
        total = int(np.prod([d for d in old if isinstance(d, int)]))
        known = int(np.prod([d for d in new if isinstance(d, int) and d != -1]))
        new[new.index(-1)] = total // known if known else 0
    new_t = tuple(new)
    if new_t == shape(t):
        return t
    return op("reshape", t, result=(new_t, t.dtype))


def expand(t: Tensor, new_shape: Sequence) -> Tensor:
    """numpy ``broadcast_to`` a shape that may hold symbol names."""
    new_t = tuple(new_shape)
    if new_t == shape(t):
        return t
    return op("expand", t, result=(new_t, t.dtype))


def static_dims(t: Tensor, what: str) -> tuple[int, ...]:
    s = shape(t)
    if not all(isinstance(d, int) for d in s):
        raise Unsupported(f"{what} needs a static shape, got {list(s)}")
    return s


def spatial_dims(t: Tensor, what: str) -> tuple[int, ...]:
    """The dims after N and C (those must be static for windows; the batch may be symbolic)."""
    s = shape(t)[2:]
    if not all(isinstance(d, int) for d in s):
        raise Unsupported(f"{what} needs static spatial dims, got {list(shape(t))}")
    return s


def arange(n: int, dtype: str = "i64") -> Tensor:
    return to_tensor(np.arange(n, dtype=to_numpy(dtype)))


__all__ = ["expand", "spatial_dims", "arange", "axes", "axis", "const", "is_float_dtype", "op", "reshape", "scalar_like", "shape", "static_dims", "to_tensor"]
