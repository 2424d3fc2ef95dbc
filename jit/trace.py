"""The tracing state: which jitted function is being traced, and the guard on reading traced values.

While ``@kiln.jit`` traces a function, its tensor arguments are placeholders with no data; every tensor
computed from them belongs to that ``Trace``. Reading such a value from Python (``bool()``, ``.item()``,
``.numpy()``) would make the compiled program depend on one call's data, so it raises ``TraceError`` instead.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kiln.jit.dims import Dim
from kiln.jit.errors import TraceError
from kiln.jit.lazy import Node


class Trace:
    """One tracing of a jitted function; ``active`` until the function returns."""

    def __init__(self, name: str, dims: dict[str, Dim]):
        self.name = name
        self.dims = dims
        """The symbolic dims of this trace's signature, by name."""
        self.active = True
        self.writes: dict[tuple[int, str], tuple[Any, str, Any]] = {}
        """State the function wrote (``Tensor.assign``, ``.grad``): (id(holder), attribute) -> (holder,
        attribute, the value before the first write). The JIT turns each into a program input and output."""

    def record_write(self, holder: Any, attr: str) -> None:
        """Note that ``holder.attr`` is about to be replaced (only the first write keeps the old value)."""
        self.writes.setdefault((id(holder), attr), (holder, attr, getattr(holder, attr)))


_state = threading.local()


def current() -> Trace | None:
    """The trace running in this thread, if any."""
    return getattr(_state, "trace", None)


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    """Trace in this thread for the duration of the block (nested jitted calls inline into the outer trace)."""
    outer = current()
    _state.trace = trace
    try:
        yield trace
    finally:
        trace.active = False
        _state.trace = outer


def check_readable(node: Node, what: str) -> None:
    """Raise ``TraceError`` if ``node``'s value cannot be read from Python: it depends on a jitted function's
    arguments, inside its trace (data-dependent control flow) or after it (an escaped traced tensor)."""
    trace = node.trace
    if trace is None:
        return
    if trace.active:
        raise TraceError(
            f"{what} reads the value of a traced tensor inside @kiln.jit function '{trace.name}'. Its value differs "
            "from call to call, but Python control flow on it would be frozen into the compiled program. Keep the "
            "computation in tensors (e.g. Tensor.where instead of `if`), or return the tensor and read it after the "
            "call."
        )
    raise TraceError(
        f"{what} on a tensor that was computed while tracing @kiln.jit function '{trace.name}' and escaped it "
        "(stored outside the function instead of returned): it has no value outside the trace. Return it instead."
    )
