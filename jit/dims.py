"""Symbolic dims for the JIT (``kiln.Dim``) and shape arithmetic over dims that may be symbols.

Inside the front end a dim is an ``int`` or a symbol name (``str``), as in ``kiln.dialects.types.Shape``; the
user-facing ``Tensor.shape`` shows symbols as the ``Dim`` objects declared in ``@kiln.jit(dims=...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from kiln.dialects.types import Shape, is_symbol_name


@dataclass(frozen=True)
class Dim:
    """A symbolic dim with inclusive bounds: one compiled program serves every size in ``[lo, hi]``.

    It is a placeholder, not a number: arithmetic and comparisons on it raise, because the traced program must
    not depend on the value (use it in ``reshape``/``expand``/``zeros``, or reduce with ``mean``).
    """

    name: str
    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not is_symbol_name(self.name):
            raise ValueError(
                f"bad symbolic dim name {self.name!r}: letters, digits and '_', starting with a letter or '_', "
                "and no lowercase 'x' (it separates dims in IR types)"
            )
        if not 0 <= self.lo <= self.hi:
            raise ValueError(f"Dim {self.name}: bounds [{self.lo}, {self.hi}] need 0 <= lo <= hi")

    def contains(self, n: int) -> bool:
        return self.lo <= n <= self.hi

    def __repr__(self) -> str:
        return f"Dim({self.name!r}, {self.lo}, {self.hi})"

    def _no_value(self, *_: object) -> None:
        raise TypeError(
            f"symbolic dim {self.name} has no value while tracing: the compiled program serves every "
            f"{self.name} in [{self.lo}, {self.hi}], so Python arithmetic or branches on it cannot be captured "
            "(use it only as a dim, or reduce with mean() instead of dividing by it)"
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _no_value
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = _no_value
    __lt__ = __le__ = __gt__ = __ge__ = __index__ = __int__ = __bool__ = _no_value  # type: ignore[assignment]


DimLike = int | str | Dim


def dim_name(d: DimLike) -> int | str:
    """The internal form of a dim: an int, or the symbol's name."""
    return d.name if isinstance(d, Dim) else d


def normalize_axis(axis: int, rank: int) -> int:
    """``axis`` in ``[-rank, rank)`` as a non-negative index (numpy's rules and message)."""
    if not -rank <= axis < rank:
        raise IndexError(f"axis {axis} is out of bounds for a tensor of rank {rank}")
    return axis % rank


def normalize_axes(axis: int | Sequence[int] | None, rank: int) -> tuple[int, ...]:
    """Sorted unique non-negative axes; ``None`` means every axis."""
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = sorted({normalize_axis(a, rank) for a in axes})
    if len(out) != len(axes):
        raise ValueError(f"repeated axis in {list(axes)}")
    return tuple(out)


def _numel_parts(shape: Shape) -> tuple[int, tuple[str, ...]]:
    return prod(d for d in shape if isinstance(d, int)), tuple(sorted(d for d in shape if isinstance(d, str)))


def infer_reshape(old: Shape, new: Sequence[int | str]) -> Shape:
    """The target shape of a reshape, with at most one ``-1`` filled in (numpy); symbols must match as factors."""
    if sum(1 for d in new if d == -1) > 1:
        raise ValueError("can only specify one unknown dimension (-1) in reshape")
    old_static, old_syms = _numel_parts(old)
    known = [d for d in new if d != -1]
    if any(isinstance(d, int) and d < -1 for d in new):
        raise ValueError(f"negative dimension in reshape target {list(new)}")
    new_static, new_syms = _numel_parts(tuple(known))
    if -1 in new:
        missing_syms = list(old_syms)
        for s in new_syms:
            if s not in missing_syms:
                break
            missing_syms.remove(s)
        else:
            if not missing_syms and new_static and old_static % new_static == 0:
                fill = old_static // new_static
                return tuple(fill if d == -1 else d for d in new)
            if len(missing_syms) == 1 and new_static == old_static:
                return tuple(missing_syms[0] if d == -1 else d for d in new)
        raise ValueError(f"cannot reshape a tensor of shape {_show(old)} into shape {_show(new)}")
    if (old_static, old_syms) != (new_static, new_syms):
        raise ValueError(f"cannot reshape a tensor of shape {_show(old)} into shape {_show(tuple(new))}")
    return tuple(new)


def _show(shape: Sequence[int | str]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def show_shape(shape: Shape) -> str:
    """A shape as people write it: ``(N, 64)``."""
    return _show(shape)
