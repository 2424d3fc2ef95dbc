"""Random weights for models whose weights are constant fills (the onnx wheel's "light" CNNs).

The light models replace every large weight by ``ConstantOfShape(shape) = 0.02``. With all weights of the last
layer equal, every logit is equal and the softmax output is uniform whatever the network computed, so a run
compared against another runtime checks little; timing is also unrealistic (a constant could be folded).
``with_random_weights`` replaces each such fill by an initializer of the same shape, drawn for the role the
weight plays, so activations keep a sensible scale through deep networks:

- a Conv weight, the B of a Gemm or MatMul: He-scaled normal, std sqrt(2 / fan_in);
- a BatchNormalization scale or variance, or a factor of a Mul (DenseNet and Inception v2 scale after the batch
  norm): uniform in [0.5, 1.5];
- anything else (biases, means): normal with std 0.05.

Roles are found through Unsqueeze/Reshape/Identity/Flatten between the fill and its user.
"""

from __future__ import annotations

import numpy as np
from onnx import ModelProto, NodeProto, helper, numpy_helper

from kiln.onnx.errors import OnnxImportError

_PASS_THROUGH = {"Unsqueeze", "Reshape", "Identity", "Flatten"}
_SCALE_INPUTS = {"BatchNormalization": (1, 4), "Mul": (0, 1)}
SMALL_STD = 0.05


def with_random_weights(model: ModelProto, seed: int = 0) -> ModelProto:
    """A copy of ``model`` with every ConstantOfShape whose shape is an initializer replaced by a random
    initializer of that shape (fixed ``seed``: the same model every call)."""
    out = ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    consts = {i.name: i for i in graph.initializer}
    users: dict[str, list[tuple[NodeProto, int]]] = {}
    for node in graph.node:
        for k, name in enumerate(node.input):
            users.setdefault(name, []).append((node, k))
    rng = np.random.default_rng(seed)
    fills = [n for n in graph.node if n.op_type == "ConstantOfShape" and n.input and n.input[0] in consts]
    replaced = set()
    for node in fills:
        shape = tuple(int(d) for d in numpy_helper.to_array(consts[node.input[0]]))
        value = helper.get_attribute_value(node.attribute[0]) if node.attribute else None
        dtype = numpy_helper.to_array(value).dtype if value is not None else np.dtype(np.float32)
        if dtype.kind != "f":
            continue  # integer fills are shapes or indices, not weights
        array = _draw(rng, shape, _role(node.output[0], users)).astype(dtype)
        graph.node.remove(node)
        graph.initializer.append(numpy_helper.from_array(array, node.output[0]))
        if out.ir_version < 4:  # before IR 4 every initializer must also be a graph input
            elem = helper.np_dtype_to_tensor_dtype(array.dtype)
            graph.input.append(helper.make_tensor_value_info(node.output[0], elem, array.shape))
        replaced.add(node.input[0])
    _drop_unread(out, replaced)
    return out


def _role(name: str, users: dict[str, list[tuple[NodeProto, int]]]) -> tuple[str, int | None]:
    """("he", fan_in axis), ("scale", None) or ("small", None) for the value ``name``."""
    for node, k in users.get(name, []):
        if node.op_type in _PASS_THROUGH and k == 0:
            role = _role(node.output[0], users)
            if role[0] != "small":
                return role
        elif node.op_type == "Conv" and k == 1:
            return ("he", None)
        elif node.op_type == "Gemm" and k == 1:
            trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
            return ("he", 1 if trans_b else 0)
        elif node.op_type == "MatMul" and k == 1:
            return ("he", -2)
        elif k in _SCALE_INPUTS.get(node.op_type, ()):
            return ("scale", None)
    return ("small", None)


def _draw(rng: np.random.Generator, shape: tuple[int, ...], role: tuple[str, int | None]) -> np.ndarray:
    kind, axis = role
    if kind == "scale":
        return rng.uniform(0.5, 1.5, shape)
    if kind == "he":
        if not shape:
            raise OnnxImportError("a matrix or convolution weight filled by ConstantOfShape has no dims")
        fan_in = shape[axis] if axis is not None and len(shape) > 1 else int(np.prod(shape[1:] or shape))
        return rng.standard_normal(shape) * np.sqrt(2.0 / max(fan_in, 1))
    return rng.standard_normal(shape) * SMALL_STD


def _drop_unread(model: ModelProto, names: set[str]) -> None:
    """Remove the replaced fills' shape initializers (and their graph-input entries: old models list every
    initializer as an input) that nothing reads any more."""
    graph = model.graph
    read = {n for node in graph.node for n in node.input} | {o.name for o in graph.output}
    unused = names - read
    for init in [i for i in graph.initializer if i.name in unused]:
        graph.initializer.remove(init)
    for inp in [i for i in graph.input if i.name in unused]:
        graph.input.remove(inp)
