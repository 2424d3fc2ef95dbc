"""Every elementwise op of kiln, declared once (see ``kiln.dialects.ops.spec`` for what each field means).

Derived from this table: the ALU ops of ``kernel``/``uop`` (``kiln.dialects.alu``), the elementwise ops of
``graph``, the graph interpreter's unary and binary ops, ``convert-graph-to-kernel``'s op map, the math
function tables of the C, LLVM, PTX and WGSL lowerings (and the C/WGSL function libraries), each target's native
``alu_ops``/``native_dtypes``, ``uop-decompose``'s rules for the ops declared with one, and the generated
``Tensor`` methods. Adding an op: docs/internals.md, "Adding an elementwise op".
"""

from __future__ import annotations

import math

import numpy as np

from kiln.dialects.ops import rules
from kiln.dialects.ops.spec import BOOL, CODE, FLOAT, INDEX, INT, Elementwise, Native

NUMERIC = frozenset({FLOAT, INT, INDEX})
FLOATS = frozenset({FLOAT})
INTEGRAL = frozenset({INT, INDEX})
LOGICAL = frozenset({INT, BOOL, INDEX})
ALL = frozenset({FLOAT, INT, BOOL, INDEX})
X, LR = ("x",), ("lhs", "rhs")

PTX_F32 = frozenset({"f16", "bf16", "f32"})
"""The float dtypes an f32-only PTX instruction serves (f16/bf16 are widened to f32 around it)."""

_ERF64 = np.frompyfunc(math.erf, 1, 1)
_ERFC64 = np.frompyfunc(math.erfc, 1, 1)


def erf_f64(x: np.ndarray) -> np.ndarray:
    """erf in f64 (``math.erf``), returned in x's dtype; numpy has no erf and scipy is not a runtime dependency."""
    return np.array(_ERF64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def erfc_f64(x: np.ndarray) -> np.ndarray:
    """erfc in f64 (``math.erfc``), returned in x's dtype."""
    return np.array(_ERFC64(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def c_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's ``pow``: numpy's, except that numpy computes ``x ** 0.5`` by ``sqrt`` when the exponent is a scalar or
    has one element, which gives -0 for -0 and nan for -inf where ``pow`` gives +0 and +inf; the result must not
    depend on the exponent's shape."""
    with np.errstate(all="ignore"):
        power = np.power(a, b)
    return np.where((b == 0.5) & ((a == 0) | np.isneginf(a)), np.abs(a), power)


def _libm(name: str, llvm: str | None = None, wgsl: str | None = None, ptx: Native | None = None) -> dict:
    """Renderings of a float function that C has in ``<math.h>`` under ``name``."""
    return {
        "c": Native(name),
        "llvm": Native(llvm) if llvm else None,
        "wgsl": Native(wgsl) if wgsl else None,
        "ptx": ptx,
    }


def _float_fn(name: str, summary: str, numpy, tensor: str | None = "float", **renderings) -> Elementwise:
    """A unary float function, also a graph op and a ``Tensor`` method of the same name."""
    return Elementwise(name, X, FLOATS, summary, numpy, graph=name, tensor=tensor, **renderings)


def _everywhere(**kwargs) -> dict:
    """The op is written by each emitter's own code (operators, integer semantics)."""
    return {"c": CODE, "llvm": CODE, "ptx": CODE, "wgsl": CODE, **kwargs}


def _compare(name: str, summary: str, commutative: bool = False) -> Elementwise:
    return Elementwise(name, LR, ALL, summary, returns_bool=True, commutative=commutative, **_everywhere())


OPS: tuple[Elementwise, ...] = (
    Elementwise("neg", X, NUMERIC, "-x (wraps for integers)", np.negative, graph="neg",
                graph_summary="-x (integers wrap)", **_everywhere(ptx=Native("neg.{t}"))),
    _float_fn("exp", "e to the power x", np.exp, **_libm("exp", "llvm.exp", "exp")),
    # softmax's exp(x - max): the software rule leaves out exp's upper clamp (passes/uop_decompose.py)
    _float_fn("exp_nonpositive", "e to the power x for x <= 0 or nan (exp's result there); unspecified for x > 0",
              np.exp, tensor=None, **_libm("exp", "llvm.exp", "exp")),
    _float_fn("exp2", "2 to the power x", np.exp2, **_libm("exp2", "llvm.exp2", "exp2", Native("ex2.approx.f32", PTX_F32))),
    _float_fn("log", "natural logarithm; -inf at 0, nan below", np.log, **_libm("log", "llvm.log", "log")),
    _float_fn("log2", "base-2 logarithm; -inf at 0, nan below", np.log2,
              **_libm("log2", "llvm.log2", "log2", Native("lg2.approx.f32", PTX_F32))),
    _float_fn("sin", "sine (radians)", np.sin, **_libm("sin", "llvm.sin", "sin", Native("sin.approx.f32", PTX_F32))),
    _float_fn("cos", "cosine (radians)", np.cos, **_libm("cos", "llvm.cos", "cos", Native("cos.approx.f32", PTX_F32))),
    _float_fn("sqrt", "square root; nan below 0", np.sqrt, **_libm("sqrt", "llvm.sqrt", "sqrt", Native("sqrt.rn.{t}"))),
    _float_fn("rsqrt", "1 / sqrt(x)", lambda x: 1 / np.sqrt(x), **_everywhere(c=None, llvm=None)),
    Elementwise("recip", X, FLOATS, "1 / x", lambda x: 1 / x, graph="reciprocal", tensor="float",
                **_everywhere(ptx=Native("rcp.rn.{t}"))),
    _float_fn("trunc", "round toward zero", np.trunc, tensor="rounding",
              **_libm("trunc", "llvm.trunc", "trunc", Native("cvt.rzi.{t}.{t}"))),
    _float_fn("floor", "round toward -inf", np.floor, tensor="rounding",
              **_libm("floor", "llvm.floor", "floor", Native("cvt.rmi.{t}.{t}"))),
    _float_fn("ceil", "round toward +inf", np.ceil, tensor="rounding",
              **_libm("ceil", "llvm.ceil", "ceil", Native("cvt.rpi.{t}.{t}"))),
    Elementwise("abs", X, NUMERIC, "absolute value (wraps for the most negative integer)", np.abs, graph="abs",
                c=Native("fabs"), llvm=Native("llvm.fabs"), ptx=Native("abs.{t}"), wgsl=Native("abs")),
    Elementwise("sign", X, NUMERIC, "-1, 0 or 1 by the sign of x; sign(nan) = nan, sign(-0.0) = 0", np.sign,
                graph="sign", graph_summary="-1, 0 or 1 by the sign of x (nan stays nan)", wgsl=CODE),
    # no WGSL rendering: its tanh has sinh/cosh's absolute error (lavapipe: 3e-8 for tanh(1e-30), +0 for -0, -1 for
    # NaN), so uop-decompose writes kiln's own on webgpu
    _float_fn("tanh", "hyperbolic tangent", np.tanh, **_libm("tanh", "llvm.tanh")),
    _float_fn("erf", "the error function", erf_f64, graph_summary="error function", **_libm("erf")),
    Elementwise("not", X, LOGICAL, "logical not on i1, bitwise not on integers", graph="not", **_everywhere()),
    Elementwise("add", LR, NUMERIC, "lhs + rhs (integers wrap)", np.add, graph="add", graph_summary="a + b",
                commutative=True, **_everywhere()),
    Elementwise("sub", LR, NUMERIC, "lhs - rhs (integers wrap)", np.subtract, graph="sub", graph_summary="a - b",
                **_everywhere()),
    Elementwise("mul", LR, NUMERIC, "lhs * rhs (integers wrap)", np.multiply, graph="mul", graph_summary="a * b",
                commutative=True, **_everywhere()),
    Elementwise("div", LR, FLOATS, "true division lhs / rhs (IEEE: x/0 is +-inf or nan)", np.true_divide,
                graph="div", graph_summary="true division a / b", **_everywhere()),
    Elementwise("idiv", LR, NUMERIC, "division truncated toward zero, as in C; floats: trunc(lhs / rhs)",
                graph="idiv", graph_summary="floor division a // b (numpy); integer division by zero gives 0",
                graph_lowers_to_alu=False, **_everywhere()),
    Elementwise("mod", LR, NUMERIC,
                "remainder with the sign of lhs, as in C (lhs - idiv(lhs, rhs) * rhs); floats: fmod",
                graph="mod", graph_summary="a % b with the sign of b (numpy); integer modulo by zero gives 0",
                graph_lowers_to_alu=False, **_everywhere(c=Native("fmod"))),
    Elementwise("max", LR, NUMERIC | {BOOL}, "the larger operand; nan if either is nan; i1: or", np.maximum,
                graph="max", graph_summary="the larger of a and b (nan propagates)",
                graph_dtypes=frozenset({FLOAT, INT}), commutative=True, **_everywhere(llvm=Native("llvm.maximum"))),
    Elementwise("min", LR, NUMERIC | {BOOL}, "the smaller operand; nan if either is nan; i1: and", np.minimum,
                graph="min", graph_summary="the smaller of a and b (nan propagates)",
                graph_dtypes=frozenset({FLOAT, INT}), commutative=True, **_everywhere(llvm=Native("llvm.minimum"))),
    Elementwise("pow", LR, FLOATS, "lhs to the power rhs (C pow)", c_pow, graph="pow", graph_summary="a ** b",
                c=Native("pow"), llvm=Native("llvm.pow")),
    Elementwise("and", LR, LOGICAL, "bitwise and (logical on i1)", np.bitwise_and, graph="and",
                graph_summary="bitwise/logical and", commutative=True, **_everywhere()),
    Elementwise("or", LR, LOGICAL, "bitwise or (logical on i1)", np.bitwise_or, graph="or",
                graph_summary="bitwise/logical or", commutative=True, **_everywhere()),
    Elementwise("xor", LR, LOGICAL, "bitwise xor (logical on i1)", np.bitwise_xor, graph="xor",
                graph_summary="bitwise/logical xor", commutative=True, **_everywhere()),
    Elementwise("shl", LR, INTEGRAL, "lhs << rhs; a shift by >= the bit width gives 0", graph="shl",
                graph_summary="a << b (0 when b is negative or >= the bit width)", **_everywhere(wgsl=None)),
    Elementwise("shr", LR, INTEGRAL,
                "lhs >> rhs: arithmetic on signed, logical on unsigned; a shift by >= the bit width gives 0 (-1 for "
                "negative signed lhs)",
                graph="shr",
                graph_summary="a >> b: arithmetic on signed, logical on unsigned (b out of range: 0, or -1 for "
                "negative signed a)",
                **_everywhere(wgsl=None)),
    _compare("cmplt", "lhs < rhs (false if either is nan)"),
    _compare("cmple", "lhs <= rhs (false if either is nan)"),
    _compare("cmpeq", "lhs == rhs (false if either is nan)", commutative=True),
    _compare("cmpne", "lhs != rhs (true if either is nan)", commutative=True),
    Elementwise("where", ("cond", "lhs", "rhs"), ALL, "cond ? lhs : rhs (lane by lane)", takes_condition=True,
                **_everywhere()),
    Elementwise("fma", ("a", "b", "c"), NUMERIC, "a * b + c (floats: fused, one rounding)",
                **_everywhere(c=Native("fma"), wgsl=Native("fma"))),
    # trigonometric and hyperbolic functions. PTX has none; LLVM has no asinh/acosh/atanh intrinsic; WGSL's builtins
    # may be as inaccurate as their spec allows, and on Mesa lavapipe they are (asin 4e-4 relative, atan(nan) = 0,
    # asinh(1e-6) 5% off, sinh(1e-30) = 3e-8, -0 loses its sign), so WGSL has only tan and cosh natively
    _float_fn("tan", "tangent (radians)", np.tan, decompose=rules.tan, **_libm("tan", "llvm.tan", "tan")),
    _float_fn("asin", "arcsine in [-pi/2, pi/2]; nan outside [-1, 1]", np.arcsin, decompose=rules.asin,
              **_libm("asin", "llvm.asin")),
    _float_fn("acos", "arccosine in [0, pi]; nan outside [-1, 1]", np.arccos, decompose=rules.acos,
              **_libm("acos", "llvm.acos")),
    _float_fn("atan", "arctangent in [-pi/2, pi/2]", np.arctan, decompose=rules.atan, **_libm("atan", "llvm.atan")),
    _float_fn("sinh", "hyperbolic sine", np.sinh, decompose=rules.sinh, **_libm("sinh", "llvm.sinh")),
    _float_fn("cosh", "hyperbolic cosine", np.cosh, decompose=rules.cosh, **_libm("cosh", "llvm.cosh", "cosh")),
    _float_fn("asinh", "inverse hyperbolic sine", np.arcsinh, decompose=rules.asinh, **_libm("asinh")),
    _float_fn("acosh", "inverse hyperbolic cosine; nan below 1", np.arccosh, decompose=rules.acosh,
              **_libm("acosh")),
    _float_fn("atanh", "inverse hyperbolic tangent; +-inf at +-1, nan beyond", np.arctanh, decompose=rules.atanh,
              **_libm("atanh")),
    _float_fn("erfc", "the complementary error function, 1 - erf(x) without its cancellation", erfc_f64,
              graph_summary="complementary error function", decompose=rules.erfc, **_libm("erfc")),
    # round half to even, as numpy (C rint in the default rounding mode; WGSL round is half to even too)
    _float_fn("round", "round to the nearest integer, halves to even", np.round, tensor="rounding",
              **_libm("rint", "llvm.roundeven", "round", Native("cvt.rni.{t}.{t}"))),
    # from the bits on every target: fast-math compilers may fold x != x and x == inf
    Elementwise("isnan", X, FLOATS, "whether x is nan (i1)", np.isnan, graph="isnan", tensor="predicate",
                returns_bool=True, decompose=rules.isnan),
    Elementwise("isinf", X, FLOATS, "whether x is +inf or -inf (i1)", np.isinf, graph="isinf", tensor="predicate",
                returns_bool=True, decompose=rules.isinf),
)  # fmt: skip
"""Every elementwise op, in the order the ALU table and the docs list them."""

BY_NAME: dict[str, Elementwise] = {op.name: op for op in OPS}


def natively_rendered(target: str) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """(ALU ops emitter ``target`` writes itself, op -> the only dtypes it does so for, where restricted)."""
    native = {op.name: op.rendering(target) for op in OPS if op.rendering(target) is not None}
    only = {name: r.dtypes for name, r in sorted(native.items()) if r.dtypes is not None}  # type: ignore[union-attr]
    return frozenset(native), only


def function_names(target: str) -> dict[str, str]:
    """ALU kind -> the function, builtin, intrinsic or instruction template ``target`` writes it with on floats."""
    return {op.name: r.name for op in OPS if (r := op.rendering(target)) is not None and r.name is not None}


__all__ = ["BY_NAME", "OPS", "erf_f64", "erfc_f64", "function_names", "natively_rendered"]
