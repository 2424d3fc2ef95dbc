"""The importer's environment: each ONNX value name -> a kiln ``Tensor`` or an import-time numpy constant."""

from __future__ import annotations

import numpy as np

from kiln.jit import Tensor, lazy
from kiln.jit.dtypes import dtype_name, to_numpy
from kiln.jit.tensor import default_device
from kiln.onnx.errors import Unsupported
from kiln.onnx.narrow import Narrow, narrow_type_of
from kiln.onnx.sequence import Optional, Sequence

DEVICE = "interp"
"""The device the importer's lazy tensors nominally live on; they are only traced, never run here."""


def to_tensor(v: Tensor | np.ndarray | Narrow) -> Tensor:
    """A value as a tensor of the program; a narrow-typed one (float8, int4, ...) is an error: only the ops
    that convert it take it (``NodeView.narrow``)."""
    t = v.type if isinstance(v, Narrow) else narrow_type_of(v.dtype) if isinstance(v, np.ndarray) else None
    if isinstance(v, Sequence | Optional):
        raise Unsupported(f"a{'' if isinstance(v, Sequence) else 'n'} {type(v).__name__.lower()} where a tensor is expected")
    if t is not None:
        raise Unsupported(f"kiln computes with {t.name} values only in Cast, CastLike, QuantizeLinear and "
                          "DequantizeLinear")
    return v if isinstance(v, Tensor) else constant_tensor(np.asarray(v))


def constant_tensor(array: np.ndarray) -> Tensor:
    """An import-time constant as a tensor of the program that shares the array's memory when it can.

    ``Tensor(array)`` copies (a user's array may change after the call), so every weight would be held twice
    while a model imports, and its copy kept afterwards. The importer's constants are its own and never written
    (initializers are decoded fresh, folds make new arrays, ``static`` inputs are copied on entry), so the lazy
    leaf can hold the array itself; a strided view or a dtype the program spells differently is still copied.
    """
    name = dtype_name(array.dtype)
    data = np.asarray(array, dtype=to_numpy(name), order="C")
    return Tensor._of(lazy.buffer(data, name), DEVICE)


def shape(t: Tensor) -> tuple:
    """The shape with symbolic dims as their names (str)."""
    return t._node.shape


def is_static_shape(t: Tensor) -> bool:
    return all(isinstance(d, int) for d in shape(t))


class Values:
    def __init__(self) -> None:
        self._values: dict[str, Tensor | np.ndarray] = {}
        self.input_names: list[str] = []
        """The model input of each placeholder, by argument index."""
        self.runner = None
        """Imports a subgraph's nodes into this environment (set by the importer)."""

    def set(self, name: str, value: Tensor | np.ndarray) -> None:
        self._values[name] = value

    def drop(self, name: str) -> None:
        """Forget a value no node reads any more, so its memory (an import-time weight) is freed now."""
        del self._values[name]

    def get(self, name: str) -> Tensor | np.ndarray:
        if name not in self._values:
            raise KeyError(name)
        return self._values[name]

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def as_tensor(self, v: Tensor | np.ndarray) -> Tensor:
        return to_tensor(v)

    def run_nodes(self, nodes, opset: int) -> None:
        """Import ``nodes`` (a subgraph's) into this environment (set by the importer)."""
        self.runner(nodes, self, opset)

    def origin(self, name: str) -> frozenset[str]:
        """The model inputs a runtime value is computed from (the placeholders its lazy graph reaches)."""
        v = self._values[name]
        if isinstance(v, np.ndarray):
            return frozenset()
        if isinstance(v, Narrow):
            v = v.bits
        from kiln.jit.lower import Subgraph

        leaves = Subgraph.of([v._node]).leaves
        return frozenset(self.input_names[n.arg] for n in leaves if n.op == "input")


__all__ = ["DEVICE", "Values", "default_device", "is_static_shape", "shape", "to_tensor"]
