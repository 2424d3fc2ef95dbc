"""kiln.onnx: models built in memory, run by kiln and by onnxruntime (the oracle); symbolic dims; bad input."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import kiln.onnx  # noqa: E402
from kiln.onnx import cli  # noqa: E402
from kiln.support.cli import run_tool  # noqa: E402

F32 = TensorProto.FLOAT
RNG = np.random.default_rng(0)


def make_model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "m", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def ort_run(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def small_cnn():
    """conv (asymmetric pads) -> batchnorm -> relu -> maxpool (ceil_mode) -> global avg pool -> flatten -> gemm."""
    w = numpy_helper.from_array(RNG.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(RNG.standard_normal(8).astype(np.float32), "b")
    bn = [numpy_helper.from_array(v, n) for v, n in (
        (RNG.random(8).astype(np.float32) + 0.5, "s"), (RNG.standard_normal(8).astype(np.float32), "bb"),
        (RNG.standard_normal(8).astype(np.float32), "m"), (RNG.random(8).astype(np.float32) + 0.5, "v"))]
    fc = numpy_helper.from_array(RNG.standard_normal((10, 8)).astype(np.float32), "fc")
    fcb = numpy_helper.from_array(RNG.standard_normal(10).astype(np.float32), "fcb")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 0, 2, 1], strides=[2, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"], epsilon=1e-3),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1, alpha=0.5),
    ]
    return make_model(nodes, [helper.make_tensor_value_info("x", F32, ["N", 3, 17, 15])],
                      [helper.make_tensor_value_info("y", F32, ["N", 10])], [w, b, *bn, fc, fcb])


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_small_cnn_matches_onnxruntime_for_several_batch_sizes(device):
    """One import, one compile: the symbolic batch runs at every size within its bounds."""
    from kiln.runtime.devices import device_available

    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    model = small_cnn()
    run = kiln.onnx.load(model, device=device, dims={"N": (1, 8)})
    for n in (1, 3, 8):
        x = RNG.standard_normal((n, 3, 17, 15)).astype(np.float32)
        (got,) = run(x)
        (want,) = ort_run(model, {"x": x})
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)


def test_batch_norm_after_conv_is_folded_into_its_filter():
    """Conv -> BatchNormalization with constant parameters imports as one conv (no normalization arithmetic);
    when something else reads the conv's output, the normalization stays. Both match onnxruntime."""
    model = small_cnn()
    assert "graph.rsqrt" not in str(kiln.onnx.import_model(model, dims={"N": (1, 8)}).module)
    x = RNG.standard_normal((2, 3, 17, 15)).astype(np.float32)
    np.testing.assert_allclose(kiln.onnx.load(model, dims={"N": (1, 8)})(x)[0], ort_run(model, {"x": x})[0], rtol=1e-3, atol=1e-4)
    shared = small_cnn()
    shared.graph.node.append(helper.make_node("ReduceSum", ["c"], ["cs"], keepdims=0))
    shared.graph.output.append(helper.make_tensor_value_info("cs", F32, None))
    assert "graph.rsqrt" in str(kiln.onnx.import_model(shared, dims={"N": (1, 8)}, check_outputs=False).module)
    got = kiln.onnx.load(shared, dims={"N": (1, 8)})(x)
    for g, w in zip(got, ort_run(shared, {"x": x})):
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-3)


def test_per_channel_mul_and_add_after_conv_fold_into_it():
    """Conv -> BatchNormalization -> Mul -> Add (Caffe2's scale layer, as in Inception v2: its factor a [C]
    weight unsqueezed to [C, 1, 1]) imports as one conv; a Mul whose constant is not per channel (it varies
    along W) stays. Both match onnxruntime."""
    model = small_cnn()
    c = 8
    scale = numpy_helper.from_array(RNG.random(c).astype(np.float32) + 0.5, "sc0")
    axes = numpy_helper.from_array(np.array([1, 2], np.int64), "axes")
    shift = numpy_helper.from_array(RNG.standard_normal((1, c, 1, 1)).astype(np.float32), "sh")
    model.graph.initializer.extend([scale, axes, shift])
    relu = next(n for n in model.graph.node if n.op_type == "Relu")
    relu.input[0] = "shifted"
    at = list(model.graph.node).index(relu)
    for k, node in enumerate([helper.make_node("Unsqueeze", ["sc0", "axes"], ["sc"]),
                              helper.make_node("Mul", ["sc", "n"], ["scaled"]),
                              helper.make_node("Add", ["scaled", "sh"], ["shifted"])]):
        model.graph.node.insert(at + k, node)
    text = str(kiln.onnx.import_model(model, dims={"N": (1, 8)}).module)
    assert re.search(r"graph\.(mul|add) [^\n]*Nx8x", text) is None and text.count("graph.conv2d") == 1
    x = RNG.standard_normal((2, 3, 17, 15)).astype(np.float32)
    np.testing.assert_allclose(kiln.onnx.load(model, dims={"N": (1, 8)})(x)[0], ort_run(model, {"x": x})[0], rtol=1e-3, atol=1e-4)
    scale.CopyFrom(numpy_helper.from_array(RNG.random((1, 14)).astype(np.float32) + 0.5, "sc0"))
    model.graph.initializer[-3].CopyFrom(scale)
    text = str(kiln.onnx.import_model(model, dims={"N": (1, 8)}).module)
    assert re.search(r"graph\.mul [^\n]*Nx8x9x14", text) is not None


def pools_model():
    """Inception v2's pools: 3x3/2 MaxPool in ceil mode, 3x3/1 AveragePool with pads not counted, and an uneven
    pad (one more row below) on a ceil-mode AveragePool that counts its explicit pads."""
    nodes = [
        helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["x"], ["u"], kernel_shape=[3, 2], strides=[2, 2], pads=[0, 1, 1, 0],
                         ceil_mode=1, count_include_pad=1),
    ]
    outs = [helper.make_tensor_value_info(n, F32, None) for n in ("m", "a", "u")]
    return make_model(nodes, [helper.make_tensor_value_info("x", F32, [1, 3, 12, 12])], outs)


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_2d_pools_import_as_kiln_pools_and_match_onnxruntime(device):
    """Ceil mode, uneven pads and averages that do not count (all) padding are kiln's max_pool2d/avg_pool2d
    (an explicit pad in front, a rescaled average), not sums of strided slices."""
    from tensor_cases import require

    require(device)
    model = pools_model()
    text = str(kiln.onnx.import_model(model, check_outputs=False).module)
    assert text.count("graph.max_pool2d") == 1 and text.count("graph.avg_pool2d") == 2 and "graph.shrink" not in text
    x = RNG.standard_normal((1, 3, 12, 12)).astype(np.float32)
    for got, want in zip(kiln.onnx.load(model, device=device)(x), ort_run(model, {"x": x})):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_large_weights_become_arguments_not_text():
    w = RNG.standard_normal((64, 64)).astype(np.float32)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])], [helper.make_tensor_value_info("x", F32, [2, 64])],
                       [helper.make_tensor_value_info("y", F32, [2, 64])], [numpy_helper.from_array(w, "w")])
    imported = kiln.onnx.import_model(model)
    assert list(imported.weights) == ["w0"]
    assert "dense<" not in str(imported.module)
    x = RNG.standard_normal((2, 64)).astype(np.float32)
    np.testing.assert_allclose(kiln.onnx.load(model)(x)[0], x @ w, rtol=1e-4, atol=1e-4)


def test_integer_division_and_mod_follow_onnx_not_numpy():
    """ONNX Div truncates toward zero; Mod(fmod=1) takes the dividend's sign: both differ from numpy's // and %."""
    i32 = TensorProto.INT32
    nodes = [helper.make_node("Div", ["a", "b"], ["q"]), helper.make_node("Mod", ["a", "b"], ["r"], fmod=1)]
    vi = [helper.make_tensor_value_info(n, i32, [6]) for n in ("a", "b")]
    outs = [helper.make_tensor_value_info(n, i32, [6]) for n in ("q", "r")]
    model = make_model(nodes, vi, outs)
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5], np.int32)
    got = kiln.onnx.load(model)(a, b)
    want = ort_run(model, {"a": a, "b": b})
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def _cli(tmp_path, capsys, model_path, *extra):
    out = tmp_path / "out.mlir"
    code = run_tool("kiln-import-onnx", cli.run, [str(model_path), "-o", str(out), *extra])
    err = capsys.readouterr().err
    return code, err, out


def test_bad_input_is_one_message_exit_1_and_no_file(tmp_path, capsys):
    good = make_model([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", F32, [4])],
                      [helper.make_tensor_value_info("y", F32, [4])])
    data = good.SerializeToString()
    cases = {}
    (tmp_path / "trunc.onnx").write_bytes(data[: len(data) // 2])
    cases["trunc.onnx"] = "not a readable ONNX model"
    unknown = make_model([helper.make_node("Frobnicate", ["x"], ["y"], name="f1")],
                         [helper.make_tensor_value_info("x", F32, [4])], [helper.make_tensor_value_info("y", F32, [4])])
    onnx.save(unknown, tmp_path / "unknown.onnx")
    cases["unknown.onnx"] = "node 'f1' (Frobnicate): kiln has no lowering for this operator"
    strings = make_model([helper.make_node("Identity", ["x"], ["y"])], [helper.make_tensor_value_info("x", TensorProto.STRING, [4])],
                         [helper.make_tensor_value_info("y", TensorProto.STRING, [4])])
    onnx.save(strings, tmp_path / "strings.onnx")
    cases["strings.onnx"] = "input 'x': element type STRING has no kiln dtype"
    wrong = make_model([helper.make_node("Relu", ["x"], ["y"])], [helper.make_tensor_value_info("x", F32, [4])],
                       [helper.make_tensor_value_info("y", F32, [5])])
    onnx.save(wrong, tmp_path / "wrong.onnx")
    cases["wrong.onnx"] = "output 'y' is declared with shape [5] but computes [4]"
    ext = make_model([helper.make_node("Add", ["x", "w"], ["y"])], [helper.make_tensor_value_info("x", F32, [4096])],
                     [helper.make_tensor_value_info("y", F32, [4096])],
                     [numpy_helper.from_array(np.ones(4096, np.float32), "w")])
    onnx.save(ext, tmp_path / "ext.onnx", save_as_external_data=True, location="ext.bin", size_threshold=0)
    os.remove(tmp_path / "ext.bin")
    cases["ext.onnx"] = "missing external data"
    for name, message in cases.items():
        code, err, out = _cli(tmp_path, capsys, tmp_path / name)
        assert code == 1, (name, err)
        assert message in err, (name, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert not out.exists()


def test_symbolic_dim_needs_bounds(tmp_path, capsys):
    onnx.save(small_cnn(), tmp_path / "cnn.onnx")
    code, err, out = _cli(tmp_path, capsys, tmp_path / "cnn.onnx")
    assert code == 1 and "--dim N=LO:HI" in err and not out.exists()
    code, err, out = _cli(tmp_path, capsys, tmp_path / "cnn.onnx", "--dim", "N=1:4")
    assert code == 0 and "graph.dims = #graph.dims<N = [1, 4]>" in out.read_text()


def test_kiln_onnx_is_the_package_not_the_onnx_wheel():
    """The folder is onnx_import/ (a top-level onnx/ would shadow the real onnx package under pytest)."""
    import onnx as real

    assert kiln.onnx.__name__ == "kiln.onnx" and hasattr(real, "ModelProto")
    assert os.path.basename(os.path.dirname(kiln.onnx.__file__)) == "onnx_import"
