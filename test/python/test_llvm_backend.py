"""The LLVM backend end to end: uop kernels -> convert-uop-to-llvm -> -t llvm -> llvmlite (verify, O3, JIT) ->
results compared with numpy. Covers the CPU calling convention (core_start/core_end slices), loops,
accumulators, gated loads and stores, vectors, every ALU op on every dtype class (scalar and vector), casts
between all dtypes, and the located errors for what the CPU cannot run.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects.alu import ALU_OPS, BOOL, FLOAT, INDEX, INT
from kiln.dialects.types import to_numpy
from kiln.lowering.llvm.alu import BOOL_OPS, FLOAT_OPS, SIGNED_OPS, UNSIGNED_OPS
from kiln.lowering.uop_to_llvm import ConvertUopToLLVM
from kiln.compiler.registry import make_context
from kiln.targets.loaded import LoadedKernels
from kiln.targets.llvm import toolchain
from kiln.capabilities.llvm import describe
from kiln.targets.llvm.emitter import emit


@pytest.fixture(autouse=True)
def no_object_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")


def lower(text: str) -> ModuleOp:
    """Parse a uop module and run convert-uop-to-llvm on it; both the input and the output must verify."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertUopToLLVM().apply(ctx, module)
    module.verify()
    return module


@dataclass
class Kernel:
    """A JIT-compiled kernel; call it with its params (numpy arrays, ints, or None for a null pointer) and the
    slice ``core`` of the core range it should run."""

    function: Callable[..., None]
    loaded: LoadedKernels  # keeps the code mapped

    def __call__(self, *params: np.ndarray | int | None, core: tuple[int, int]) -> None:
        args = [p.ctypes.data if isinstance(p, np.ndarray) else p for p in params]
        self.function(*args, *core)


def jit(text: str, name: str) -> Kernel:
    """Lower, emit, verify (llvmlite), optimize and load the kernel ``name`` of a uop module."""
    module = lower(text)
    func = next(op for op in module.ops if isinstance(op, llvm.FuncOp) and op.sym_name.data == name)
    ir = emit(module)
    toolchain.parse_ir(ir)  # parses and verifies, or raises CompileError with LLVM's message
    loaded = toolchain.load_kernels(ir, [name])
    argtypes = [ctypes.c_void_p if isinstance(t, llvm.LLVMPointerType) else ctypes.c_int64
                for t in func.function_type.inputs.data]  # fmt: skip
    return Kernel(ctypes.CFUNCTYPE(None, *argtypes)(loaded.addresses[name]), loaded)


# ---------------------------------------------------------------------------------------------
# kernels with structure: slices of the core range, accumulators, loop nests, gates, vectors

AXPY = """
uop.kernel @axpy attributes {core_extent = "N", core_work = 2 : i64, symbols = ["N"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %y = uop.param 1 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  %N = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %two = uop.const 2.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %a = uop.load %x[%i] : f32
  %b = uop.load %y[%i] : f32
  %ax = uop.mul %a, %two : f32
  %r = uop.add %ax, %b : f32
  uop.store %out[%i], %r
  uop.end %i
}
"""


def test_elementwise_runs_exactly_its_core_slice() -> None:
    axpy = jit(AXPY, "axpy")
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.full(n, -7.0, np.float32)
    axpy(x, y, out, n, core=(5, 17))
    expected = 2 * x + y
    np.testing.assert_array_equal(out[5:17], expected[5:17])
    assert (out[:5] == -7).all() and (out[17:] == -7).all()
    axpy(x, y, out, n, core=(0, 400))  # two "threads" cover the whole range
    axpy(x, y, out, n, core=(400, n))
    np.testing.assert_array_equal(out, expected)
    axpy(None, None, None, 0, core=(0, 0))  # an empty slice touches nothing


REDUCE = """
uop.kernel @rows attributes {core_extent = "M", core_work = 2 : i64, symbols = ["M", "K"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %sum = uop.param 1 : !uop.ptr<f32>
  %max = uop.param 2 : !uop.ptr<f32>
  %M = uop.param 3 : index
  %K = uop.param 4 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %zero = uop.const 0.000000e+00 : f32
  %ninf = uop.const 0xFF800000 : f32
  %i = uop.range %lo, %hi : index
  %s = uop.define_acc %zero : f32
  %m = uop.define_acc %ninf : f32
  %k = uop.range %c0, %K : index
  %row = uop.mul %i, %K : index
  %at = uop.add %row, %k : index
  %v = uop.load %x[%at] : f32
  %s0 = uop.acc_get %s : f32
  %s1 = uop.add %s0, %v : f32
  uop.acc_set %s, %s1
  %m0 = uop.acc_get %m : f32
  %m1 = uop.max %m0, %v : f32
  uop.acc_set %m, %m1
  uop.end %k
  %rs = uop.acc_get %s : f32
  uop.store %sum[%i], %rs
  %rm = uop.acc_get %m : f32
  uop.store %max[%i], %rm
  uop.end %i
}
"""


def test_reduction_accumulators_reset_per_row_and_propagate_nan() -> None:
    rows = jit(REDUCE, "rows")
    m, k = 6, 37
    x = np.random.default_rng(1).standard_normal((m, k)).astype(np.float32)
    x[2, 5] = np.nan
    x[0, 0] = np.nan  # the first of its vector lane (the running max step carries nsz: NaN must still win)
    x[5, 36] = np.nan  # in the scalar remainder after the vector loop
    x[4, :] = -np.inf
    total, peak = np.zeros(m, np.float32), np.zeros(m, np.float32)
    rows(x, total, peak, m, k, core=(0, m))
    np.testing.assert_allclose(total, x.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(peak, x.max(axis=1))  # nan in rows 0, 2 and 5, -inf in row 4
    empty_total = np.full(m, 5.0, np.float32)
    rows(x, empty_total, peak, m, 0, core=(0, m))  # K = 0: the accumulators' initial values
    np.testing.assert_array_equal(empty_total, np.zeros(m, np.float32))


MATMUL = """
uop.kernel @matmul attributes {core_extent = "M", core_work = 256 : i64, symbols = ["M"]} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 1 : !uop.ptr<f32>
  %c = uop.param 2 : !uop.ptr<f32>
  %M = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c4 = uop.const 4 : index
  %c8 = uop.const 8 : index
  %c16 = uop.const 16 : index
  %c32 = uop.const 32 : index
  %zero = uop.const dense<0.000000e+00> : vector<8xf32>
  %i = uop.range %lo, %hi : index
  %jb = uop.range %c0, %c4 : index
  %j = uop.mul %jb, %c8 : index
  %acc = uop.define_acc %zero : vector<8xf32>
  %k = uop.range %c0, %c16 : index
  %ik = uop.mul %i, %c16 : index
  %ia = uop.add %ik, %k : index
  %s = uop.load %a[%ia] : f32
  %av = uop.vectorize %s, %s, %s, %s, %s, %s, %s, %s : vector<8xf32>
  %kn = uop.mul %k, %c32 : index
  %ib = uop.add %kn, %j : index
  %bv = uop.load %b[%ib] : vector<8xf32>
  %cur = uop.acc_get %acc : vector<8xf32>
  %nxt = uop.fma %av, %bv, %cur : vector<8xf32>
  uop.acc_set %acc, %nxt
  uop.end %k
  %in = uop.mul %i, %c32 : index
  %ic = uop.add %in, %j : index
  %r = uop.acc_get %acc : vector<8xf32>
  uop.store %c[%ic], %r : vector<8xf32>
  uop.end %jb
  uop.end %i
}
"""


def test_matmul_loop_nest_with_a_vector_accumulator() -> None:
    matmul = jit(MATMUL, "matmul")
    rng = np.random.default_rng(2)
    m = 5
    a, b = rng.standard_normal((m, 16), np.float32), rng.standard_normal((16, 32), np.float32)
    c = np.zeros((m, 32), np.float32)
    matmul(a, b, c, m, core=(0, 2))
    matmul(a, b, c, m, core=(2, m))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


PAD = """
uop.kernel @pad attributes {core_extent = "n + 2", core_work = 3 : i64, symbols = ["n"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %kept = uop.param 2 : !uop.ptr<f32>
  %n = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c1 = uop.const 1 : index
  %i = uop.range %lo, %hi : index
  %src = uop.sub %i, %c1 : index
  %after_start = uop.cmple %c1, %i : index
  %before_end = uop.cmple %i, %n : index
  %inside = uop.and %after_start, %before_end : i1
  %v = uop.load %x[%src], %inside : f32
  uop.store %out[%i], %v
  uop.store %kept[%i], %v, %inside
  uop.end %i
}
"""


def test_gated_load_reads_nothing_where_the_gate_is_false() -> None:
    pad = jit(PAD, "pad")
    x = np.arange(1, 6, dtype=np.float32)
    out, kept = np.full(7, -1.0, np.float32), np.full(7, -1.0, np.float32)
    pad(x, out, kept, 5, core=(0, 7))
    np.testing.assert_array_equal(out, np.pad(x, 1))
    np.testing.assert_array_equal(kept, [-1, 1, 2, 3, 4, 5, -1])
    out, kept = np.full(2, -1.0, np.float32), np.full(2, -1.0, np.float32)
    pad(None, out, kept, 0, core=(0, 2))  # x is a null pointer: any read would crash
    np.testing.assert_array_equal(out, [0, 0])
    np.testing.assert_array_equal(kept, [-1, -1])


VECTORS = """
uop.kernel @vec attributes {core_extent = "B", core_work = 8 : i64, symbols = ["B"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %y = uop.param 1 : !uop.ptr<f32>
  %sum = uop.param 2 : !uop.ptr<f32>
  %big = uop.param 3 : !uop.ptr<f32>
  %less = uop.param 4 : !uop.ptr<i1>
  %lane5 = uop.param 5 : !uop.ptr<f32>
  %B = uop.param 6 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c1 = uop.const 1 : index
  %c8 = uop.const 8 : index
  %i = uop.range %lo, %hi : index
  %base = uop.mul %i, %c8 : index
  %at = uop.add %base, %c1 : index
  %a = uop.load %x[%at] : vector<8xf32>
  %b = uop.load %y[%at] : vector<8xf32>
  %s = uop.add %a, %b : vector<8xf32>
  uop.store %sum[%at], %s : vector<8xf32>
  %lt = uop.cmplt %a, %b : vector<8xf32>
  %m = uop.where %lt, %b, %a : vector<8xf32>
  uop.store %big[%at], %m : vector<8xf32>
  uop.store %less[%at], %lt : vector<8xi1>
  %l = uop.load %less[%at] : vector<8xi1>
  %e = uop.extract %m[5] : vector<8xf32>
  %f = uop.extract %l[5] : vector<8xi1>
  %zero = uop.const 0.000000e+00 : f32
  %g = uop.where %f, %e, %zero : f32
  uop.store %lane5[%i], %g
  uop.end %i
}
"""


def test_vector_load_add_compare_select_store_at_unaligned_addresses() -> None:
    vec = jit(VECTORS, "vec")
    blocks = 4
    n = 8 * blocks + 1  # vectors start at element 1: misaligned for <8 x float>
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    x[3], y[9] = np.nan, np.inf
    total, big, lane5 = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(blocks, np.float32)
    less = np.ones(n, np.bool_)
    vec(x, y, total, big, less, lane5, blocks, core=(0, blocks))
    np.testing.assert_array_equal(total[1:], x[1:] + y[1:])
    np.testing.assert_array_equal(big[1:], np.where(x < y, y, x)[1:])
    np.testing.assert_array_equal(less[1:], (x < y)[1:])
    assert less[0]  # untouched
    assert set(less.view(np.uint8)) <= {0, 1}  # bools are stored as bytes 0/1
    lanes = np.arange(blocks) * 8 + 1 + 5
    np.testing.assert_array_equal(lane5, np.where(x[lanes] < y[lanes], y[lanes], 0))


# ---------------------------------------------------------------------------------------------
# every ALU op, per dtype, as scalars and as vectors


def _alu_kernel(dtype: str, ops: Sequence[tuple[str, int, str]], lanes: int) -> str:
    """A kernel reading a, b, c (of ``dtype``) and writing ``op(...)`` of each (name, arity, result dtype) to an
    output of its own, ``lanes`` elements per iteration of the core range."""
    t = dtype if lanes == 1 else f"vector<{lanes}x{dtype}>"
    lines = [f"  %{p} = uop.param {n} : !uop.ptr<{dtype}>" for n, p in enumerate("abc")]
    lines += [f"  %out{n} = uop.param {n + 3} : !uop.ptr<{res}>" for n, (_, _, res) in enumerate(ops)]
    lines += [
        "  %lo = uop.special core_start : index",
        "  %hi = uop.special core_end : index",
        f"  %width = uop.const {lanes} : index",
        "  %i = uop.range %lo, %hi : index",
        "  %at = uop.mul %i, %width : index",
        *(f"  %v{p} = uop.load %{p}[%at] : {t}" for p in "abc"),
    ]
    store_type = "" if lanes == 1 else f" : vector<{lanes}x"
    for n, (name, arity, res) in enumerate(ops):
        if name == "where":
            operands = "%cond, %va, %vb"
        else:
            operands = ", ".join(f"%v{p}" for p in "abc"[:arity])
        lines.append(f"  %r{n} = uop.{name} {operands} : {t}")
        if name == "cmplt":
            lines.append(f"  %cond = uop.cmplt %va, %vb : {t}")
        lines.append(f"  uop.store %out{n}[%at], %r{n}" + (f"{store_type}{res}>" if store_type else ""))
    lines.append("  uop.end %i")
    return "uop.kernel @alu {\n" + "\n".join(lines) + "\n}\n"


def _run_alu(dtype: str, ops: Sequence[tuple[str, int, str]], inputs: Sequence[np.ndarray], lanes: int) -> list[np.ndarray]:
    kernel = jit(_alu_kernel(dtype, ops, lanes), "alu")
    n = len(inputs[0])
    assert n % lanes == 0
    outs = [np.zeros(n, to_numpy(res)) for _, _, res in ops]
    kernel(*inputs, *outs, core=(0, n // lanes))
    return outs


INT_OPS = [(name, spec.arity, "i1" if spec.returns_bool else "T") for name, spec in ALU_OPS.items()
           if INT in spec.dtypes and name != "sign"]  # fmt: skip
"""(name, arity, result) of every ALU op on integers the target runs natively (``sign`` is decomposed)."""


def _c_int(name: str, a: int, b: int, c: int, bits: int) -> int | bool:
    """The uop meaning of an integer ALU op on Python ints (C division; int division by 0 gives 0)."""
    shift_ok = 0 <= b < bits
    match name:
        case "neg": return -a
        case "abs": return abs(a)
        case "not": return ~a
        case "add": return a + b
        case "sub": return a - b
        case "mul": return a * b
        case "idiv": return 0 if b == 0 else abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        case "mod": return 0 if b == 0 else a - b * (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1))
        case "max": return max(a, b)
        case "min": return min(a, b)
        case "and": return a & b
        case "or": return a | b
        case "xor": return a ^ b
        case "shl": return a << b if shift_ok else 0
        case "shr": return a >> b if shift_ok else (-1 if a < 0 else 0)
        case "cmplt": return a < b
        case "cmple": return a <= b
        case "cmpeq": return a == b
        case "cmpne": return a != b
        case "where": return a if a < b else b
        case "fma": return a * b + c
    raise AssertionError(name)  # pragma: no cover


def _int_inputs(dtype: np.dtype, lanes: int) -> list[np.ndarray]:
    info = np.iinfo(dtype)
    bits = info.bits
    edge = [0, 1, 2, 3, -1, -2, 7, -7, 100, -100, info.min, info.max, info.min + 1, bits - 1, bits, bits + 3]
    pairs = [(x, y) for x in edge for y in edge]
    wrapped = [[v % (1 << bits) for v in (x, y, x - y)] for x, y in pairs]
    values = np.array(wrapped, np.uint64).astype(dtype)  # numpy wraps: the bit patterns of the values
    return [_fill_lanes(np.ascontiguousarray(values[:, j]), lanes) for j in range(3)]


def _fill_lanes(x: np.ndarray, lanes: int) -> np.ndarray:
    """``x`` repeated to a multiple of ``lanes`` elements."""
    return np.resize(x, len(x) + (-len(x) % lanes))


@pytest.mark.parametrize("lanes", [1, 4], ids=["scalar", "vector4"])
@pytest.mark.parametrize("dtype", ["i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"])
def test_integer_ops(dtype: str, lanes: int) -> None:
    np_dtype = to_numpy(dtype)
    ops = [(n, a, dtype if r == "T" else r) for n, a, r in INT_OPS]
    inputs = _int_inputs(np_dtype, lanes)
    outs = _run_alu(dtype, ops, inputs, lanes)
    bits = np.iinfo(np_dtype).bits
    for (name, _, res), got in zip(ops, outs):
        expected = [_c_int(name, int(a), int(b), int(c), bits) for a, b, c in zip(*inputs)]
        expected_array = np.array(expected, dtype=object)
        if res != "i1":
            expected_array = np.array([int(v) % (1 << bits) for v in expected], np.uint64).astype(np_dtype)
        mismatch = np.flatnonzero(got != expected_array.astype(got.dtype))
        assert not mismatch.size, (
            f"{name} on {dtype}: a={inputs[0][mismatch[:3]]} b={inputs[1][mismatch[:3]]} "
            f"got {got[mismatch[:3]]}, expected {expected_array[mismatch[:3]]}"
        )


def test_bool_ops() -> None:
    ops = [(name, spec.arity, "i1") for name, spec in ALU_OPS.items() if BOOL in spec.dtypes and spec.arity < 3]
    ops.append(("where", 3, "i1"))
    a, b = (np.array(v, np.bool_) for v in ([0, 0, 1, 1], [0, 1, 0, 1]))
    c = np.zeros(4, np.bool_)
    outs = _run_alu("i1", ops, [a, b, c], 1)
    reference = {
        "not": ~a, "max": a | b, "min": a & b, "and": a & b, "or": a | b, "xor": a ^ b,
        "cmplt": a < b, "cmple": a <= b, "cmpeq": a == b, "cmpne": a != b, "where": np.where(a < b, a, b),
    }  # fmt: skip
    for (name, _, _), got in zip(ops, outs):
        np.testing.assert_array_equal(got, reference[name], err_msg=name)


FLOAT_REFERENCE: dict[str, Callable[..., np.ndarray]] = {
    "neg": np.negative, "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
    "cos": np.cos, "sqrt": np.sqrt, "recip": np.reciprocal, "trunc": np.trunc, "floor": np.floor,
    "ceil": np.ceil, "abs": np.abs, "tanh": np.tanh, "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "div": np.divide, "idiv": lambda a, b: np.trunc(a / b), "mod": np.fmod, "max": np.maximum,
    "min": np.minimum, "pow": np.power, "cmplt": np.less, "cmple": np.less_equal, "cmpeq": np.equal,
    "cmpne": np.not_equal, "where": lambda a, b, c: np.where(a < b, a, b), "fma": lambda a, b, c: a * b + c,
}  # fmt: skip
FLOAT_OPS_TESTED = [(name, spec.arity, "i1" if spec.returns_bool else "T") for name, spec in ALU_OPS.items()
                    if FLOAT in spec.dtypes and name in FLOAT_REFERENCE]  # fmt: skip
SPECIAL_FLOATS = [0.0, -0.0, 0.5, -1.5, 2.0, 3.75, -7.25, 10.0, 100.0, np.inf, -np.inf, np.nan, 1e-3, 0.1, -0.7, 1.0]


@pytest.mark.parametrize(
    "dtype, lanes, rtol",
    [("f32", 1, 2e-6), ("f32", 8, 2e-6), ("f64", 1, 1e-14), ("f64", 4, 1e-14), ("f16", 1, 2e-3), ("f16", 4, 2e-3),
     ("bf16", 1, 1.6e-2)],
)
def test_float_ops_use_intrinsics_with_ieee_nan_and_inf(dtype: str, lanes: int, rtol: float) -> None:
    np_dtype = to_numpy(dtype)
    pairs = [(x, y) for x in SPECIAL_FLOATS for y in SPECIAL_FLOATS]
    a, b = (np.array([p[j] for p in pairs], np_dtype) for j in (0, 1))
    c = np.roll(a, 1)
    ops = [(n, arity, dtype if r == "T" else r) for n, arity, r in FLOAT_OPS_TESTED]
    outs = _run_alu(dtype, ops, [a, b, c], lanes)
    with np.errstate(all="ignore"):
        for (name, arity, res), got in zip(ops, outs):
            expected = FLOAT_REFERENCE[name](*(a, b, c)[:arity])  # numpy rounds to the dtype after each step
            if res == "i1":
                np.testing.assert_array_equal(got, expected, err_msg=name)
                continue
            np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=0,
                                       equal_nan=True, err_msg=f"{name} on {dtype}")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# casts

CAST_DTYPES = ["i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16", "f32", "f64"]


def _cast_kernel(src: str, lanes: int) -> str:
    def t(d: str) -> str:
        return d if lanes == 1 else f"vector<{lanes}x{d}>"

    lines = [f"  %x = uop.param 0 : !uop.ptr<{src}>"]
    lines += [f"  %o{n} = uop.param {n + 1} : !uop.ptr<{d}>" for n, d in enumerate(CAST_DTYPES)]
    lines += [
        "  %lo = uop.special core_start : index",
        "  %hi = uop.special core_end : index",
        f"  %width = uop.const {lanes} : index",
        "  %i = uop.range %lo, %hi : index",
        "  %at = uop.mul %i, %width : index",
        f"  %v = uop.load %x[%at] : {t(src)}",
    ]
    for n, d in enumerate(CAST_DTYPES):
        lines.append(f"  %c{n} = uop.cast %v : {t(src)} -> {t(d)}")
        lines.append(f"  uop.store %o{n}[%at], %c{n}" + (f" : {t(d)}" if lanes > 1 else ""))
    lines.append("  uop.end %i")
    return "uop.kernel @cast {\n" + "\n".join(lines) + "\n}\n"


def _cast_inputs(src: str) -> np.ndarray:
    dt = to_numpy(src)
    if src == "i1":
        return np.array([False, True] * 4)
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        values = [0, 1, 2, 100, 127, 128, 255, 256, 1000, 65535, 65536, 2**31 - 1, 2**31, 2**53 + 1, 2**63 - 1,
                  2**63, 2**63 + 1025, 2**64 - 1, -1, -100, -129, -(2**31), -(2**63), info.min, info.max]  # fmt: skip
        return np.array([v % (1 << info.bits) for v in values], np.uint64).astype(dt)
    values = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 100.9, -100.7, 127.9, 255.5, 1e3, 3e4, 65504.0, 1e5, 3e9, -3e9,
              1e20, 1e-8, np.inf, -np.inf, np.nan, 0.1, -0.9, 7e4,
              1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40]  # just above an f16 / bf16 tie: rounding twice goes wrong  # fmt: skip
    with np.errstate(over="ignore"):
        return np.array(values, np.float64).astype(dt)


def _defined(x: np.ndarray, dst: str) -> np.ndarray:
    """Where a cast to ``dst`` is defined: float -> integer needs a finite value whose truncation fits."""
    dst_dtype = to_numpy(dst)
    from_float = x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16
    if not (from_float and dst_dtype.kind in "iu"):
        return np.ones(len(x), bool)
    info = np.iinfo(dst_dtype)
    wide = np.trunc(x.astype(np.float64))
    with np.errstate(invalid="ignore"):
        return np.isfinite(wide) & (wide >= float(info.min)) & (wide < float(info.max) + 1)


@pytest.mark.parametrize("lanes", [1, 4], ids=["scalar", "vector4"])
@pytest.mark.parametrize("src", CAST_DTYPES)
def test_casts_match_numpy_astype(src: str, lanes: int) -> None:
    x = _fill_lanes(_cast_inputs(src), lanes)
    kernel = jit(_cast_kernel(src, lanes), "cast")
    outs = [np.zeros(len(x), to_numpy(d)) for d in CAST_DTYPES]
    kernel(x, *outs, core=(0, len(x) // lanes))
    for dst, got in zip(CAST_DTYPES, outs):
        with np.errstate(all="ignore"):
            expected = x.astype(to_numpy(dst))
        ok = _defined(x, dst)
        np.testing.assert_array_equal(got[ok], expected[ok], err_msg=f"{src} -> {dst} of {x[ok]}")


BITCASTS = """
uop.kernel @bits {
  %f = uop.param 0 : !uop.ptr<f32>
  %i = uop.param 1 : !uop.ptr<i32>
  %h = uop.param 2 : !uop.ptr<f16>
  %u = uop.param 3 : !uop.ptr<ui16>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %k = uop.range %lo, %hi : index
  %a = uop.load %f[%k] : f32
  %ai = uop.bitcast %a : f32 -> i32
  uop.store %i[%k], %ai
  %b = uop.load %h[%k] : f16
  %bu = uop.bitcast %b : f16 -> ui16
  uop.store %u[%k], %bu
  uop.end %k
}
"""


def test_bitcast_keeps_the_bits() -> None:
    bits = jit(BITCASTS, "bits")
    f = np.array([1.0, -0.0, np.inf, np.nan], np.float32)
    h = f.astype(np.float16)
    i, u = np.zeros(4, np.int32), np.zeros(4, np.uint16)
    bits(f, i, h, u, core=(0, 4))
    np.testing.assert_array_equal(i, f.view(np.int32))
    np.testing.assert_array_equal(u, h.view(np.uint16))


# ---------------------------------------------------------------------------------------------
# the lowering tables and the IR they produce


def test_every_native_alu_op_has_a_lowering_for_every_dtype_class_it_accepts() -> None:
    native = describe().alu_ops
    tables = {FLOAT: [FLOAT_OPS], BOOL: [BOOL_OPS], INT: [SIGNED_OPS, UNSIGNED_OPS], INDEX: [SIGNED_OPS]}
    for name in native:
        for dtype_class in ALU_OPS[name].dtypes:
            for table in tables[dtype_class]:
                assert name in table, f"no LLVM lowering of {name} on {dtype_class}"
    lowered = set(FLOAT_OPS) | set(SIGNED_OPS) | set(UNSIGNED_OPS) | set(BOOL_OPS)
    assert lowered == native, "the target description and the lowering disagree on the native ALU ops"


SCHEDULE = AXPY + """
func.func @run(%x: !kernel.buffer<Nxf32>) attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  func.return
}
"""


def test_kernel_becomes_an_llvm_func_and_the_schedule_stays() -> None:
    module = lower(SCHEDULE)
    func, schedule = list(module.ops)
    assert isinstance(func, llvm.FuncOp) and func.sym_name.data == "axpy"
    assert schedule.name == "func.func"
    assert func.attributes["core_extent"].data == "N"  # type: ignore[attr-defined]
    assert func.attributes["symbols"].data[0].data == "N"  # type: ignore[attr-defined]
    ir = emit(module)
    assert "@run" not in ir
    assert 'define void @"axpy"(ptr noalias %"x", ptr noalias %"y", ptr noalias %"out", i64 %"N", ' in ir
    assert 'i64 %"core_start", i64 %"core_end")' in ir


def _lowering_error(body: str, header: str = "uop.kernel @k") -> str:
    with pytest.raises(DiagnosticException) as info:
        lower(f"{header} {{\n{body}\n}}")
    return str(info.value)


@pytest.mark.parametrize(
    "body, message",
    [
        ("%g = uop.special group_id.x : index", "uop.special group_id.x is a GPU id"),
        ("%l = uop.define_local 16 : !uop.ptr<f32, local>", "the CPU has no workgroup-local memory"),
        ("uop.barrier", "the CPU has no workgroups to synchronize"),
        ("%x = uop.const 2.0 : f32\n%r = uop.rsqrt %x : f32", "uop.rsqrt on f32 has no LLVM lowering; run uop-decompose"),
    ],
)
def test_what_the_cpu_cannot_run_is_a_located_error(body: str, message: str) -> None:
    assert message in _lowering_error(body)


def test_emitter_rejects_an_op_it_does_not_handle_by_name() -> None:
    text = """
    llvm.func @f(%x: f32) -> f32 {
      %r = llvm.intr.sqrt(%x) : (f32) -> f32
      llvm.return %r : f32
    }
    """
    module = Parser(make_context(), text).parse_module()
    with pytest.raises(DiagnosticException, match="does not handle 'llvm.intr.sqrt'") as info:
        emit(module)
    assert info.value.op.name == "llvm.intr.sqrt"  # type: ignore[attr-defined]
