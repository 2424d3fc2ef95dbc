"""State a jitted function writes: tensors it ``assign``s (an optimizer's parameters and moments) and the
``.grad`` that ``backward`` sets.

While tracing, the first write to each such attribute is recorded (``Trace.record_write``). After the trace,
each written value that depends on the trace becomes an extra output of the program, and the value the
attribute held before (when the program reads it) an extra input. The attribute is put back as it was, and
every call, the first one included, passes the attribute's current value in and writes the output back, so
replaying the program has the same effect as running the function again (also for a value computed from state
alone, like Adam's step count). Setting ``.grad = None`` (``zero_grad``) is repeated as is on every call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kiln.jit import lazy
from kiln.jit.errors import JitError
from kiln.jit.lazy import Node
from kiln.jit.realize import realize
from kiln.jit.trace import Trace

if TYPE_CHECKING:
    from kiln.jit.tensor import Tensor


@dataclass
class Slot:
    """One written attribute: ``holder._node`` (an assigned tensor) or ``holder._grad`` (a gradient)."""

    holder: Tensor
    attr: str

    def tensor(self) -> Tensor | None:
        return self.holder if self.attr == "_node" else self.holder._grad

    def read(self, name: str) -> np.ndarray:
        """The attribute's current value, as the program's input."""
        t = self.tensor()
        if t is None:
            raise JitError(
                f"@kiln.jit function '{name}' was traced reading a .grad that is None now: call zero_grad() (or "
                "backward()) the same way on every call"
            )
        if t._node.op != "buffer":
            realize([t], f"calling @kiln.jit function '{name}'")
        return t._node.arg

    def write(self, array: np.ndarray, dtype: str) -> None:
        node = lazy.buffer(array, dtype)
        if self.attr == "_node":
            self.holder._node = node
        else:
            self.holder._grad = self.holder._new(node)


@dataclass
class StateEffects:
    """What replaying a traced function does to state, beside computing its results."""

    reads: tuple[tuple[int, Slot], ...]
    """(position among the captured buffers, slot whose current value goes there)."""
    writes: tuple[tuple[Slot, str], ...]
    """Slots written from the extra outputs, in order, with the dtype of each."""
    constants: tuple[tuple[Slot, Any], ...]
    """Slots set to None or left as they were (``.grad = None``)."""

    def inputs(self, captured: Sequence[np.ndarray], name: str) -> list[np.ndarray]:
        values = list(captured)
        for position, slot in self.reads:
            values[position] = slot.read(name)
        return values

    def apply(self, outputs: Sequence[np.ndarray]) -> None:
        for (slot, dtype), array in zip(self.writes, outputs):
            slot.write(array, dtype)
        for slot, value in self.constants:
            setattr(slot.holder, slot.attr, value)


def collect(trace: Trace) -> tuple[list[Slot], list[Node], list[tuple[Slot, Any]], dict[int, Slot]]:
    """Undo the trace's writes to tensors that outlive it: the slots written with traced values and those
    values, the slots set to constants, and the slot each pre-trace value belongs to (by node id)."""
    written: list[Slot] = []
    nodes: list[Node] = []
    constants: list[tuple[Slot, Any]] = []
    before: dict[int, Slot] = {}
    news = [getattr(holder, attr) for holder, attr, _ in trace.writes.values()]
    for holder, attr, old in trace.writes.values():
        setattr(holder, attr, old)
    for (holder, attr, old), new in zip(trace.writes.values(), news):
        if holder._node.trace is trace:
            continue  # an argument's placeholder or a value computed in the trace: it does not outlive the trace
        slot = Slot(holder, attr)
        new_node = new if attr == "_node" else (new._node if new is not None else None)
        old_node = old if attr == "_node" else (old._node if old is not None else None)
        if old_node is not None:
            before[id(old_node)] = slot
        if new_node is not None and new_node is not old_node:
            written.append(slot)
            nodes.append(new_node)
        else:
            constants.append((slot, new))
    return written, nodes, constants, before


def effects(
    trace_name: str, leaves: Sequence[Node], order: Sequence[Node], written: list[Slot], nodes: list[Node],
    constants: list[tuple[Slot, Any]], before: dict[int, Slot],
) -> StateEffects:
    """Map the pre-trace values the program reads (``leaves``: its captured buffers) to their slots; a read
    of a pre-trace value that is not a buffer could not be replaced on the next call, so it is an error."""
    for n in order:
        slot = before.get(id(n))
        if slot is not None and n.op != "buffer":
            raise JitError(
                f"@kiln.jit function '{trace_name}' updates a tensor whose value was not computed before the call "
                "(a lazy or constant tensor): call .realize() on it first, e.g. Tensor.zeros(4).realize()"
            )
    reads = tuple((i, before[id(n)]) for i, n in enumerate(leaves) if id(n) in before)
    writes = tuple((slot, n.dtype) for slot, n in zip(written, nodes))
    return StateEffects(reads, writes, tuple(constants))
