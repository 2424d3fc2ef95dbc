"""graph-decompose keeps the meaning: the interpreter gives the same answer before and after the pass, and no
composite op survives it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.parser import Parser

from kiln.dialects import graph
from kiln.dialects.types import Dim, to_numpy
from kiln.passes.graph_decompose import GraphDecompose
from kiln.compiler.registry import make_context
from kiln.interpreters.graph import run_function

RNG = np.random.default_rng(1)
TOL = {"f16": 2e-3, "bf16": 1.6e-2, "f32": 2e-5, "f64": 1e-12}
DECOMPOSED = {op.name for op in graph.COMPOSITE_OPS} | {"graph.argmax", "graph.argmin"}


def tt(shape: Sequence[Dim], dtype: str) -> str:
    return "!graph.tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def sample(shape: Sequence[int], dtype: str, scale: float = 2.0) -> np.ndarray:
    if dtype.startswith(("i", "ui")):
        return RNG.integers(-4 if dtype.startswith("i") else 0, 5, tuple(shape)).astype(to_numpy(dtype))
    return RNG.uniform(-scale, scale, tuple(shape)).astype(to_numpy(dtype))


def check(
    op: str,
    args: Sequence[tuple[Sequence[Dim], str]],
    result: tuple[Sequence[Dim], str],
    inputs: Sequence[np.ndarray] | None = None,
    dims: str = "",
    scale: float = 1.0,
) -> tuple[list[str], np.ndarray]:
    """Decompose ``%r = <op> : <types>`` applied to %a0.., compare the interpreter before and after; returns the
    op names left after the pass and the value after it."""
    params = ", ".join(f"%a{i}: {tt(*a)}" for i, a in enumerate(args))
    operand_types = ", ".join(tt(*a) for a in args)
    rt = tt(*result)
    attrs = f" attributes {{graph.dims = #graph.dims<{dims}>}}" if dims else ""
    text = (
        f"func.func @f({params}) -> {rt}{attrs} {{\n"
        f"  %r = {op} : ({operand_types}) -> {rt}\n"
        f"  func.return %r : {rt}\n}}"
    )
    module = Parser(make_context(), text).parse_module()
    module.verify()
    if inputs is None:
        inputs = [sample([4 if isinstance(d, str) else d for d in shape], dtype) for shape, dtype in args]
    (before,) = run_function(next(iter(module.ops)), inputs)
    GraphDecompose().apply(make_context(), module)
    module.verify()
    f = next(iter(module.ops))
    names = [o.name for o in f.body.block.ops]
    assert not DECOMPOSED & set(names), names
    (after,) = run_function(f, inputs)
    assert after.dtype == before.dtype and after.shape == before.shape
    dtype = result[1]
    if dtype in TOL:
        np.testing.assert_allclose(
            after.astype(np.float64), before.astype(np.float64), rtol=TOL[dtype], atol=TOL[dtype] * scale, equal_nan=True
        )
    else:
        np.testing.assert_array_equal(after, before)
    return names, after


MATMULS = [
    ((3, 4), (4, 5), (3, 5)),
    ((4,), (4, 5), (5,)),
    ((3, 4), (4,), (3,)),
    ((4,), (4,), ()),
    ((2, 1, 3, 4), (5, 4, 2), (2, 5, 3, 2)),
    ((2, 3, 4), (4, 2), (2, 3, 2)),
    ((4,), (3, 4, 2), (3, 2)),
    (("N", 4), (4, 3), ("N", 3)),
]


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32"])
@pytest.mark.parametrize("sa,sb,sr", MATMULS)
def test_matmul(sa, sb, sr, dtype: str) -> None:
    names, _ = check("graph.matmul %a0, %a1", [(sa, dtype), (sb, dtype)], (sr, dtype), dims="N = [1, 8]", scale=8)
    assert "graph.reduce_sum" in names and "graph.mul" in names


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("shape,axis", [((3, 5), 1), ((2, 3, 4), 0), ((2, 3, 4), -1), (("N", 6), 1), (("N", 6), 0)])
def test_softmax(name: str, dtype: str, shape, axis: int) -> None:
    x = sample([3 if d == "N" else d for d in shape], dtype, scale=30.0)  # needs the max shift
    check(f"graph.{name} %a0 {{axis = {axis} : i64}}", [(shape, dtype)], (shape, dtype), [x], "N = [1, 8]", scale=30)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shape,axes", [((2, 3, 4), (2,)), ((2, 3, 4), (1, 2)), ((2, "N"), (1,))])
def test_layernorm(dtype: str, affine: bool, shape, axes) -> None:
    norm = shape[axes[0] :]
    args = [(shape, dtype)] + ([(norm, dtype), (norm, dtype)] if affine else [])
    operands = "%a0 affine(%a1, %a2)" if affine else "%a0"
    axes_attr = ", ".join(map(str, axes))
    names, _ = check(
        f"graph.layernorm {operands} {{axes = array<i64: {axes_attr}>, epsilon = 1.0e-03 : f64}}",
        args,
        (shape, dtype),
        dims="N = [1, 8]",
        scale=4,
    )
    assert ("graph.mean" in names) == ("N" in shape)  # a symbolic count keeps mean as a core op
    assert "graph.rsqrt" in names


@pytest.mark.parametrize("dtype", ["f32", "f16", "f64"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean(dtype: str, keepdims: bool) -> None:
    kd = str(keepdims).lower()
    names, _ = check(
        f"graph.mean %a0 {{axes = array<i64: 0, 2>, keepdims = {kd}}}",
        [((3, 4, 5), dtype)],
        ((1, 4, 1) if keepdims else (4,), dtype),
    )
    assert "graph.mean" not in names and "graph.div" in names


def test_mean_over_a_symbolic_axis_stays() -> None:
    names, _ = check(
        "graph.mean %a0 {axes = array<i64: 0>}", [(("N", 4), "f32")], ((4,), "f32"), dims="N = [1, 8]"
    )
    assert names == ["graph.mean", "func.return"]


CONVS = [
    # x, w, stride, padding, dilation, groups, out
    ((1, 2, 5, 5), (3, 2, 3, 3), (1, 1), (0, 0), (1, 1), 1, (1, 3, 3, 3)),
    ((2, 2, 6, 5), (4, 2, 3, 2), (2, 1), (1, 2), (1, 1), 1, (2, 4, 3, 8)),
    ((1, 3, 7, 7), (2, 3, 2, 3), (1, 2), (1, 0), (2, 2), 1, (1, 2, 7, 2)),
    ((2, 4, 5, 6), (6, 2, 3, 3), (2, 2), (1, 1), (1, 2), 2, (2, 6, 3, 2)),
    ((1, 4, 4, 4), (4, 1, 3, 3), (1, 1), (1, 1), (1, 1), 4, (1, 4, 4, 4)),
    (("N", 2, 4, 4), (2, 2, 1, 1), (1, 1), (0, 0), (1, 1), 1, ("N", 2, 4, 4)),
]


def _arr(v: Sequence[int]) -> str:
    return "array<i64: " + ", ".join(map(str, v)) + ">"


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups,out", CONVS)
def test_conv2d(xs, ws, stride, padding, dilation, groups, out, bias: bool, dtype: str) -> None:
    args = [(xs, dtype), (ws, dtype)] + ([((ws[0],), dtype)] if bias else [])
    operands = "%a0, %a1 bias %a2" if bias else "%a0, %a1"
    props = (
        f"stride = {_arr(stride)}, padding = {_arr(padding)}, dilation = {_arr(dilation)}, groups = {groups} : i64"
    )
    check(f"graph.conv2d {operands} {{{props}}}", args, (out, dtype), dims="N = [1, 4]", scale=20)


POOLS = [
    # x, kernel, stride (None: default), padding, out
    ((2, 2, 6, 7), (2, 2), None, (0, 0), (2, 2, 3, 3)),
    ((2, 2, 6, 7), (3, 3), (2, 2), (1, 1), (2, 2, 3, 4)),
    ((1, 3, 5, 5), (2, 3), (1, 2), (1, 0), (1, 3, 6, 2)),
    (("N", 1, 4, 4), (2, 2), (2, 1), (1, 1), ("N", 1, 3, 5)),
]


@pytest.mark.parametrize("name,dtype", [("max_pool2d", "f32"), ("max_pool2d", "i32"), ("max_pool2d", "bf16"),
                                        ("avg_pool2d", "f32"), ("avg_pool2d", "f16")])
@pytest.mark.parametrize("xs,kernel,stride,padding,out", POOLS)
def test_pools(name: str, dtype: str, xs, kernel, stride, padding, out) -> None:
    props = f"kernel = {_arr(kernel)}, padding = {_arr(padding)}" + (f", stride = {_arr(stride)}" if stride else "")
    concrete = [3 if d == "N" else d for d in xs]
    x = sample(concrete, dtype) - (10 if dtype != "i32" else 0)  # negative values: a zero pad would show
    x = x.astype(to_numpy(dtype))
    check(f"graph.{name} %a0 {{{props}}}", [(xs, dtype)], (out, dtype), [x], dims="N = [1, 4]", scale=10)


@pytest.mark.parametrize("dtype", ["f32", "f16", "i32", "ui8"])
@pytest.mark.parametrize("shape,axis", [((5,), 0), ((3, 4, 5), 0), ((3, 4, 5), 1), ((3, 4, 5), -1), ((2, "N"), 1)])
def test_cumsum(dtype: str, shape, axis: int) -> None:
    names, _ = check(
        f"graph.cumsum %a0 {{axis = {axis} : i64}}", [(shape, dtype)], (shape, dtype), dims="N = [1, 8]", scale=5
    )
    assert "graph.where" in names and "graph.iota" in names


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "i8", "ui16", "i1"])
@pytest.mark.parametrize("index", ["i32", "i64"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_argmax_argmin(name: str, dtype: str, index: str, keepdims: bool) -> None:
    shape = (4, 6, 3)
    if dtype == "i1":
        x = RNG.random(shape) < 0.5
    else:
        x = RNG.integers(0, 3, shape).astype(to_numpy(dtype))  # many ties: the first index must win
    if dtype in ("f32", "bf16"):
        x[0, 2, 1] = x[0, 4, 1] = np.nan  # the first NaN wins
        x[1, 5, 0] = np.nan
    for axis in (0, 1, 2):
        out = tuple(1 if a == axis else n for a, n in enumerate(shape) if keepdims or a != axis)
        kd = str(keepdims).lower()
        check(f"graph.{name} %a0 {{axis = {axis} : i64, keepdims = {kd}}}", [(shape, dtype)], (out, index), [x])


def test_argmax_over_a_symbolic_axis() -> None:
    x = RNG.integers(0, 3, (2, 7)).astype(np.float32)
    check("graph.argmax %a0 {axis = 1 : i64}", [((2, "N"), "f32")], ((2,), "i64"), [x], dims="N = [1, 8]")


def test_core_ops_are_left_alone() -> None:
    names, _ = check(
        "graph.gather %a0, %a1 {axis = 1 : i64}",
        [((2, 5), "f32"), ((2, 3), "i32")],
        ((2, 3), "f32"),
        [sample((2, 5), "f32"), RNG.integers(0, 5, (2, 3)).astype(np.int32)],
    )
    assert names == ["graph.gather", "func.return"]
    names, _ = check("graph.concat %a0, %a1 {axis = 0 : i64}", [((2, 5), "f32"), ((1, 5), "f32")], ((3, 5), "f32"))
    assert names == ["graph.concat", "func.return"]


def test_dead_ops_survive_and_decomposition_is_in_place() -> None:
    text = """
    func.func @f(%x: !graph.tensor<4x4xf32>) -> !graph.tensor<4x4xf32> {
      %dead = graph.exp %x : !graph.tensor<4x4xf32>
      %s = graph.softmax %x {axis = 1 : i64} : (!graph.tensor<4x4xf32>) -> !graph.tensor<4x4xf32>
      %y = graph.add %s, %x : (!graph.tensor<4x4xf32>, !graph.tensor<4x4xf32>) -> !graph.tensor<4x4xf32>
      func.return %y : !graph.tensor<4x4xf32>
    }
    """
    module = Parser(make_context(), text).parse_module()
    GraphDecompose().apply(make_context(), module)
    module.verify()
    names = [o.name for o in next(iter(module.ops)).body.block.ops]
    assert names[0] == "graph.exp" and names[-2:] == ["graph.add", "func.return"]
    assert "graph.softmax" not in names


HALF_OVERFLOWS = [
    # op, operand shapes, result shape, inputs, exact answer: an f16 intermediate would overflow to inf/nan
    ("graph.matmul %a0, %a1", [(1, 2), (2, 1)], (1, 1), [[[300, 300]], [[300], [-300]]], [[0]]),
    ("graph.mean %a0 {axes = array<i64: 0>}", [(2,)], (), [[60000, 60000]], 60000),
    ("graph.avg_pool2d %a0 {kernel = array<i64: 2, 1>}", [(1, 1, 2, 1)], (1, 1, 1, 1), [[[[[6e4], [6e4]]]]], [[[[6e4]]]]),
    ("graph.layernorm %a0 {axes = array<i64: 0>, epsilon = 0.0 : f64}", [(2,)], (2,), [[300, -300]], [1, -1]),
    ("graph.conv2d %a0, %a1", [(1, 1, 1, 2), (1, 1, 1, 2)], (1, 1, 1, 1), [[[[[300, 300]]]], [[[[300, -300]]]]], [[[[0]]]]),
    ("graph.cumsum %a0 {axis = 0 : i64}", [(3,)], (3,), [[60000, -60000, 60000]], [60000, 0, 60000]),
]


@pytest.mark.parametrize("op,shapes,result,values,answer", HALF_OVERFLOWS)
def test_halves_accumulate_in_f32(op: str, shapes, result, values, answer) -> None:
    inputs = [np.array(v, np.float16) for v in values]
    _, after = check(op, [(s, "f16") for s in shapes], (result, "f16"), inputs)
    np.testing.assert_array_equal(after, np.array(answer, np.float16))
