"""Batch normalization folded into the convolution before it, at import, as onnxruntime does.

An inference ``BatchNormalization`` computes ``(c - mean) * inv + beta`` with ``inv = scale / sqrt(var + eps)``
per channel. When ``c`` is a ``Conv`` whose filter (and bias) and the normalization's parameters are all known
at import time, and nothing else reads ``c``, the pair is one ``Conv`` with filter ``W * inv`` (per output
channel) and bias ``(b - mean) * inv + beta``: the normalization's elementwise kernel work disappears, and the
convolution's matmul schedule (graph-conv-to-matmul) covers the whole layer.

A ``Mul`` or ``Add`` of such a ``c`` by a constant per output channel (Caffe2's scale layer after its batch
norm: Inception v2's 69 convolutions are Conv -> BatchNormalization -> Mul -> Add) folds the same way, into
filter and bias (``W * s``, ``b * s``) or the bias alone (``b + a``), so a chain of them ends as one ``Conv``
whose epilogue is its bias.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np
from onnx import AttributeProto, GraphProto, NodeProto, helper

from kiln.onnx.values import Values


FOLDED = {"BatchNormalization": 1, "Mul": 2, "Add": 2}
"""The ops folded into a Conv before them, and how many of their first inputs may be that Conv's output."""


def fold_batch_norms(graph: GraphProto, values: Values) -> list[NodeProto]:
    """``graph``'s nodes with each foldable Conv -> BatchNormalization (or per-channel Mul or Add) pair
    replaced by one Conv; the folded filters and biases are added to ``values`` (under fresh names)."""
    nodes = list(graph.node)
    readers = Counter(_read_names(graph))
    producer = {out: i for i, n in enumerate(nodes) for out in n.output}
    dropped: set[int] = set()
    for i, node in enumerate(nodes):
        if node.op_type not in FOLDED or node.domain not in ("", "ai.onnx"):
            continue
        for c in node.input[: FOLDED[node.op_type]]:
            conv_index = producer.get(c)
            if conv_index is None or readers[c] != 1 or nodes[conv_index].op_type != "Conv":
                continue
            conv = nodes[conv_index]
            if node.op_type == "BatchNormalization":
                folded = _fold(conv, node, values)
            else:
                other = node.input[1] if node.input[0] == c else node.input[0]
                folded = _fold_affine(conv, node, _known(other, nodes, producer, values), values)
            if folded is not None:
                _forget_parameters(conv, node, values, readers)
                readers.update(folded.input[1:])
                nodes[i] = folded
                dropped.add(conv_index)
                break
    return [n for i, n in enumerate(nodes) if i not in dropped]


def _conv_parameters(conv: NodeProto, values: Values) -> tuple[np.ndarray, np.ndarray] | None:
    """The filter and bias (zeros when absent) of a Conv whose both are known at import, float, bias per filter."""
    if conv.domain not in ("", "ai.onnx"):
        return None
    w = _constant(values, conv.input[1])
    if w is None or w.dtype.kind != "f":
        return None
    b = _constant(values, conv.input[2]) if len(conv.input) == 3 and conv.input[2] else np.zeros(w.shape[0], w.dtype)
    return (w, b) if b is not None and b.shape == (w.shape[0],) else None


def _folded_conv(conv: NodeProto, node: NodeProto, values: Values, w: np.ndarray, b: np.ndarray) -> NodeProto:
    """A Conv of ``conv``'s input and attributes with filter ``w`` and bias ``b`` (stored under fresh names) that
    computes ``node``'s output."""
    w_name, b_name = f"{node.output[0]}::folded_w", f"{node.output[0]}::folded_b"
    values.set(w_name, w)
    values.set(b_name, b)
    folded = helper.make_node("Conv", [conv.input[0], w_name, b_name], [node.output[0]], name=conv.name or node.name)
    folded.attribute.extend(conv.attribute)
    return folded


def _fold(conv: NodeProto, bn: NodeProto, values: Values) -> NodeProto | None:
    """The Conv computing ``bn(conv(x))``, or None when the pair does not fold."""
    attrs = {a.name: helper.get_attribute_value(a) for a in bn.attribute}
    if attrs.get("training_mode", 0) or any(bn.output[1:]) or len(bn.input) != 5:
        return None
    found = _conv_parameters(conv, values)
    params = [_constant(values, name) for name in bn.input[1:]]
    if found is None or any(p is None for p in params):
        return None
    w, b = found
    scale, beta, mean, var = params
    if any(p.shape != (w.shape[0],) for p in (scale, beta, mean, var)):  # type: ignore[union-attr]
        return None
    inv = scale.astype(np.float64) / np.sqrt(var.astype(np.float64) + attrs.get("epsilon", 1e-5))  # type: ignore[union-attr]
    # w * inv in float64, rounded once to w's dtype, without a float64 copy of the whole filter
    new_w = np.multiply(w, inv.reshape(-1, *[1] * (w.ndim - 1)), out=np.empty_like(w), casting="unsafe")
    new_b = ((b - mean) * inv + beta).astype(w.dtype)  # type: ignore[operator]
    return _folded_conv(conv, bn, values, new_w, new_b)


def _fold_affine(conv: NodeProto, node: NodeProto, k: np.ndarray | None, values: Values) -> NodeProto | None:
    """The Conv computing ``conv(x) * k`` or ``conv(x) + k`` (``node``) for a constant ``k`` that is one value
    per output channel, or None when the pair does not fold."""
    found = _conv_parameters(conv, values)
    if found is None or k is None or k.dtype != found[0].dtype or node.input[0] == node.input[1]:
        return None
    w, b = found
    try:  # per channel: broadcast against the conv's [N, O, spatial...] output, it changes no other dim
        k = np.broadcast_to(k, (1, w.shape[0], *[1] * (w.ndim - 2))).reshape(w.shape[0])
    except ValueError:
        return None
    if node.op_type == "Add":
        return _folded_conv(conv, node, values, w, (b + k).astype(w.dtype))
    new_w = np.multiply(w, k.reshape(-1, *[1] * (w.ndim - 1)), out=np.empty_like(w))
    return _folded_conv(conv, node, values, new_w, (b * k).astype(w.dtype))


def _forget_parameters(conv: NodeProto, node: NodeProto, values: Values, readers: Counter) -> None:
    """Drop the pair's parameters that nothing else reads: the folded filter replaces the original, and holding
    both would keep a second copy of every folded weight until the import ends (ResNet-50: 97 MiB)."""
    names = (*conv.input[1:], *node.input[1:], *node.input[:1])
    for name in set(names):
        if name and readers[name] == names.count(name) and name in values:
            values.drop(name)


def _known(name: str, nodes: Sequence[NodeProto], producer: dict[str, int], values: Values) -> np.ndarray | None:
    """The value of ``name`` when it is known at import: a constant, or an Unsqueeze of one (Inception v2's
    per-channel factors, ``[C]`` unsqueezed to ``[C, 1, 1]``, axes as an attribute or, from opset 13, an input)."""
    if (v := _constant(values, name)) is not None or name not in producer:
        return v
    node = nodes[producer[name]]
    if node.op_type != "Unsqueeze" or node.domain not in ("", "ai.onnx") or not node.input:
        return None
    x = _constant(values, node.input[0])
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    axes = attrs.get("axes", _constant(values, node.input[1]) if len(node.input) > 1 else None)
    if x is None or axes is None:
        return None
    rank = x.ndim + len(axes)
    return np.expand_dims(x, tuple(int(a) % rank for a in axes))


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
