"""Write a tiny ONNX model for the kiln-import-onnx lit tests: python tiny_onnx.py OUT.onnx [small|big|badop|badshape]

small: y = relu(x @ W + b) with x [batch, 4] (a symbolic batch), W [4, 3] and b [3] inlined.
big:   y = x @ W with W [4, 300], too large to inline (it goes to the .npz beside the .mlir).
badop: an op kiln has no lowering for.  badshape: an output declared with a shape that contradicts inference.
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out, kind = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "small")
f32 = TensorProto.FLOAT
if kind == "big":
    w = numpy_helper.from_array((np.arange(1200, dtype=np.float32) / 1200).reshape(4, 300), "W")
    nodes = [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")]
    graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", f32, [2, 4])],
                              [helper.make_tensor_value_info("y", f32, [2, 300])], [w])
else:
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, "W")
    b = numpy_helper.from_array(np.array([-1.0, 0.0, 1.0], dtype=np.float32), "b")
    last = "Relu" if kind != "badop" else "Ecstasy"
    nodes = [helper.make_node("MatMul", ["x", "W"], ["m"], name="mm"), helper.make_node("Add", ["m", "b"], ["a"], name="add"),
             helper.make_node(last, ["a"], ["y"], name="act")]
    y_shape = ["batch", 3] if kind != "badshape" else ["batch", 5]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", f32, ["batch", 4])],
                              [helper.make_tensor_value_info("y", f32, y_shape)], [w, b])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), out)
