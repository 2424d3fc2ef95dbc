"""One ONNX node as a handler sees it: its attributes, its inputs as tensors or import-time constants."""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import NodeProto, helper

from kiln.jit import Tensor
from kiln.onnx.errors import NeedStatic, Unsupported
from kiln.onnx.narrow import Narrow, narrow_type_of, to_storage
from kiln.onnx.values import DEVICE, Values, to_tensor


class NodeView:
    def __init__(self, proto: NodeProto, values: Values, opset: int):
        self.proto = proto
        self.op = proto.op_type
        self.values = values
        self.opset = opset
        """The version of the default ONNX domain the model imports."""
        self.attrs = {a.name: helper.get_attribute_value(a) for a in proto.attribute}

    @property
    def n_in(self) -> int:
        return len(self.proto.input)

    @property
    def n_out(self) -> int:
        return len(self.proto.output)

    def attr(self, name: str, default: Any = None) -> Any:
        v = self.attrs.get(name, default)
        if isinstance(v, bytes):
            return v.decode()
        if isinstance(v, list) and v and isinstance(v[0], bytes):
            return [s.decode() for s in v]
        return v

    def has(self, i: int) -> bool:
        """Whether optional input ``i`` is given (present and not the empty name)."""
        return i < self.n_in and self.proto.input[i] != ""

    def raw(self, i: int) -> Tensor | np.ndarray:
        return self.values.get(self.proto.input[i])

    def is_static(self, i: int) -> bool:
        return isinstance(self.raw(i), np.ndarray)

    def x(self, i: int) -> Tensor:
        """Input ``i`` as a tensor of the program."""
        return to_tensor(self.raw(i))

    def narrow(self, i: int) -> Narrow | None:
        """Input ``i`` as a narrow-typed value (float8, int4, ...: a constant becomes its storage bytes), or None
        when it has a kiln dtype."""
        v = self.raw(i)
        if isinstance(v, Narrow):
            return v
        t = narrow_type_of(v.dtype) if isinstance(v, np.ndarray) else None
        return None if t is None else Narrow(Tensor(to_storage(np.asarray(v)), device=DEVICE), t)

    def s(self, i: int) -> np.ndarray:
        """Input ``i``'s value at import time (a shape, axes, pads): raises ``NeedStatic`` for a runtime input."""
        v = self.raw(i)
        if isinstance(v, np.ndarray):
            return v
        origin = self.values.origin(self.proto.input[i])
        if not origin:
            raise Unsupported(f"input {i} ('{self.proto.input[i]}') must be known at import time")
        raise NeedStatic(origin)

    def ints(self, i: int) -> list[int]:
        return [int(v) for v in self.s(i).reshape(-1)]

    def opt_ints(self, i: int, attr: str | None = None) -> list[int] | None:
        """An int list given as input ``i`` (newer opsets) or attribute ``attr`` (older), or None."""
        if self.has(i):
            return self.ints(i)
        if attr is not None and attr in self.attrs:
            return [int(v) for v in self.attrs[attr]]
        return None
