"""Constant folding: a node whose inputs are all known at import time is evaluated by onnx's reference
implementation (shape arithmetic, constant subgraphs), so handlers only ever see data that flows at run time."""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

from kiln.onnx.dtypes import numpy_supported
from kiln.onnx.values import Values

NO_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"}


def fold_node(proto, values: Values, opset: int) -> list | None:
    """The node's outputs as arrays, or None when it should not or cannot be folded."""
    if proto.op_type in NO_FOLD or proto.domain not in ("", "ai.onnx"):
        return None
    names = [n for n in proto.input if n]
    feeds = {n: values.get(n) for n in names}
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(feeds[n].dtype), None) for n in names]
    outputs = [helper.make_value_info(n, helper.TypeProto()) for n in proto.output if n]
    g = helper.make_graph([proto], "fold", inputs, outputs)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    try:
        results = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # the reference cannot run it: leave it to the handler
        return None
    out: list = []
    it = iter(results)
    for n in proto.output:
        if not n:
            out.append(None)
            continue
        r = next(it)
        if not isinstance(r, np.ndarray) or not numpy_supported(r.dtype):
            return None
        out.append(r)
    return out
