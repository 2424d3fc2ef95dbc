"""Batch normalization folded into the convolution before it, at import, as onnxruntime does.

An inference ``BatchNormalization`` computes ``(c - mean) * inv + beta`` with ``inv = scale / sqrt(var + eps)``
per channel. When ``c`` is a ``Conv`` whose filter (and bias) and the normalization's parameters are all known
at import time, and nothing else reads ``c``, the pair is one ``Conv`` with filter ``W * inv`` (per output
channel) and bias ``(b - mean) * inv + beta``: the normalization's elementwise kernel work disappears, and the
convolution's matmul schedule (graph-conv-to-matmul) covers the whole layer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np
from onnx import AttributeProto, GraphProto, NodeProto, helper

from kiln.onnx.values import Values


def fold_batch_norms(graph: GraphProto, values: Values) -> list[NodeProto]:
    """``graph``'s nodes with each foldable Conv -> BatchNormalization pair replaced by one Conv; the folded
    filters and biases are added to ``values`` (under fresh names)."""
    nodes = list(graph.node)
    readers = Counter(_read_names(graph))
    producer = {out: i for i, n in enumerate(nodes) for out in n.output}
    dropped: set[int] = set()
    for i, bn in enumerate(nodes):
        conv_index = producer.get(bn.input[0]) if bn.op_type == "BatchNormalization" and bn.input else None
        if conv_index is None or readers[bn.input[0]] != 1:
            continue
        folded = _fold(nodes[conv_index], bn, values)
        if folded is not None:
            _forget_parameters(nodes[conv_index], bn, values, readers)
            nodes[i] = folded
            dropped.add(conv_index)
    return [n for i, n in enumerate(nodes) if i not in dropped]


def _fold(conv: NodeProto, bn: NodeProto, values: Values) -> NodeProto | None:
    """The Conv computing ``bn(conv(x))``, or None when the pair does not fold."""
    if conv.op_type != "Conv" or conv.domain not in ("", "ai.onnx") or bn.domain not in ("", "ai.onnx"):
        return None
    attrs = {a.name: helper.get_attribute_value(a) for a in bn.attribute}
    if attrs.get("training_mode", 0) or any(bn.output[1:]) or len(bn.input) != 5:
        return None
    params = [_constant(values, name) for name in (*conv.input[1:], *bn.input[1:])]
    if any(p is None for p in params) or params[0].dtype.kind != "f":  # type: ignore[union-attr]
        return None
    w, *rest = params
    b = rest.pop(0) if len(conv.input) == 3 and conv.input[2] else np.zeros(w.shape[0], w.dtype)  # type: ignore[union-attr]
    scale, beta, mean, var = rest
    if any(p.shape != (w.shape[0],) for p in (b, scale, beta, mean, var)):  # type: ignore[union-attr]
        return None
    inv = scale.astype(np.float64) / np.sqrt(var.astype(np.float64) + attrs.get("epsilon", 1e-5))  # type: ignore[union-attr]
    # w * inv in float64, rounded once to w's dtype, without a float64 copy of the whole filter
    new_w = np.multiply(w, inv.reshape(-1, *[1] * (w.ndim - 1)), out=np.empty_like(w), casting="unsafe")  # type: ignore[union-attr]
    new_b = ((b - mean) * inv + beta).astype(w.dtype)  # type: ignore[operator]
    w_name, b_name = f"{bn.output[0]}::folded_w", f"{bn.output[0]}::folded_b"
    values.set(w_name, new_w)
    values.set(b_name, new_b)
    folded = helper.make_node("Conv", [conv.input[0], w_name, b_name], [bn.output[0]], name=conv.name or bn.name)
    folded.attribute.extend(conv.attribute)
    return folded


def _forget_parameters(conv: NodeProto, bn: NodeProto, values: Values, readers: Counter) -> None:
    """Drop the pair's parameters that nothing else reads: the folded filter replaces the original, and holding
    both would keep a second copy of every folded weight until the import ends (ResNet-50: 97 MiB)."""
    for name in {*conv.input[1:], *bn.input[1:]}:
        if name and readers[name] == (*conv.input[1:], *bn.input[1:]).count(name) and name in values:
            values.drop(name)


def _constant(values: Values, name: str) -> np.ndarray | None:
    if not name or name not in values:
        return None
    v = values.get(name)
    return v if isinstance(v, np.ndarray) else None


def _read_names(graph: GraphProto) -> Iterator[str]:
    """Every name read in ``graph``: node inputs (in subgraphs too, which may read outer names) and outputs."""
    yield from (o.name for o in graph.output)
    yield from _node_inputs(graph.node)


def _node_inputs(nodes: Sequence[NodeProto]) -> Iterator[str]:
    for n in nodes:
        yield from n.input
        for a in n.attribute:
            if a.type == AttributeProto.GRAPH:
                yield from _read_names(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    yield from _read_names(g)
