"""Elementwise ONNX ops: unary math, activations, arithmetic with ONNX's integer semantics, logic, casts."""

from __future__ import annotations

import math

import numpy as np
from onnx.helper import np_dtype_to_tensor_dtype
from onnx.reference.ops.op_cast import cast_to

from kiln.dialects.types import to_numpy
from kiln.onnx.dtypes import kiln_dtype
from kiln.onnx.errors import Unsupported
from kiln.onnx.narrow import Narrow, narrow_elem_type, narrow_type, narrow_type_of
from kiln.onnx.ops.narrow_cast import decode, encode
from kiln.onnx.ops.util import is_float_dtype, op, scalar_like
from kiln.onnx.registry import handler

_UNARY = {
    "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Sin": "sin", "Cos": "cos", "Tanh": "tanh", "Sigmoid": "sigmoid",
    "Erf": "erf", "Reciprocal": "reciprocal", "Floor": "floor", "Ceil": "ceil", "Neg": "neg", "Abs": "abs",
    "Sign": "sign", "Relu": "relu", "Not": "not", "BitwiseNot": "not",
    "Asin": "asin", "Acos": "acos", "Atan": "atan", "Sinh": "sinh", "Cosh": "cosh", "Asinh": "asinh",
    "Acosh": "acosh", "Atanh": "atanh", "Tan": "tan", "Round": "round", "IsNaN": "isnan",
}


@handler(*_UNARY)
def unary(n):
    x = n.x(0)
    if n.op == "Abs" and x.dtype.startswith("ui"):
        return [x]
    return [op(_UNARY[n.op], x)]


@handler("IsInf")
def isinf(n):
    x = n.x(0)
    pos, neg = n.attr("detect_positive", 1), n.attr("detect_negative", 1)
    inf = op("isinf", x)
    if pos and neg:
        return [inf]
    if not pos and not neg:
        return [op("and", inf, op("ne", x, x))]
    side = op("gt", x, scalar_like(x, 0)) if pos else op("lt", x, scalar_like(x, 0))
    return [op("and", inf, side)]


def _f(x, v):
    return scalar_like(x, v)


@handler("Elu", "Selu", "Celu", "LeakyRelu", "ThresholdedRelu", "HardSigmoid", "HardSwish", "Softplus", "Softsign",
         "Mish", "Gelu", "Shrink", "PRelu")
def activation(n):
    x = n.x(0)
    zero = _f(x, 0.0)
    if n.op == "Elu":
        a = n.attr("alpha", 1.0)
        return [op("where", op("gt", x, zero), x, _f(x, a) * (x.exp() - _f(x, 1.0)))]
    if n.op == "Selu":
        a, g = n.attr("alpha", 1.67326319217681884765625), n.attr("gamma", 1.05070102214813232421875)
        return [_f(x, g) * op("where", op("gt", x, zero), x, _f(x, a) * x.exp() - _f(x, a))]
    if n.op == "Celu":
        a = n.attr("alpha", 1.0)
        return [x.maximum(zero) + (_f(x, a) * ((x / _f(x, a)).exp() - _f(x, 1.0))).minimum(zero)]
    if n.op == "LeakyRelu":
        return [op("where", op("lt", x, zero), x * _f(x, n.attr("alpha", 0.01)), x)]
    if n.op == "PRelu":
        slope = n.x(1)
        return [op("where", op("lt", x, zero), x * slope, x + zero * slope)]
    if n.op == "ThresholdedRelu":
        return [op("where", op("gt", x, _f(x, n.attr("alpha", 1.0))), x, zero)]
    if n.op == "HardSigmoid":
        a, b = n.attr("alpha", 0.2), n.attr("beta", 0.5)
        return [(x * _f(x, a) + _f(x, b)).maximum(zero).minimum(_f(x, 1.0))]
    if n.op == "HardSwish":
        return [x * (x * _f(x, 1 / 6) + _f(x, 0.5)).maximum(zero).minimum(_f(x, 1.0))]
    if n.op == "Softplus":
        return [softplus(x)]
    if n.op == "Softsign":
        return [x / (x.abs() + _f(x, 1.0))]
    if n.op == "Mish":
        return [x * softplus(x).tanh()]
    if n.op == "Gelu":
        if n.attr("approximate", "none") == "tanh":
            inner = _f(x, math.sqrt(2 / math.pi)) * (x + _f(x, 0.044715) * x * x * x)
            return [_f(x, 0.5) * x * (_f(x, 1.0) + inner.tanh())]
        return [op("gelu", x)]
    if n.op == "Shrink":
        lam, bias = n.attr("lambd", 0.5), n.attr("bias", 0.0)
        lo = op("lt", x, _f(x, -lam))
        hi = op("gt", x, _f(x, lam))
        return [op("where", lo, x + _f(x, bias), op("where", hi, x - _f(x, bias), zero))]
    raise AssertionError(n.op)


def softplus(x):
    """log(1 + e**x) without overflow: max(x, 0) + log(1 + e**-|x|)."""
    return x.maximum(_f(x, 0.0)) + (_f(x, 1.0) + (-x.abs()).exp()).log()


_BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "And": "and", "Or": "or", "Xor": "xor", "BitwiseAnd": "and",
           "BitwiseOr": "or", "BitwiseXor": "xor", "Equal": "eq", "Less": "lt", "Greater": "gt",
           "LessOrEqual": "le", "GreaterOrEqual": "ge"}


@handler(*_BINARY)
def binary(n):
    a, b = n.x(0), n.x(1)
    if n.opset < 7 and n.attr("broadcast"):
        raise Unsupported("legacy broadcast attribute")
    return [op(_BINARY[n.op], a, b)]


def trunc_div(a, b):
    """Integer division rounding toward zero (C, ONNX) from floor division (kiln's idiv)."""
    q = op("idiv", a, b)
    if a.dtype.startswith("ui"):
        return q
    zero = scalar_like(a, 0)
    r = op("mod", a, b)
    signs_differ = op("ne", op("lt", a, zero), op("lt", b, zero))
    fix = op("and", op("ne", r, zero), signs_differ)
    return op("where", fix, q + scalar_like(a, 1), q)


@handler("Div")
def div(n):
    a, b = n.x(0), n.x(1)
    return [op("div", a, b) if is_float_dtype(a.dtype) else trunc_div(a, b)]


@handler("Mod")
def mod(n):
    a, b = n.x(0), n.x(1)
    if not n.attr("fmod", 0):  # the divisor's sign (numpy, and onnx's reference also for floats)
        return [op("mod", a, b)]
    r = op("mod", a, b)  # sign of b; fmod takes the sign of a
    zero = scalar_like(a, 0)
    wrong = op("and", op("ne", r, zero), op("ne", op("lt", r, zero), op("lt", a, zero)))
    return [op("where", wrong, r - b, r)]


@handler("BitShift")
def bitshift(n):
    return [op("shl" if n.attr("direction") == "LEFT" else "shr", n.x(0), n.x(1))]


@handler("Pow")
def power(n):
    x, y = n.x(0), n.x(1)
    if is_float_dtype(x.dtype):
        return [op("pow", x, y.cast(x.dtype))]
    if is_float_dtype(y.dtype):
        return [op("pow", x.cast(y.dtype), y).cast(x.dtype)]
    return [(x ** y.cast(x.dtype)).cast(x.dtype)]


@handler("Max", "Min", "Sum", "Mean")
def variadic(n):
    xs = [n.x(i) for i in range(n.n_in) if n.has(i)]
    name = {"Max": "max", "Min": "min", "Sum": "add", "Mean": "add"}[n.op]
    if xs[0].dtype == "i1" and name in ("max", "min"):
        name = "or" if name == "max" else "and"
    out = xs[0]
    for x in xs[1:]:
        out = op(name, out, x)
    if n.op == "Mean":
        out = out / scalar_like(out, len(xs))
    return [out]


@handler("Where")
def where(n):
    return [op("where", n.x(0).cast("i1"), n.x(1), n.x(2))]


@handler("Identity")
def identity(n):
    return [n.raw(0)]


@handler("Dropout")
def dropout(n):
    training = n.has(2) and bool(np.asarray(n.s(2)).reshape(-1)[0])
    ratio = float(np.asarray(n.s(1)).reshape(-1)[0]) if n.has(1) else n.attr("ratio", 0.5)
    if training and ratio != 0:
        raise Unsupported("training_mode=True with a non-zero ratio draws random numbers (kiln imports inference graphs)")
    x = n.x(0)
    outs = [x]
    if n.n_out > 1:
        outs.append(x.full_like(True, dtype="i1"))
    return outs


@handler("Cast", "CastLike")
def cast(n):
    to, narrow = _cast_target(n)
    saturate = bool(n.attr("saturate", 1))
    round_mode = n.attr("round_mode", "up")
    if n.is_static(0):  # a constant cast like a runtime tensor: still a constant (onnx's reference converts it)
        return [cast_to(np.asarray(n.s(0)), narrow_elem_type(narrow) if narrow else np_dtype_to_tensor_dtype(
            to_numpy(to)), saturate, round_mode)]
    source = n.narrow(0)
    if narrow is not None:  # saturate is defined for float8 targets only
        x = decode(source, "f32") if source is not None else n.x(0)
        return [encode(x, narrow, saturate and narrow.is_float and narrow.bits == 8, round_mode)]
    if source is not None:
        return [decode(source, to)]
    x = n.x(0)
    if to == "i1" and x.dtype != "i1":
        return [op("ne", x, scalar_like(x, 0))]
    if x.dtype == to:
        return [x]
    return [x.cast(to)]


def _cast_target(n):
    """(kiln dtype, None) or (None, narrow type) that Cast's ``to`` or CastLike's second input names."""
    if n.op == "Cast":
        narrow = narrow_type(n.attr("to"))
        return (None, narrow) if narrow else (kiln_dtype(n.attr("to")), None)
    like = n.raw(1)
    if isinstance(like, Narrow):
        return None, like.type
    narrow = narrow_type_of(like.dtype) if isinstance(like, np.ndarray) else None
    return (None, narrow) if narrow else (n.x(1).dtype, None)


@handler("Clip")
def clip(n):
    x = n.x(0)
    if n.opset < 11:
        lo, hi = n.attr("min", None), n.attr("max", None)
        lo_t = scalar_like(x, lo) if lo is not None else None
        hi_t = scalar_like(x, hi) if hi is not None else None
    else:
        lo_t = n.x(1) if n.has(1) else None
        hi_t = n.x(2) if n.has(2) else None
    if lo_t is not None:
        x = op("where", op("lt", x, lo_t), lo_t, x) if not is_float_dtype(x.dtype) else x.maximum(lo_t)
    if hi_t is not None:
        x = op("where", op("gt", x, hi_t), hi_t, x) if not is_float_dtype(x.dtype) else x.minimum(hi_t)
    return [x]


@handler("Constant")
def constant(n):
    from onnx import numpy_helper

    for key in ("value", "value_float", "value_int", "value_floats", "value_ints"):
        if key in n.attrs:
            v = n.attrs[key]
            if key == "value":
                return [numpy_helper.to_array(v)]
            dt = np.float32 if "float" in key else np.int64
            return [np.array(v, dtype=dt)]
    raise Unsupported("only tensor, float and int constants (no sparse or string values)")


@handler("BitCast")
def bitcast(n):
    to = kiln_dtype(n.attr("to"))
    x = n.x(0)
    if np.dtype(to_numpy(to)).itemsize != np.dtype(to_numpy(x.dtype)).itemsize:
        raise Unsupported("BitCast between types of different widths")
    if to == x.dtype:
        return [x]
    if "i1" in (to, x.dtype):  # a bool is one byte holding 0 or 1
        return [op("ne", x, scalar_like(x, 0)) if to == "i1" else x.cast(to)]
    return [op("bitcast", x, result=(x._node.shape, to))]
