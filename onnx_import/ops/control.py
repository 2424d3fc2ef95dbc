"""Control flow: If with a condition known at import time inlines the taken branch; a runtime condition computes
both branches and selects (their outputs must have the same shapes)."""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import op, shape
from kiln.onnx.registry import handler
from kiln.onnx.sequence import Sequence


def run_branch(n, g) -> list:
    for init in g.initializer:
        n.values.set(init.name, numpy_helper.to_array(init))
    n.values.run_nodes(g.node, n.opset)
    return [n.values.get(o.name) for o in g.output]


@handler("If")
def if_(n):
    then_g, else_g = n.attrs["then_branch"], n.attrs["else_branch"]
    if n.is_static(0):
        return run_branch(n, then_g if bool(np.asarray(n.s(0)).reshape(-1)[0]) else else_g)
    cond = n.x(0).cast("i1")
    a, b = run_branch(n, then_g), run_branch(n, else_g)
    cond = cond.reshape(()) if shape(cond) else cond
    return [_select(n, cond, x, y) for x, y in zip(a, b)]


def _select(n, cond, x, y):
    """Branch outputs ``x`` or ``y`` by a runtime condition; sequences element by element."""
    if isinstance(x, Sequence) or isinstance(y, Sequence):
        if not (isinstance(x, Sequence) and isinstance(y, Sequence) and len(x) == len(y)):
            raise Unsupported("If on a runtime condition with branches of different sequence lengths")
        return Sequence(tuple(_select(n, cond, a, b) for a, b in zip(x.items, y.items)))
    tx, ty = n.values.as_tensor(x), n.values.as_tensor(y)
    if shape(tx) != shape(ty):
        raise Unsupported(f"If on a runtime condition with branches of different shapes ({list(shape(tx))} vs {list(shape(ty))})")
    return op("where", cond, tx, ty)
