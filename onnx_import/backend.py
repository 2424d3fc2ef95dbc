"""kiln as an ONNX backend (``onnx.backend.base.Backend``), so onnx's own ``BackendTest`` runs against kiln.

A prepared model compiles on its first run, for the shapes of that run's inputs (a new shape compiles again).
Inputs an op needs at import time (Reshape's shape, Slice's starts, ...) are frozen to the run's values when the
importer asks for them (``NeedStatic``); the program is then keyed on those values too.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

from kiln.onnx.errors import NeedStatic
from kiln.onnx.importer import import_model
from kiln.onnx.narrow import from_storage, to_storage
from kiln.onnx.sequence import as_feed, flatten, regroup, signature
from kiln.compiler.driver import compile
from kiln.onnx.run import DEFAULT_DEVICE

MAX_FROZEN = 16


class KilnRep(BackendRep):
    def __init__(self, model: onnx.ModelProto, device: str):
        self.model = model
        self.device = device
        self.frozen: set[str] = set()
        self.programs: dict[Any, tuple] = {}
        init = {i.name for i in model.graph.initializer}
        self.input_names = [vi.name for vi in model.graph.input if vi.name not in init]

    def _compile(self, feeds: dict[str, np.ndarray]):
        while True:
            static = {k: feeds[k] for k in self.frozen}
            shapes = {k: None if v is None else [e.shape for e in v] if isinstance(v, list) else v.shape
                      for k, v in feeds.items()}
            try:
                imported = import_model(self.model, static=static, shapes=shapes)
            except NeedStatic as e:
                new = {n for n in e.names if n in feeds} - self.frozen
                if not new or len(self.frozen) >= MAX_FROZEN:
                    raise
                self.frozen |= new
                continue
            return imported, compile(imported.module, imported.function, self.device)

    def _key(self, feeds: dict[str, np.ndarray]) -> tuple:
        return tuple(
            (k, signature(v), pickle.dumps(v) if k in self.frozen else None) for k, v in sorted(feeds.items())
        )

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        if isinstance(inputs, dict):
            feeds = dict(inputs)
        else:
            arrays = list(inputs) if isinstance(inputs, list | tuple) else [inputs]
            feeds = dict(zip(self.input_names, arrays))
        feeds = {k: as_feed(v) for k, v in feeds.items()}
        program = self.programs.get(self._key(feeds))
        if program is None:
            program = self._compile(feeds)
            self.programs[self._key(feeds)] = program
        imported, run = program
        args = [to_storage(a) for a in flatten(feeds[name] for name in imported.inputs)]
        results = [from_storage(r, t) for r, t in zip(run(*args, *imported.weights.values()), imported.output_narrow)]
        return tuple(regroup(results, imported.output_lengths))


class KilnBackend(Backend):
    device = DEFAULT_DEVICE

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> KilnRep:
        super().prepare(model, device, **kwargs)
        return KilnRep(model, kwargs.get("kiln_device", cls.device))

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        raise NotImplementedError("kiln runs whole models (prepare + run)")


def backend_for(device: str) -> type[KilnBackend]:
    """A backend class compiling for ``device`` (cpu-llvm, cpu-c, interp, ...)."""
    return type(f"KilnBackend_{device.replace('-', '_')}", (KilnBackend,), {"device": device})
