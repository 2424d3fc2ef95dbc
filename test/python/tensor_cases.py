"""The front-end op table shared by the Tensor and JIT tests: every Tensor op with its numpy meaning.

A ``Case`` is a function of Tensors, the numpy function it must agree with (values and dtype), and its input
specs; an input dim ``"N"`` is the symbolic batch, bound to each of ``BINDINGS`` in turn. test_tensor_cases.py
checks the table itself: it covers every public Tensor method, and its inputs are what the specs say.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import erf, erfc

from kiln.dialects.types import to_numpy
from kiln.jit import Tensor
from kiln.jit.lower import Subgraph
from kiln.capabilities.description import get_target
from kiln.support.errors import KilnError

BINDINGS = (1, 3, 8)
"""Values of the symbolic batch N each case runs with."""

DEVICES = ("interp", "cpu-llvm", "cpu-c", "webgpu", "cuda")


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Tensor]
    inputs: tuple[tuple[tuple[int | str, ...], str], ...]
    """(shape, dtype spec) per argument; a dtype spec ending in '+' draws positive values."""
    ref: Callable[..., np.ndarray] | None = None
    """The numpy meaning (default: ``fn`` itself, for ops whose numpy spelling is the same)."""
    tol: float = 1e-5
    symbolic: bool = True
    """Whether N can vary under one compiled program (False: the case runs with static shapes only)."""

    def reference(self, *arrays: np.ndarray) -> np.ndarray:
        return np.asarray((self.ref or self.fn)(*arrays))

    def dtypes(self) -> frozenset[str]:
        """Every dtype the case's graph uses (inputs, intermediates, result)."""
        out = self.fn(*(Tensor(a, device="interp") for a in self.arrays(2)))
        return frozenset(n.dtype for n in Subgraph.of([out._node]).order)

    def arrays(self, n: int, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [_draw(rng, tuple(n if d == "N" else d for d in shape), spec) for shape, spec in self.inputs]


def _draw(rng: np.random.Generator, shape: tuple[int, ...], spec: str) -> np.ndarray:
    positive = spec.endswith("+")
    dtype = to_numpy(spec.rstrip("+").replace("bool", "i1"))
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.floating) or dtype.name == "bfloat16":
        lo = 0.5 if positive else -2.0
        return rng.uniform(lo, 3.0, shape).astype(dtype)
    lo = 1 if positive or np.issubdtype(dtype, np.unsignedinteger) else -20
    return rng.integers(lo, 20, shape).astype(dtype)


# ------------------------------------------------------------------------------------------- numpy references


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _layernorm(x: np.ndarray, w: np.ndarray | None = None, b: np.ndarray | None = None, eps: float = 1e-5):
    y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
    return (y * w + b if w is not None else y).astype(x.dtype)


def _conv2d(x, w, b=None, stride: int = 1, padding: int = 0, dilation: int = 1, groups: int = 1) -> np.ndarray:
    """Direct cross-correlation: one einsum per kernel tap and group."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    oh, ow = (h - dilation * (kh - 1) - 1) // stride + 1, (wd - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow), x.dtype)
    per_group = o // groups
    for g in range(groups):
        cs, os_ = slice(g * i, (g + 1) * i), slice(g * per_group, (g + 1) * per_group)
        for a in range(kh):
            for bb in range(kw):
                rows = slice(a * dilation, a * dilation + stride * (oh - 1) + 1, stride)
                cols = slice(bb * dilation, bb * dilation + stride * (ow - 1) + 1, stride)
                window = x[:, cs, rows, cols]
                out[:, os_] += np.einsum("nchw,oc->nohw", window, w[os_, :, a, bb])
    return out + b[None, :, None, None] if b is not None else out


def _pool(x: np.ndarray, k: int, stride: int, padding: int, reduce: str) -> np.ndarray:
    fill = -np.inf if reduce == "max" else 0.0
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=fill)
    windows = sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::stride, ::stride]
    return windows.max((-1, -2)) if reduce == "max" else windows.mean((-1, -2)).astype(x.dtype)


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1 + erf(x / np.sqrt(2)))).astype(x.dtype)


# ------------------------------------------------------------------------------------------- the table

X = (("N", 5), "f32")
ROW = ((5,), "f32")
XI = (("N", 5), "i32")
F16 = 1e-2

CASES: tuple[Case, ...] = (
    # binary elementwise, broadcasting, promotion
    Case("add", lambda x, y: x + y, (X, ROW)),
    Case("sub", lambda x, y: x - y, (X, ROW)),
    Case("mul", lambda x, y: x * y, (X, ROW)),
    Case("truediv", lambda x, y: x / y, (X, ((5,), "f32+"))),
    Case("floordiv_float", lambda x, y: x // y, (X, ((5,), "f32+"))),
    Case("mod_float", lambda x, y: x % y, (X, ((5,), "f32+"))),
    Case("pow_float", lambda x, y: x**y, ((("N", 5), "f32+"), ROW)),
    Case("maximum", lambda x, y: x.maximum(y), (X, ROW), ref=np.maximum),
    Case("minimum", lambda x, y: x.minimum(y), (X, ROW), ref=np.minimum),
    Case("lt", lambda x, y: x < y, (X, ROW)),
    Case("le", lambda x, y: x <= y, (X, ROW)),
    Case("gt", lambda x, y: x > y, (XI, ((5,), "i32"))),
    Case("ge", lambda x, y: x >= y, (XI, ((5,), "i32"))),
    Case("eq", lambda x, y: x == y, (XI, ((5,), "i32"))),
    Case("ne", lambda x, y: x != y, (XI, ((5,), "i32"))),
    Case("int_plus_float_is_f64", lambda x, y: x + y, (XI, ROW)),
    Case("f16_times_weak_float_stays_f16", lambda x: x * 2.5, ((("N", 5), "f16"),), tol=F16),
    Case("int_true_division_is_f64", lambda x, y: x / y, (XI, ((5,), "i32+"))),
    Case("int_floordiv", lambda x, y: x // y, (XI, ((5,), "i32+"))),
    Case("int_mod_negative_divisor", lambda x, y: x % -y, (XI, ((5,), "i32+"))),
    Case("int_pow_scalar", lambda x: x**3, (XI,)),
    Case("int_pow_tensor_wraps", lambda x, y: x**y, (XI, ((5,), "i32+"))),
    Case("int_pow_unsigned", lambda x, y: y**x, ((("N", 5), "ui8"), ((5,), "ui16"))),
    Case("mixed_ints_promote", lambda x, y: x + y, ((("N", 5), "ui8"), ((5,), "i8"))),
    Case("bool_add_is_or", lambda x, y: x + y, ((("N", 5), "bool"), ((5,), "bool"))),
    Case("bitwise_and", lambda x, y: x & y, (XI, ((5,), "i32"))),
    Case("bitwise_or", lambda x, y: x | y, ((("N", 5), "bool"), ((5,), "bool"))),
    Case("bitwise_xor", lambda x, y: x ^ y, (XI, ((5,), "i32"))),
    Case("shifts", lambda x: (x << 2) + (x >> 1), (XI,)),
    Case("reflected_scalars", lambda x: (2.0 - x) * (1 / (abs(x) + 1)) + 3 // (abs(x) + 1), (X,)),
    Case("scalar_pow_tensor", lambda x: 2.0**x, (X,)),
    Case("ndarray_operand", lambda x: x + np.arange(5, dtype=np.float32), (X,)),
    # unary
    Case("neg", lambda x: -x, (X,)),
    Case("neg_int_wraps", lambda x: x.neg(), ((("N", 5), "i8"),), ref=np.negative),
    Case("abs", lambda x: x.abs(), (XI,), ref=np.abs),
    Case("exp", lambda x: x.exp(), (X,), ref=np.exp),
    Case("exp_of_int_is_f64", lambda x: x.exp(), (XI,), ref=np.exp),
    Case("exp2", lambda x: x.exp2(), (X,), ref=np.exp2),
    Case("log", lambda x: x.log(), ((("N", 5), "f32+"),), ref=np.log),
    Case("log2", lambda x: x.log2(), ((("N", 5), "f32+"),), ref=np.log2),
    Case("sqrt", lambda x: x.sqrt(), ((("N", 5), "f32+"),), ref=np.sqrt),
    Case("rsqrt", lambda x: x.rsqrt(), ((("N", 5), "f32+"),), ref=lambda x: 1 / np.sqrt(x)),
    Case("reciprocal", lambda x: x.reciprocal(), ((("N", 5), "f32+"),), ref=lambda x: 1 / x),
    Case("sin", lambda x: x.sin(), (X,), ref=np.sin),
    Case("cos", lambda x: x.cos(), (X,), ref=np.cos),
    Case("tanh", lambda x: x.tanh(), (X,), ref=np.tanh),
    Case("sigmoid", lambda x: x.sigmoid(), (X,), ref=lambda x: 1 / (1 + np.exp(-x))),
    Case("relu", lambda x: x.relu(), (X,), ref=lambda x: np.maximum(x, 0)),
    Case("gelu", lambda x: x.gelu(), (X,), ref=_gelu),
    Case("erf", lambda x: x.erf(), (X,), ref=lambda x: erf(x).astype(x.dtype)),
    Case("erfc", lambda x: x.erfc(), (X,), ref=lambda x: erfc(x).astype(x.dtype)),
    Case("floor_ceil_trunc", lambda x: x.floor() + x.ceil() * 10 + x.trunc() * 100, (X,),
         ref=lambda x: np.floor(x) + np.ceil(x) * 10 + np.trunc(x) * 100),
    Case("floor_of_int_is_identity", lambda x: x.floor(), (XI,), ref=np.floor),
    Case("sign", lambda x: x.sign(), (X,), ref=np.sign),
    Case("square_clip", lambda x: x.square() + x.clip(-1.0, 0.5), (X,), ref=lambda x: np.square(x) + np.clip(x, -1.0, 0.5)),
    Case("var_std", lambda x: x.var(1, keepdims=True) + x.std(0), (X,),
         ref=lambda x: x.var(1, keepdims=True) + x.std(0)),
    Case("any_all", lambda x: (x > 0).any(1) & (x > -1).all(1), (X,), ref=lambda x: (x > 0).any(1) & (x > -1).all(1)),
    Case("tan_atan", lambda x: x.tan() + x.atan(), (X,), ref=lambda x: np.tan(x) + np.arctan(x)),
    Case("asin_acos_atanh", lambda x: (x * 0.3).asin() + (x * 0.3).acos() + (x * 0.3).atanh(), (X,),
         ref=lambda x: np.arcsin(x * 0.3) + np.arccos(x * 0.3) + np.arctanh(x * 0.3)),
    Case("hyperbolic", lambda x: x.sinh() + x.cosh() + x.asinh() + (x.abs() + 1).acosh(), (X,),
         ref=lambda x: np.sinh(x) + np.cosh(x) + np.arcsinh(x) + np.arccosh(np.abs(x) + 1)),
    Case("round_half_to_even", lambda x: (x * 2).round(), (X,), ref=lambda x: np.round(x * 2)),
    Case("round_of_int_is_identity", lambda x: x.round(), (XI,), ref=np.round),
    Case("isnan_isinf", lambda x: (x - 0.5).log().isnan() | (x - 0.5).reciprocal().isinf(), (X,),
         ref=lambda x: np.isnan(np.log(x - 0.5)) | np.isinf(np.reciprocal(x - 0.5))),
    Case("isnan_of_int_is_false", lambda x: x.isnan() | x.isinf(), (XI,), ref=lambda x: np.isnan(x) | np.isinf(x)),
    Case("invert_bool_and_int", lambda b, x: b.logical_not().where(~x, x), ((("N", 5), "bool"), XI),
         ref=lambda b, x: np.where(~b, ~x, x)),
    # where, cast, contiguous
    Case("where_tensors", lambda x, y: (x > 0).where(x, y), (X, ROW), ref=lambda x, y: np.where(x > 0, x, y)),
    Case("where_scalars", lambda x: (x > 0).where(1.5, -1), (X,),
         ref=lambda x: np.where(x > 0, 1.5, -1).astype(np.float64)),
    Case("where_int_condition", lambda x: x.where(x, 7), (XI,), ref=lambda x: np.where(x, x, 7)),
    Case("cast_float_to_int_truncates", lambda x: (x * 3).cast("i32"), (X,), ref=lambda x: (x * 3).astype(np.int32)),
    Case("astype_to_f16", lambda x: x.astype(np.float16), (XI,), ref=lambda x: x.astype(np.float16)),
    Case("contiguous", lambda x: (x * 2).contiguous() + 1, (X,), ref=lambda x: x * 2 + 1),
    # reductions
    Case("sum_all", lambda x: x.sum(), (X,), tol=1e-4),
    Case("sum_axis", lambda x: x.sum(1), (X,)),
    Case("sum_keepdims", lambda x: x.sum(0, keepdims=True), (X,)),
    Case("sum_negative_axes", lambda x: x.sum((-1, -2)), ((("N", 2, 3), "f32"),), tol=1e-4),
    Case("sum_bool_is_i64", lambda b: b.sum(1), ((("N", 5), "bool"),)),
    Case("sum_i8_is_i64", lambda x: x.sum(0), ((("N", 5), "i8"),)),
    Case("prod", lambda x: x.prod(1), (X,)),
    Case("max", lambda x: x.max(1), (X,)),
    Case("min_keepdims", lambda x: x.min(0, keepdims=True), (X,)),
    Case("mean", lambda x: x.mean(), (X,)),
    Case("mean_axis", lambda x: x.mean(0), (X,)),
    Case("mean_of_int_is_f64", lambda x: x.mean(1), (XI,)),
    Case("argmax_axis", lambda x: x.argmax(1), (X,)),
    Case("argmax_flat", lambda x: x.argmax(), (X,), symbolic=False),
    Case("argmin_keepdims", lambda x: x.argmin(0, keepdims=True), (X,)),
    Case("cumsum_axis", lambda x: x.cumsum(1), (X,)),
    Case("cumsum_flat", lambda x: x.cumsum(), ((("N", 5), "i16"),), symbolic=False),
    # movement
    Case("reshape_infer", lambda x: x.reshape(x.shape[0], -1), ((("N", 2, 3), "f32"),)),
    Case("reshape_flat", lambda x: x.reshape(-1), ((("N", 2, 3), "f32"),), symbolic=False),
    Case("reshape_split", lambda x: x.reshape(x.shape[0], 2, 3), ((("N", 6), "f32"),)),
    Case("reshape_static", lambda x: x.reshape(3, -1), (((4, 6), "f32"),)),
    Case("flatten", lambda x: x.flatten(), ((("N", 2, 3), "f32"),), symbolic=False),
    Case("permute", lambda x: x.permute(2, 0, 1), ((("N", 2, 3), "f32"),), ref=lambda x: x.transpose(2, 0, 1)),
    Case("transpose", lambda x: x.transpose(), ((("N", 2, 3), "f32"),)),
    Case("T", lambda x: x.T, (X,)),
    Case("expand", lambda x: x.expand(3, 5), (((1, 5), "f32"),), ref=lambda x: np.broadcast_to(x, (3, 5))),
    Case("expand_keep", lambda x: x.expand(4, -1, 5), ((("N", 1), "f32"),),
         ref=lambda x: np.broadcast_to(x, (4, x.shape[0], 5))),
    Case("unsqueeze_squeeze", lambda x: x.unsqueeze(1).unsqueeze(-1).squeeze(1), (X,), ref=lambda x: x[:, :, None]),
    Case("pad", lambda x: x.pad(((1, 2), (0, 1))), (((3, 4), "f32"),), ref=lambda x: np.pad(x, ((1, 2), (0, 1)))),
    Case("pad_value_negative", lambda x: x.pad(((-1, 1), (2, -1)), value=7), (((3, 4), "i32"),),
         ref=lambda x: np.pad(x[1:, :-1], ((0, 1), (2, 0)), constant_values=7)),
    Case("flip", lambda x: x.flip(1), (X,), ref=lambda x: np.flip(x, 1)),
    Case("flip_all", lambda x: x.flip(), (((3, 4), "f32"),), ref=np.flip),
    Case("slice_basic", lambda x: x[:, 1:3], (X,)),
    Case("slice_steps", lambda x: x[1:, ::2], (((5, 6), "f32"),)),
    Case("slice_negative_step", lambda x: x[::-1, 4:0:-2], (((5, 6), "f32"),)),
    Case("slice_reverse_symbolic", lambda x: x[::-1, -1], (X,)),
    Case("index_negative_int", lambda x: x[-2], (((5, 6), "f32"),)),
    Case("index_none_ellipsis", lambda x: x[None, ..., -3:], (X,)),
    Case("index_empty_slice", lambda x: x[:, 3:3] + 1, (X,)),
    Case("cat", lambda x, y: x.cat(y, axis=1), (X, (("N", 3), "f32")), ref=lambda x, y: np.concatenate([x, y], 1)),
    Case("cat_promotes", lambda x, y: Tensor.cat(x, y), (((2, 3), "i32"), ((4, 3), "f32")),
         ref=lambda x, y: np.concatenate([x, y])),
    Case("stack", lambda x, y: x.stack(y, axis=1), (X, X), ref=lambda x, y: np.stack([x, y], 1)),
    # composites
    Case("matmul", lambda x, w: x @ w, (X, ((5, 4), "f32"))),
    Case("matmul_vector", lambda x, v: x @ v, (X, ((5,), "f32"))),
    Case("matmul_batched", lambda x, w: x.matmul(w), ((("N", 3, 5), "f32"), ((5, 2), "f32")), ref=np.matmul),
    Case("rmatmul_ndarray", lambda x: np.ones((2, 3), np.float32) @ x, (((3, 4), "f32"),),
         ref=lambda x: np.ones((2, 3), np.float32) @ x),
    Case("softmax", lambda x: x.softmax(), (X,), ref=_softmax),
    Case("softmax_axis0", lambda x: x.softmax(0), (X,), ref=lambda x: _softmax(x, 0)),
    Case("log_softmax", lambda x: x.log_softmax(), (X,), ref=lambda x: np.log(_softmax(x))),
    Case("layernorm", lambda x: x.layernorm(), (X,), ref=_layernorm, tol=1e-4),
    Case("layernorm_affine", lambda x, w, b: x.layernorm(w, b), (X, ROW, ROW), ref=_layernorm, tol=1e-4),
    Case("conv2d", lambda x, w, b: x.conv2d(w, b, padding=1),
         ((("N", 2, 5, 5), "f32"), ((3, 2, 3, 3), "f32"), ((3,), "f32")),
         ref=lambda x, w, b: _conv2d(x, w, b, padding=1), tol=1e-4),
    Case("conv2d_strided_grouped", lambda x, w: x.conv2d(w, stride=2, dilation=1, groups=2),
         (((1, 4, 7, 7), "f32"), ((4, 2, 3, 3), "f32")),
         ref=lambda x, w: _conv2d(x, w, stride=2, groups=2), tol=1e-4),
    Case("max_pool2d", lambda x: x.max_pool2d(2), ((("N", 2, 6, 6), "f32"),), ref=lambda x: _pool(x, 2, 2, 0, "max")),
    Case("max_pool2d_padded", lambda x: x.max_pool2d(3, stride=2, padding=1), (((1, 2, 5, 5), "f32"),),
         ref=lambda x: _pool(x, 3, 2, 1, "max")),
    Case("avg_pool2d", lambda x: x.avg_pool2d(2, stride=1), ((("N", 2, 4, 4), "f32"),),
         ref=lambda x: _pool(x, 2, 1, 0, "avg")),
    Case("gather", lambda x, i: x.gather(1, i % 5), (X, (("N", 3), "i32")),
         ref=lambda x, i: np.take_along_axis(x, i % 5, 1)),
    # creation
    Case("zeros_ones_full",
         lambda x: x + Tensor.zeros(5, device=x.device)
         + Tensor.ones((5,), dtype="f32", device=x.device) * Tensor.full((1, 5), 2.0, device=x.device), (X,),
         ref=lambda x: x + 0 + np.ones(5, np.float32) * np.full((1, 5), 2.0, np.float32)),
    Case("zeros_like_symbolic", lambda x: x.zeros_like() + x.ones_like() * 3 - x.full_like(2), (X,),
         ref=lambda x: np.zeros_like(x) + 1),
    Case("zeros_of_symbolic_dim", lambda x: Tensor.zeros(x.shape[0], 2, device=x.device) + x[:, :1], (X,),
         ref=lambda x: np.zeros((x.shape[0], 2), np.float32) + x[:, :1]),
    Case("arange_int", lambda x: x + Tensor.arange(5, device=x.device), (XI,), ref=lambda x: x + np.arange(5)),
    Case("arange_float_step", lambda x: x + Tensor.arange(0.5, 3.0, 0.5, device=x.device), (X,),
         ref=lambda x: x + np.arange(0.5, 3.0, 0.5)),
    Case("arange_typed", lambda x: x * Tensor.arange(10, 0, -2, dtype="f32", device=x.device), (X,),
         ref=lambda x: x * np.arange(10, 0, -2, dtype=np.float32)),
)

CASES_BY_NAME = {c.name: c for c in CASES}

GROUPS: dict[str, tuple[Case, ...]] = {
    "symbolic": tuple(c for c in CASES if c.symbolic and any("N" in s for s, _ in c.inputs)),
    "static": tuple(c for c in CASES if not (c.symbolic and any("N" in s for s, _ in c.inputs))),
}
"""Cases compiled together on the slower devices: one program serves all the cases of a group."""


def assert_matches(got: Tensor | np.ndarray, want: np.ndarray, tol: float, what: str) -> None:
    """Same dtype as numpy, same shape, values within ``tol`` (exact for ints and bools)."""
    g = got.numpy() if isinstance(got, Tensor) else got
    assert g.dtype == want.dtype, f"{what}: dtype {g.dtype}, numpy gives {want.dtype}"
    assert g.shape == want.shape, f"{what}: shape {g.shape}, numpy gives {want.shape}"
    if np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol, err_msg=what)
    else:
        np.testing.assert_array_equal(g, want, err_msg=what)


@cache
def device_problem(device: str) -> str | None:
    """Why ``device`` cannot run a small program end to end here (None when it can)."""
    try:
        got = (Tensor(np.arange(4, dtype=np.float32), device=device) * 2 + 1).sum().item()
    except KilnError as e:
        return str(e).splitlines()[0]
    return None if got == 16.0 else f"computed {got} for sum(2 * arange(4) + 1)"


def require(device: str) -> None:
    """Skip the calling test when ``device`` does not work end to end here."""
    if (problem := device_problem(device)) is not None:
        pytest.skip(f"{device} is not usable here: {problem}")


def supported(cases: Sequence[Case], device: str) -> tuple[Case, ...]:
    """The cases whose dtypes ``device`` supports (the interpreter supports every dtype)."""
    if device == "interp":
        return tuple(cases)
    return tuple(c for c in cases if c.dtypes() <= get_target(device).dtypes)


def call(fn: Callable[..., Tensor], arrays: Sequence[np.ndarray], device: str) -> Tensor:
    return fn(*(Tensor(a, device=device) for a in arrays))
