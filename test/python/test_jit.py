"""``@kiln.jit``: replay without retracing, symbolic dims, recompiles, the correctness guards, debugging output."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.jit import Dim, JitError, Tensor, TraceError, jit
from kiln.jit import compiled as compiled_module
from kiln.jit import debug
from kiln.jit.lower import Subgraph
from kiln.compiler.registry import PIPELINES, make_context
from xdsl.parser import Parser

from tensor_cases import DEVICES, require

D = "interp"


def t(a: object, dtype: str | None = None) -> Tensor:
    return Tensor(np.asarray(a, dtype=np.float32) if dtype is None else np.asarray(a, dtype=dtype), device=D)


def rows(n: int, k: int = 4, seed: int = 0) -> Tensor:
    return t(np.random.default_rng(seed).standard_normal((n, k)))


# ------------------------------------------------------------------------------------------- replay


def test_second_call_replays_without_tracing_or_building_ir(monkeypatch: pytest.MonkeyPatch) -> None:
    f = jit(lambda x, y: (x * y).sum(axis=1), device=D)
    x, y = rows(3), rows(3, seed=1)
    first = f(x, y).numpy()
    assert f.trace_count == 1

    def no_ir(*_: object, **__: object) -> None:
        raise AssertionError("a replay built graph IR")

    monkeypatch.setattr(Subgraph, "module", no_ir)
    monkeypatch.setattr(compiled_module, "compile_graph", no_ir)
    for _ in range(3):
        np.testing.assert_array_equal(f(x, y).numpy(), first)
    x2 = rows(3, seed=5)
    np.testing.assert_allclose(f(x2, y).numpy(), (x2.numpy() * y.numpy()).sum(1), rtol=1e-6)
    assert f.trace_count == 1


def test_symbolic_dim_serves_every_size_in_bounds_with_one_trace() -> None:
    N = Dim("N", 1, 64)
    w = rows(4, 3, seed=9)
    f = jit(lambda x, w: (x @ w).relu(), dims={"x": {0: N}}, device=D)
    for n in (1, 2, 17, 64, 5):
        x = rows(n, seed=n)
        out = f(x, w)
        assert out.shape == (n, 3)
        np.testing.assert_allclose(out.numpy(), np.maximum(x.numpy() @ w.numpy(), 0), rtol=1e-5, atol=1e-6)
    assert f.trace_count == 1
    assert "graph.dims = #graph.dims<N = [1, 64]>" in f.compiled[0].graph_ir
    assert "!graph.tensor<Nx4xf32>" in f.compiled[0].graph_ir


def test_size_outside_the_bounds_recompiles_and_says_so(monkeypatch, capsys) -> None:
    monkeypatch.setenv("KILN_DEBUG", "1")
    f = jit(lambda x: x * 2, dims={"x": {0: Dim("N", 1, 8)}}, device=D)
    f(rows(4))
    out = f(rows(9))
    np.testing.assert_allclose(out.numpy(), rows(9).numpy() * 2)
    assert f.trace_count == 2
    err = capsys.readouterr().err
    assert "N = 9 (argument 'x' axis 0) is outside [1, 8]" in err
    assert "!graph.tensor<9x4xf32>" in f.compiled[1].graph_ir
    f(rows(9))
    f(rows(3))
    assert f.trace_count == 2


def test_one_dim_on_two_arguments_must_agree() -> None:
    N = Dim("N", 1, 16)
    f = jit(lambda a, b: a.sum(0) + b.sum(0), dims={"a": {0: N}, "b": {0: N}}, device=D)
    f(rows(3), rows(3))
    assert "Nx4xf32>, %1: !graph.tensor<Nx4xf32>" in f.compiled[0].graph_ir
    out = f(rows(3), rows(5))  # disagree: a program for these exact shapes
    np.testing.assert_allclose(out.numpy(), rows(3).numpy().sum(0) + rows(5).numpy().sum(0), rtol=1e-5)
    assert f.trace_count == 2 and "3x4xf32" in f.compiled[1].graph_ir


def test_new_shape_or_dtype_without_dims_retraces() -> None:
    f = jit(lambda x: x + 1, device=D)
    f(rows(2))
    f(rows(3))
    f(t([1, 2], "int32"))
    f(rows(2))
    assert f.trace_count == 3
    assert f(t([1, 2], "int32")).dtype == "i32"


def test_changed_non_tensor_argument_retraces_and_says_which(monkeypatch, capsys) -> None:
    monkeypatch.setenv("KILN_DEBUG", "1")
    f = jit(lambda x, scale, opts: x * scale + opts["shift"], device=D)
    x = rows(2)
    np.testing.assert_allclose(f(x, 2.0, {"shift": 1}).numpy(), x.numpy() * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(f(x, 3.0, {"shift": 1}).numpy(), x.numpy() * 3 + 1, rtol=1e-6)
    np.testing.assert_allclose(f(x, 3.0, {"shift": 5}).numpy(), x.numpy() * 3 + 5, rtol=1e-6)
    f(x, 3.0, {"shift": 5})
    assert f.trace_count == 3
    err = capsys.readouterr().err
    assert "argument 'scale': 2.0 -> 3.0" in err
    assert "argument 'opts'['shift']: 1 -> 5" in err


def test_int_and_float_arguments_with_equal_values_are_different_signatures() -> None:
    f = jit(lambda x, k: x * k, device=D)
    x = t([1, 2], "int32")
    assert f(x, 2).dtype == "i32"
    assert f(x, 2.0).dtype == "f64"
    assert f(x, True).dtype == "i32"
    assert f.trace_count == 3


def test_unhashable_non_tensor_argument_is_rejected() -> None:
    f = jit(lambda x, cfg: x, device=D)
    with pytest.raises(JitError, match="neither a tensor nor hashable"):
        f(rows(2), {1, 2})
    with pytest.raises(JitError, match="neither a tensor nor hashable"):
        f(rows(2), bytearray(b"x"))


def test_containers_keywords_and_numpy_arrays() -> None:
    @jit(device=D)
    def f(params, x, *, bias):
        w, (b,) = params["w"], params["b"]
        return {"y": x @ w + b + bias, "n": 3}, [x.sum()]

    w, b = rows(4, 2), t([1.0, 2.0])
    x = np.ones((3, 4), np.float32)
    out, (s,) = f({"w": w, "b": (b,)}, x, bias=0.5)
    np.testing.assert_allclose(out["y"].numpy(), x @ w.numpy() + b.numpy() + 0.5, rtol=1e-6)
    assert out["n"] == 3 and s.item() == 12.0
    f({"w": w, "b": (b,)}, x, bias=0.5)
    assert f.trace_count == 1


# ------------------------------------------------------------------------------------------- guards


@pytest.mark.parametrize(
    "read",
    [lambda x: bool(x.sum() > 0), lambda x: x.sum().item(), lambda x: x.numpy(), lambda x: float(x.sum()),
     lambda x: int(x.sum()), lambda x: x.tolist()],
    ids=["bool", "item", "numpy", "float", "int", "tolist"],
)
def test_reading_a_traced_value_raises(read) -> None:
    f = jit(lambda x: x * 2 if read(x) else x, device=D)
    with pytest.raises(TraceError, match="reads the value of a traced tensor inside @kiln.jit function"):
        f(rows(2))


def test_tensors_that_do_not_depend_on_arguments_can_be_read_while_tracing() -> None:
    table = t([1.0, 2.0, 3.0, 4.0])

    @jit(device=D)
    def f(x):
        scale = float(table.sum().item())  # not data-dependent on x: fine, and frozen like any constant
        return x * scale

    np.testing.assert_allclose(f(rows(2)).numpy(), rows(2).numpy() * 10, rtol=1e-6)


def test_escaped_traced_tensor_cannot_be_read_later() -> None:
    leaked = []

    @jit(device=D)
    def f(x):
        leaked.append(x * 3)
        return x + 1

    f(rows(2))
    with pytest.raises(TraceError, match="escaped"):
        leaked[0].numpy()
    with pytest.raises(TraceError, match="escaped"):
        (leaked[0] + 1).realize()


def test_random_tensors_inside_a_trace_are_refused() -> None:
    f = jit(lambda x: x + Tensor.rand(*x.shape, device=D), device=D)
    with pytest.raises(TraceError, match="drawn once, at trace time"):
        f(rows(2))


CPU_AND_INTERP = ("interp", "cpu-llvm", "cpu-c")
"""The devices whose programs keep output storage between calls (runtime/program.py), and the reference."""


def on(device: str, tensor: Tensor) -> Tensor:
    return Tensor(tensor.numpy(), device=device)


@pytest.mark.parametrize("device", CPU_AND_INTERP)
def test_outputs_never_alias_inputs_or_earlier_outputs(device: str) -> None:
    f = jit(lambda x, y: (x, x * 2, y), device=device)
    x, y = on(device, rows(2)), on(device, rows(2, seed=3))
    a, b, c = f(x, y)
    assert not np.shares_memory(a._node.arg, x._node.arg)
    assert not np.shares_memory(c._node.arg, y._node.arg)
    before = b.numpy()
    for seed in range(7, 12):  # more calls than the program keeps storages for its outputs
        f(on(device, rows(2, seed=seed)), y)
    np.testing.assert_array_equal(b.numpy(), before)


@pytest.mark.parametrize("device", CPU_AND_INTERP)
def test_outputs_fed_back_as_inputs_replay_correctly(device: str) -> None:
    step = jit(lambda state, x: (state * 0.5 + x, state.sum()), device=device)
    state, x = on(device, rows(3)), on(device, rows(3, seed=2))
    want = state.numpy()
    for _ in range(6):
        state, total = step(state, x)
        np.testing.assert_allclose(total.numpy(), want.sum(), rtol=1e-5)
        want = want * 0.5 + x.numpy()
    np.testing.assert_allclose(state.numpy(), want, rtol=1e-5)
    assert step.trace_count == 1


@pytest.mark.parametrize("device", DEVICES)
def test_returning_an_argument_unchanged(device: str) -> None:
    require(device)
    f = jit(lambda x, y: (x.floor(), y * 2), device=device)
    x = Tensor(np.array([3, -4], np.int32), device=device)
    a, b = f(x, Tensor([1.5], device=device))
    assert a.numpy().tolist() == [3, -4] and b.item() == 3.0
    assert not np.shares_memory(a._node.arg, x._node.arg)


def test_same_tensor_passed_twice() -> None:
    f = jit(lambda a, b: a - b * 2, device=D)
    x = rows(2)
    np.testing.assert_allclose(f(x, x).numpy(), -x.numpy(), rtol=1e-6)


def test_captured_tensors_are_inputs_of_the_program() -> None:
    w = rows(4, 2, seed=4)
    lazy_bias = t([1.0, -1.0]) * 3  # not realized: computed inside the program
    f = jit(lambda x: x @ w + lazy_bias, device=D)
    x = rows(3)
    np.testing.assert_allclose(f(x).numpy(), x.numpy() @ w.numpy() + [3.0, -3.0], rtol=1e-5)
    assert "%1: !graph.tensor<4x2xf32>" in f.compiled[0].graph_ir
    np.testing.assert_allclose(f(x).numpy(), x.numpy() @ w.numpy() + [3.0, -3.0], rtol=1e-5)


def test_nested_jit_is_traced_through() -> None:
    inner = jit(lambda x: x * 2, device=D)
    outer = jit(lambda x: inner(x) + 1, device=D)
    np.testing.assert_allclose(outer(rows(2)).numpy(), rows(2).numpy() * 2 + 1, rtol=1e-6)
    assert inner.trace_count == 0 and outer.trace_count == 1


def test_bad_results_and_arguments_are_reported() -> None:
    with pytest.raises(JitError, match="returned no tensors"):
        jit(lambda x: None, device=D)(rows(2))
    with pytest.raises(JitError, match="returned a numpy array"):
        jit(lambda x: (x, np.zeros(2)), device=D)(rows(2))
    with pytest.raises(JitError, match="runs on interp, got a tensor on cpu-c"):
        jit(lambda x: x, device=D)(Tensor(np.zeros(2, np.float32), device="cpu-c"))


def test_bad_dims_are_reported() -> None:
    with pytest.raises(JitError, match=r"dims\['x'\] must map axes"):
        jit(lambda x: x, dims={"x": Dim("N", 1, 4)})
    with pytest.raises(JitError, match="dims names \\['y'\\]"):
        jit(lambda x, y: x, dims={"y": {0: Dim("N", 1, 4)}}, device=D)(rows(2), 3)
    with pytest.raises(JitError, match="has rank 2, so it has no axis 2"):
        jit(lambda x: x, dims={0: {2: Dim("N", 1, 4)}}, device=D)(rows(2))
    with pytest.raises(ValueError, match="no lowercase 'x'"):
        Dim("max", 1, 4)
    with pytest.raises(ValueError, match="need 0 <= lo <= hi"):
        Dim("N", 5, 4)


def test_symbolic_dims_inside_the_trace() -> None:
    N = Dim("N", 1, 32)
    seen = []

    @jit(dims={"x": {0: N}}, device=D)
    def f(x):
        seen.append(x.shape)
        with pytest.raises(TypeError, match="symbolic dim N has no value while tracing"):
            x.shape[0] * 2
        return x.reshape(x.shape[0], 2, 2).sum(2) + Tensor.ones(x.shape[0], 1, device=D)

    out = f(rows(5))
    assert seen == [(N, 4)] and out.shape == (5, 2)
    np.testing.assert_allclose(out.numpy(), rows(5).numpy().reshape(5, 2, 2).sum(2) + 1, rtol=1e-6)
    with pytest.raises(ValueError, match="only exists inside the @kiln.jit function"):
        Tensor.zeros(N, device=D)


def test_traced_function_ir_is_accepted_by_the_parser() -> None:
    f = jit(lambda x, w: (x @ w).softmax(), dims={"x": {0: Dim("B", 1, 8)}}, device=D)
    f(rows(2), rows(4, 3))
    module = Parser(make_context(), f.compiled[0].graph_ir).parse_module()
    module.verify()


# ------------------------------------------------------------------------------------------- debugging


def test_debug_levels_report_compiles_and_schedules(monkeypatch, capsys) -> None:
    f = jit(lambda x: x.exp().sum(), device=D)
    monkeypatch.setenv("KILN_DEBUG", "0")
    f(rows(2))
    assert capsys.readouterr().err == ""
    f.reset()
    monkeypatch.setenv("KILN_DEBUG", "1")
    f(rows(2))
    err = capsys.readouterr().err
    assert "kiln: tracing @lambda on interp for (f32(2, 4))" in err
    assert "kiln: compiled @lambda for interp" in err
    assert "kiln: @lambda on interp: interpreted 2 graph ops" in err
    monkeypatch.setenv("KILN_DEBUG", "2")
    f(rows(2))
    assert " us" in capsys.readouterr().err
    f.reset()
    monkeypatch.setenv("KILN_DEBUG", "4")
    f(rows(2))
    assert "graph.exp" in capsys.readouterr().err


def test_dump_ir_writes_each_pass_of_each_compile(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_DUMP_IR", str(tmp_path))
    f = jit(lambda x: x.softmax(), device=D)
    f(rows(2))
    f(np.ones((3, 5), np.float32))  # new shapes: a second compile, a second folder
    assert [p.name for p in (tmp_path / "lambda-1").iterdir()] == ["00-input.mlir"]
    assert "3x5xf32" in (tmp_path / "lambda-2" / "00-input.mlir").read_text()
    module = Subgraph.of([(rows(2).softmax())._node])
    m = module.module("f", module.leaves)
    debug.dump_ir(m, "f", "graph-decompose,graph-canonicalize", tmp_path)
    files = sorted(p.name for p in (tmp_path / "f-1").iterdir())
    assert files == ["00-input.mlir", "01-graph-decompose.mlir", "02-graph-canonicalize.mlir"]
    assert "graph.softmax" in (tmp_path / "f-1" / "00-input.mlir").read_text()
    assert "graph.softmax" not in (tmp_path / "f-1" / "01-graph-decompose.mlir").read_text()


def test_applied_opts_are_read_from_the_kernels() -> None:
    x = Tensor(np.ones((64, 64), np.float32), device=D)
    sub = Subgraph.of([(x @ x).relu()._node])
    module = sub.module("f", sub.leaves)
    assert debug.applied_opts(module, PIPELINES["lower-to-kernel"]) == {"f_r0": []}
    optimized = debug.applied_opts(module, PIPELINES["lower-to-kernel"] + ",kernel-optimize{target=cpu-llvm}")
    assert list(optimized) == ["f_r0"] and optimized["f_r0"] and all(isinstance(o, str) for o in optimized["f_r0"])


def test_schedule_report_of_a_compiled_program(monkeypatch, capsys) -> None:
    """What KILN_DEBUG prints per call for a device with kernels: launch sizes for the bound symbols, work, rates."""
    from kiln.runtime.program import BufferSpec, KernelsArtifact, LaunchSpec, ProgramSpec, TensorSpec

    program = ProgramSpec(
        "f",
        (TensorSpec(("N", 4), "f32"),),
        (("N", 1, 64),),
        (BufferSpec(0, ("N", 4), "f32", input=0), BufferSpec(1, ("N",), "f32", slot=0)),
        (1,),
        (
            LaunchSpec("f_k0", (("buf", 0), ("buf", 1), ("sym", "N")), core_extent="N", core_work=8),
            LaunchSpec("f_k1", (("buf", 1),), global_size=("ceildiv(N, 2)", 1, 1), local_size=(2, 1, 1)),
        ),
        KernelsArtifact("cpu-llvm", ""),
    )
    env = debug.bind_symbols([("N", 4)], [np.zeros((10, 4), np.float32)])
    assert env == {"N": 10}
    monkeypatch.setenv("KILN_DEBUG", "2")
    debug.report_call("f", "cpu-llvm", program, env, 2e-6, 2)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("kiln: @f on cpu-llvm (N=10): 2 launches in 2 us, 0.04 GFLOP/s, 0.12 GB/s")
    assert lines[1] == "    0 @f_k0: 10 indices split over cores, ~80 ops, 200 bytes"
    assert lines[2] == "    1 @f_k1: grid 5x1x1, block 2x1x1, ~? ops, 40 bytes"
