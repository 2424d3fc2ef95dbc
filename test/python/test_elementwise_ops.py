"""The elementwise ops declared in ``kiln.dialects.ops``: that every target can run each of them, and the ops
added through the declaration (tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh, round, isnan, isinf)
against numpy on every device, with IEEE edge values and an ulp bound per dtype; their decompositions as machine
code (cpu-llvm with the op taken away, as for cuda and webgpu); their PTX through nvJitLink."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from kiln.capabilities.description import get_target, target_names
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.dialects import graph as G
from kiln.dialects.ops.table import BY_NAME, OPS
from kiln.dialects.types import DTYPES, dtype_name, from_numpy
from kiln.jit import Tensor
from kiln.passes import uop_decompose
from kiln.passes.uop_decompose import rule_for
from kiln.runtime.device_cpu import load_kernels
from kiln.runtime.devices import device_available
from kiln.runtime.program import Executable
from kiln.targets.ptx import toolchain as ptx_toolchain

ADDED = ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "round", "isnan", "isinf", "erfc")
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
         "atanh": np.arctanh}  # fmt: skip

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.999, -0.999, 1.001, 1e-6, -1e-6, 1e-30, -1e-30,
         3.0, -3.0, 10.0, -10.0, 100.0, -100.0, 1e4, 1e30, -1e30, np.inf, -np.inf, np.nan]  # fmt: skip
"""IEEE edge values and domain edges: ±0, ±1 (asin, atanh), 1 (acosh), halves (round), tiny, huge, ±inf, nan."""

DOMAIN = {"asin": (-1, 1), "acos": (-1, 1), "atanh": (-1, 1), "acosh": (1, 1e6), "tan": (-1e4, 1e4)}
"""Where to draw the dense grid (default ±1e4, with a geometric run of tiny values). tan stops at 1e4: WGSL's
tan, as its sin and cos, loses the argument reduction of larger values."""

NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64}

ULPS = {"f64": 4.0, "f32": 4.0, "f16": 1.0}
"""Bound per result dtype: f16 is computed in f32 and rounded once (numpy does the same)."""
ERFC_ULPS = {"f64": 600.0, "f32": 8.0, "f16": 1.0}
"""erfc where a target decomposes it: the Chebyshev fit is 1.2e-7 relative in f32; f64 loses to 1 - erf(x) near
x = 2 (dialects/ops/rules.py)."""


def bound(kind: str, dtype: str) -> float:
    return (ERFC_ULPS if kind == "erfc" else ULPS)[dtype]


def webgpu_ulps(x: np.ndarray) -> np.ndarray:
    """WGSL allows ``exp`` 3 + 2|x| ulp (cosh, and the decompositions there, build on it) and log, sqrt several;
    lavapipe's measured worst is within 16 + 2|x|."""
    return 16.0 + 2 * np.abs(x.astype(np.float64))


WEBGPU_TAN_LIMIT = 1e4
"""WGSL's tan, like its sin and cos, does not reduce larger arguments exactly (tan(1e30) is -1 on lavapipe)."""


NUMPY["erfc"] = np.vectorize(math.erfc, otypes=[np.float64])


def reference(kind: str, x: np.ndarray) -> np.ndarray:
    """numpy's answer in f64, rounded to x's dtype (booleans stay bool)."""
    with np.errstate(all="ignore"):
        r = getattr(np, kind, None) if kind not in NUMPY else NUMPY[kind]
        exact = r(x.astype(np.float64))  # type: ignore[misc]
    return exact if exact.dtype == np.bool_ else exact.astype(x.dtype)


def inputs(kind: str, dtype: str) -> np.ndarray:
    lo, hi = DOMAIN.get(kind, (-1e4, 1e4))
    tiny = np.geomspace(1e-30 if dtype != "f16" else 1e-7, 1, 300)
    halves = np.arange(-20, 20) + 0.5
    grid = np.concatenate([np.linspace(lo, hi, 4001), np.linspace(-4, 4, 4001), tiny, -tiny, halves])
    with np.errstate(over="ignore"):
        return np.concatenate([EDGES, grid]).astype(NP[dtype])


def check(kind: str, got: np.ndarray, x: np.ndarray, max_ulps: float | np.ndarray) -> None:
    """Same dtype, nan where numpy has nan, ±inf and ±0 exactly (the sign of zero too), else within the bound."""
    want = reference(kind, x)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want, err_msg=kind)
        return
    nan, special = np.isnan(want), np.isinf(want) | (want == 0)
    assert (np.isnan(got) == nan).all(), f"{kind}: nan differs at x = {x[np.isnan(got) != nan][:5]}"
    wrong = special & ((got != want) | (np.signbit(got) != np.signbit(want)))
    assert not wrong.any(), f"{kind}: x = {x[wrong][:5]} gives {got[wrong][:5]}, numpy {want[wrong][:5]}"
    finite = ~nan & ~special
    with np.errstate(all="ignore"):
        exact = getattr(np, kind, None) if kind not in NUMPY else NUMPY[kind]
        truth = exact(x[finite].astype(np.float64))  # type: ignore[misc]
    spacing = np.spacing(np.abs(truth).astype(x.dtype)).astype(np.float64)
    err = np.abs(got[finite].astype(np.float64) - truth) / spacing - np.broadcast_to(max_ulps, x.shape)[finite]
    assert err.max(initial=0) <= 0, f"{kind}: {err.max():.2f} ulp beyond the bound at x = {x[finite][err.argmax()]}"


def test_every_op_runs_on_every_target() -> None:
    """An op no target renders needs a decomposition: each target either has it or can rewrite it (floats)."""
    for target in (get_target(t) for t in target_names()):
        for op in OPS:
            if "float" in op.dtypes and not target.is_native(op.name, "f32"):
                assert rule_for(op.name, DTYPES["f32"]) is not None, f"{op.name} on {target.name}"


def test_added_ops_are_graph_ops_tensor_methods_and_interpreted() -> None:
    for kind in ADDED:
        assert G.op(kind).name == f"graph.{kind}"
        assert callable(getattr(Tensor, kind))
        assert BY_NAME[kind].numpy is not None


DEVICES = [pytest.param(d, marks=pytest.mark.skipif(not device_available(d), reason=f"no {d}"))
           for d in ("interp", "cpu-llvm", "cpu-c", "webgpu")]  # fmt: skip


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["f32", "f64", "f16"])
@pytest.mark.parametrize("kind", ADDED)
def test_added_op_matches_numpy(kind: str, dtype: str, device: str) -> None:
    if device == "webgpu" and dtype != "f32":
        pytest.skip("webgpu computes f32 (f16 only with shader-f16)")
    x = inputs(kind, dtype)
    if device == "webgpu":
        x = x[~(np.abs(x) > WEBGPU_TAN_LIMIT)] if kind == "tan" else x
        want = reference(kind, x)
        if want.dtype != np.bool_:  # WGSL may flush subnormal results to zero (erfc(9.5))
            x = x[~((want != 0) & (np.abs(want) < np.finfo(want.dtype).tiny))]
    got = getattr(Tensor(x, device=device), kind)().numpy()
    check(kind, got, x, webgpu_ulps(x) if device == "webgpu" else bound(kind, dtype))


def test_round_is_half_to_even_and_keeps_integers() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 1e20], np.float32)
    for device in ("interp", "cpu-llvm", "cpu-c"):
        np.testing.assert_array_equal(Tensor(x, device=device).round().numpy(), np.round(x))
    ints = np.array([-3, 0, 7], np.int32)
    assert Tensor(ints, device="interp").round().numpy().dtype == np.round(ints).dtype


def test_predicates_on_integers_are_false() -> None:
    ints = np.array([-3, 0, 7], np.int32)
    for kind in ("isnan", "isinf"):
        got = getattr(Tensor(ints, device="cpu-llvm"), kind)().numpy()
        np.testing.assert_array_equal(got, getattr(np, kind)(ints))


DECOMPOSED = tuple(k for k in ADDED if BY_NAME[k].decompose is not None)


def run_without(kind: str, x: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """graph.<kind> of x as cpu-llvm machine code, with uop-decompose told that cpu-llvm lacks ``kind``."""
    host = get_target("cpu-llvm")
    lacking = dataclasses.replace(host, alu_ops=host.alu_ops - {kind})
    monkeypatch.setattr(uop_decompose, "target_for_pass", lambda pass_name, name: lacking)
    t = f"!graph.tensor<{x.size}x{dtype_name(from_numpy(x.dtype))}>"
    rt = t.replace("f32>", "i1>").replace("f64>", "i1>") if BY_NAME[kind].returns_bool else t
    sig = f"({t}) -> {rt}" if rt != t else t
    text = f"func.func @f(%x: {t}) -> {rt} {{\n  %y = graph.{kind} %x : {sig}\n  func.return %y : {rt}\n}}"
    spec = lower_program(parse_module(text), "f", "cpu-llvm")
    assert f"llvm.{kind}." not in spec.kernels.source, "not decomposed"
    (got,) = Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))(x)
    return got


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("kind", DECOMPOSED)
def test_decomposition_as_machine_code(kind: str, dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules the targets without the op get (cuda: all; webgpu: asin acos atan sinh asinh acosh atanh),
    compiled by LLVM (which may fuse and reassociate): ulp bounds against numpy, edge values exact."""
    x = inputs(kind, dtype)
    check(kind, run_without(kind, x, monkeypatch), x, bound(kind, dtype))


@pytest.mark.skipif(not ptx_toolchain.available()[0], reason=ptx_toolchain.available()[1])
@pytest.mark.parametrize("dtype", ["f32", "f64", "f16", "bf16"])
def test_added_ops_assemble_as_ptx(dtype: str) -> None:
    t = f"!graph.tensor<64x{dtype}>"
    b = "!graph.tensor<64xi1>"
    body = [f"%{k} = graph.{k} %x : ({t}) -> {b}" if BY_NAME[k].returns_bool else f"%{k} = graph.{k} %x : {t}"
            for k in ADDED]  # fmt: skip
    types = ", ".join(b if BY_NAME[k].returns_bool else t for k in ADDED)
    text = "\n".join([f"func.func @f(%x: {t}) -> ({types}) {{", *body,
                      f"  func.return {', '.join('%' + k for k in ADDED)} : {types}", "}"])  # fmt: skip
    spec = lower_program(parse_module(text), "f", "cuda")
    for arch in ("sm_80", "sm_90"):
        ptx_toolchain.assemble(spec.kernels.source, arch)
