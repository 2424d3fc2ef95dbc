"""ONNX sequences and optionals whose structure is known at import time: a Python tuple of values, and a value
or nothing.

kiln's programs hold tensors only, so a sequence is resolved at import (a host-side step): its elements are
values of the program (tensors or import-time arrays) and the sequence ops pick, insert and erase them by
positions known at import. A sequence input of the model is its elements as consecutive arguments (the ONNX
backend knows the run's list, so its length and shapes); a sequence output is its elements as consecutive
results, which ``regroup`` turns back into a list. An optional input is its value's arguments, or none when
the run passes None (empty).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence as Seq
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sequence:
    items: tuple
    """The elements: kiln ``Tensor``s or numpy arrays."""

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class Optional:
    value: object
    """A tensor, array or ``Sequence``; None when the optional is empty."""


def flatten(values: Iterable) -> list:
    """Call arguments: a sequence (a list of arrays) is its elements in order, an empty optional (None) none."""
    out: list = []
    for v in values:
        if isinstance(v, list | tuple):
            out.extend(v)
        elif v is not None:
            out.append(v)
    return out


def regroup(results: Seq, lengths: Seq[int | None]) -> list:
    """The program's results grouped back into the outputs: ``lengths[i]`` results make a list, None one array."""
    out, i = [], 0
    for n in lengths:
        if n is None:
            out.append(results[i])
            i += 1
        else:
            out.append(list(results[i:i + n]))
            i += n
    return out


def as_feed(v) -> np.ndarray | list[np.ndarray] | None:
    """A run's input as the importer and the call take it: a list (a sequence) stays a list of arrays."""
    if v is None:
        return None
    return [np.asarray(e) for e in v] if isinstance(v, list | tuple) else np.asarray(v)


def signature(v) -> tuple | None:
    """The shape(s) and dtype(s) of a feed, for the program cache."""
    if v is None:
        return None
    if isinstance(v, list):
        return tuple(signature(e) for e in v)
    return (v.shape, str(v.dtype))
