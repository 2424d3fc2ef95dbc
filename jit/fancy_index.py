"""numpy indexing beyond slices: integer arrays, boolean masks, and assignment (``t[key] = value``).

Reading: one integer array (a list, numpy array or integer tensor) among basic indices picks elements along
its axis with ``graph.gather``; the result has the array's shape in place of that axis. A numpy boolean mask
over the leading axes is known when the program is built, so it becomes the integer array of its true
positions. A boolean *tensor* mask would give a shape that depends on data, which a compiled program cannot
have: that is an error saying what to use instead.

Writing is functional: the tensor gets a new lazy value (``where(region, value, old)``) through ``assign``,
so every reference to that Tensor object sees it. Basic keys place the value with the adjoint of a slice
(the autodiff builder's ``place``); a boolean mask is a ``where``; integer arrays must be known when the
program is built (numpy's last-write-wins for repeated indices is then decided in Python).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kiln.jit import lazy
from kiln.jit.autograd import NodeBuilder
from kiln.jit.indexing import _expand_ellipsis, plan_index

if TYPE_CHECKING:
    from kiln.jit.tensor import Tensor


def _is_array(item: Any) -> bool:
    from kiln.jit.tensor import Tensor

    return isinstance(item, list | np.ndarray | Tensor) and not (isinstance(item, np.ndarray) and item.ndim == 0)


def is_advanced(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return any(_is_array(k) for k in items)


def _bool_tensor_error() -> TypeError:
    return TypeError(
        "indexing with a boolean tensor gives a shape that depends on its values, which a compiled program cannot "
        "have: use mask.where(x, 0) to keep the shape, x[mask] = value to assign, or mask.numpy() as the index "
        "to select (the mask is then fixed when the program is built)"
    )


def getitem(t: Tensor, key: Any) -> Tensor:
    """``t[key]`` for a key holding one integer array or a leading boolean numpy mask."""
    from kiln.jit.tensor import Tensor

    items = _expand_ellipsis(key if isinstance(key, tuple) else (key,), t.ndim)
    arrays = [i for i, k in enumerate(items) if _is_array(k)]
    if len(arrays) != 1:
        raise IndexError("kiln supports one integer-array (or boolean-mask) index per indexing expression")
    pos = arrays[0]
    index = items[pos]
    if isinstance(index, Tensor):
        if index.dtype == "i1":
            raise _bool_tensor_error()
        if not index.dtype.startswith(("i", "ui")):
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, got {index.dtype}")
    else:
        index = np.asarray(index)
        if index.dtype == np.bool_:
            return _mask_getitem(t, items, pos, index)
        if index.size and not np.issubdtype(index.dtype, np.integer):
            raise IndexError(f"arrays used as indices must be of integer (or boolean) type, got {index.dtype}")
        index = Tensor(index.astype(np.int64), device=t.device)
    basic = tuple(slice(None) if i == pos else k for i, k in enumerate(items))
    axis = sum(1 for k in items[:pos] if k is None or isinstance(k, slice))
    return take(t[basic], index, axis)


def _mask_getitem(t: Tensor, items: tuple[Any, ...], pos: int, mask: np.ndarray) -> Tensor:
    if pos != 0 or any(k != slice(None) for k in items[1:] if k is not None):
        raise IndexError("a boolean mask index must come first, followed only by ':'")
    lead = tuple(t._node.shape[: mask.ndim])
    if mask.shape != lead:
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed axes {lead}")
    flat = t.reshape(-1, *t._node.shape[mask.ndim :]) if mask.ndim != 1 else t
    return flat[np.flatnonzero(mask)]


def take(t: Tensor, index: Tensor, axis: int) -> Tensor:
    """numpy ``take`` along ``axis`` (negative indices count from the end): the result has ``index``'s shape in
    place of that axis."""
    d = t._node.shape[axis]
    if isinstance(d, str):
        raise IndexError(f"cannot pick elements of symbolic axis {axis} ({d}) by an integer array")
    flat = index.reshape(-1)
    flat = (flat < 0).where(flat + d, flat)
    n = flat._node.shape[0]
    shape = list(t._node.shape)
    shape[axis] = n
    positions = flat.reshape([n if i == axis else 1 for i in range(t.ndim)]).expand(*shape)
    picked = t.gather(axis, positions)
    return picked.reshape(*t._node.shape[:axis], *index._node.shape, *t._node.shape[axis + 1 :])


def setitem(t: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value`` (numpy broadcasting of ``value``, cast to ``t``'s dtype)."""
    from kiln.jit.tensor import Tensor

    v = value if isinstance(value, Tensor) else Tensor(np.asarray(value), device=t.device)
    v = v.cast(t.dtype)
    items = key if isinstance(key, tuple) else (key,)
    mask = items[0] if len(items) == 1 else None
    if isinstance(mask, Tensor) and mask.dtype == "i1" or isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
        mask = mask if isinstance(mask, Tensor) else Tensor(mask, device=t.device)
        t.assign(mask.where(v, t))
        return
    if is_advanced(key):
        _setitem_indices(t, items, v)
        return
    plan = plan_index(t._node.shape, key)
    region = tuple(d if isinstance(d, str) else -(-(l - s) // st) for (s, l, st), d in zip(plan.bounds, t._node.shape))
    v = v.expand(*plan.shape).reshape(*region)
    b = NodeBuilder()
    start = [s for s, _, _ in plan.bounds]
    step = [st for _, _, st in plan.bounds]
    placed = b.flip(b.place(v._node, t._node.shape, start, step), plan.flip)
    inside = b.flip(b.place(lazy.const(True, region, "i1"), t._node.shape, start, step), plan.flip)
    t.assign(t._new(lazy.apply("where", [inside, placed, t._node])))


def _setitem_indices(t: Tensor, items: tuple[Any, ...], v: Tensor) -> None:
    from kiln.jit.tensor import Tensor

    index = items[0]
    if len(items) != 1 or isinstance(index, Tensor):
        raise IndexError(
            "assignment through integer indices takes one index array of known values (a list or numpy array) "
            "for the first axis; for indices computed as tensors, build the value with where() or gather()"
        )
    d = t._node.shape[0]
    idx = np.asarray(index, np.int64).reshape(-1)
    if isinstance(d, str) or (idx.size and (idx.min() < -d or idx.max() >= d)):
        raise IndexError(f"index out of bounds for axis 0 with size {d}")
    idx = idx % d if idx.size else idx
    source = np.zeros(d, np.int64)
    source[idx] = np.arange(idx.size)  # the last write wins, as in numpy
    hit = np.zeros(d, np.bool_)
    hit[idx] = True
    rest = t._node.shape[1:]
    values = v.expand(idx.size, *rest)
    picked = take(values, Tensor(source, device=t.device), 0)
    mask = Tensor(hit.reshape(d, *[1] * len(rest)), device=t.device)
    t.assign(mask.where(picked, t))
