"""webgpu computes i8/ui8/i16/ui16 in 32 bits and bf16 in f32 (``graph-legalize-dtypes`` widens them: WGSL has
none of them): every op whose result can leave the narrow range must wrap exactly as two's-complement 8/16-bit
arithmetic does, or round to bf16 as the interpreter does, and the program still takes and returns the declared
dtype. Checked against the graph interpreter on values drawn over the whole range, overflow included."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler.driver import compile as compile_module
from kiln.compiler.module import parse_module
from kiln.dialects.types import to_numpy
from kiln.interpreters.graph import run_module
from tensor_cases import require

PARTNER = {"i8": "ui8", "ui8": "i8", "i16": "ui16", "ui16": "i16"}


def program(t: str) -> str:
    """One function over 4x8 tensors of dtype ``t`` with every op kind whose result may leave t's range."""
    v, m, row, col = f"!graph.tensor<4x8x{t}>", f"!graph.tensor<8x4x{t}>", f"!graph.tensor<4x{t}>", f"!graph.tensor<4x4x{t}>"
    u = f"!graph.tensor<4x8x{PARTNER[t]}>"
    binary = ["add", "sub", "mul", "idiv", "mod", "max", "shl", "shr", "xor"]
    lines = [f"%{b} = graph.{b} %a, %b : ({v}, {v}) -> {v}" for b in binary]
    lines += [f"%{n} = graph.{n} %a : {v}" for n in ("neg", "abs", "not")]
    lines += [
        f"%sum = graph.reduce_sum %a {{axes = array<i64: 1>, keepdims = false}} : ({v}) -> {row}",
        f"%prod = graph.reduce_prod %a {{axes = array<i64: 1>, keepdims = false}} : ({v}) -> {row}",
        f"%cum = graph.cumsum %a {{axis = 1 : i64}} : ({v}) -> {v}",
        f"%bt = graph.permute %b {{perm = array<i64: 1, 0>}} : ({v}) -> {m}",
        f"%mm = graph.matmul %a, %bt : ({v}, {m}) -> {col}",
        f"%fromf = graph.cast %f : (!graph.tensor<4x8xf32>) -> {v}",
        f"%fromi = graph.cast %w : (!graph.tensor<4x8xi32>) -> {v}",
        f"%bits = graph.bitcast %a : ({v}) -> {u}",
        f"%back = graph.bitcast %bits : ({u}) -> {v}",
        f"%iota = graph.iota {{axis = 0 : i64}} : !graph.tensor<300x{t}>",
        f"%tof = graph.cast %add : ({v}) -> !graph.tensor<4x8xf32>",
    ]
    results = [*binary, "neg", "abs", "not", "sum", "prod", "cum", "mm", "fromf", "fromi", "bits", "back", "iota", "tof"]
    types = {"sum": row, "prod": row, "mm": col, "bits": u, "iota": f"!graph.tensor<300x{t}>", "tof": "!graph.tensor<4x8xf32>"}
    out = [types.get(r, v) for r in results]
    body = "\n  ".join(lines)
    return (
        f"func.func @f(%a: {v}, %b: {v}, %f: !graph.tensor<4x8xf32>, %w: !graph.tensor<4x8xi32>) -> ({', '.join(out)}) {{\n"
        f"  {body}\n  func.return {', '.join('%' + r for r in results)} : {', '.join(out)}\n}}\n"
    )


@pytest.mark.parametrize("dtype", ["i8", "ui8", "i16", "ui16"])
def test_narrow_ints_wrap_as_their_dtype(dtype: str) -> None:
    require("webgpu")
    rng = np.random.default_rng(0)
    np_type = to_numpy(dtype)
    info = np.iinfo(np_type)
    a = rng.integers(info.min, info.max, (4, 8), endpoint=True).astype(np_type)
    a[0, :4] = [info.min, info.max, 0, 1]  # the values that overflow first
    b = rng.integers(info.min, info.max, (4, 8), endpoint=True).astype(np_type)
    b[0, :4] = [-1 if info.min else 1, 1, 3, info.max]
    f = rng.uniform(info.min, info.max, (4, 8)).astype(np.float32)
    w = rng.integers(-(2**31), 2**31 - 1, (4, 8)).astype(np.int32)
    module = parse_module(program(dtype))
    want = run_module(module, "f", [a, b, f, w])
    got = compile_module(program(dtype), "f", "webgpu")(a, b, f, w)
    names = ["add", "sub", "mul", "idiv", "mod", "max", "shl", "shr", "xor", "neg", "abs", "not", "sum", "prod", "cum",
             "mm", "fromf", "fromi", "bits", "back", "iota", "tof"]
    for name, g, e in zip(names, got, want, strict=True):
        assert g.dtype == e.dtype, f"{name}: {g.dtype}, expected {e.dtype}"
        np.testing.assert_array_equal(g, e, err_msg=name)


def test_bf16_rounds_after_each_op() -> None:
    """bf16 is computed in f32 and rounded to bf16 (half to even, NaN kept) after each op that can leave it."""
    require("webgpu")
    import ml_dtypes

    v, w = "!graph.tensor<64xbf16>", "!graph.tensor<64xf32>"
    text = (
        f"func.func @f(%a: {v}, %b: {v}, %f: {w}) -> ({v}, {v}, {v}, {v}, {v}, {w}) {{\n"
        f"  %add = graph.add %a, %b : ({v}, {v}) -> {v}\n"
        f"  %mul = graph.mul %add, %b : ({v}, {v}) -> {v}\n"
        f"  %exp = graph.exp %a : {v}\n"
        f"  %max = graph.max %a, %b : ({v}, {v}) -> {v}\n"
        f"  %fromf = graph.cast %f : ({w}) -> {v}\n"
        f"  %tof = graph.cast %mul : ({v}) -> {w}\n"
        f"  func.return %add, %mul, %exp, %max, %fromf, %tof : {v}, {v}, {v}, {v}, {v}, {w}\n}}\n"
    )
    rng = np.random.default_rng(0)
    bf16 = ml_dtypes.bfloat16
    a = rng.normal(0, 4, 64).astype(bf16)
    b = rng.normal(0, 4, 64).astype(bf16)
    a[:4] = [np.nan, np.inf, -np.inf, 3.0e38]
    b[:4] = [1.0, 1.0, 1.0, 3.0e38]  # the last overflows to inf when rounded
    f = rng.normal(0, 1, 64).astype(np.float32)
    f[:2] = [1.00390625, 1.01171875]  # exact ties between two bf16 values: to even (down, then up)
    want = run_module(parse_module(text), "f", [a, b, f])
    got = compile_module(text, "f", "webgpu")(a, b, f)
    for name, g, e in zip(["add", "mul", "exp", "max", "fromf", "tof"], got, want, strict=True):
        assert g.dtype == e.dtype, f"{name}: {g.dtype}, expected {e.dtype}"
        if name == "exp":  # WGSL's exp is not correctly rounded: one bf16 ulp
            np.testing.assert_allclose(g.astype(np.float32), e.astype(np.float32), rtol=2**-7, err_msg=name)
        else:
            np.testing.assert_array_equal(g.astype(np.float32), e.astype(np.float32), err_msg=name)
