"""numpy basic indexing (ints, slices with steps, negative indices, ``None``, ``...``) as flip + shrink + reshape.

``plan_index(shape, key)`` says which axes to reverse (negative steps), the ``graph.shrink`` bounds per axis
(after the flips), and the final shape (integer-indexed axes dropped, ``None`` axes inserted). Symbolic axes can
only be taken whole (``:``) or reversed whole (``::-1``): a slice of a symbol is not a symbol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln.dialects.types import Shape

WHOLE_SYMBOLIC = (0, -1, 1)
"""``graph.shrink``'s (start, limit, step) for "all of a symbolic axis"."""


@dataclass(frozen=True)
class IndexPlan:
    flip: tuple[int, ...]
    """Axes to reverse before shrinking."""
    bounds: tuple[tuple[int, int, int], ...]
    """(start, limit, step) per axis of the (flipped) input."""
    shape: Shape
    """The result shape."""

    def shrinks(self, shape: Shape) -> bool:
        """Whether the bounds cut anything off ``shape``."""
        return any(b != ((0, d, 1) if isinstance(d, int) else WHOLE_SYMBOLIC) for b, d in zip(self.bounds, shape))


def _expand_ellipsis(key: tuple[Any, ...], rank: int) -> tuple[Any, ...]:
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > rank:
        raise IndexError(f"too many indices for tensor: tensor is {rank}-dimensional, but {consumed} were indexed")
    fill = (slice(None),) * (rank - consumed)
    at = next((i for i, k in enumerate(key) if k is Ellipsis), None)  # by identity: `in` would compare arrays
    if at is not None:
        return key[:at] + fill + key[at + 1 :]
    return key + fill


def _slice_bounds(s: slice, d: int) -> tuple[bool, tuple[int, int, int]]:
    """(reverse?, (start, limit, step)) of a slice of a static axis of size ``d``."""
    start, stop, step = s.indices(d)
    if step > 0:
        return False, (start, max(start, stop), step)
    start, stop = d - 1 - start, d - 1 - stop  # positions on the reversed axis
    return True, (start, max(start, stop), -step)


def plan_index(shape: Shape, key: Any) -> IndexPlan:
    """The flip/shrink/reshape that computes ``x[key]`` for ``x`` of ``shape`` (numpy basic indexing)."""
    items = _expand_ellipsis(key if isinstance(key, tuple) else (key,), len(shape))
    flip: list[int] = []
    bounds: list[tuple[int, int, int]] = []
    out: list[int | str] = []
    axis = 0
    for item in items:
        if item is None:
            out.append(1)
            continue
        d = shape[axis]
        if isinstance(item, bool) or not isinstance(item, int | slice):
            if hasattr(item, "__index__") and not isinstance(item, bool):
                item = item.__index__()
            else:
                raise TypeError(
                    f"only integers, slices, None and ... are valid indices, got {type(item).__name__} "
                    "(to pick elements by a tensor of indices use gather; to select by a mask use where)"
                )
        if isinstance(d, str):
            if item == slice(None):
                bounds.append(WHOLE_SYMBOLIC)
            elif item == slice(None, None, -1):
                flip.append(axis)
                bounds.append(WHOLE_SYMBOLIC)
            else:
                raise IndexError(f"symbolic axis {axis} ({d}) can only be taken whole (:) or reversed (::-1)")
            out.append(d)
        elif isinstance(item, int):
            if not -d <= item < d:
                raise IndexError(f"index {item} is out of bounds for axis {axis} with size {d}")
            i = item % d
            bounds.append((i, i + 1, 1))
        else:
            if item.step == 0:
                raise ValueError("slice step cannot be zero")
            reverse, b = _slice_bounds(item, d)
            if reverse:
                flip.append(axis)
            bounds.append(b)
            out.append(-(-(b[1] - b[0]) // b[2]))
        axis += 1
    return IndexPlan(tuple(flip), tuple(bounds), tuple(out))
