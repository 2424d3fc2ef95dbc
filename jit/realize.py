"""Eager realization: compute lazy tensors on their device, once, and keep the result as their data.

The requested tensors become the results of one ``func.func @main`` whose arguments are the host buffers they
depend on. Programs are remembered in memory by the subgraph's structural key (a loop that builds the same
computation each step compiles it once) and on disk by the device (keyed on the module text).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.jit import debug, lazy
from kiln.jit.compiled import CompiledGraph, compile_graph
from kiln.jit.lower import Subgraph
from kiln.jit.trace import check_readable

if TYPE_CHECKING:
    from kiln.jit.tensor import Tensor

MAX_PROGRAMS = 256
"""Eager programs kept in memory (least recently used forgotten first)."""

_programs: OrderedDict[tuple, CompiledGraph] = OrderedDict()


def realize(tensors: Sequence[Tensor], what: str = "realize()") -> None:
    """Give every tensor in ``tensors`` its value (a ``buffer`` node); one compiled program per device."""
    by_device: dict[str, list[Tensor]] = {}
    for t in tensors:
        node = t._node
        if node.op == "buffer":
            continue
        check_readable(node, what)
        if node.op == "const":
            t._node = lazy.buffer(np.full(node.shape, node.arg, to_numpy(node.dtype)), node.dtype)
            continue
        by_device.setdefault(t.device, []).append(t)
    for device, group in by_device.items():
        unique = list({id(t._node): t._node for t in group}.values())
        sub = Subgraph.of(unique)
        args = sub.leaves
        key = (device, sub.key(args))
        program = _programs.get(key)
        if program is None:
            program = compile_graph(sub, "main", args, device)
            _programs[key] = program
            if len(_programs) > MAX_PROGRAMS:
                _programs.popitem(last=False)
        else:
            _programs.move_to_end(key)
            if debug.level():
                debug.log(f"@main for {device}: memory cache hit (compiled earlier in this process)")
        values = dict(zip(map(id, unique), program(*(a.arg for a in args))))
        for t in group:
            t._node = lazy.buffer(values[id(t._node)], t._node.dtype)
