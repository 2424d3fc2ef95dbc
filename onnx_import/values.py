"""The importer's environment: each ONNX value name -> a kiln ``Tensor`` or an import-time numpy constant."""

from __future__ import annotations

import numpy as np

from kiln.jit import Tensor
from kiln.jit.tensor import default_device

DEVICE = "interp"
"""The device the importer's lazy tensors nominally live on; they are only traced, never run here."""


def to_tensor(v: Tensor | np.ndarray) -> Tensor:
    return v if isinstance(v, Tensor) else Tensor(np.asarray(v), device=DEVICE)


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
        from kiln.jit.lower import Subgraph

        leaves = Subgraph.of([v._node]).leaves
        return frozenset(self.input_names[n.arg] for n in leaves if n.op == "input")


__all__ = ["DEVICE", "Values", "default_device", "is_static_shape", "shape", "to_tensor"]
