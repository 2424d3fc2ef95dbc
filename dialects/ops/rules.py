"""Decompositions of declared ops into other ALU ops, for targets without a native rendering.

Each rule is written once against ``RuleBuilder`` (``kiln.dialects.ops.spec``) and applied by ``uop-decompose``;
an op a rule emits that the target lacks is decomposed in turn (``asin`` through ``atan``). The formulas avoid
cancellation where the naive one has it (``sinh`` near 0, ``acosh`` near 1, ``atanh``/``asinh`` near 0), keep the
sign of zero for odd functions, and give numpy's values at the domain edges (``asin(±1)``, ``acosh(1)``,
``atanh(±1) = ±inf``) and nan outside the domain. Their accuracy as cpu-llvm machine code, against numpy in f64,
is asserted in test/python/test_elementwise_ops.py: within 4 ulp in f32 and f64 (erfc: 8 and 600, see there);
webgpu's within WGSL's exp bound (3 + 2|x| ulp) plus 16; on PTX they inherit the ``.approx`` instructions'
error (not measured: no GPU here).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from kiln.dialects.ops.spec import RuleBuilder

if TYPE_CHECKING:  # the rules are imported with the op table, which must not import xDSL
    from xdsl.ir import SSAValue

HUGE = 2.0**28
"""From here ``asinh(x) = log(2x)`` and ``acosh(x) = log(2x)`` to below an ulp of f64 (the dropped term is
``1/(4x^2)``), and ``x^2`` no longer risks overflow."""
SINH_SERIES_BELOW = 1.0
"""``sinh`` by its Taylor series below this |x| (no cancellation), by ``exp`` above (no cancellation either)."""
ATAN_MID = math.tan(math.pi / 8)
"""Above this, ``atan(z) = pi/4 + atan((z - 1) / (z + 1))`` brings the series' argument back below it."""


def _terms(b: RuleBuilder, x: SSAValue, single: int, double: int) -> int:
    return double if b.double(x) else single


def _odd(b: RuleBuilder, x: SSAValue, coefficients: list[float]) -> SSAValue:
    """``x + x * (x^2 * P(x^2))`` for an odd series ``x + c1 x^3 + ...``: adding x last keeps the series' rounding
    below an ulp of the result, and x = -0 gives -0."""
    x2 = b.alu("mul", x, x)
    return b.alu("add", x, b.alu("mul", x, b.alu("mul", x2, b.poly(coefficients, x2))))


ERFC_CHEBYSHEV = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
    -0.82215223, 0.17087277,
)  # fmt: skip
"""erfc(z) = t * exp(-z^2 + sum(c_i * t^i)), t = 1 / (1 + z/2), z >= 0 (Numerical Recipes, erfcc)."""
ERFC_FRACTION_DEPTH = 40


def erfc_chebyshev(b: RuleBuilder, z: SSAValue, split_square: bool = False) -> SSAValue:
    """erfc(z) for z >= 0 to 1.2e-7 relative (Numerical Recipes). ``split_square``: ``-z^2`` as ``-h^2 + (h - z)
    (h + z)``, h = z to 1/16 below 11 (its square is exact), so that the rounding of z^2 (up to 2^-24 * 121
    absolute in the exponent) does not become the relative error of a tiny erfc; erf, which subtracts the
    result from 1, does not need it."""
    one = b.const(1, z)
    t = b.alu("div", one, b.alu("add", one, b.alu("mul", z, b.const(0.5, z))))
    if not split_square:
        return b.alu("mul", t, b.alu("exp", b.alu("sub", b.poly(ERFC_CHEBYSHEV, t), b.alu("mul", z, z))))
    z = b.alu("min", z, b.const(11, z))  # erfc(11) is 0 in f32; h - z would be inf - inf
    sixteen = b.const(16, z)
    h = b.alu("div", b.alu("floor", b.alu("mul", z, sixteen)), sixteen)
    rest = b.alu("add", b.alu("mul", b.alu("sub", h, z), b.alu("add", h, z)), b.poly(ERFC_CHEBYSHEV, t))
    return b.alu("mul", b.alu("mul", t, b.alu("exp", b.alu("neg", b.alu("mul", h, h)))), b.alu("exp", rest))


def erfc_fraction(b: RuleBuilder, z: SSAValue) -> SSAValue:
    """erfc(z) for z >= 2 to f64 precision: exp(-z^2) / sqrt(pi) / (z + (1/2)/(z + 1/(z + (3/2)/(z + ...))))."""
    f = z
    for k in range(ERFC_FRACTION_DEPTH, 0, -1):
        f = b.alu("add", z, b.alu("div", b.const(k / 2, z), f))
    gauss = b.alu("exp", b.alu("neg", b.alu("mul", z, z)))
    return b.alu("div", gauss, b.alu("mul", f, b.const(math.sqrt(math.pi), z)))


def erfc(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``erfc(|x|)``, or ``2 - erfc(|x|)`` for negative x: f32 by the Chebyshev fit (1.2e-7 relative, ~3 ulp),
    f64 as ``1 - erf(|x|)`` below 2 (its cancellation costs up to ~500 ulp, 1e-13 relative, near 2) and by the
    continued fraction above."""
    z = b.alu("abs", x)
    if b.double(x):
        near = b.alu("sub", b.const(1, x), b.alu("erf", z))
        tail = b.where(b.alu("cmplt", z, b.const(2, x)), near, erfc_fraction(b, z))
    else:
        tail = erfc_chebyshev(b, z, split_square=True)
    return b.where(b.alu("cmplt", x, b.const(0, x)), b.alu("sub", b.const(2, x), tail), tail)


def _with_sign_of(b: RuleBuilder, magnitude: SSAValue, x: SSAValue) -> SSAValue:
    """``magnitude`` negated where x < 0, and x itself where x is ±0 (odd functions keep the sign of zero)."""
    zero = b.const(0, x)
    signed = b.where(b.alu("cmplt", x, zero), b.alu("neg", magnitude), magnitude)
    return b.where(b.alu("cmpeq", x, zero), x, signed)


def log1p(b: RuleBuilder, y: SSAValue) -> SSAValue:
    """``log(1 + y)``: near 0 (-1/2 < y < 1) as ``2 atanh(s)``, ``s = y / (2 + y)`` in (-1/3, 1/3), by its series
    (8 terms, f64 17), since ``log(1 + y)`` there loses the low bits of y to the rounding of 1 + y, and some
    targets' log is only accurate to 2^-21 absolute near 1 (WGSL, PTX's ``lg2.approx``); elsewhere
    ``log(1 + y)``."""
    one = b.const(1, y)
    s = b.alu("div", y, b.alu("add", b.const(2, y), y))
    series = [1 / (2 * n + 1) for n in range(1, _terms(b, y, 8, 17))]
    near_zero = b.alu("and", b.alu("cmplt", b.const(-0.5, y), y), b.alu("cmplt", y, one))
    return b.where(near_zero, b.alu("mul", _odd(b, s, series), b.const(2, y)), b.alu("log", b.alu("add", one, y)))


def isnan(b: RuleBuilder, x: SSAValue) -> SSAValue:
    return b.is_nan(x)


def isinf(b: RuleBuilder, x: SSAValue) -> SSAValue:
    return b.is_inf(x)


def atan(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``atan(|x|)`` as ``pi/2 - atan(1/|x|)`` above 1, ``pi/4 + atan((z-1)/(z+1))`` above tan(pi/8), then the
    Taylor series (9 terms, f64 21) on |w| <= tan(pi/8); signed like x."""
    one = b.const(1, x)
    a = b.alu("abs", x)
    beyond_one = b.alu("cmplt", one, a)
    z = b.where(beyond_one, b.alu("div", one, a), a)
    middle = b.alu("cmplt", b.const(ATAN_MID, x), z)
    w = b.where(middle, b.alu("div", b.alu("sub", z, one), b.alu("add", z, one)), z)
    series = [(-1) ** n / (2 * n + 1) for n in range(1, _terms(b, x, 9, 21))]
    r = _odd(b, w, series)
    r = b.where(middle, b.alu("add", b.const(math.pi / 4, x), r), r)
    r = b.where(beyond_one, b.alu("sub", b.const(math.pi / 2, x), r), r)
    return _with_sign_of(b, r, x)


def asin(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``atan(x / sqrt((1 - x)(1 + x)))``: ±pi/2 at ±1 (x / 0 is ±inf), nan beyond."""
    one = b.const(1, x)
    cos = b.alu("sqrt", b.alu("mul", b.alu("sub", one, x), b.alu("add", one, x)))
    return b.alu("atan", b.alu("div", x, cos))


def acos(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``2 atan(sqrt((1 - x) / (1 + x)))``: 0 at 1, pi at -1 (sqrt(2 / 0) is inf), nan beyond."""
    one = b.const(1, x)
    half_tan = b.alu("sqrt", b.alu("div", b.alu("sub", one, x), b.alu("add", one, x)))
    return b.alu("mul", b.const(2, x), b.alu("atan", half_tan))


def _exp_halves(b: RuleBuilder, a: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(e^a / 2, e^-a / 2) for a >= 0 from one ``exp(a / 2)``: e^a / 2 stays finite while sinh and cosh are."""
    h = b.alu("exp", b.alu("mul", a, b.const(0.5, a)))
    half = b.const(0.5, a)
    # h / (2 / h), not h * h / 2: compilers that reassociate products (LLVM's reassoc) may form h * h first
    return b.alu("div", h, b.alu("div", b.const(2, a), h)), b.alu("div", b.alu("div", half, h), h)


def sinh(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """Taylor series (7 terms, f64 10) below |x| = 1, where ``(e^x - e^-x) / 2`` cancels; above, that formula."""
    a = b.alu("abs", x)
    series = [1 / math.factorial(2 * n + 1) for n in range(1, _terms(b, x, 7, 10))]
    small = _odd(b, x, series)
    grow, shrink = _exp_halves(b, a)
    large = _with_sign_of(b, b.alu("sub", grow, shrink), x)
    return b.where(b.alu("cmplt", a, b.const(SINH_SERIES_BELOW, x)), small, large)


def cosh(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``e^|x| / 2 + e^-|x| / 2``: a sum of positive terms, no cancellation."""
    grow, shrink = _exp_halves(b, b.alu("abs", x))
    return b.alu("add", grow, shrink)


def tan(b: RuleBuilder, x: SSAValue) -> SSAValue:
    return b.alu("div", b.alu("sin", x), b.alu("cos", x))


def asinh(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``log1p(a + a^2 / (1 + sqrt(1 + a^2)))``, a = |x| (the form without cancellation near 0), ``log(2a)`` from
    ``HUGE``; signed like x."""
    one = b.const(1, x)
    a = b.alu("abs", x)
    a2 = b.alu("mul", a, a)
    moderate = log1p(b, b.alu("add", a, b.alu("div", a2, b.alu("add", one, b.alu("sqrt", b.alu("add", one, a2))))))
    huge = b.alu("add", b.alu("log", a), b.const(math.log(2), x))
    return _with_sign_of(b, b.where(b.alu("cmplt", a, b.const(HUGE, x)), moderate, huge), x)


def acosh(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``log1p(t + sqrt(2t + t^2))``, t = x - 1 (exact near 1, where acosh is 0), ``log(2x)`` from ``HUGE``; nan
    below 1."""
    t = b.alu("sub", x, b.const(1, x))
    root = b.alu("sqrt", b.alu("add", b.alu("mul", t, b.const(2, x)), b.alu("mul", t, t)))
    moderate = log1p(b, b.alu("add", t, root))
    huge = b.alu("add", b.alu("log", x), b.const(math.log(2), x))
    r = b.where(b.alu("cmplt", x, b.const(HUGE, x)), moderate, huge)
    return b.where(b.alu("cmplt", t, b.const(0, x)), b.const(math.nan, x), r)  # t^2 may overflow for x < -1


def atanh(b: RuleBuilder, x: SSAValue) -> SSAValue:
    """``log1p(2a / (1 - a)) / 2``, a = |x|: ±inf at ±1, nan beyond; signed like x."""
    a = b.alu("abs", x)
    ratio = b.alu("div", b.alu("mul", a, b.const(2, x)), b.alu("sub", b.const(1, x), a))
    return _with_sign_of(b, b.alu("mul", log1p(b, ratio), b.const(0.5, x)), x)


__all__ = ["acos", "erfc", "erfc_chebyshev", "erfc_fraction", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "isinf", "isnan", "log1p", "sinh", "tan"]
