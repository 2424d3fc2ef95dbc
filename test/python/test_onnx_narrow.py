"""ONNX's narrow types (float8, float4, int4/int2; ``kiln.onnx.narrow``): the conversions lowered to graph ops
against ml_dtypes and onnx's reference (its ``saturate_cast``), byte for byte, on every CPU device; a model with
narrow inputs and outputs through ``kiln.onnx.load``; the error for any other op on them."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import kiln.onnx  # noqa: E402
from kiln.compiler.driver import compile  # noqa: E402
from kiln.jit import Tensor, lazy  # noqa: E402
from kiln.onnx import emit  # noqa: E402
from kiln.onnx.errors import OnnxImportError  # noqa: E402
from kiln.onnx.narrow import narrow_type  # noqa: E402
from kiln.onnx.ops.narrow_cast import decode, encode  # noqa: E402
from kiln.runtime.devices import device_available  # noqa: E402

DEVICES = ["cpu-llvm", "cpu-c"]
FLOAT8 = ["FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"]
NARROW = [*FLOAT8, "FLOAT4E2M1", "INT4", "UINT4", "INT2", "UINT2"]


def _inputs(t, dtype) -> np.ndarray:
    """Random values at every scale, the type's values and the midpoints between them (the ties), specials."""
    rng = np.random.default_rng(0)
    scales = [rng.standard_normal(300) * s for s in (1e-6, 1e-3, 0.1, 1, 10, 300, 1e5)]
    values = t.codes().astype(np.float64)
    v = np.sort(values[np.isfinite(values)])
    special = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1e30, -1e30, 2.5, -2.5, 7.9, -8.5]
    x = np.concatenate([*scales, v, -v, (v[1:] + v[:-1]) / 2, -(v[1:] + v[:-1]) / 2, special])
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _run(x: np.ndarray, build, device: str) -> list[np.ndarray]:
    kiln_dtype = {np.float32: "f32", np.float16: "f16", np.float64: "f64"}[x.dtype.type]
    ph = lazy.placeholder(None, 0, x.shape, kiln_dtype)
    outs = build(Tensor._of(ph, "interp"))
    module, weights = emit.build_module("main", [ph], [o._node for o in outs], {})
    return compile(module, "main", device)(x, *weights.values())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_conversion_matches_ml_dtypes_byte_for_byte(dtype, device):
    """Every narrow type (float8 also saturating) in one program, so one compile per dtype and device."""
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    cases = [(narrow_type(getattr(TensorProto, n)), sat) for n in NARROW for sat in ([False, True] if n in FLOAT8 else [False])]
    x = np.concatenate([_inputs(t, dtype) for t, _ in cases])

    def build(a):
        encoded = [encode(a, t, sat) for t, sat in cases]
        return [e.bits for e in encoded] + [decode(e, "f32") for e in encoded]

    results = _run(x, build, device)
    for (t, saturate), got, back in zip(cases, results[:len(cases)], results[len(cases):]):
        with np.errstate(invalid="ignore", over="ignore"):
            want = numpy_helper.saturate_cast(x, t.numpy) if saturate else x.astype(t.numpy)
        bad = np.nonzero(got != want.view(np.uint8))[0]
        assert not bad.size, f"{t.name} saturate={saturate}: {x[bad][:5]} -> {got[bad][:5]}, expected {want.view(np.uint8)[bad][:5]}"
        np.testing.assert_array_equal(back, want.astype(np.float32))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["FLOAT8E5M2", "INT4"])
def test_decode_to_every_dtype_is_numpys_conversion(name, device):
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    t = narrow_type(getattr(TensorProto, name))
    codes = np.arange(1 << t.bits, dtype=np.float32).reshape(2, -1)  # any input; the bytes come from encode
    for to, np_to in (("f16", np.float16), ("i32", np.int32), ("i8", np.int8)):
        values = codes.astype(np.uint8).view(t.numpy)
        with np.errstate(invalid="ignore"):
            want = values.astype(np.float32).astype(t.numpy).astype(np_to)
        (got,) = _run(values.astype(np.float32), lambda a: [decode(encode(a, t), to)], device)
        np.testing.assert_array_equal(got, want)


def _cast_model(to: int, saturate: int):
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=to, saturate=saturate),
             helper.make_node("Cast", ["y"], ["z"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", to, [2, 3]),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("device", DEVICES)
def test_model_with_float8_output_matches_onnx_reference(device):
    """A narrow output comes back as its ml_dtypes array; the round trip through it is the reference's."""
    from onnx.reference import ReferenceEvaluator

    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    model = _cast_model(TensorProto.FLOAT8E4M3FN, 0)
    x = np.array([[0.1, -3.3, 500.0], [np.inf, 1e-4, -0.0]], np.float32)
    y, z = kiln.onnx.load(model, device=device)(x)
    want_y, want_z = ReferenceEvaluator(model).run(None, {"x": x})
    assert y.dtype == want_y.dtype
    np.testing.assert_array_equal(y.view(np.uint8), want_y.view(np.uint8))
    np.testing.assert_array_equal(z, want_z)


def test_a_narrow_input_is_its_bytes_at_the_call():
    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"])]
    zp = numpy_helper.from_array(np.array(3, dtype=narrow_type(TensorProto.INT4).numpy), "zp")
    s = numpy_helper.from_array(np.array(0.5, np.float32), "s")
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("q", TensorProto.INT4, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [zp, s])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    q = np.array([-8, -1, 0, 7], dtype=narrow_type(TensorProto.INT4).numpy)
    (y,) = kiln.onnx.load(model)(q)
    np.testing.assert_array_equal(y, (q.astype(np.float32) - 3) * 0.5)


def test_other_ops_on_narrow_values_are_a_clear_error():
    nodes = [helper.make_node("Add", ["x", "x"], ["y"])]
    graph = helper.make_graph(nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT8E5M2, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT8E5M2, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(OnnxImportError, match=r"\(Add\): kiln computes with FLOAT8E5M2 values only in Cast"):
        kiln.onnx.import_model(model)


@pytest.mark.parametrize("device", DEVICES)
def test_e8m0_matches_onnx_for_every_round_mode(device):
    if not device_available(device):
        pytest.skip(f"{device} unavailable")
    t = narrow_type(TensorProto.FLOAT8E8M0)
    x = _inputs(t, np.float32)
    x = np.concatenate([x, np.ldexp(np.float32(1.5), np.arange(-140, 128)).astype(np.float32), [np.float32(2.0 ** 127 * 1.75)]])
    variants = [(mode, sat) for mode in ("up", "down", "nearest") for sat in (True, False)]
    got = _run(x, lambda a: [encode(a, t, sat, mode).bits for mode, sat in variants], device)
    for (mode, sat), g in zip(variants, got):
        want = numpy_helper.to_float8e8m0(x, sat, mode).view(np.uint8)
        bad = np.nonzero(g != want)[0]
        assert not bad.size, f"{mode} saturate={sat}: {x[bad][:5]} -> {g[bad][:5]}, expected {want[bad][:5]}"
