"""The C backend end to end: hand-written uop kernels -> convert-uop-to-cstyle -> ``-t c`` -> cc -> ctypes.

Each test parses uop IR, converts and emits it, checks the C with ``cc -Wall -Werror`` (and ``-Wextra``), builds
a shared library and compares what the kernels compute with numpy. Many kernels share one translation unit, so
a test pays for one compiler run.
"""

from __future__ import annotations

import ctypes
import math
import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import pytest
from scipy import special
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import cstyle
from kiln.dialects.types import DTYPES, to_numpy
from kiln.lowering.uop_to_cstyle import ConvertUopToCStyle
from kiln.compiler.registry import make_context
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.targets.c import emitter, toolchain

INTS = ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")
FLOATS = ("f16", "bf16", "f32", "f64")


# ---------------------------------------------------------------------------------------------
# building and calling kernels


def lower(text: str) -> tuple[ModuleOp, str]:
    """Parse uop IR, convert it to cstyle and emit C; both modules must verify."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertUopToCStyle().apply(ctx, module)
    module.verify()
    return module, emitter.emit(module)


@dataclass
class Library:
    source: str
    functions: dict[str, Callable[..., None]]
    handle: object

    def __getitem__(self, name: str) -> Callable[..., None]:
        return self.functions[name]


def build(text: str, flags: Sequence[str] | None = None) -> Library:
    """Lower, check with the warnings the project promises, compile and load every kernel of ``text``."""
    module, source = lower(text)
    toolchain.check_c(source)
    extra = subprocess.run(
        [toolchain.compiler(), "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-x", "c", "-"],
        input=source, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert extra.returncode == 0, extra.stderr
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KILN_NO_CACHE", "1")
        mp.delenv("KILN_CFLAGS", raising=False)
        funcs = [op for op in module.ops if isinstance(op, cstyle.FuncOp)]
        loaded = toolchain.load_c(source, [f.sym_name.data for f in funcs], flags)
    functions = {}
    for f in funcs:
        argtypes = [ctypes.c_void_p if isinstance(a.type, cstyle.PtrType) else ctypes.c_int64 for a in f.params]
        fn = ctypes.CFUNCTYPE(None, *argtypes)(loaded.addresses[f.sym_name.data])
        functions[f.sym_name.data] = _caller(fn)
    return Library(source, functions, loaded.handle)


def _caller(fn: Callable[..., None]) -> Callable[..., None]:
    """Arrays are passed by address, everything else as int64_t."""

    def call(*args: object) -> None:
        fn(*(a.ctypes.data if isinstance(a, np.ndarray) else a for a in args))

    return call


def elementwise(name: str, inputs: Sequence[str], output: str, body: str, *, result: str = "%r") -> str:
    """A kernel ``out[i] = body(in0[i], in1[i], ...)`` for i in [core_start, core_end); the inputs are ``%a0``..."""
    params = "".join(f"  %p{k} = uop.param {k} : !uop.ptr<{t}>\n" for k, t in enumerate(inputs))
    loads = "".join(f"  %a{k} = uop.load %p{k}[%i] : {t}\n" for k, t in enumerate(inputs))
    n = len(inputs)
    return (
        f"uop.kernel @{name} attributes {{symbols = [], core_extent = \"n\", core_work = 1 : i64}} {{\n{params}"
        f"  %out = uop.param {n} : !uop.ptr<{output}>\n"
        "  %lo = uop.special core_start : index\n  %hi = uop.special core_end : index\n"
        f"  %i = uop.range %lo, %hi : index\n{loads}{body}\n  uop.store %out[%i], {result}\n  uop.end %i\n}}\n"
    )


def array(values: Sequence[float | int], dtype: str) -> np.ndarray:
    """Values as a numpy array of a kiln dtype (floats through float64, so rounding is numpy's)."""
    if dtype in INTS:
        info = np.iinfo(to_numpy(dtype))
        return np.array([int(v) % (1 << info.bits) for v in values], dtype=np.uint64).astype(to_numpy(dtype))
    with np.errstate(over="ignore"):
        return np.array(values, dtype=np.float64).astype(to_numpy(dtype))


def assert_same_floats(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-exact equality (so -0.0 differs from 0.0), with any nan matching any nan."""
    with np.errstate(invalid="ignore"):
        nan = np.isnan(want.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), nan)
    bits = np.dtype(f"u{got.dtype.itemsize}")
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


# ---------------------------------------------------------------------------------------------
# loops, accumulators, gates, if, vectors

LOOPS = r"""
uop.kernel @axpy attributes {symbols = ["N"], core_extent = "N", core_work = 2 : i64} {
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
  %t = uop.mul %a, %two : f32
  %s = uop.add %t, %b : f32
  uop.store %out[%i], %s
  uop.end %i
}
uop.kernel @rowsum attributes {symbols = ["N"], core_extent = "N", core_work = 7 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c7 = uop.const 7 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c7 : index
  %row = uop.mul %i, %c7 : index
  %idx = uop.add %row, %k : index
  %v = uop.load %x[%idx] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  uop.store %out[%i], %r
  uop.end %i
}
uop.kernel @matmul attributes {symbols = ["N"], core_extent = "N", core_work = 80 : i64} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 1 : !uop.ptr<f32>
  %c = uop.param 2 : !uop.ptr<f32>
  %N = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c5 = uop.const 5 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %j = uop.range %c0, %c5 : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %ia = uop.mul %i, %c8 : index
  %ia2 = uop.add %ia, %k : index
  %kb = uop.mul %k, %c5 : index
  %ib = uop.add %kb, %j : index
  %va = uop.load %a[%ia2] : f32
  %vb = uop.load %b[%ib] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.fma %va, %vb, %cur : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %ic = uop.mul %i, %c5 : index
  %ic2 = uop.add %ic, %j : index
  %r = uop.acc_get %acc : f32
  uop.store %c[%ic2], %r
  uop.end %j
  uop.end %i
}
uop.kernel @pad1 attributes {symbols = ["N"], core_extent = "N", core_work = 4 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c1 = uop.const 1 : index
  %Np1 = uop.add %N, %c1 : index
  %Np2 = uop.add %Np1, %c1 : index
  %i = uop.range %lo, %hi : index
  %inside_lo = uop.cmple %c1, %i : index
  %inside_hi = uop.cmplt %i, %Np1 : index
  %inside = uop.and %inside_lo, %inside_hi : i1
  %src = uop.sub %i, %c1 : index
  %v = uop.load %x[%src], %inside : f32
  %in_out = uop.cmplt %i, %Np2 : index
  uop.store %out[%i], %v, %in_out
  uop.end %i
}
uop.kernel @relu_inplace_if attributes {symbols = ["N"], core_extent = "N", core_work = 2 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %N = uop.param 1 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %v = uop.load %x[%i] : f32
  %neg = uop.cmplt %v, %zero : f32
  uop.if %neg
  uop.store %x[%i], %zero
  uop.endif
  uop.end %i
}
uop.kernel @vec4 attributes {symbols = ["N"], core_extent = "N", core_work = 12 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %sums = uop.param 2 : !uop.ptr<f32>
  %N = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c4 = uop.const 4 : index
  %zeros = uop.const dense<0.000000e+00> : vector<4xf32>
  %steps = uop.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>
  %acc = uop.define_acc %zeros : vector<4xf32>
  %i = uop.range %lo, %hi : index
  %base = uop.mul %i, %c4 : index
  %v = uop.load %x[%base] : vector<4xf32>
  %w = uop.mul %v, %steps : vector<4xf32>
  %pos = uop.cmplt %zeros, %w : vector<4xf32>
  %r = uop.where %pos, %w, %zeros : vector<4xf32>
  %e0 = uop.extract %r[3] : vector<4xf32>
  %e1 = uop.extract %r[2] : vector<4xf32>
  %e2 = uop.extract %r[1] : vector<4xf32>
  %e3 = uop.extract %r[0] : vector<4xf32>
  %rev = uop.vectorize %e0, %e1, %e2, %e3 : vector<4xf32>
  uop.store %out[%base], %rev : vector<4xf32>
  %cur = uop.acc_get %acc : vector<4xf32>
  %nxt = uop.add %cur, %v : vector<4xf32>
  uop.acc_set %acc, %nxt
  uop.end %i
  %s = uop.acc_get %acc : vector<4xf32>
  %c0 = uop.const 0 : index
  uop.store %sums[%c0], %s : vector<4xf32>
}
"""


@pytest.fixture(scope="module")
def loops() -> Library:
    return build(LOOPS)


def test_elementwise_over_a_symbolic_size_runs_each_core_slice(loops: Library) -> None:
    n = 37
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, -7.0, dtype=np.float32)
    loops["axpy"](x, y, out, n, 0, 10)
    np.testing.assert_allclose(out[:10], 2 * x[:10] + y[:10], rtol=1e-6)
    assert (out[10:] == -7.0).all(), "a slice writes only its own elements"
    loops["axpy"](x, y, out, n, 10, n)
    np.testing.assert_allclose(out, 2 * x + y, rtol=1e-6)


def test_reduction_accumulates_in_a_local_per_row(loops: Library) -> None:
    n = 13
    x = np.random.default_rng(1).standard_normal((n, 7), dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    loops["rowsum"](x, out, n, 0, 5)
    loops["rowsum"](x, out, n, 5, n)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-6)


def test_matmul_loop_nest(loops: Library) -> None:
    n = 9
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((n, 8), dtype=np.float32), rng.standard_normal((8, 5), dtype=np.float32)
    c = np.zeros((n, 5), dtype=np.float32)
    loops["matmul"](a, b, c, n, 0, n)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_gated_load_reads_nothing_outside_and_gated_store_writes_nothing(loops: Library) -> None:
    n = 6
    x = np.arange(1, n + 1, dtype=np.float32)
    out = np.full(n + 4, -1.0, dtype=np.float32)
    loops["pad1"](x, out, n, 0, n + 4)  # i = 0 and i = n + 1 read nothing; i >= n + 2 store nothing
    np.testing.assert_array_equal(out, [0, *x, 0, -1, -1])
    assert "i - 1]" in loops.source and " ? " in loops.source


def test_if_endif_guards_a_store(loops: Library) -> None:
    x = np.array([1.5, -2.0, 0.0, -0.5, 3.0], dtype=np.float32)
    loops["relu_inplace_if"](x, x.size, 0, x.size)
    np.testing.assert_array_equal(x, [1.5, 0.0, 0.0, 0.0, 3.0])
    assert "if (" in loops.source


def test_float_vectors_stay_c_vectors_and_the_rest_goes_lane_by_lane(loops: Library) -> None:
    n = 3
    x = np.random.default_rng(3).standard_normal((n, 4), dtype=np.float32)
    out, sums = np.zeros((n, 4), dtype=np.float32), np.zeros(4, dtype=np.float32)
    loops["vec4"](x, out, sums, n, 0, n)
    w = x * np.array([1, 2, 3, 4], dtype=np.float32)
    np.testing.assert_array_equal(out, np.where(w > 0, w, 0)[:, ::-1])
    np.testing.assert_allclose(sums, x.sum(axis=0), rtol=1e-5)
    assert "kiln_f32x4 acc = " in loops.source and "(const kiln_f32x4_u *)" in loops.source


VECTOR_KINDS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
                "min": np.minimum, "neg": np.negative, "recip": lambda a: np.divide(a.dtype.type(1), a)}  # fmt: skip


def test_vector_ops_match_numpy_bit_for_bit() -> None:
    """Vector arithmetic and the mask-picking ``kiln_max``/``kiln_min`` of each lane: every pair of special
    values, signed zeros and nans included, as numpy computes them one element at a time."""
    kernels = []
    for t, lanes in (("f32", 8), ("f64", 4)):
        v = f"vector<{lanes}x{t}>"
        for kind in VECTOR_KINDS:
            unary = kind in ("neg", "recip")
            operands, load_b = ("%a", "") if unary else ("%a, %b", f"  %b = uop.load %y[%at] : {v}\n")
            kernels.append(
                f"uop.kernel @{kind}_{t} attributes {{symbols = []}} {{\n"
                f"  %x = uop.param 0 : !uop.ptr<{t}>\n  %y = uop.param 1 : !uop.ptr<{t}>\n"
                f"  %out = uop.param 2 : !uop.ptr<{t}>\n  %lo = uop.special core_start : index\n"
                f"  %hi = uop.special core_end : index\n  %w = uop.const {lanes} : index\n"
                f"  %i = uop.range %lo, %hi : index\n  %at = uop.mul %i, %w : index\n"
                f"  %a = uop.load %x[%at] : {v}\n{load_b}"
                f"  %r = uop.{kind} {operands} : {v}\n  uop.store %out[%at], %r : {v}\n  uop.end %i\n}}\n"
            )
    library = build("".join(kernels))
    for t, lanes in (("f32", 8), ("f64", 4)):
        assert f"kiln_max_{t}x{lanes}(" in library.source and f"kiln_{t}x{lanes} " in library.source
        pairs = len(FLOAT_VALUES) ** 2
        padded = -(-pairs // lanes) * lanes
        a = array([v for v in FLOAT_VALUES for _ in FLOAT_VALUES] + [1.0] * (padded - pairs), t)
        b = array([v for _ in FLOAT_VALUES for v in FLOAT_VALUES] + [1.0] * (padded - pairs), t)
        for kind, ref in VECTOR_KINDS.items():
            out = np.zeros_like(a)
            library[f"{kind}_{t}"](a, b, out, 0, padded // lanes)
            with np.errstate(all="ignore"):
                want = ref(a, b) if kind not in ("neg", "recip") else ref(a)
            assert_same_floats(out, want)


def test_parameters_follow_the_cpu_calling_convention(loops: Library) -> None:
    assert (
        "void matmul(const float *restrict a, const float *restrict b, float *restrict c, int64_t N, "
        "int64_t core_start, int64_t core_end) {" in loops.source
    )
    assert "  (void)N;\n" in loops.source  # unused parameters are marked, so -Wextra stays quiet
    assert "void relu_inplace_if(float *restrict x," in loops.source  # stored to: not const


def test_attributes_the_runtime_needs_move_to_the_function() -> None:
    module, _ = lower(LOOPS)
    rowsum = next(op for op in module.ops if isinstance(op, cstyle.FuncOp) and op.sym_name.data == "rowsum")
    assert str(rowsum.attributes["core_extent"]) == '"N"'
    assert str(rowsum.attributes["core_work"]) == "7 : i64"
    assert str(rowsum.attributes["symbols"]) == '["N"]'


# ---------------------------------------------------------------------------------------------
# integers: C semantics without C's undefined behaviour


def _wrap(v: int, dtype: str) -> int:
    bits = int(dtype.lstrip("ui"))
    v %= 1 << bits
    return v - (1 << bits) if not dtype.startswith("u") and v >= 1 << (bits - 1) else v


def _idiv(a: int, b: int) -> int:
    return 0 if b == 0 else abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)


def _shr(a: int, b: int, bits: int) -> int:
    return (-1 if a < 0 else 0) if not 0 <= b < bits else a >> b


INT_BINARY: dict[str, Callable[[int, int, int], int]] = {
    "add": lambda a, b, _: a + b,
    "sub": lambda a, b, _: a - b,
    "mul": lambda a, b, _: a * b,
    "idiv": lambda a, b, _: _idiv(a, b),
    "mod": lambda a, b, _: 0 if b == 0 else a - _idiv(a, b) * b,
    "shl": lambda a, b, bits: a << b if 0 <= b < bits else 0,
    "shr": lambda a, b, bits: _shr(a, b, bits),
    "max": lambda a, b, _: max(a, b),
    "min": lambda a, b, _: min(a, b),
    "and": lambda a, b, _: a & b,
    "or": lambda a, b, _: a | b,
    "xor": lambda a, b, _: a ^ b,
}
INT_UNARY: dict[str, Callable[[int], int]] = {
    "neg": lambda a: -a,
    "abs": abs,
    "sign": lambda a: (a > 0) - (a < 0),
    "not": lambda a: ~a,
}


def _int_values(dtype: str) -> list[int]:
    info = np.iinfo(to_numpy(dtype))
    bits = info.bits
    edges = [info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1, 2, -2, 3, 7, -7, bits - 1, bits, bits + 1, -bits]
    return [_wrap(v, dtype) for v in edges]


@pytest.fixture(scope="module")
def int_kernels() -> Library:
    kernels = []
    for t in INTS:
        for kind in INT_BINARY:
            kernels.append(elementwise(f"{kind}_{t}", [t, t], t, f"  %r = uop.{kind} %a0, %a1 : {t}"))
        for kind in INT_UNARY:
            kernels.append(elementwise(f"{kind}_{t}", [t], t, f"  %r = uop.{kind} %a0 : {t}"))
        kernels.append(elementwise(f"fma_{t}", [t, t, t], t, f"  %r = uop.fma %a0, %a1, %a2 : {t}"))
        for kind, op in (("cmplt", "<"), ("cmpeq", "=="), ("cmpne", "!=")):
            kernels.append(elementwise(f"{kind}_{t}", [t, t], "i1", f"  %r = uop.{kind} %a0, %a1 : {t}"))
    return build("".join(kernels))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_ops_wrap_and_guard_division_and_shifts(int_kernels: Library, dtype: str) -> None:
    values = _int_values(dtype)
    a_list = [a for a in values for _ in values]
    b_list = [b for _ in values for b in values]
    a, b = array(a_list, dtype), array(b_list, dtype)
    bits = int(dtype.lstrip("ui"))
    for kind, ref in INT_BINARY.items():
        out = np.zeros_like(a)
        int_kernels[f"{kind}_{dtype}"](a, b, out, 0, a.size)
        want = [_wrap(ref(x, y, bits), dtype) for x, y in zip(a_list, b_list)]
        assert out.tolist() == want, f"{kind} on {dtype}"
    for kind, ref in INT_UNARY.items():
        out = np.zeros_like(a)
        int_kernels[f"{kind}_{dtype}"](a, out, 0, a.size)
        assert out.tolist() == [_wrap(ref(x), dtype) for x in a_list], f"{kind} on {dtype}"
    out = np.zeros_like(a)
    int_kernels[f"fma_{dtype}"](a, b, a, out, 0, a.size)
    assert out.tolist() == [_wrap(x * y + x, dtype) for x, y in zip(a_list, b_list)]
    for kind, ref in (("cmplt", np.less), ("cmpeq", np.equal), ("cmpne", np.not_equal)):
        got = np.zeros(a.size, dtype=np.bool_)
        int_kernels[f"{kind}_{dtype}"](a, b, got, 0, a.size)
        np.testing.assert_array_equal(got, ref(a, b))


def test_division_by_a_positive_literal_is_plain_c() -> None:
    body = "  %c7 = uop.const 7 : i32\n  %r = uop.idiv %a0, %c7 : i32"
    lib = build(elementwise("div7", ["i32"], "i32", body))
    assert "p0[i] / 7;" in lib.source and "kiln_idiv" not in lib.source
    a = np.array([-15, -7, -1, 0, 6, 7, 2**31 - 1], dtype=np.int32)
    out = np.zeros_like(a)
    lib["div7"](a, out, 0, a.size)
    assert out.tolist() == [_idiv(int(v), 7) for v in a]


def test_booleans() -> None:
    kernels = [
        elementwise(f"{kind}_i1", ["i1", "i1"], "i1", f"  %r = uop.{kind} %a0, %a1 : i1")
        for kind in ("and", "or", "xor", "max", "min", "cmplt", "cmpeq", "cmpne")
    ]
    kernels.append(elementwise("not_i1", ["i1"], "i1", "  %r = uop.not %a0 : i1"))
    lib = build("".join(kernels))
    a, b = np.array([0, 0, 1, 1], dtype=np.bool_), np.array([0, 1, 0, 1], dtype=np.bool_)
    refs = {"and": a & b, "or": a | b, "xor": a ^ b, "max": a | b, "min": a & b, "cmplt": a < b, "cmpeq": a == b,
            "cmpne": a != b}  # fmt: skip
    for kind, want in refs.items():
        out = np.zeros(4, dtype=np.bool_)
        lib[f"{kind}_i1"](a, b, out, 0, 4)
        np.testing.assert_array_equal(out, want, err_msg=kind)
    out = np.zeros(4, dtype=np.bool_)
    lib["not_i1"](a, out, 0, 4)
    np.testing.assert_array_equal(out, ~a)


# ---------------------------------------------------------------------------------------------
# floats: math functions, NaN-propagating max/min, f16/bf16 computed in f32 and rounded back

FLOAT_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative, "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
    "cos": np.cos, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "recip": lambda x: 1 / x,
    "trunc": np.trunc, "floor": np.floor, "ceil": np.ceil, "abs": np.abs, "sign": np.sign, "tanh": np.tanh,
    "erf": special.erf,
}  # fmt: skip
FLOAT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
    "min": np.minimum, "pow": np.power, "mod": np.fmod, "idiv": lambda a, b: np.trunc(a / b),
}  # fmt: skip
FLOAT_VALUES = [-3.7, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 7.9, 100.0, np.inf, -np.inf, np.nan]


@pytest.fixture(scope="module")
def float_kernels() -> Library:
    kernels = []
    for t in FLOATS:
        for kind in FLOAT_UNARY:
            kernels.append(elementwise(f"{kind}_{t}", [t], t, f"  %r = uop.{kind} %a0 : {t}"))
        for kind in FLOAT_BINARY:
            kernels.append(elementwise(f"{kind}_{t}", [t, t], t, f"  %r = uop.{kind} %a0, %a1 : {t}"))
        kernels.append(elementwise(f"fma_{t}", [t, t, t], t, f"  %r = uop.fma %a0, %a1, %a2 : {t}"))
        kernels.append(elementwise(f"cmple_{t}", [t, t], "i1", f"  %r = uop.cmple %a0, %a1 : {t}"))
    return build("".join(kernels))


def _close(got: np.ndarray, want: np.ndarray, dtype: str, what: str) -> None:
    """Equal up to a few ulp of ``dtype`` (libm and numpy round transcendental functions differently)."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=what)
    eps = {"f16": 2**-10, "bf16": 2**-7, "f32": 2**-23, "f64": 2**-52}[dtype]
    np.testing.assert_allclose(g, w, rtol=4 * eps, atol=1e-300, err_msg=what)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_ops_match_numpy(float_kernels: Library, dtype: str) -> None:
    np_type = to_numpy(dtype)
    x = array(FLOAT_VALUES, dtype)
    with np.errstate(all="ignore"):
        for kind, ref in FLOAT_UNARY.items():
            out = np.zeros_like(x)
            float_kernels[f"{kind}_{dtype}"](x, out, 0, x.size)
            want = ref(x.astype(np.float64)).astype(np_type)
            if kind in ("neg", "abs", "sign", "trunc", "floor", "ceil", "sqrt"):  # exact: the bits must agree
                assert_same_floats(out, want)
            else:
                _close(out, want, dtype, kind)
        a = array([v for v in FLOAT_VALUES for _ in FLOAT_VALUES], dtype)
        b = array([v for _ in FLOAT_VALUES for v in FLOAT_VALUES], dtype)
        for kind, ref in FLOAT_BINARY.items():
            out = np.zeros_like(a)
            float_kernels[f"{kind}_{dtype}"](a, b, out, 0, a.size)
            want = ref(a.astype(np.float64), b.astype(np.float64)).astype(np_type)
            if kind == "pow":
                _close(out, want, dtype, kind)
            else:  # correctly rounded in f64 then rounded to dtype: what one f32 op and one rounding give
                assert_same_floats(out, want)
        out = np.zeros(a.size, dtype=np.bool_)
        float_kernels[f"cmple_{dtype}"](a, b, out, 0, a.size)
        np.testing.assert_array_equal(out, a.astype(np.float64) <= b.astype(np.float64))


def test_max_and_min_propagate_nan(float_kernels: Library) -> None:
    a = np.array([np.nan, 1.0, np.nan, 2.0], dtype=np.float32)
    b = np.array([1.0, np.nan, np.nan, 3.0], dtype=np.float32)
    for kind, want in (("max", [np.nan, np.nan, np.nan, 3.0]), ("min", [np.nan, np.nan, np.nan, 2.0])):
        out = np.zeros(4, dtype=np.float32)
        float_kernels[f"{kind}_f32"](a, b, out, 0, 4)
        np.testing.assert_array_equal(out, want)
    assert "fmaxf" not in float_kernels.source


def test_running_max_and_min_match_numpy_bit_for_bit() -> None:
    """A reduction's step (``acc = max(acc, x)`` in a loop) calls ``kiln_running_*``, another spelling of the same
    meaning: every pair of special values, signed zeros and nans included, as ``np.maximum``/``np.minimum``."""
    kernels = []
    for t in ("f32", "f64"):
        for kind in ("max", "min"):
            body = (f"  %acc = uop.define_acc %a0 : {t}\n  %c0 = uop.const 0 : index\n  %c1 = uop.const 1 : index\n"
                    f"  %k = uop.range %c0, %c1 : index\n  %cur = uop.acc_get %acc : {t}\n"
                    f"  %nxt = uop.{kind} %cur, %a1 : {t}\n  uop.acc_set %acc, %nxt\n  uop.end %k\n"
                    f"  %r = uop.acc_get %acc : {t}")
            kernels.append(elementwise(f"running_{kind}_{t}", [t, t], t, body))
    library = build("".join(kernels))
    for t in ("f32", "f64"):
        assert f"kiln_running_max_{t}(" in library.source and f"kiln_running_min_{t}(" in library.source
        a = array([v for v in FLOAT_VALUES for _ in FLOAT_VALUES], t)
        b = array([v for _ in FLOAT_VALUES for v in FLOAT_VALUES], t)
        for kind, ref in (("max", np.maximum), ("min", np.minimum)):
            out = np.zeros_like(a)
            library[f"running_{kind}_{t}"](a, b, out, 0, a.size)
            assert_same_floats(out, ref(a, b))


def test_bf16_arithmetic_rounds_every_op_like_ml_dtypes(float_kernels: Library) -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal(4096).astype(ml_dtypes.bfloat16)
    b = (rng.standard_normal(4096) * 1e-3).astype(ml_dtypes.bfloat16)  # small addends: rounding matters
    for kind, ref in (("add", np.add), ("mul", np.multiply), ("div", np.divide)):
        out = np.zeros_like(a)
        float_kernels[f"{kind}_bf16"](a, b, out, 0, a.size)
        assert_same_floats(out, ref(a, b))


def test_f16_arithmetic_rounds_every_op_like_numpy(float_kernels: Library) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal(4096).astype(np.float16)
    b = (rng.standard_normal(4096) * 1e-2).astype(np.float16)
    for kind, ref in (("add", np.add), ("mul", np.multiply), ("sub", np.subtract)):
        out = np.zeros_like(a)
        float_kernels[f"{kind}_f16"](a, b, out, 0, a.size)
        assert_same_floats(out, ref(a, b))


def test_math_uses_the_f_suffixed_libm_functions_for_f32(float_kernels: Library) -> None:
    for name in ("sqrtf(", "expf(", "exp2f(", "log2f(", "sinf(", "erff(", "tanhf(", "fmaf(", "powf("):
        assert name in float_kernels.source
    assert "#include <math.h>" in float_kernels.source


# ---------------------------------------------------------------------------------------------
# casts between every pair of dtypes

CAST_SOURCES: dict[str, list[float]] = {
    "float": [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.999, 100.7, -129.9, 300.7, 65504.0, 65519.0, 65520.0, 1e-8,
              -6e-8, 1e10, -1e10, 3e9, 5e18, 1.5e19, 2.0**63, 2.0**64, 1e30, np.inf, -np.inf, np.nan],
}  # fmt: skip
ALL_DTYPES = ("i1", *INTS, *FLOATS)


def _cast_values(src: str) -> np.ndarray:
    if src == "i1":
        return np.array([False, True, True, False])
    if src in INTS:
        info = np.iinfo(to_numpy(src))
        return array([info.min, info.max, 0, 1, -1, 255, 256, -129, 2049, 65505, 2**24 + 1, 2**31, 2**62 + 3], src)
    return array(CAST_SOURCES["float"], src)


def _cast_reference(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """numpy ``astype``, except float -> int: truncate to int64 (nan 0, saturating), then wrap (ui64: see helper)."""
    if src in FLOATS and dst in INTS:
        out = []
        for v in x.astype(np.float64):
            if math.isnan(v):
                n = 0
            elif dst == "ui64" and v >= 2.0**63:
                n = 2**64 - 1 if v >= 2.0**64 else int(v)
            else:
                n = max(-(2**63), min(2**63 - 1, int(v))) if math.isfinite(v) else (2**63 - 1 if v > 0 else -(2**63))
            out.append(n)
        return array(out, dst)
    with np.errstate(all="ignore"):
        return x.astype(to_numpy(dst))


@pytest.fixture(scope="module")
def cast_kernels() -> Library:
    return build("".join(
        elementwise(f"cast_{s}_{d}", [s], d, f"  %r = uop.cast %a0 : {s} -> {d}")
        for s in ALL_DTYPES for d in ALL_DTYPES if s != d
    ))  # fmt: skip


@pytest.mark.parametrize("src", ALL_DTYPES)
def test_casts_match_numpy_and_define_out_of_range_float_to_int(cast_kernels: Library, src: str) -> None:
    x = _cast_values(src)
    for dst in ALL_DTYPES:
        if dst == src:
            continue
        out = np.zeros(x.size, dtype=to_numpy(dst))
        cast_kernels[f"cast_{src}_{dst}"](x, out, 0, x.size)
        want = _cast_reference(x, src, dst)
        if dst in FLOATS:
            assert_same_floats(out, want)
        else:
            np.testing.assert_array_equal(out, want, err_msg=f"{src} -> {dst}")


def test_bitcasts_reinterpret_the_bits() -> None:
    pairs = (("f32", "i32"), ("i32", "f32"), ("f64", "ui64"), ("bf16", "i16"), ("f16", "ui16"), ("ui16", "f16"),
             ("i16", "bf16"), ("ui32", "i32"))  # fmt: skip
    lib = build("".join(elementwise(f"bits_{s}_{d}", [s], d, f"  %r = uop.bitcast %a0 : {s} -> {d}") for s, d in pairs))
    for s, d in pairs:
        x = _cast_values(s) if s in FLOATS else array([0, 1, -1, 12345, 2**15], s)
        out = np.zeros(x.size, dtype=to_numpy(d))
        lib[f"bits_{s}_{d}"](x, out, 0, x.size)
        np.testing.assert_array_equal(out.view(np.uint8), x.view(np.uint8), err_msg=f"{s} -> {d}")


# ---------------------------------------------------------------------------------------------
# the f16/bf16 conversion helpers, exhaustively, with _Float16 and with the integer fallback

CONVERSIONS = "".join(
    elementwise(f"cast_{s}_{d}", [s], d, f"  %r = uop.cast %a0 : {s} -> {d}")
    for s, d in (("f16", "f32"), ("f32", "f16"), ("f64", "f16"), ("bf16", "f32"), ("f32", "bf16"), ("f64", "bf16"))
)


def _f32_samples(narrow: type) -> np.ndarray:
    """Every value of ``narrow`` as f32, the exact midpoints between neighbours and one f32 ulp either side of
    them, random bit patterns, and the specials."""
    bits = np.arange(1 << 16, dtype=np.uint16).view(narrow).astype(np.float32)
    finite = np.sort(bits[np.isfinite(bits)])
    mid = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(np.float32)
    random = np.random.default_rng(6).integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 65520.0, 65519.996, 3.4e38, 1e-45], dtype=np.float32)
    return np.concatenate([bits, mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf), random, specials])


def _f64_samples(narrow: type) -> np.ndarray:
    """Doubles just above and below the midpoints of ``narrow``, where rounding through f32 would go wrong."""
    with np.errstate(invalid="ignore"):  # signalling nans
        every = np.arange(1 << 16, dtype=np.uint16).view(narrow).astype(np.float64)
    finite = np.sort(every[np.isfinite(every)])
    mid = (finite[:-1] + finite[1:]) / 2
    tiny = np.abs(mid) * 2.0**-40
    rng = np.random.default_rng(7)
    random = rng.standard_normal(10_000) * 10.0 ** rng.integers(-10, 10, 10_000)
    return np.concatenate([mid, mid + tiny, mid - tiny, random, [1e300, -1e300, 1e-300, np.nan]])


@pytest.mark.parametrize("no_float16", [False, True], ids=["_Float16", "KILN_NO_FLOAT16"])
def test_half_and_bfloat16_conversions_round_to_nearest_even(no_float16: bool) -> None:
    flags = [*toolchain.resolve_flags(), "-DKILN_NO_FLOAT16"] if no_float16 else None
    lib = build(CONVERSIONS, flags)
    for narrow, name in ((np.float16, "f16"), (ml_dtypes.bfloat16, "bf16")):
        every = np.arange(1 << 16, dtype=np.uint16).view(narrow)
        out32 = np.zeros(every.size, dtype=np.float32)
        lib[f"cast_{name}_f32"](every, out32, 0, every.size)
        assert_same_floats(out32, every.astype(np.float32))
        for source, samples in (("f32", _f32_samples(narrow)), ("f64", _f64_samples(narrow))):
            out = np.zeros(samples.size, dtype=narrow)
            lib[f"cast_{source}_{name}"](samples, out, 0, samples.size)
            with np.errstate(all="ignore"):
                assert_same_floats(out, samples.astype(narrow))


def test_every_library_helper_has_a_prelude_definition_that_compiles() -> None:
    helpers = [f for f in cstyle.LIBRARY.values() if f.header is None]
    assert {f.name for f in helpers} <= set(emitter.PRELUDE)
    prelude = emitter._Prelude()
    for f in helpers:
        prelude.use_function(f)
    source = prelude.render()
    # every helper is defined and none called: clang (not gcc) reports an unused static inline function
    for flags in (["-Wno-unused-function"], ["-Wno-unused-function", "-DKILN_NO_FLOAT16"]):
        result = subprocess.run(
            [toolchain.compiler(), "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", *flags, "-x", "c", "-"],
            input=source, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------------------------
# the emitted text: one unit, prelude only when used, precedence, located errors


def test_prelude_holds_only_what_is_used() -> None:
    _, source = lower(elementwise("add", ["f32", "f32"], "f32", "  %r = uop.add %a0, %a1 : f32"))
    assert "kiln_" not in source and "math.h" not in source
    body = "  %h = uop.const 5.000000e-01 : bf16\n  %r = uop.mul %a0, %h : bf16"
    _, source = lower(elementwise("halve", ["bf16"], "bf16", body))
    assert "typedef uint16_t kiln_bf16;" in source and "kiln_f16" not in source and "kiln_idiv" not in source


def test_all_kernels_form_one_translation_unit_without_main(loops: Library) -> None:
    assert loops.source.count("#include <stdint.h>") == 1
    for name in ("axpy", "rowsum", "matmul", "pad1", "relu_inplace_if", "vec4"):
        assert f"void {name}(" in loops.source
    assert "main" not in loops.source


def test_operands_are_parenthesized_by_c_precedence() -> None:
    body = "\n".join([
        "  %s = uop.sub %a0, %a1 : f32", "  %d = uop.sub %a0, %s : f32", "  %p = uop.add %a0, %a1 : f32",
        "  %r = uop.mul %p, %d : f32",
    ])  # fmt: skip
    lib = build(elementwise("prec", ["f32", "f32"], "f32", body))
    assert "(a0 + a1) * (a0 - (a0 - a1))" in lib.source
    a, b = np.array([3.0, -1.5], dtype=np.float32), np.array([0.5, 4.0], dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    lib["prec"](a, b, out, 0, 2)
    np.testing.assert_array_equal(out, (a + b) * (a - (a - b)))


def test_a_load_is_not_moved_past_a_store() -> None:
    text = r"""
uop.kernel @swap_first attributes {symbols = [], core_extent = "1", core_work = 1 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c1 = uop.const 1 : index
  %a = uop.load %x[%c0] : f32
  %b = uop.load %x[%c1] : f32
  uop.store %x[%c0], %b
  uop.store %x[%c1], %a
}
"""
    lib = build(text)
    x = np.array([1.0, 2.0], dtype=np.float32)
    lib["swap_first"](x, 0, 1)
    np.testing.assert_array_equal(x, [2.0, 1.0])


def _convert_error(text: str) -> DiagnosticException:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    with pytest.raises(DiagnosticException) as info:
        ConvertUopToCStyle().apply(ctx, module)
    return info.value


def test_gpu_only_ops_are_located_errors() -> None:
    text = r"""
uop.kernel @k attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %g = uop.special global_id.x : index
  %v = uop.load %x[%g] : f32
}
"""
    e = _convert_error(text)
    assert "uop.special global_id.x is a GPU launch id" in str(e)
    assert getattr(e, "op").name == "uop.special"


def test_emitting_an_unconverted_kernel_is_an_error() -> None:
    module = Parser(make_context(), 'uop.kernel @k attributes {symbols = []} {\n}\n').parse_module()
    with pytest.raises(DiagnosticException, match="run convert-uop-to-cstyle first"):
        emitter.emit(module)


def test_types_have_one_c_spelling() -> None:
    assert set(emitter.C_TYPES) == set(DTYPES)


# ---------------------------------------------------------------------------------------------
# software exp/log: gcc's loop vectorizer for their kernels alone

EXP_AND_MATMUL = """
func.func @f(%x: !graph.tensor<4096xf32>, %y: !graph.tensor<64x64xf32>) -> (!graph.tensor<4096xf32>, !graph.tensor<64x64xf32>) {
  %e = graph.exp %x : !graph.tensor<4096xf32>
  %m = graph.matmul %y, %y : (!graph.tensor<64x64xf32>, !graph.tensor<64x64xf32>) -> !graph.tensor<64x64xf32>
  %f = graph.exp %m : !graph.tensor<64x64xf32>
  func.return %e, %f : !graph.tensor<4096xf32>, !graph.tensor<64x64xf32>
}"""


def test_software_exp_in_innermost_loops_alone_with_the_loop_vectorizer() -> None:
    """The elementwise exp is uop-decompose's code in a function marked for gcc's loop vectorizer; the exp after
    the matmul's k loop stays ``expf`` in an unmarked function (the loop vectorizer would turn the k loop into
    gathers)."""
    source = lower_program(parse_module(EXP_AND_MATMUL), "f", "cpu-c").kernels.source
    functions = re.split(r"^(?=(?:KILN_LOOP_VECTORIZE )?void )", source, flags=re.MULTILINE)[1:]
    functions = [f for f in functions if not re.match(r"void \w+__entry\(", f)]  # the kernels' uniform entries
    assert [f.startswith("KILN_LOOP_VECTORIZE") for f in functions] == [True, False]
    assert "expf(" not in functions[0] and "expf(" in functions[1]
    assert '__attribute__((optimize("tree-loop-vectorize")))' in source


def _max_pool_program(size: int, padding: int) -> tuple[str, int]:
    out = (size + 2 * padding - 3) // 2 + 1
    x, y = f"!graph.tensor<1x4x{size}x{size}xf32>", f"!graph.tensor<1x4x{out}x{out}xf32>"
    pool = f"{{kernel = array<i64: 3, 3>, padding = array<i64: {padding}, {padding}>, stride = array<i64: 2, 2>}}"
    return f"""
func.func @f(%x: {x}) -> {y} {{
  %y = graph.max_pool2d %x {pool} : ({x}) -> {y}
  func.return %y : {y}
}}""", out


@pytest.mark.parametrize("padding", [0, 1])
def test_strided_max_pool_lanes_step_one_vector_max(padding: int) -> None:
    """A 3x3/2 max pool's upcast output lanes are 2 elements apart (no vector load), yet on cpu-c their running
    maxima are one vector accumulator stepped by a vector max of the gathered loads (``GATHERED_STEP_KINDS``),
    padded windows too; NaN and -inf come out as numpy's max gives them."""
    import kiln

    text, out = _max_pool_program(35, padding)
    source = lower_program(parse_module(text), "f", "cpu-c").kernels.source
    assert re.search(r"acc\d* = kiln_max_f32x\d+\(acc\d*, \(kiln_f32x\d+\)\{", source)
    x = np.random.default_rng(0).standard_normal((1, 4, 35, 35)).astype(np.float32)
    x[0, 1, 3, 5] = np.nan
    x[0, 2, :, 7] = -np.inf
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    want = windows.max((-1, -2))
    got = kiln.Tensor(x, device="cpu-c").max_pool2d(3, stride=2, padding=padding).numpy()
    assert got.shape == (1, 4, out, out)
    assert_same_floats(got, want)


ROW_REDUCTIONS = """
func.func @f(%x: !graph.tensor<64x256xf32>) -> (!graph.tensor<64xf32>, !graph.tensor<64xf32>) {
  %m = graph.reduce_max %x {axes = array<i64: 1>} : (!graph.tensor<64x256xf32>) -> !graph.tensor<64xf32>
  %s = graph.reduce_sum %x {axes = array<i64: 1>} : (!graph.tensor<64x256xf32>) -> !graph.tensor<64xf32>
  func.return %m, %s : !graph.tensor<64xf32>, !graph.tensor<64xf32>
}"""


def test_row_reductions_fold_their_vector_accumulator_pairwise() -> None:
    """A row's vector accumulator is folded after its loop by the prelude's pairwise ``kiln_reduce_*`` helpers,
    not a chain over its lanes; the max is numpy's (nan in any lane: nan), the sum within rounding."""
    import kiln

    source = lower_program(parse_module(ROW_REDUCTIONS), "f", "cpu-c").kernels.source
    assert "kiln_reduce_max_f32x" in source and "kiln_reduce_add_f32x" in source
    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    x[3, 17] = np.nan
    x[5, :] = -np.inf
    x[6, 200] = np.inf
    t = kiln.Tensor(x, device="cpu-c")
    assert_same_floats(t.max(-1).numpy(), x.max(-1))
    np.testing.assert_allclose(t.sum(-1).numpy(), x.sum(-1, dtype=np.float64), rtol=1e-5, atol=1e-4)
