"""ONNX sequences and optionals resolved at import (``kiln.onnx.sequence``): a sequence input is its elements as
arguments, a sequence output comes back as a list; onnx's reference evaluator is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import kiln.onnx  # noqa: E402
from kiln.onnx.backend import backend_for  # noqa: E402
from kiln.onnx.errors import OnnxImportError  # noqa: E402
from kiln.runtime.devices import device_available  # noqa: E402

F32 = TensorProto.FLOAT


def sequence_model():
    """seq (input) -> insert x at 1 -> erase the last -> split x into a sequence -> concat both sequences."""
    seq_t = helper.make_tensor_sequence_value_info("seq", F32, [2, 3])
    nodes = [
        helper.make_node("Constant", [], ["one"], value=helper.make_tensor("one", TensorProto.INT64, [], [1])),
        helper.make_node("SequenceInsert", ["seq", "x", "one"], ["s1"]),
        helper.make_node("SequenceErase", ["s1"], ["s2"]),
        helper.make_node("SplitToSequence", ["x"], ["parts"], axis=1, keepdims=1),
        helper.make_node("SequenceLength", ["s2"], ["n"]),
        helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=0),
        helper.make_node("SequenceMap", ["parts", "x"], ["scaled"], body=helper.make_graph(
            [helper.make_node("Mul", ["p", "y"], ["o"])], "body",
            [helper.make_tensor_value_info("p", F32, [2, 1]), helper.make_tensor_value_info("y", F32, [2, 3])],
            [helper.make_tensor_value_info("o", F32, [2, 3])])),
    ]
    graph = helper.make_graph(nodes, "m", [seq_t, helper.make_tensor_value_info("x", F32, [2, 3])], [
        helper.make_tensor_value_info("cat", F32, [6, 3]), helper.make_tensor_value_info("n", TensorProto.INT64, []),
        helper.make_tensor_sequence_value_info("scaled", F32, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_sequence_ops_match_the_reference(device):
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    model = sequence_model()
    rng = np.random.default_rng(0)
    seq = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    got = backend_for(device).prepare(model).run([seq, x])
    want = ReferenceEvaluator(model).run(None, {"seq": seq, "x": x})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert int(got[1]) == 3
    assert isinstance(got[2], list) and len(got[2]) == 3
    for g, w in zip(got[2], want[2]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_sequence_input_needs_its_shapes():
    with pytest.raises(OnnxImportError, match="input 'seq' is a sequence: kiln imports it only given its length"):
        kiln.onnx.import_model(sequence_model())
    imported = kiln.onnx.import_model(sequence_model(), shapes={"seq": [(2, 3)] * 3})
    assert imported.output_lengths == [None, None, 3]


def test_optional_input_empty_or_not():
    opt = helper.make_value_info("o", helper.make_optional_type_proto(helper.make_tensor_type_proto(F32, [2])))
    nodes = [helper.make_node("OptionalHasElement", ["o"], ["has"])]
    graph = helper.make_graph(nodes, "m", [opt], [helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    rep = backend_for("cpu-llvm").prepare(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
    assert bool(rep.run([None])[0]) is False
    assert bool(rep.run([np.ones(2, np.float32)])[0]) is True
