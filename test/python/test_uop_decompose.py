"""uop-decompose: each rule's accuracy and special values, exact integer rules, capability as data, dtype
legalization.

Kernels ``out = op(inputs)`` are built for a target that lacks ``op`` (a real description minus that op, or
the cuda description, whose exp2/log2/sin/cos are native for f32 only), decomposed, and the straight-line
result evaluated on whole numpy arrays in the value's dtype, with exp2/log2 correctly rounded (so what is
measured is the rule, not numpy's transcendentals). f64 rules are measured against long double references;
the corpus's f64 programs also run through the LLVM CPU backend decomposed as for cuda.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import uop as U
from kiln.dialects.alu import ALU_OPS as ALU_TABLE
from kiln.dialects.alu import AluOp, element_type
from kiln.dialects.types import dtype_name, from_numpy, to_numpy
from kiln.passes import uop_decompose
from kiln.passes.uop_decompose import PI, SIN_COS_LIMIT, UopDecompose, decompose_kernel
from kiln.runtime.device_cpu import load_kernels

from kiln.compiler.driver import compile, lower_program
from kiln.compiler.module import parse_module
from kiln.runtime.program import Executable
from kiln.capabilities.description import TargetDescription, get_target
from kiln.targets.llvm.toolchain import optimize_ir
from kiln.capabilities.ptx import F32_ONLY
from kiln.interpreters.alu import alu_semantics

from corpus import all_programs, assert_same

F32, F64, F16, BF16 = Float32Type(), Float64Type(), Float16Type(), BFloat16Type()
I32, U32 = IntegerType(32), IntegerType(32, Signedness.UNSIGNED)
CUDA = get_target("cuda")


def _rounded(f):
    """``f`` computed in f64 and rounded to the argument's dtype: a correctly rounded model of a good libm."""
    return lambda *xs: f(*(np.asarray(x, np.float64) for x in xs)).astype(np.asarray(xs[0]).dtype)


EVAL = {kind: alu_semantics(kind) for kind in ALU_TABLE} | {
    "exp2": _rounded(np.exp2),
    "log2": _rounded(np.log2),
    "exp": _rounded(np.exp),
    "log": _rounded(np.log),
    "fma": lambda a, b, c: _rounded(lambda x, y, z: x * y + z)(a, b, c),
}


def kernel_of(kind: str, *types: Attribute) -> U.UopKernelOp:
    """``out[0] = kind(in0[0], in1[0], ...)`` with inputs of ``types`` (a where's condition is i1)."""
    k = U.UopKernelOp("k")
    zero = U.ConstOp.from_number(0, IndexType())
    params = [U.ParamOp(i, U.PtrType(t)) for i, t in enumerate(types)]
    loads = [U.LoadOp(p.result, zero.result) for p in params]
    op = U.ALU[kind](*(load.result for load in loads))
    out = U.ParamOp(len(types), U.PtrType(op.results[0].type))
    store = U.StoreOp(out.result, zero.result, op.results[0])
    k.body.block.add_ops([zero, *params, out, *loads, op, store])
    return k


def without(*kinds: str, base: str = "cpu-llvm") -> TargetDescription:
    """``base`` lacking ``kinds``, its other ops native on every dtype (cpu-llvm's f32 exp2 and log2 included)."""
    target = get_target(base)
    name = f"{base} without {', '.join(kinds)}"
    return dataclasses.replace(target, name=name, alu_ops=target.alu_ops - set(kinds), native_dtypes={})


def evaluate(kernel: U.UopKernelOp, *inputs: np.ndarray) -> np.ndarray:
    """The value the kernel stores, each load reading its whole input array."""
    values: dict = {}
    for op in kernel.body.block.ops:
        if isinstance(op, U.ParamOp):
            values[op.result] = op.index.value.data
        elif isinstance(op, U.LoadOp):
            values[op.result] = inputs[values[op.ptr]]
        elif isinstance(op, U.ConstOp):
            values[op.result] = np.asarray(op.value.value.data).astype(_np(op.result.type))  # type: ignore[union-attr]
        elif isinstance(op, AluOp):
            values[op.results[0]] = np.asarray(EVAL[op.alu_kind](*(values[v] for v in op.operands))).astype(
                _np(op.results[0].type)
            )
        elif isinstance(op, U.CastOp):
            values[op.result] = values[op.input].astype(_np(op.result.type))
        elif isinstance(op, U.BitcastOp):
            values[op.result] = values[op.input].view(_np(op.result.type))
        elif isinstance(op, U.StoreOp):
            return values[op.value]
    raise AssertionError("the kernel stores nothing")


def _np(t: Attribute) -> np.dtype:
    return np.dtype(np.int64) if isinstance(t, IndexType) else to_numpy(t)


def decomposed(kind: str, *types: Attribute, target: TargetDescription | None = None) -> U.UopKernelOp:
    k = kernel_of(kind, *types)
    target = target or without(kind)
    decompose_kernel(k, target, target.dtypes)
    k.verify()
    foreign = {(kind, dtype) for kind, dtype in alu_ops_of(k) if not target.is_native(kind, dtype)}
    assert not foreign, foreign
    return k


def alu_ops_of(kernel: U.UopKernelOp) -> set[tuple[str, str]]:
    """(kind, dtype of its operands) of every ALU op in ``kernel``."""
    ops = [op for op in kernel.body.block.ops if isinstance(op, AluOp)]
    return {(op.alu_kind, dtype_name(element_type(op.value_operands[0].type))) for op in ops}


def ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in units of the spacing of f32 at the exact value."""
    spacing = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1.0, -1.0], np.float32)


def grid(lo: float, hi: float, n: int = 200_001) -> np.ndarray:
    tiny = np.geomspace(1e-30, 1, 2000, dtype=np.float32)
    return np.concatenate([np.linspace(lo, hi, n, dtype=np.float32), tiny, -tiny])


# ---------------------------------------------------------------------------------------------
# float rules: accuracy and special values

REFERENCES = {
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf),
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "recip": lambda x: 1 / x,
    "sign": np.sign,
    "floor": np.floor,
    "ceil": np.ceil,
}


@pytest.mark.parametrize(
    ("kind", "reference", "lo", "hi", "max_ulps"),
    [
        ("exp", np.exp, -87, 88, 1.0),
        ("log", np.log, 1e-6, 1e6, 2.0),
        ("tanh", np.tanh, -12, 12, 1.5),
        ("erf", REFERENCES["erf"], -6, 6, 1.5),
        ("rsqrt", REFERENCES["rsqrt"], 1e-6, 1e6, 1.5),
        ("recip", REFERENCES["recip"], -1e6, 1e6, 0.5),
    ],
)
def test_unary_rule_accuracy(kind: str, reference, lo: float, hi: float, max_ulps: float) -> None:
    k = decomposed(kind, F32)
    x = grid(lo, hi)
    x = x[(x >= lo) & (x <= hi) & (x != 0)]  # zero: see the special values
    err = ulps(evaluate(k, x), reference(x.astype(np.float64)))
    assert err.max() <= max_ulps, f"{kind}: {err.max():.2f} ulp at x = {x[err.argmax()]}"


@pytest.mark.parametrize("kind", REFERENCES)
def test_unary_rule_special_values(kind: str) -> None:
    with np.errstate(all="ignore"):
        want = REFERENCES[kind](SPECIAL.astype(np.float64)).astype(np.float32)
        got = evaluate(decomposed(kind, F32), SPECIAL)
    np.testing.assert_allclose(got, want, rtol=1e-6)  # nan where nan, ±inf where ±inf


@pytest.mark.parametrize("t", [F32, F64], ids=["f32", "f64"])
def test_exp_overflows_to_inf(t: Attribute) -> None:
    """Where exp2(t) is inf, a negative correction must not turn it into inf - inf = nan."""
    x = np.array([88.8, 100, 1e30, 3e38] if t == F32 else [709.8, 1000, 1e300], to_numpy(t))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(evaluate(decomposed("exp", t), x), np.inf)


def test_floor_ceil_sign_exact() -> None:
    x = np.concatenate([np.linspace(-5, 5, 4001, dtype=np.float32), SPECIAL])
    for kind in ("floor", "ceil", "sign"):
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(evaluate(decomposed(kind, F32), x), getattr(np, kind)(x), err_msg=kind)


def test_sign_of_integers() -> None:
    x = np.array([-5, -1, 0, 1, 7, -(2**31), 2**31 - 1], np.int32)
    np.testing.assert_array_equal(evaluate(decomposed("sign", I32), x), np.sign(x))
    u = np.array([0, 1, 2**32 - 1], np.uint32)
    np.testing.assert_array_equal(evaluate(decomposed("sign", U32), u), np.sign(u))


@pytest.mark.parametrize(("kind", "reference"), [("erf", REFERENCES["erf"]), ("tanh", np.tanh)])
def test_f64_series_are_accurate_to_f64(kind: str, reference) -> None:
    x = np.concatenate([np.linspace(-7, 7, 50_001), np.geomspace(1e-300, 1, 1000)])
    want = reference(x)
    err = np.abs(evaluate(decomposed(kind, F64), x) - want) / np.maximum(np.abs(want), 1e-300)
    assert err.max() < 1e-15, f"{kind}: relative error {err.max():.2e} at x = {x[err.argmax()]}"


def test_f64_rules_use_f64_constants() -> None:
    x = np.linspace(-700, 700, 10001)
    err = np.abs(evaluate(decomposed("exp", F64), x) / np.exp(x) - 1)
    assert err.max() < 1e-13  # f32 constants would give 1e-8 (the evaluator's f64 fma is not fused: not 1e-16)


def test_f32_exp_polynomial_is_within_its_bound() -> None:
    """``EXP_MINIMAX`` (f32 coefficients) approximates e^r on |r| <= ln2/2 to its documented 4.9e-9, evaluated
    exactly enough in f64: the budget of f32 exp's ulp bound leaves no room for a worse fit."""
    r = np.linspace(-math.log(2) / 2, math.log(2) / 2, 200_001)
    p = np.polynomial.polynomial.polyval(r, uop_decompose.EXP_MINIMAX)
    assert all(np.float32(c) == c for c in uop_decompose.EXP_MINIMAX), "coefficients must be f32 values"
    assert np.abs(p / np.exp(r) - 1).max() < 5e-9


@pytest.mark.parametrize("t", [F32, F16, BF16, F64], ids=["f32", "f16", "bf16", "f64"])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_min_propagate_nan(kind: str, t: Attribute) -> None:
    dtype = to_numpy(t)
    a = np.array([1, 2, np.nan, 3, np.nan, -0.0, np.inf], dtype)
    b = np.array([2, 1, 0, np.nan, np.nan, 0.0, -np.inf], dtype)
    want = getattr(np, f"{kind}imum")(a, b)
    np.testing.assert_array_equal(evaluate(decomposed(kind, t, t), a, b), want)


def test_pow_follows_numpy_special_cases() -> None:
    values = np.array([-np.inf, -3, -2, -1.5, -1, -0.5, 0.0, 0.5, 1, 1.5, 2, 3, np.inf, np.nan], np.float32)
    x, y = (a.reshape(-1) for a in np.meshgrid(values, values))
    with np.errstate(all="ignore"):
        got = evaluate(decomposed("pow", F32, F32), x, y)
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_pow_accuracy_on_positive_bases() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(0.01, 100, 100_000).astype(np.float32)
    y = rng.uniform(-4, 4, 100_000).astype(np.float32)
    exact = np.power(x.astype(np.float64), y.astype(np.float64))
    bound = 2 + np.abs(np.log2(exact)) * 1.5  # grows with the size of the exponent (see the rule)
    assert (ulps(evaluate(decomposed("pow", F32, F32), x, y), exact) <= bound).all()


def test_fma_becomes_mul_and_add() -> None:
    k = decomposed("fma", F32, F32, F32)
    assert [op.alu_kind for op in k.body.block.ops if isinstance(op, AluOp)] == ["mul", "add"]


# ---------------------------------------------------------------------------------------------
# f64 exp2, log2, sin, cos (software: cuda's instructions for them are f32 only)

needs_long_double = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63, reason="the f64 references are long double, which is double here"
)
F64_REFERENCES = {"exp2": np.exp2, "log2": np.log2, "sin": np.sin, "cos": np.cos}


def ulps64(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in units of the spacing of f64 at the exact value (a long double array)."""
    spacing = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
    return (np.abs(got.astype(np.longdouble) - exact) / spacing).astype(np.float64)


def near_quarter_turns(n: int) -> np.ndarray:
    """The doubles nearest k pi/2 (k = 1..n), their neighbours, and their negations: sin or cos is tiny there."""
    x = np.array([float(k * PI / 2) for k in range(1, n + 1)])
    x = np.concatenate([x, np.nextafter(x, 0), np.nextafter(x, np.inf)])
    return np.concatenate([x, -x])


def f64_grid(kind: str) -> np.ndarray:
    """Dense where the rule has seams, wide over the range it covers."""
    if kind == "exp2":
        return np.concatenate([np.linspace(-1074, 1023.99, 200_001), np.linspace(-1, 1, 50_001)])
    if kind == "log2":
        spread = np.geomspace(1e-16, 0.5, 20_001)
        return np.concatenate([np.geomspace(5e-324, 1.7e308, 200_001), 1 + spread, 1 - spread / 2])
    return np.concatenate([np.linspace(-1e5, 1e5, 200_001), np.linspace(-10, 10, 50_001), near_quarter_turns(20_000)])


@needs_long_double
@pytest.mark.parametrize(("kind", "max_ulps"), [("exp2", 1.2), ("log2", 1.0), ("sin", 2.2), ("cos", 2.2)])
def test_f64_transcendentals_are_accurate_to_a_few_ulps(kind: str, max_ulps: float) -> None:
    x = f64_grid(kind)
    with np.errstate(over="ignore"):  # log2 scales every x by 2^54 and selects the scaled subnormals
        got = evaluate(decomposed(kind, F64, target=CUDA), x)
    err = ulps64(got, F64_REFERENCES[kind](x.astype(np.longdouble)))
    assert err.max() <= max_ulps, f"{kind}: {err.max():.2f} ulp at x = {x[err.argmax()]!r}"


F64_SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.0**-1022, 1.0, -1.0, 3.0, 1e300, -1e300, 1024.0,
     -1075.0, -1074.5, 1023.5]
)  # fmt: skip


@pytest.mark.parametrize("kind", F64_REFERENCES)
def test_f64_transcendental_special_values(kind: str) -> None:
    x = F64_SPECIAL if kind in ("exp2", "log2") else F64_SPECIAL[np.abs(F64_SPECIAL) < 1e300]  # see the limit
    with np.errstate(all="ignore"):
        got, want = evaluate(decomposed(kind, F64, target=CUDA), x), F64_REFERENCES[kind](x)
    np.testing.assert_allclose(got, want, rtol=4e-16)  # nan where nan, ±inf where ±inf, 0 where 0
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


@pytest.mark.parametrize(("t", "target"), [(F64, CUDA), (F32, get_target("cpu-llvm"))], ids=["f64", "f32"])
def test_exp2_of_integers_and_log2_of_powers_of_two_are_exact(t: Attribute, target: TargetDescription) -> None:
    info = np.finfo(to_numpy(t))
    k = np.arange(np.log2(info.smallest_subnormal), info.maxexp, dtype=to_numpy(t))
    powers = np.ldexp(np.ones_like(k), k.astype(np.int32))  # numpy's f32 exp2(127) is an ulp off
    np.testing.assert_array_equal(evaluate(decomposed("exp2", t, target=target), k), powers)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(evaluate(decomposed("log2", t, target=target), powers), k)


@needs_long_double
@pytest.mark.parametrize("kind", ["sin", "cos"])
def test_f64_sin_cos_beyond_the_exact_reduction(kind: str) -> None:
    """Past |k| = 2^20 the error is that of an argument off by up to half an ulp of x; from 2^52 on, nan."""
    x = np.exp2(np.linspace(21, 51.99, 5001))
    x = np.concatenate([x, -x])
    got = evaluate(decomposed(kind, F64, target=CUDA), x)
    err = np.abs(got.astype(np.longdouble) - F64_REFERENCES[kind](x.astype(np.longdouble)))
    assert (err <= np.spacing(np.abs(x))).all()
    beyond = np.array([SIN_COS_LIMIT, -SIN_COS_LIMIT, 1e300])
    with np.errstate(all="ignore"):  # the reduction there overflows and casts out of range before the select
        assert np.isnan(evaluate(decomposed(kind, F64, target=CUDA), beyond)).all()


def test_f64_programs_decomposed_as_for_cuda_run_on_the_cpu_like_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus's f64 programs through lower-to-llvm, with uop-decompose rewriting what it rewrites for cuda:
    real machine code (LLVM may fuse and reassociate) of the f64 rules and of exp, log, pow, tanh, erf built on
    them."""
    host = get_target("cpu-llvm")
    as_cuda = dataclasses.replace(host, alu_ops=host.alu_ops & CUDA.alu_ops, native_dtypes=CUDA.native_dtypes)
    monkeypatch.setattr(uop_decompose, "target_for_pass", lambda pass_name, name: as_cuda)
    for program in (p for p in all_programs() if p.name in ("unary_f64", "binary_f64")):
        spec = lower_program(parse_module(program.text), program.function, "cpu-llvm")
        assert not re.search(r'@"llvm\.(exp2|log2|sin|cos|exp|log|pow)\.', spec.kernels.source), "not decomposed"
        run = Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))
        want = compile(program.text, program.function, "interp")
        for inputs in program.runs:
            for i, (g, w) in enumerate(zip(run(*inputs), want(*inputs), strict=True)):
                assert_same(g, w, program.rtol, program.atol, f"{program.name} result {i}")


# ---------------------------------------------------------------------------------------------
# f32 exp2, log2 in software (cpu-llvm: vectorized code instead of libm calls)

EXP_LOG = ("exp2", "exp", "log2", "log")
LIBM_CALL = re.compile(r"llvm\.(exp2?|log2?)\.(f32|f16|bf16)|\b(exp2?|log2?)f\(")
"""An f32 (or narrower) exp/log left to libm, in LLVM IR or C."""


def exp_log_program(n_x: int, n_y: int, dtype: str) -> str:
    """``f(x, y) = exp2(x), exp(x), log2(y), log(y)``."""
    x, y = f"!graph.tensor<{n_x}x{dtype}>", f"!graph.tensor<{n_y}x{dtype}>"
    return (
        f"func.func @f(%x: {x}, %y: {y}) -> ({x}, {x}, {y}, {y}) {{\n"
        f"  %a = graph.exp2 %x : {x}\n  %b = graph.exp %x : {x}\n"
        f"  %c = graph.log2 %y : {y}\n  %d = graph.log %y : {y}\n"
        f"  func.return %a, %b, %c, %d : {x}, {x}, {y}, {y}\n}}"
    )


def run_exp_log(device: str, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """``exp_log_program`` compiled for ``device`` (no program cache: tests may patch the description) and run;
    its kernels call no libm exp or log."""
    spec = lower_program(parse_module(exp_log_program(x.size, y.size, dtype_name(from_numpy(x.dtype)))), "f", device)
    assert not LIBM_CALL.search(spec.kernels.source), "not decomposed"
    with np.errstate(all="ignore"):
        return Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))(x, y)


def f32_edges(values: list[float]) -> np.ndarray:
    x = np.array(values, np.float32)
    return np.concatenate([x, np.nextafter(x, np.float32(np.inf)), np.nextafter(x, np.float32(-np.inf))])


def f32_exp_inputs() -> np.ndarray:
    """The whole domain of exp2 and exp, densely on [-1, 1], the overflow and underflow edges, special values."""
    edges = f32_edges([-150, -149.5, -149, -126, 127, 128, 88.72284, -87.33655, -103.27893, -103.97208, 0.5])
    wide, near_zero = np.linspace(-160, 130, 200_001, dtype=np.float32), np.linspace(-1, 1, 20_001, dtype=np.float32)
    return np.concatenate([wide, near_zero, edges, SPECIAL, np.array([1e30, -1e30], np.float32)])


def f32_log_inputs() -> np.ndarray:
    """Every binade (subnormals included), densely around 1, powers of two, negative numbers, special values."""
    spread = np.geomspace(1e-7, 0.5, 20_001)
    powers = np.exp2(np.arange(-149, 128, dtype=np.float64))
    f32 = np.finfo(np.float32)
    extremes = [f32.max, f32.smallest_subnormal, f32.smallest_normal, -5.0]
    parts = [np.geomspace(1e-45, 3.4e38, 200_001), 1 + spread, 1 - spread / 2, powers, extremes]
    return np.concatenate([*(np.asarray(p).astype(np.float32) for p in parts), SPECIAL])


def assert_within_ulps(got: np.ndarray, exact: np.ndarray, max_ulps: float, what: str) -> None:
    """``got`` (f32) within ``max_ulps`` of the f64 ``exact``; inf and nan exactly where ``exact`` rounds to them."""
    want = exact.astype(np.float32)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite], err_msg=what)
    err = ulps(got[finite], exact[finite])
    assert err.max() <= max_ulps, f"{what}: {err.max():.2f} ulp at {err.argmax()}"


F32_MAX_ULPS = {"exp2": 1.0, "exp": 1.0, "log2": 1.0, "log": 1.5}


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_f32_exp_log_in_software_on_the_cpu(device: str) -> None:
    """The rules as compiled machine code (fused multiply-adds, vectorized) against numpy in f64 over the whole
    f32 range."""
    x, y = f32_exp_inputs(), f32_log_inputs()
    results = run_exp_log(device, x, y)
    with np.errstate(all="ignore"):
        for kind, got, a in zip(EXP_LOG, results, (x, x, y, y), strict=True):
            assert_within_ulps(got, getattr(np, kind)(a.astype(np.float64)), F32_MAX_ULPS[kind], f"{device} {kind}")


ROW_DIVISION = """
func.func @f(%x: !graph.tensor<64x256xf32>, %s: !graph.tensor<64x1xf32>) -> !graph.tensor<64x256xf32> {
  %y = graph.div %x, %s : (!graph.tensor<64x256xf32>, !graph.tensor<64x1xf32>) -> !graph.tensor<64x256xf32>
  func.return %y : !graph.tensor<64x256xf32>
}"""


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_division_by_a_loop_invariant_is_a_product_with_its_reciprocal(device: str) -> None:
    """``x / s[row]``: no division left in the loop over the row (LLVM: none after O3 either, the product
    carries no ``reassoc``), and the result within 1.5 ulp (a division: 0.5) while 1/s is normal."""
    spec = lower_program(parse_module(ROW_DIVISION), "f", device)
    if device == "cpu-llvm":
        assert not re.search(r"fdiv[^\n]*<\d+ x float>", optimize_ir(spec.kernels.source)), "vector division"
    else:
        assert spec.kernels.source.count(" / ") == 1, "more divisions than the reciprocal"
    rng = np.random.default_rng(7)
    x = (rng.choice([-1, 1], (64, 256)) * 2.0 ** rng.uniform(-20, 20, (64, 256))).astype(np.float32)
    s = (rng.choice([-1, 1], (64, 1)) * 2.0 ** rng.uniform(-100, 100, (64, 1))).astype(np.float32)
    (got,) = Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))(x, s)
    assert ulps(got, x.astype(np.float64) / s).max() <= 1.5


def units_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How many representable 16-bit floats lie between a and b (same sign or zero; nan where either is nan)."""
    def ordered(v: np.ndarray) -> np.ndarray:
        bits = v.view(np.uint16).astype(np.int32)
        return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)

    apart = np.abs(ordered(a) - ordered(b)).astype(np.float64)
    return np.where(np.isnan(a.astype(np.float32)) | np.isnan(b.astype(np.float32)), np.nan, apart)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_16_bit_exp_log_take_the_f32_rules_on_cpu_llvm(dtype: str) -> None:
    """Every 16-bit value: computed in f32 and rounded once more, at most one unit from the correctly rounded
    result; nan exactly where numpy has nan."""
    every = np.arange(1 << 16, dtype=np.uint16).view(to_numpy({"f16": F16, "bf16": BF16}[dtype]))
    results = run_exp_log("cpu-llvm", every, every)
    with np.errstate(all="ignore"):
        for kind, got in zip(EXP_LOG, results, strict=True):
            want = getattr(np, kind)(every.astype(np.float64)).astype(every.dtype)
            if dtype == "bf16":  # LLVM's f32 -> bf16 conversion (vcvtneps2bf16 on AVX512-BF16) flushes subnormals
                got = np.where(np.abs(want.astype(np.float32)) < 2.0**-126, want, got)
            apart = units_apart(got, want)
            np.testing.assert_array_equal(np.isnan(apart), np.isnan(want.astype(np.float32)), err_msg=kind)
            assert np.nanmax(apart) <= 1, f"{dtype} {kind}: {np.nanmax(apart)} units at {every[np.nanargmax(apart)]}"


# ---------------------------------------------------------------------------------------------
# integer rules: exact


SHIFT_VALUES = np.array([0, 1, -1, 5, -5, 123456, -123456, 2**31 - 1, -(2**31)], np.int64)
SHIFT_AMOUNTS = np.array([0, 1, 3, 16, 30, 31, 32, 33, 100, -1], np.int64)


@pytest.mark.parametrize("kind", ["shl", "shr"])
@pytest.mark.parametrize("t", [I32, U32], ids=["i32", "ui32"])
def test_shifts_by_any_amount(kind: str, t: Attribute) -> None:
    dtype = to_numpy(t)
    x, y = (a.reshape(-1).astype(dtype) for a in np.meshgrid(SHIFT_VALUES, SHIFT_AMOUNTS))
    if dtype.kind == "u":
        y = y.astype(np.int64).clip(0).astype(dtype)
    k = decomposed(kind, t, t, target=without("shl", "shr", base="webgpu"))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(evaluate(k, x, y), alu_semantics(kind)(x, y))


def test_shift_by_a_constant_is_a_multiplication() -> None:
    k = kernel_of("shl", I32, I32)
    load_amount = [op for op in k.body.block.ops if isinstance(op, U.LoadOp)][1]
    three = U.ConstOp.from_number(3, I32)
    k.body.block.insert_op_before(three, load_amount)
    load_amount.result.replace_all_uses_with(three.result)
    decompose_kernel(k, without("shl"), get_target("cpu-llvm").dtypes)
    muls = [op for op in k.body.block.ops if isinstance(op, AluOp) and op.alu_kind == "mul"]
    assert len(muls) == 1 and muls[0].operands[1].owner.value.value.data == 8  # type: ignore[union-attr]


@pytest.mark.parametrize("t", [I32, U32], ids=["i32", "ui32"])
@pytest.mark.parametrize("kind", ["idiv", "mod"])
def test_division_by_a_power_of_two_without_division(kind: str, t: Attribute) -> None:
    k = kernel_of(kind, t, t)
    divisor = [op for op in k.body.block.ops if isinstance(op, U.LoadOp)][1]
    eight = U.ConstOp.from_number(8, t)
    k.body.block.insert_op_before(eight, divisor)
    divisor.result.replace_all_uses_with(eight.result)
    decompose_kernel(k, without("idiv", "mod"), get_target("cpu-llvm").dtypes)
    assert not any(isinstance(op, AluOp) and op.alu_kind in ("idiv", "mod") for op in k.body.block.ops)
    x = np.arange(-100, 101).astype(to_numpy(t)) if t == I32 else np.arange(0, 300, dtype=np.uint32)
    np.testing.assert_array_equal(evaluate(k, x, np.zeros_like(x)), alu_semantics(kind)(x, np.full_like(x, 8)))


def test_division_by_a_variable_without_division_is_an_error() -> None:
    k = kernel_of("idiv", I32, I32)
    with pytest.raises(PassFailedException, match="not a constant power of two: target .* has no idiv"):
        decompose_kernel(k, without("idiv"), get_target("cpu-llvm").dtypes)


# ---------------------------------------------------------------------------------------------
# capability as data


FLOAT_OPS = ("exp", "exp2", "log", "log2", "tanh", "erf", "sign", "rsqrt", "sin", "cos", "sqrt", "abs", "pow")


def _module_with_every_float_op(dtypes: tuple[Attribute, ...]) -> ModuleOp:
    """A kernel ``<kind>_<dtype>`` per float op and dtype."""
    kernels = []
    for t in dtypes:
        for kind in FLOAT_OPS:
            k = kernel_of(kind, *[t] * ALU_TABLE[kind].arity)
            k.sym_name = U.UopKernelOp(f"{kind}_{t}").sym_name
            kernels.append(k)
    return ModuleOp(kernels)


@pytest.mark.parametrize("target", ["cpu-llvm", "cpu-c", "cuda", "webgpu"])
def test_only_native_ops_remain(target: str) -> None:
    description = get_target(target)
    dtypes = tuple(t for t in (F32, F64) if description.supports_dtype(dtype_name(t)))
    module = _module_with_every_float_op(dtypes)
    UopDecompose(target=target).apply(None, module)  # type: ignore[arg-type]
    module.verify()
    for kernel in module.ops:
        remaining = alu_ops_of(kernel)  # type: ignore[arg-type]
        assert all(description.is_native(kind, dtype) for kind, dtype in remaining), kernel.sym_name
        kind, _, dtype = kernel.sym_name.data.rpartition("_")  # type: ignore[attr-defined]
        assert ((kind, dtype) in remaining) == description.is_native(kind, dtype)  # native ops are left alone


def test_cuda_decomposes_its_f32_only_ops_on_f64_alone() -> None:
    for kind in sorted(F32_ONLY):
        for t in (F32, F16, BF16):
            assert alu_ops_of(decomposed(kind, t, target=CUDA)) == {(kind, dtype_name(t))}
        assert (kind, "f64") not in alu_ops_of(decomposed(kind, F64, target=CUDA))


def test_an_op_without_a_rule_is_an_error() -> None:
    with pytest.raises(PassFailedException, match="uop.sin on f32: target .* does not have it and it has no decomposition"):
        decomposed("sin", F32)


def test_unknown_target() -> None:
    with pytest.raises(PassFailedException, match="unknown target 'tpu'"):
        UopDecompose(target="tpu").apply(None, ModuleOp([]))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# dtype legalization


def test_math_on_a_dtype_the_target_does_not_compute_with_runs_in_f32() -> None:
    k = kernel_of("tanh", BF16)
    target = get_target("cpu-c")  # tanh is native on f32 there
    decompose_kernel(k, target, target.dtypes - {"bf16"})
    k.verify()
    ops: list[Operation] = list(k.body.block.ops)
    (tanh,) = [op for op in ops if isinstance(op, AluOp)]
    assert tanh.results[0].type == F32
    casts = [op for op in ops if isinstance(op, U.CastOp)]
    assert [(c.input.type, c.result.type) for c in casts] == [(BF16, F32), (F32, BF16)]
    store = next(op for op in ops if isinstance(op, U.StoreOp))
    assert store.value.type == BF16  # the storage dtype stays
    x = np.linspace(-4, 4, 101).astype(to_numpy(BF16))
    want = np.tanh(x.astype(np.float32)).astype(to_numpy(BF16))
    np.testing.assert_array_equal(evaluate(k, x), want)


def test_comparisons_widen_without_narrowing_back() -> None:
    k = kernel_of("cmplt", BF16, BF16)
    target = get_target("cpu-llvm")
    decompose_kernel(k, target, target.dtypes - {"bf16"})
    k.verify()
    assert sum(isinstance(op, U.CastOp) for op in k.body.block.ops) == 2
