"""What a gradient rule may build, independent of where the ops go.

The same rules run in two places: the `graph-autodiff` pass builds `graph` ops into a new function, and
``Tensor.backward`` builds lazy nodes of the JIT's graph (so a jitted training step is one traced program).
Each place subclasses ``GradBuilder`` with four primitives (a value's shape, its dtype, one op, one splat
constant); everything a rule needs beyond single ops (undoing a broadcast, placing a slice back into zeros,
signed padding) is written once here on top of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from math import prod
from typing import Any, Generic, TypeVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute

from kiln.dialects.types import DTYPES, Shape, is_float

V = TypeVar("V")


def scalar_attr(value: float | int, dtype: str) -> Attribute:
    """A typed scalar property (a pad value) in ``dtype``."""
    t = DTYPES[dtype]
    return FloatAttr(float(value), t) if is_float(t) else IntegerAttr(int(value), t)  # type: ignore[arg-type]


class GradBuilder(ABC, Generic[V]):
    """Builds graph ops on values of type ``V`` (SSA values or lazy nodes)."""

    @abstractmethod
    def shape(self, v: V) -> Shape: ...

    @abstractmethod
    def dtype(self, v: V) -> str: ...

    @abstractmethod
    def op(self, name: str, *operands: V, result: tuple[Shape, str] | None = None, **props: Any) -> V:
        """``graph.<name>`` of ``operands``; ``result`` (shape, dtype) for ops that cannot infer it."""

    @abstractmethod
    def const(self, value: float | int, dtype: str, shape: Shape = ()) -> V:
        """A splat constant (rank 0 unless ``shape``: implicit broadcasting spreads it)."""

    # ------------------------------------------------------------------------------------------- shorthands

    def scalar(self, value: float | int, like: V) -> V:
        return self.const(value, self.dtype(like))

    def add(self, a: V, b: V) -> V:
        return self.op("add", a, b)

    def sub(self, a: V, b: V) -> V:
        return self.op("sub", a, b)

    def mul(self, a: V, b: V) -> V:
        return self.op("mul", a, b)

    def div(self, a: V, b: V) -> V:
        return self.op("div", a, b)

    def neg(self, a: V) -> V:
        return self.op("neg", a)

    def scale(self, a: V, factor: float) -> V:
        return self.mul(a, self.scalar(factor, a))

    def select(self, cond: V, a: V) -> V:
        """``a`` where ``cond``, else 0."""
        return self.op("where", cond, a, self.scalar(0, a))

    def cast(self, v: V, dtype: str) -> V:
        return v if self.dtype(v) == dtype else self.op("cast", v, result=(self.shape(v), dtype))

    def reshape(self, v: V, shape: Sequence[Any]) -> V:
        shape = tuple(shape)
        return v if self.shape(v) == shape else self.op("reshape", v, result=(shape, self.dtype(v)))

    def expand(self, v: V, shape: Sequence[Any]) -> V:
        shape = tuple(shape)
        return v if self.shape(v) == shape else self.op("expand", v, result=(shape, self.dtype(v)))

    def permute(self, v: V, perm: Sequence[int]) -> V:
        return v if tuple(perm) == tuple(range(len(perm))) else self.op("permute", v, perm=tuple(perm))

    def sum(self, v: V, axes: Sequence[int], keepdims: bool = True) -> V:
        return self.op("reduce_sum", v, axes=tuple(sorted(axes)), keepdims=keepdims) if axes else v

    def mean(self, v: V, axes: Sequence[int]) -> V:
        """Mean over ``axes`` (kept); a symbolic axis counts its elements with a sum of ones."""
        return self.div(self.sum(v, axes), self.count(v, axes))

    def count(self, v: V, axes: Sequence[int]) -> V:
        """How many elements of ``v`` one reduction over ``axes`` combines: a constant, or over a symbolic
        axis a sum of ones (the size is only known when the program runs)."""
        dims = [self.shape(v)[a] for a in axes]
        if all(isinstance(d, int) for d in dims):
            return self.scalar(prod(dims), v)  # type: ignore[arg-type]
        return self.sum(self.expand(self.scalar(1, v), self.shape(v)), axes)

    def unsqueeze(self, v: V, axis: int) -> V:
        shape = list(self.shape(v))
        shape.insert(axis, 1)
        return self.reshape(v, shape)

    def keepdims(self, g: V, shape: Shape, axes: Sequence[int]) -> V:
        """``g``, a reduction's result, reshaped to the reduced rank (size 1 at ``axes``) of an input ``shape``."""
        return self.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])

    # ------------------------------------------------------------------------------------------- adjoints of movement

    def sum_to(self, g: V, shape: Shape) -> V:
        """Undo numpy broadcasting: sum ``g`` over the axes that broadcasting added or stretched from 1."""
        have = self.shape(g)
        if have == tuple(shape):
            return g
        lead = len(have) - len(shape)
        axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and have[lead + i] != 1]
        return self.reshape(self.sum(g, axes), shape)

    def shrink(self, v: V, start: Sequence[int], limit: Sequence[int], step: Sequence[int] | None = None) -> V:
        """Slice every axis; a symbolic axis must be kept whole (start 0, limit -1, step 1)."""
        step = tuple(step) if step is not None else (1,) * len(start)
        shape = self.shape(v)
        if all((s, l, st) in ((0, d, 1), (0, -1, 1)) for s, l, st, d in zip(start, limit, step, shape)):
            return v
        return self.op("shrink", v, start=tuple(start), limit=tuple(limit), step=step)

    def pad(self, v: V, low: Sequence[int], high: Sequence[int], value: float | int = 0) -> V:
        """Pad with ``value``; negative amounts cut that many elements instead."""
        shape = self.shape(v)
        if any(x < 0 for x in (*low, *high)):
            start = [max(-lo, 0) for lo in low]
            limit = [-1 if isinstance(d, str) else d - max(-hi, 0) for d, hi in zip(shape, high)]
            v = self.shrink(v, start, limit)
            low, high = [max(x, 0) for x in low], [max(x, 0) for x in high]
        if not any(low) and not any(high):
            return v
        return self.op("pad", v, low=tuple(low), high=tuple(high), value=scalar_attr(value, self.dtype(v)))

    def place(self, g: V, shape: Shape, start: Sequence[int], step: Sequence[int]) -> V:
        """The adjoint of a strided slice: zeros of ``shape`` holding ``g[i]`` at ``start + i * step`` per axis."""
        gs = self.shape(g)
        rank = len(shape)
        for axis in range(rank):
            s = step[axis]
            if s > 1:  # spread: interleave s - 1 zeros after every element, then drop the trailing ones
                n = gs[axis]
                wide = self.unsqueeze(g, axis + 1)
                wide = self.pad(wide, [0] * (rank + 1), [s - 1 if a == axis + 1 else 0 for a in range(rank + 1)])
                g = self.reshape(wide, [*gs[:axis], n * s, *gs[axis + 1 :]])  # type: ignore[operator]
                gs = self.shape(g)
        low = [start[a] for a in range(rank)]
        high = [0 if isinstance(shape[a], str) else shape[a] - start[a] - gs[a] for a in range(rank)]  # type: ignore[operator]
        return self.pad(g, low, high)

    def flip(self, v: V, axes: Sequence[int]) -> V:
        return self.op("flip", v, axes=tuple(sorted(axes))) if axes else v

    def transpose_last(self, v: V) -> V:
        """Swap the last two axes."""
        r = len(self.shape(v))
        return self.permute(v, (*range(r - 2), r - 1, r - 2))
