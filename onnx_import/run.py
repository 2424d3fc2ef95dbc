"""``kiln.onnx.load``: import a model, compile it for a device, call it with numpy arrays."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from kiln.onnx.import_cache import imported
from kiln.onnx.imported import Imported
from kiln.onnx.sequence import flatten, regroup
from kiln.compiler.driver import compile

if TYPE_CHECKING:
    from onnx import ModelProto

DEFAULT_DEVICE = "cpu-llvm"


class Model:
    """A compiled ONNX model: ``model(*inputs)`` or ``model(name=array, ...)`` returns the outputs in order."""

    def __init__(self, imported: Imported, device: str):
        self.imported = imported
        self.device = device
        self.input_names = imported.inputs
        self.output_names = imported.outputs
        self._run = compile(imported.module, imported.function, device)
        self._weights = list(imported.weights.values())

    def __call__(self, *args: np.ndarray, **kwargs: np.ndarray) -> list[np.ndarray]:
        arrays = list(args) + [kwargs[k] for k in self.input_names[len(args):] if k in kwargs]
        if len(arrays) != len(self.input_names):
            raise TypeError(f"the model takes {len(self.input_names)} inputs ({', '.join(self.input_names)}), got {len(arrays)}")
        results = self._run(*[_storage(np.ascontiguousarray(a)) for a in flatten(arrays)], *self._weights)
        if any(self.imported.output_narrow):
            from kiln.onnx.narrow import from_storage

            results = [from_storage(r, t) for r, t in zip(results, self.imported.output_narrow)]
        return regroup(results, self.imported.output_lengths)


def _storage(array: np.ndarray) -> np.ndarray:
    """``narrow.to_storage``, importing ml_dtypes only for an array of a non-numpy dtype (numpy kind ``V``)."""
    if array.dtype.kind != "V":
        return array
    from kiln.onnx.narrow import to_storage

    return to_storage(array)


def load(
    model: str | os.PathLike | bytes | ModelProto,
    device: str = DEFAULT_DEVICE,
    dims: Mapping[str, tuple[int, int]] | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
) -> Model:
    """Import ``model`` (a path, bytes or ``ModelProto``) and compile it for ``device``. ``dims`` bounds the
    model's symbolic dims (``{"batch": (1, 64)}``); the compiled program runs for every size within them. A path
    or bytes imported before come from the import cache (``import_cache``)."""
    return Model(imported(model, dims, shapes), device)
