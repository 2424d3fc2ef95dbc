"""The importer's errors: one line for people, naming the node, the op and the reason (no traceback)."""

from __future__ import annotations


class OnnxImportError(Exception):
    """A model kiln cannot import: the message is the whole report."""


class Unsupported(OnnxImportError):
    """An op, attribute, dtype or input pattern kiln cannot express (raised by handlers without the node's
    name; the importer adds it)."""


class NeedStatic(OnnxImportError):
    """A handler needs at import time a value computed from the model inputs ``names`` (a shape, axes, pads) but it is a runtime input.

    The ONNX backend catches it and recompiles with that input's value frozen into the program; everywhere
    else it is an error."""

    def __init__(self, names: frozenset[str]):
        shown = ", ".join(f"'{n}'" for n in sorted(names))
        super().__init__(f"a shape, axes or pads computed from the model input(s) {shown} must be known at import time")
        self.names = names
