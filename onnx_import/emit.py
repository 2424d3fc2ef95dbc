"""The traced lazy graph -> one `graph` ``func.func``: model inputs first, then the weights as arguments.

Small weights are inlined as ``dense<...>`` constants and uniform ones as splats; every larger weight becomes a
function argument tagged ``{graph.weight = "name"}`` whose data the caller supplies (``kiln.onnx.load`` from
memory, ``kiln-run`` from the ``.npz`` file named by the function's ``graph.weights`` attribute): kiln lowers
dense constants above ``DENSE_INLINE_LIMIT`` elements only as arguments, and megabytes of weights printed as
text would bloat the .mlir and every compile-cache key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Block, Region, SSAValue

from kiln.dialects import graph
from kiln.dialects.types import DIMS_KEY, DTYPES, DimsAttr
from kiln.jit.lazy import Node
from kiln.jit.lower import Subgraph

INLINE_LIMIT = 16
"""Weights with at most this many elements are inlined as dense constants. kiln lowers a dense constant as a
chain of selects on the flat index (up to ``DENSE_INLINE_LIMIT`` = 256 elements), which costs one compare and
select per element wherever it is read: a 64-channel batch-norm scale read inside a conv's reduction loop made
that loop ~6x slower (ResNet-50's 1x1 convs: 16 ms against 2.8 ms). Above this size a weight is an argument,
one load."""
WEIGHT_ATTR = "graph.weight"
WEIGHTS_FILE_ATTR = "graph.weights"
_INLINE_DTYPES = {"f32", "f64", "i8", "i16", "i32", "i64"}


def _dense(array: np.ndarray, dtype: str) -> DenseIntOrFPElementsAttr:
    t = BuiltinTensorType(DTYPES[dtype], list(array.shape))
    values = array.reshape(-1).tolist()
    return DenseIntOrFPElementsAttr.from_list(t, values)


def build_module(
    name: str, inputs: Sequence[Node], outputs: Sequence[Node], dims: Mapping[str, tuple[int, int]]
) -> tuple[ModuleOp, dict[str, np.ndarray]]:
    """The module and the weights passed as arguments (argument name -> array), in argument order."""
    sub = Subgraph.of(list(outputs))
    input_ids = {id(n) for n in inputs}
    stray = [n for n in sub.leaves if n.op == "input" and id(n) not in input_ids]
    assert not stray, f"inputs {stray} are not the model's"
    big = [n for n in sub.leaves if n.op == "buffer" and not _inlinable(n)]
    weights = {f"w{i}": n.arg for i, n in enumerate(big)}
    args = [*inputs, *big]
    block = Block(arg_types=[a.type for a in args])
    values: dict[int, SSAValue] = {id(a): v for a, v in zip(args, block.args)}
    for n in sub.order:
        if id(n) in values:
            continue
        if n.op == "const":
            op = graph.ConstantOp.splat(n.arg, n.type)
        elif n.op == "buffer":
            flat = n.arg.reshape(-1)
            if flat.size == 0 or (flat == flat[0]).all():
                op = graph.ConstantOp.splat(flat[0].item() if flat.size else 0, n.type)
            else:
                op = graph.ConstantOp.build(properties={"value": _dense(n.arg, n.dtype)}, result_types=[n.type])
        else:
            op = graph.op(n.op).build_op([values[id(s)] for s in n.srcs], result_type=n.type, **n.props)
        block.add_op(op)
        values[id(n)] = op.results[0]
    block.add_op(func.ReturnOp(*(values[id(o)] for o in outputs)))
    ftype = FunctionType.from_lists([a.type for a in args], [o.type for o in outputs])
    arg_attrs = [DictionaryAttr({}) for _ in inputs] + [
        DictionaryAttr({WEIGHT_ATTR: StringAttr(k)}) for k in weights
    ]
    function = func.FuncOp(name, ftype, Region(block), arg_attrs=None)
    if weights:
        from xdsl.dialects.builtin import ArrayAttr

        function.arg_attrs = ArrayAttr(arg_attrs)
    used = {d for n in sub.order for d in n.shape if isinstance(d, str)} | {
        d for n in inputs for d in n.shape if isinstance(d, str)
    }
    declared = {k: v for k, v in dims.items() if k in used}
    if declared:
        function.attributes[DIMS_KEY] = DimsAttr.from_dict(declared)
    return ModuleOp([function]), weights


def _inlinable(n: Node) -> bool:
    flat = n.arg.reshape(-1)
    if flat.size == 0 or (flat == flat[0]).all():
        return True
    return n.arg.size <= INLINE_LIMIT and n.dtype in _INLINE_DTYPES
