"""The WGSL backend end to end on wgpu (Mesa's lavapipe without a GPU).

Hand-written uop kernels go through convert-uop-to-wgsl, ``-t wgsl`` and naga, then run as a ``ProgramSpec`` on
the webgpu device and are compared exactly with numpy on the values WGSL leaves open or gets wrong by default:
NaN in max/min/sign/!=, fmod, shifts by >= 32, casts to bool, i1 memory, gated loads far out of bounds, local
memory with a barrier, vector lanes, uniform scalars and f16. Then the shared corpus: every program whose dtypes
the device supports, lowered by the device's pipeline (converting with its features), checked with
naga entry point by entry point and run against the interpreter. Every ``-t wgsl`` lit input must pass naga too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from xdsl.parser import Parser

from kiln.dialects.types import dtype_name, from_numpy
from kiln.lowering.uop_to_wgsl import ConvertUopToWGSL
from kiln.compiler.registry import make_context
from kiln.runtime.devices import get_device
from kiln.runtime.program import BufferSpec, KernelsArtifact, LaunchSpec, ProgramSpec, TensorSpec
from kiln.targets.wgsl.emitter import emit
from kiln.targets.wgsl.toolchain import available, gpu, validate
from kiln.compiler.driver import compile, compile_program

from corpus import Program, all_programs, assert_same


ROOT = Path(__file__).resolve().parents[2]
LOCAL = 64


@pytest.fixture(autouse=True, scope="module")
def webgpu_device() -> None:
    """Skip everything here without a WebGPU device (opened on first use, not at collection)."""
    ok, why = available()
    if not ok:
        pytest.skip(why)


def device_features() -> tuple[str, ...]:
    return ("shader-f16",) if "f16" in gpu().target.dtypes else ()


# ---------------------------------------------------------------------------------------------
# running one uop kernel as a program on the webgpu device


def to_wgsl(text: str) -> str:
    """Parse a uop module, convert it (with the device's features) and emit WGSL; both modules must verify."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertUopToWGSL(device_features()).apply(ctx, module)
    module.verify()
    return emit(module)


def run_kernel(
    text: str,
    kernel: str,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[tuple[int, str]],
    grid: tuple[int, int, int],
    local: tuple[int, int, int] = (LOCAL, 1, 1),
    symbol: tuple[str, int] | None = None,
) -> list[np.ndarray]:
    """Run ``kernel`` once: its params are ``inputs`` (1-D arrays), then fresh zeroed outputs of (size, dtype),
    then the symbol ``symbol[0]`` when given (bound through the first input, whose length is ``symbol[1]``)."""
    source = to_wgsl(text)
    validate(source, kernel)
    shapes = [((symbol[0],) if symbol and i == 0 else a.shape) for i, a in enumerate(inputs)]
    tensors = tuple(TensorSpec(tuple(s), dtype_name(from_numpy(a.dtype))) for s, a in zip(shapes, inputs))
    buffers = [BufferSpec(i, t.shape, t.dtype, input=i) for i, t in enumerate(tensors)]
    buffers += [BufferSpec(len(buffers) + k, (n,), dt, slot=k) for k, (n, dt) in enumerate(outputs)]
    args = [("buf", b.id) for b in buffers] + ([("sym", symbol[0])] if symbol else [])
    spec = ProgramSpec(
        name=kernel,
        inputs=tensors,
        symbols=((symbol[0], 1, 1 << 20),) if symbol else (),
        buffers=tuple(buffers),
        outputs=tuple(range(len(inputs), len(buffers))),
        launches=(LaunchSpec(kernel, tuple(args), global_size=grid, local_size=local),),  # type: ignore[arg-type]
        kernels=KernelsArtifact("webgpu", source),
    )
    return get_device("webgpu").load(spec)(*inputs)


def pairwise(dtype: str, ops: Sequence[str], n: int, n_bool: int = 0) -> str:
    """``@pairwise``: for i < n, ``%a = x[i]``, ``%b = y[i]``; op k (uop text defining ``%r<k>``) is stored at
    ``out[k*n + i]``, except the last ``n_bool`` ops (i1 results), stored in ``flags`` the same way."""
    lines = [
        f"uop.kernel @pairwise attributes {{local_size = [{LOCAL} : i64, 1 : i64, 1 : i64]}} {{",
        f"  %x = uop.param 0 : !uop.ptr<{dtype}>",
        f"  %y = uop.param 1 : !uop.ptr<{dtype}>",
        f"  %out = uop.param 2 : !uop.ptr<{dtype}>",
        "  %flags = uop.param 3 : !uop.ptr<i1>",
        "  %g = uop.special group_id.x : index",
        "  %l = uop.special local_id.x : index",
        f"  %lanes = uop.const {LOCAL} : index",
        f"  %n = uop.const {n} : index",
        "  %gl = uop.mul %g, %lanes : index",
        "  %i = uop.add %gl, %l : index",
        "  %inside = uop.cmplt %i, %n : index",
        "  uop.if %inside",
        "  %a = uop.load %x[%i] : " + dtype,
        "  %b = uop.load %y[%i] : " + dtype,
    ]
    for k, op in enumerate(ops):
        slot = k if k < len(ops) - n_bool else k - (len(ops) - n_bool)
        target = "%out" if k < len(ops) - n_bool else "%flags"
        lines += [
            f"  %r{k} = {op}",
            f"  %o{k} = uop.const {slot * n} : index",
            f"  %at{k} = uop.add %i, %o{k} : index",
            f"  uop.store {target}[%at{k}], %r{k}",
        ]
    return "\n".join(lines + ["  uop.endif", "}"])


def run_pairwise(x: np.ndarray, y: np.ndarray, ops: Sequence[str], n_bool: int = 0) -> tuple[np.ndarray, np.ndarray]:
    n, dtype = x.size, dtype_name(from_numpy(x.dtype))
    text = pairwise(dtype, ops, n, n_bool)
    values, flags = run_kernel(
        text, "pairwise", [x, y], [((len(ops) - n_bool) * n, dtype), (max(n_bool, 1) * n, "i1")], (-(-n // LOCAL), 1, 1)
    )
    return values.reshape(-1, n), flags.reshape(-1, n)


def all_pairs(values: Sequence[float], dtype: type) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):  # 1e30 is inf in f16
        v = np.array(values, dtype)
    return np.repeat(v, v.size), np.tile(v, v.size)


FLOAT_EDGES = [0.0, -0.0, 1.0, -1.5, 2.5, -3.75, 0.3, 7.0, 0.7, 100.0, -0.001, 1e30, 3.7, np.inf, -np.inf, np.nan]


# ---------------------------------------------------------------------------------------------
# semantics WGSL does not give by itself


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_float_ops_keep_nan_and_exact_fmod(dtype: str) -> None:
    np_dtype = np.float32 if dtype == "f32" else np.float16
    if dtype == "f16" and not device_features():
        pytest.skip("the device has no shader-f16")
    x, y = all_pairs(FLOAT_EDGES, np_dtype)
    ops = [f"uop.max %a, %b : {dtype}", f"uop.min %a, %b : {dtype}", f"uop.mod %a, %b : {dtype}",
           f"uop.sign %a : {dtype}", f"uop.idiv %a, %b : {dtype}", f"uop.cmpne %a, %b : {dtype}",
           f"uop.cmplt %a, %b : {dtype}", f"uop.cast %a : {dtype} -> i1"]  # fmt: skip
    values, flags = run_pairwise(x, y, ops, n_bool=3)
    with np.errstate(all="ignore"):
        want = [np.maximum(x, y), np.minimum(x, y), np.fmod(x, y), np.sign(x), np.trunc(x / y)]
        for got, expected, name in zip(values, want, ("max", "min", "mod", "sign", "idiv")):
            np.testing.assert_array_equal(got, expected.astype(np_dtype), err_msg=f"{name} on {dtype}")
    np.testing.assert_array_equal(flags[0], x != y, err_msg="cmpne is true where either operand is NaN")
    np.testing.assert_array_equal(flags[1], x < y)
    np.testing.assert_array_equal(flags[2], x.astype(bool), err_msg="x -> i1 is x != 0, NaN true")


def test_fmod_is_exact_for_huge_quotients() -> None:
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(500) * 10.0 ** rng.integers(-3, 30, 500)).astype(np.float32)
    y = (rng.standard_normal(500) * 10.0 ** rng.integers(-3, 4, 500)).astype(np.float32)
    (mod,), _ = run_pairwise(x, y, ["uop.mod %a, %b : f32"])
    np.testing.assert_array_equal(mod, np.fmod(x, y))


def _wrap(v: int, signed: bool) -> int:
    """``v`` modulo 2^32, read as i32 or u32."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if signed and v >= 1 << 31 else v


def _shift(a: int, b: int, left: bool, signed: bool) -> int:
    """kiln's shl/shr: an amount >= 32 (a negative one read as u32 is) gives 0, or -1 for a negative signed shr."""
    amount = b & 0xFFFFFFFF
    if amount >= 32:
        return -1 if not left and signed and a < 0 else 0
    return _wrap(a << amount, signed) if left else a >> amount


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@pytest.mark.parametrize("dtype", ["i32", "ui32"])
def test_integer_ops_wrap_truncate_and_shift_past_the_width(dtype: str) -> None:
    signed = dtype == "i32"
    values = [0, 1, 3, 7, 31, 32, 33, 100, 2**31 - 1] + ([-1, -2, -7, -(2**31)] if signed else [2**32 - 1, 2**31])
    x, y = all_pairs(values, np.int32 if signed else np.uint32)
    ops = [f"uop.shl %a, %b : {dtype}", f"uop.shr %a, %b : {dtype}", f"uop.add %a, %b : {dtype}",
           f"uop.mul %a, %b : {dtype}", f"uop.neg %a : {dtype}", f"uop.sign %a : {dtype}", f"uop.max %a, %b : {dtype}",
           f"uop.idiv %a, %b : {dtype}", f"uop.mod %a, %b : {dtype}"]  # fmt: skip
    nonzero = y != 0  # kiln leaves a zero divisor open
    results, _ = run_pairwise(x[nonzero], y[nonzero], ops)
    pairs = list(zip(x[nonzero].tolist(), y[nonzero].tolist()))
    want = {
        "shl": [_shift(a, b, True, signed) for a, b in pairs],
        "shr": [_shift(a, b, False, signed) for a, b in pairs],
        "add": [_wrap(a + b, signed) for a, b in pairs],
        "mul": [_wrap(a * b, signed) for a, b in pairs],
        "neg": [_wrap(-a, signed) for a, _ in pairs],
        "sign": [(a > 0) - (a < 0) for a, _ in pairs],
        "max": [max(a, b) for a, b in pairs],
        "idiv": [_wrap(_trunc_div(a, b), signed) for a, b in pairs],  # truncates; INT_MIN / -1 wraps
        "mod": [_wrap(a - b * _trunc_div(a, b), signed) for a, b in pairs],  # the sign of a
    }
    for got, (name, expected) in zip(results, want.items()):
        np.testing.assert_array_equal(got.astype(np.int64), expected, err_msg=f"{name} on {dtype}")


GATED = """
uop.kernel @gated attributes {local_size = [64 : i64, 1 : i64, 1 : i64]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %flags = uop.param 1 : !uop.ptr<i1>
  %out = uop.param 2 : !uop.ptr<f32>
  %nots = uop.param 3 : !uop.ptr<i1>
  %l = uop.special local_id.x : index
  %far = uop.const 1000000 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %f = uop.load %flags[%l] : i1
  %away = uop.mul %l, %far : index
  %at = uop.where %f, %l, %away : index
  %v = uop.load %x[%at], %f : f32
  %parity = uop.mod %l, %c2 : index
  %even = uop.cmpeq %parity, %c0 : index
  uop.store %out[%l], %v, %even
  %nf = uop.not %f : i1
  uop.store %nots[%l], %nf
}
"""


def test_gated_loads_and_stores_and_bool_memory() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(LOCAL).astype(np.float32)
    flags = rng.random(LOCAL) < 0.5
    out, nots = run_kernel(GATED, "gated", [x, flags], [(LOCAL, "f32"), (LOCAL, "i1")], (1, 1, 1))
    even = np.arange(LOCAL) % 2 == 0
    np.testing.assert_array_equal(out, np.where(flags & even, x, 0.0).astype(np.float32))
    np.testing.assert_array_equal(nots, ~flags)


TREE_SUM = """
uop.kernel @tree_sum attributes {local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["N"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %g = uop.special group_id.x : index
  %l = uop.special local_id.x : index
  %c0 = uop.const 0 : index
  %c4 = uop.const 4 : index
  %c64 = uop.const 64 : index
  %c256 = uop.const 256 : index
  %zero = uop.const 0.000000e+00 : f32
  %tile = uop.define_local 64 : !uop.ptr<f32, local>
  %row = uop.mul %g, %c256 : index
  %l4 = uop.mul %l, %c4 : index
  %at = uop.add %row, %l4 : index
  %inside = uop.cmplt %at, %N : index
  %v = uop.load %x[%at], %inside : vector<4xf32>
  %v0 = uop.extract %v[0] : vector<4xf32>
  %v1 = uop.extract %v[1] : vector<4xf32>
  %v2 = uop.extract %v[2] : vector<4xf32>
  %v3 = uop.extract %v[3] : vector<4xf32>
  %s01 = uop.add %v0, %v1 : f32
  %s23 = uop.add %v2, %v3 : f32
  %s = uop.add %s01, %s23 : f32
  uop.store %tile[%l], %s
  uop.barrier
  %first = uop.cmpeq %l, %c0 : index
  uop.if %first
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c64 : index
  %t = uop.load %tile[%k] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %t : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %total = uop.acc_get %acc : f32
  %pair = uop.vectorize %total, %total : vector<2xf32>
  %two = uop.mul %g, %c4 : index
  uop.store %out[%two], %pair : vector<2xf32>
  uop.endif
}
"""


def test_workgroup_memory_barrier_vectors_and_uniform_scalars() -> None:
    n = 1000  # 4 workgroups of 256 elements; the last one is cut short by the scalar N (a uniform field)
    x = np.arange(n, dtype=np.float32) / 7
    (out,) = run_kernel(TREE_SUM, "tree_sum", [x], [(16, "f32")], (4, 1, 1), symbol=("N", n))
    sums = [x[k * 256 : (k + 1) * 256].sum(dtype=np.float64) for k in range(4)]
    got = out.reshape(4, 4)
    np.testing.assert_allclose(got[:, 0], sums, rtol=1e-6)
    np.testing.assert_array_equal(got[:, 1], got[:, 0])
    np.testing.assert_array_equal(got[:, 2:], 0)


# ---------------------------------------------------------------------------------------------
# the shared corpus through the device's pipeline


PROGRAMS = all_programs()
MESA_POW = {"binary_f32", "binary_f16"}
MESA_POW_REASON = (
    "uop-decompose's pow is exp2(y * log2(|x|)) and relies on IEEE at x = 0 and NaN; Mesa's NIR rewrites that "
    "pattern into its own pow, which gives 0 there (lavapipe: 0 ** -1.5 = 0, nan ** 2 = 0)"
)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_corpus_program_on_webgpu(program: Program) -> None:
    unsupported = program.dtypes - gpu().target.dtypes
    if unsupported:
        pytest.skip(f"webgpu does not support {sorted(unsupported)}")
    device = get_device("webgpu")
    spec = compile_program(program.text, program.function, "webgpu")
    for kernel in spec.kernel_names():
        validate(spec.kernels.source, kernel)
    run = device.load(spec)
    reference = compile(program.text, program.function, "interp")
    names = re.search(r"func\.return (.*?) :", program.text).group(1).split(", ")  # type: ignore[union-attr]
    mesa_pow = program.name in MESA_POW and "llvmpipe" in gpu().name
    known_failure = False
    for inputs in program.runs:
        got, want = run(*inputs), reference(*inputs)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            try:
                assert_same(g, w, program.rtol, program.atol, f"{program.name} on webgpu, result {i} ({names[i]})")
            except AssertionError:
                if not (mesa_pow and names[i] == "%pow"):
                    raise
                known_failure = True
    if known_failure:
        pytest.xfail(MESA_POW_REASON)


# ---------------------------------------------------------------------------------------------
# every shader the lit tests emit passes naga

LIT_INPUTS = sorted((ROOT / "test" / "targets" / "wgsl").glob("*.mlir")) + sorted(
    (ROOT / "test" / "lowering" / "uop_to_wgsl").glob("*.mlir")
)


@pytest.mark.parametrize(
    "path", [p for p in LIT_INPUTS if "invalid" not in p.name], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_lit_inputs_emit_valid_wgsl(path: Path) -> None:
    for chunk in path.read_text().split("// -----"):
        if "uop.kernel" not in chunk and "wgsl.entry" not in chunk:
            continue  # the graph-level input of the pipeline test: covered by the corpus
        ctx = make_context()
        module = Parser(ctx, chunk).parse_module()
        ConvertUopToWGSL(device_features()).apply(ctx, module)
        source = emit(module)
        for name in re.findall(r"^fn (\w+)\(", source, re.MULTILINE):
            if not name.startswith("kiln_"):
                validate(source, name)
