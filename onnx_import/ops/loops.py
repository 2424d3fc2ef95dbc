"""Loop and Scan, unrolled at import time: the trip count (Loop's M, Scan's sequence length) and Loop's condition
after every iteration must be known then; each iteration runs the body under names private to it."""

from __future__ import annotations

import itertools

import numpy as np
from onnx import GraphProto, NodeProto

from kiln.onnx.errors import Unsupported
from kiln.onnx.ops.util import axis as norm_axis, shape, static_dims
from kiln.onnx.registry import handler
from kiln.onnx.values import to_tensor

_ids = itertools.count()
MAX_UNROLL = 4096


def _defined(g: GraphProto) -> set[str]:
    names = {vi.name for vi in g.input} | {i.name for i in g.initializer}
    for node in g.node:
        names.update(o for o in node.output if o)
        for a in node.attribute:
            for sub in ([a.g] if a.HasField("g") else list(a.graphs)):
                names |= _defined(sub)
    return names


def _renamed(node: NodeProto, mapping: dict[str, str]) -> NodeProto:
    m = NodeProto()
    m.CopyFrom(node)
    m.input[:] = [mapping.get(i, i) for i in m.input]
    m.output[:] = [mapping.get(o, o) for o in m.output]
    for a in m.attribute:
        for sub in ([a.g] if a.HasField("g") else list(a.graphs)):
            for vi in [*sub.input, *sub.output]:
                vi.name = mapping.get(vi.name, vi.name)
            for init in sub.initializer:
                init.name = mapping.get(init.name, init.name)
            new_nodes = [_renamed(s, mapping) for s in sub.node]
            del sub.node[:]
            sub.node.extend(new_nodes)
    return m


def run_body(n, g: GraphProto, bound: list) -> list:
    """One iteration: bind the body's inputs to ``bound`` and return its outputs."""
    it = next(_ids)
    mapping = {name: f"__it{it}__{name}" for name in _defined(g)}
    for vi, v in zip(g.input, bound):
        n.values.set(mapping[vi.name], v)
    from onnx import numpy_helper

    for init in g.initializer:
        n.values.set(mapping[init.name], numpy_helper.to_array(init))
    n.values.run_nodes([_renamed(x, mapping) for x in g.node], n.opset)
    return [n.values.get(mapping.get(o.name, o.name)) for o in g.output]


def _stack(items: list, a: int):
    """Scan outputs of every iteration joined along a new axis ``a``."""
    ts = [to_tensor(t).unsqueeze(a) for t in items]
    return ts[0].cat(*ts[1:], axis=a) if len(ts) > 1 else ts[0]


@handler("Loop")
def loop(n):
    body = n.attrs["body"]
    trips = int(np.asarray(n.s(0)).reshape(-1)[0]) if n.has(0) else None
    cond = bool(np.asarray(n.s(1)).reshape(-1)[0]) if n.has(1) else True
    if trips is None or trips > MAX_UNROLL:
        raise Unsupported("a Loop needs a trip count known at import time (at most 4096) to be unrolled")
    state = [n.raw(i) for i in range(2, n.n_in)]
    n_state = len(state)
    scans: list[list] = []
    i = 0
    while i < trips and cond:
        outs = run_body(n, body, [np.array(i, dtype=np.int64), np.array(cond), *state])
        c = outs[0]
        if not isinstance(c, np.ndarray):
            raise Unsupported("a Loop whose condition is computed at run time")
        cond = bool(c.reshape(-1)[0])
        state = outs[1:1 + n_state]
        scans.append(outs[1 + n_state:])
        i += 1
    n_scan = len(body.output) - 1 - n_state
    if n_scan and not scans:
        raise Unsupported("a Loop that runs zero times with scan outputs (their shape is unknown)")
    results = list(state) + [_stack([s[k] for s in scans], 0) for k in range(n_scan)]
    return results


@handler("Scan")
def scan(n):
    if n.opset < 9:
        raise Unsupported("Scan-8 (batched, with sequence_lens)")
    body = n.attrs["body"]
    m = n.attr("num_scan_inputs")
    n_state = n.n_in - m
    state = [n.raw(i) for i in range(n_state)]
    xs = [n.x(i) for i in range(n_state, n.n_in)]
    in_axes = [norm_axis(a, len(shape(x))) for a, x in zip(n.attr("scan_input_axes", [0] * m), xs)]
    in_dirs = n.attr("scan_input_directions", [0] * m)
    T = static_dims(xs[0], "Scan input")[in_axes[0]]
    n_out = len(body.output) - n_state
    out_dirs = n.attr("scan_output_directions", [0] * n_out)
    collected: list[list] = [[] for _ in range(n_out)]
    for t in range(T):
        elems = []
        for x, a, d in zip(xs, in_axes, in_dirs):
            key = [slice(None)] * len(shape(x))
            key[a] = (T - 1 - t) if d else t
            elems.append(x[tuple(key)])
        outs = run_body(n, body, [*state, *elems])
        state = outs[:n_state]
        for k in range(n_out):
            collected[k].append(outs[n_state + k])
    results = list(state)
    out_axes = n.attr("scan_output_axes", [0] * n_out)
    for k in range(n_out):
        items = collected[k][::-1] if out_dirs[k] else collected[k]
        first = to_tensor(items[0])
        a = norm_axis(out_axes[k], len(shape(first)) + 1)
        results.append(_stack(items, a))
    return results
