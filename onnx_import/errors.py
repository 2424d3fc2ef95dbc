"""The importer's errors: one line for people, naming the node, the op and the reason (no traceback)."""

from __future__ import annotations


class OnnxImportError(Exception):
    """A model kiln cannot import: the message is the whole report."""


class Unsupported(OnnxImportError):
    """An op, attribute, dtype or input pattern kiln cannot express (raised by handlers without the node's
    name; the importer adds it)."""


class NeedStatic(OnnxImportError):
    """A handler needs the value of ``name`` at import time (a shape, axes, pads) but it is a runtime input.

    The ONNX backend catches it and recompiles with that input's value frozen into the program; everywhere
    else it is an error."""

    def __init__(self, name: str):
        super().__init__(f"the value of '{name}' is needed at import time (a shape, axes or pads), but it is a model input")
        self.name = name
