"""The one symbolic integer algebra: index expressions with interval bounds and a simplifier.

Every engine that reasons about integer index arithmetic uses this module: the scheduler
(``lowering/graph_to_kernel.py`` folds movement ops into index arithmetic), the linearizer, ``uop-simplify``, the
optimizer's search space, and the runtime, which evaluates launch sizes stored as text in IR attributes.

Contract:

- Values are unbounded integers (index math is assumed not to overflow). Every node knows inclusive interval bounds
  (``vmin``/``vmax``) derived from its variables' bounds; every value an expression takes for variable values
  within their bounds lies within them.
- The builders (``add``, ``mul``, ``cdiv``, ``fdiv``, ``lt``, ...) return an already simplified expression, so
  building *is* simplifying; ``Expr.simplify()`` rebuilds an expression through them. Simplification never changes
  the value for variable values within bounds.
- Two division semantics, as distinct operations: ``cdiv``/``cmod`` truncate toward zero as in C and as the
  ``uop``/``kernel`` index ops do (``cdiv(-7, 2) == -3``, ``cmod(-7, 2) == -1``); ``fdiv``/``fmod`` round toward
  negative infinity as Python does (``fdiv(-7, 2) == -4``, ``fmod(-7, 2) == 1``), the semantics of the scheduler's
  index algebra and of the size syntax. Comparisons and logical ops give 0 or 1.
- Normal forms: a linear combination is a ``Sum`` of (term, coefficient) pairs plus a constant (terms are never
  constants or sums; ``(x // c) * c + x % c`` recombines into ``x`` in either semantics); a product of non-constant
  factors is a ``Prod`` (sums are distributed); division and remainder by a constant always have a positive
  divisor, with multiples of the divisor split off and common factors taken out (``(i*64 + j) // 64`` is ``i`` for
  ``0 <= j < 64``). A floor division by a symbolic divisor splits off what the divisor divides when the remainder
  is provably below it, by bounds or because it is a variable declared ``below`` the divisor (a range of that size).
- Text: ``parse`` reads the size syntax of IR attributes (``"ceildiv(N*32, 256)"``: ``+ - * // %`` with Python
  semantics, ``ceildiv``, ``max``, ``min`` over symbol names and literals); ``render`` prints for messages.
  ``compile_size`` turns size text into a closure evaluated at every kernel launch (the JIT's replay cost), parsed
  and simplified once per distinct text and never ``eval``-ed.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections import Counter
from collections.abc import Callable, Mapping
from functools import cached_property, reduce

INDEX_MIN, INDEX_MAX = -(2**63), 2**63 - 1
"""Bounds of a 64-bit index: the bounds of a value nothing else is known about."""


def c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a: int, b: int) -> int:
    """Remainder with the sign of the dividend (C): ``a - b * c_div(a, b)``."""
    return a - b * c_div(a, b)


# ---------------------------------------------------------------------------------------------
# nodes


class Expr:
    """An immutable expression node; equal structure means equal (and equal hash)."""

    RANK = 0

    def _fields(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is type(self) and self._fields() == other._fields())  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            self._hash = hash((type(self).__name__, self._fields()))
            return self._hash

    @property
    def children(self) -> tuple[Expr, ...]:
        return ()

    def _tag(self) -> tuple:
        """What, besides its children, tells this node apart from others of its class (for ``sort_key``)."""
        return ()

    @cached_property
    def sort_key(self) -> tuple:
        """A total order used to sort terms and factors (variables in their declared order first)."""
        return (self.RANK, self._tag(), tuple(c.sort_key for c in self.children))

    @cached_property
    def bounds(self) -> tuple[int, int]:
        return self._bounds()

    def _bounds(self) -> tuple[int, int]:
        raise NotImplementedError

    @property
    def vmin(self) -> int:
        return self.bounds[0]

    @property
    def vmax(self) -> int:
        return self.bounds[1]

    def evaluate(self, env: Mapping[str, int]) -> int:
        """The value for variable values ``env`` (by name)."""
        raise NotImplementedError

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        """A closure computing ``evaluate``: one call per node and no dispatch, for values computed at run time."""
        raise NotImplementedError

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        """The same operation over new children, built (so simplified) by the builders."""
        raise NotImplementedError

    def simplify(self) -> Expr:
        return self.rebuild(tuple(c.simplify() for c in self.children)) if self.children else self

    def variables(self) -> set[Var]:
        if isinstance(self, Var):
            return {self}
        return set().union(*(c.variables() for c in self.children)) if self.children else set()

    # arithmetic sugar for the builders
    def __add__(self, other: Expr | int) -> Expr:
        return add(self, other)

    def __radd__(self, other: int) -> Expr:
        return add(other, self)

    def __sub__(self, other: Expr | int) -> Expr:
        return sub(self, other)

    def __rsub__(self, other: int) -> Expr:
        return sub(other, self)

    def __mul__(self, other: Expr | int) -> Expr:
        return mul(self, other)

    def __rmul__(self, other: int) -> Expr:
        return mul(other, self)

    def __neg__(self) -> Expr:
        return mul(self, -1)

    def __repr__(self) -> str:
        return render(self)


class Const(Expr):
    RANK = -1

    def __init__(self, value: int):
        self.value = int(value)

    def _fields(self) -> tuple:
        return (self.value,)

    _tag = _fields

    def _bounds(self) -> tuple[int, int]:
        return (self.value, self.value)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.value

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        value = self.value
        return lambda env: value


class Var(Expr):
    """A variable with inclusive bounds; ``order`` places it among the terms of a sum (smaller first).

    ``below`` is an expression the variable is known to stay under even where bounds cannot show it: a loop
    index over a symbolic size ``K`` is below ``K``, which lets ``fdiv(i*K + k, K)`` fold to ``i``."""

    RANK = 0

    def __init__(self, name: str, lo: int, hi: int, order: int = 0, below: Expr | None = None):
        if lo > hi:
            raise ValueError(f"variable {name} has empty bounds [{lo}, {hi}]")
        self.name, self.lo, self.hi, self.order, self.below = name, int(lo), int(hi), order, below

    def _fields(self) -> tuple:
        return (self.name, self.lo, self.hi, self.order, self.below)

    def _tag(self) -> tuple:
        return (self.order, self.name, self.lo, self.hi)

    def _bounds(self) -> tuple[int, int]:
        return (self.lo, self.hi)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return env[self.name]

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        name = self.name
        return lambda env: env[name]


class Sum(Expr):
    """``sum(coef * term) + const`` with at least one term; terms sorted by ``sort_key``."""

    RANK = 1

    def __init__(self, terms: tuple[tuple[Expr, int], ...], const: int):
        self.terms, self.const = terms, const

    def _fields(self) -> tuple:
        return (self.terms, self.const)

    def _tag(self) -> tuple:
        return (tuple(c for _, c in self.terms), self.const)

    @property
    def children(self) -> tuple[Expr, ...]:
        return tuple(t for t, _ in self.terms)

    def _bounds(self) -> tuple[int, int]:
        lo = hi = self.const
        for t, c in self.terms:
            a, b = t.vmin * c, t.vmax * c
            lo, hi = lo + min(a, b), hi + max(a, b)
        return (lo, hi)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.const + sum(t.evaluate(env) * c for t, c in self.terms)

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        const = self.const
        terms = tuple((t.compile(), c) for t, c in self.terms)
        if len(terms) == 1:
            ((f, c),) = terms
            return lambda env: f(env) * c + const
        return lambda env: const + sum(f(env) * c for f, c in terms)

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        return reduce(add, (mul(t, c) for t, (_, c) in zip(children, self.terms)), Const(self.const))


class Prod(Expr):
    """A product of at least two non-constant, non-sum factors, sorted."""

    RANK = 2

    def __init__(self, factors: tuple[Expr, ...]):
        self.factors = factors

    def _fields(self) -> tuple:
        return (self.factors,)

    @property
    def children(self) -> tuple[Expr, ...]:
        return self.factors

    def _bounds(self) -> tuple[int, int]:
        return reduce(_interval_mul, (f.bounds for f in self.factors))

    def evaluate(self, env: Mapping[str, int]) -> int:
        return math.prod(f.evaluate(env) for f in self.factors)

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        factors = tuple(f.compile() for f in self.factors)
        return lambda env: math.prod(f(env) for f in factors)

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        return reduce(mul, children)


class Binary(Expr):
    """An operation on two operands; subclasses name it (``OP``) and say what it means."""

    OP = ""
    RANK = 3

    def __init__(self, lhs: Expr, rhs: Expr):
        self.lhs, self.rhs = lhs, rhs

    def _fields(self) -> tuple:
        return (self.lhs, self.rhs)

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.lhs, self.rhs)

    def _tag(self) -> tuple:
        return (self.OP,)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return _EVAL[self.OP](self.lhs.evaluate(env), self.rhs.evaluate(env))

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        op, lhs, rhs = _EVAL[self.OP], self.lhs.compile(), self.rhs.compile()
        return lambda env: op(lhs(env), rhs(env))

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        return BUILDERS[self.OP](*children)


class Quotient(Binary):
    """A division, truncating (``Div``) or flooring (``FloorDiv``)."""

    def _bounds(self) -> tuple[int, int]:
        (a, b), (c, d) = self.lhs.bounds, self.rhs.bounds
        if c > 0 or d < 0:  # either rounding of x / y is monotone in x and in y while y keeps its sign
            q = [_EVAL[self.OP](x, y) for x in (a, b) for y in (c, d)]
            return (min(q), max(q))
        m = max(abs(a), abs(b))
        return (-m, m)


class Div(Quotient):
    OP = "div"


class Mod(Binary):
    OP = "mod"

    def _bounds(self) -> tuple[int, int]:
        (a, b), (c, d) = self.lhs.bounds, self.rhs.bounds
        m = max(abs(c), abs(d)) - 1
        if a >= 0:
            if c == d and b - a < c and a % c <= b % c:  # the whole range stays within one period
                return (a % c, b % c)
            return (0, min(b, m))
        if b <= 0:
            return (max(a, -m), 0)
        return (max(a, -m), min(b, m))


class FloorDiv(Quotient):
    OP = "floordiv"


class FloorMod(Binary):
    OP = "floormod"

    def _bounds(self) -> tuple[int, int]:
        (a, b), (c, d) = self.lhs.bounds, self.rhs.bounds
        if c == d and c > 0 and a // c == b // c:  # the whole range stays within one period
            return (a % c, b % c)
        if c > 0:  # the sign of the divisor
            return (0, d - 1 if a < 0 else min(b, d - 1))
        if d < 0:
            return (c + 1, 0)
        m = max(-c, d) - 1
        return (-m, m)


class Max(Binary):
    OP = "max"

    def _bounds(self) -> tuple[int, int]:
        return (max(self.lhs.vmin, self.rhs.vmin), max(self.lhs.vmax, self.rhs.vmax))


class Min(Binary):
    OP = "min"

    def _bounds(self) -> tuple[int, int]:
        return (min(self.lhs.vmin, self.rhs.vmin), min(self.lhs.vmax, self.rhs.vmax))


class Bool(Binary):
    """A binary op with a 0/1 result."""

    def _bounds(self) -> tuple[int, int]:
        return (0, 1)


class Lt(Bool):
    OP = "lt"


class Eq(Bool):
    OP = "eq"


class Ne(Bool):
    OP = "ne"


class And(Bool):
    OP = "and"


class Or(Bool):
    OP = "or"


class Not(Expr):
    RANK = 4

    def __init__(self, x: Expr):
        self.x = x

    def _fields(self) -> tuple:
        return (self.x,)

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.x,)

    def _bounds(self) -> tuple[int, int]:
        return (0, 1)

    def evaluate(self, env: Mapping[str, int]) -> int:
        return int(not self.x.evaluate(env))

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        x = self.x.compile()
        return lambda env: int(not x(env))

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        return logical_not(children[0])


class Where(Expr):
    RANK = 5

    def __init__(self, cond: Expr, lhs: Expr, rhs: Expr):
        self.cond, self.lhs, self.rhs = cond, lhs, rhs

    def _fields(self) -> tuple:
        return (self.cond, self.lhs, self.rhs)

    @property
    def children(self) -> tuple[Expr, ...]:
        return (self.cond, self.lhs, self.rhs)

    def _bounds(self) -> tuple[int, int]:
        return (min(self.lhs.vmin, self.rhs.vmin), max(self.lhs.vmax, self.rhs.vmax))

    def evaluate(self, env: Mapping[str, int]) -> int:
        return self.lhs.evaluate(env) if self.cond.evaluate(env) else self.rhs.evaluate(env)

    def compile(self) -> Callable[[Mapping[str, int]], int]:
        cond, lhs, rhs = self.cond.compile(), self.lhs.compile(), self.rhs.compile()
        return lambda env: lhs(env) if cond(env) else rhs(env)

    def rebuild(self, children: tuple[Expr, ...]) -> Expr:
        return where(*children)


_EVAL: dict[str, Callable[[int, int], int]] = {
    "div": c_div,
    "mod": c_mod,
    "floordiv": operator.floordiv,
    "floormod": operator.mod,
    "max": max,
    "min": min,
    "lt": lambda a, b: int(a < b),
    "eq": lambda a, b: int(a == b),
    "ne": lambda a, b: int(a != b),
    "and": lambda a, b: int(bool(a) and bool(b)),
    "or": lambda a, b: int(bool(a) or bool(b)),
}


def _interval_mul(x: tuple[int, int], y: tuple[int, int]) -> tuple[int, int]:
    p = [a * b for a in x for b in y]
    return (min(p), max(p))


# ---------------------------------------------------------------------------------------------
# builders: each returns a simplified expression

ExprLike = Expr | int


def const(value: int | bool) -> Const:
    return Const(int(value))


def _e(x: ExprLike) -> Expr:
    return x if isinstance(x, Expr) else Const(x)


def linear(x: Expr) -> tuple[dict[Expr, int], int]:
    """``x`` as (term -> coefficient, constant): what a consumer iterates to materialize a sum."""
    if isinstance(x, Const):
        return {}, x.value
    if isinstance(x, Sum):
        return dict(x.terms), x.const
    return {x: 1}, 0


_QUOTIENT_OF: dict[type[Binary], type[Binary]] = {Mod: Div, FloorMod: FloorDiv}
"""The division each remainder node is the remainder of."""


def _quotients(rem: Binary) -> tuple[Expr, ...]:
    """The forms of the quotient that goes with remainder ``rem = y % c``: ``y // c``, and when ``y = x // a``
    (a > 0) also ``x // (a*c)``, which is how a flat index split over several dims (a reshape) divides."""
    quotient = _QUOTIENT_OF[type(rem)]
    c = rem.rhs.value  # type: ignore[attr-defined]
    y = rem.lhs
    forms: tuple[Expr, ...] = (quotient(y, rem.rhs),)
    if type(y) is quotient and isinstance(y.rhs, Const) and y.rhs.value > 0 and c > 0:  # type: ignore[attr-defined]
        forms += (quotient(y.lhs, Const(y.rhs.value * c)),)  # type: ignore[attr-defined]
    return forms


def _make_sum(terms: dict[Expr, int], k: int) -> Expr:
    """The normal form of ``sum(coef * term) + k``; recombines ``(x // c) * c + x % c`` into ``x`` (in either
    division semantics: the identity holds for both), also where the quotient is written ``x' // (a*c)`` for
    ``x = x' // a``: ``(k // 9) * 9 + ((k // 3) % 3) * 3 + k % 3`` is ``k``."""
    terms = {t: c for t, c in terms.items() if c}
    for t in [t for t in terms if type(t) in _QUOTIENT_OF and isinstance(t.rhs, Const)]:
        coef = terms.get(t)
        div = next((q for q in _quotients(t) if coef and terms.get(q) == coef * t.rhs.value), None)
        if div is not None:
            del terms[t], terms[div]
            x_terms, x_k = linear(t.lhs)
            for u, c in x_terms.items():
                terms[u] = terms.get(u, 0) + c * coef
            return _make_sum(terms, k + x_k * coef)
    if not terms:
        return Const(k)
    if k == 0 and len(terms) == 1:
        ((t, c),) = terms.items()
        if c == 1:
            return t
    return Sum(tuple(sorted(terms.items(), key=lambda tc: tc[0].sort_key)), k)


def add(a: ExprLike, b: ExprLike) -> Expr:
    (ta, ka), (tb, kb) = linear(_e(a)), linear(_e(b))
    for t, c in tb.items():
        ta[t] = ta.get(t, 0) + c
    return _make_sum(ta, ka + kb)


def sub(a: ExprLike, b: ExprLike) -> Expr:
    return add(a, mul(b, -1))


def _scale(x: Expr, k: int) -> Expr:
    terms, c = linear(x)
    return _make_sum({t: v * k for t, v in terms.items()}, c * k)


def factors(x: Expr) -> tuple[Expr, ...]:
    """The factors of a product term (the term itself when it is not a product)."""
    return x.factors if isinstance(x, Prod) else (x,)


def mul(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    if isinstance(a, Const):
        return _scale(b, a.value)
    if isinstance(b, Const):
        return _scale(a, b.value)
    if isinstance(a, Sum) or isinstance(b, Sum):  # distribute: a polynomial normal form
        (ta, ka), (tb, kb) = linear(a), linear(b)
        out: Expr = Const(ka * kb)
        for t, c in ta.items():
            out = add(out, _scale(t, c * kb))
            for u, d in tb.items():
                out = add(out, _scale(mul(t, u), c * d))
        for u, d in tb.items():
            out = add(out, _scale(u, ka * d))
        return out
    return Prod(tuple(sorted(factors(a) + factors(b), key=lambda f: f.sort_key)))


def _same_sign(x: Expr, y: Expr) -> bool:
    """Both never negative or both never positive: C division then agrees with splitting off multiples."""
    return (x.vmin >= 0 and y.vmin >= 0) or (x.vmax <= 0 and y.vmax <= 0)


def _split_at(x: Expr, c: int) -> tuple[Expr, Expr]:
    """``(q, r)`` with ``x = c * q + r``: q takes the terms whose coefficient c divides and the floor quotient of
    the constant, r the rest (so ``fdiv(x, c) == q + fdiv(r, c)`` whatever the signs)."""
    terms, k = linear(x)
    q_terms = {t: v // c for t, v in terms.items() if v % c == 0}
    r_terms = {t: v for t, v in terms.items() if v % c}
    return _make_sum(q_terms, k // c), _make_sum(r_terms, k % c)


def _reduce_coefficients(x: Expr, c: int) -> tuple[Expr, Expr]:
    """``(q, r)`` with ``x = c * q + r`` and every coefficient of r (and its constant) in ``[0, c)``: each term's
    coefficient split by floor division. When ``0 <= r < c`` this gives ``x // c == q`` and ``x % c == r``: a
    sliding window ``(i*(D+1) + o) % D`` is ``i + o`` when ``i + o < D``."""
    terms, k = linear(x)
    q_terms = {t: v // c for t, v in terms.items() if v // c}
    r_terms = {t: v % c for t, v in terms.items() if v % c}
    return _make_sum(q_terms, k // c), _make_sum(r_terms, k % c)


def _split_multiples(x: Expr, c: int) -> tuple[Expr, Expr] | None:
    """``_split_at``, or None when nothing splits off."""
    q, r = _split_at(x, c)
    return None if q == Const(0) else (q, r)


def _common_factor(x: Expr, c: int) -> int:
    terms, k = linear(x)
    return math.gcd(c, k, *terms.values())


def cdiv(a: ExprLike, b: ExprLike) -> Expr:
    """``a / b`` truncated toward zero."""
    a, b = _e(a), _e(b)
    if not isinstance(b, Const):
        if a == Const(0):
            return a
        if a == b and (b.vmin > 0 or b.vmax < 0):
            return Const(1)
        if a.vmin >= 0 and b.vmin > a.vmax:
            return Const(0)
        return Div(a, b)
    c = b.value
    if c == 0:
        return Div(a, b)  # undefined: left for the target
    if isinstance(a, Const):
        return Const(c_div(a.value, c))
    if c < 0:
        return mul(cdiv(a, -c), -1)
    if c == 1:
        return a
    if isinstance(a, Div) and isinstance(a.rhs, Const) and a.rhs.value > 0:
        return cdiv(a.lhs, a.rhs.value * c)
    lo, hi = c_div(a.vmin, c), c_div(a.vmax, c)
    if lo == hi:
        return Const(lo)
    if (g := _common_factor(a, c)) > 1:
        return cdiv(_scale_down(a, g), c // g)
    if (split := _split_multiples(a, c)) and _same_sign(a, split[1]):
        return add(split[0], cdiv(split[1], c))
    return Div(a, b)


def _scale_down(x: Expr, g: int) -> Expr:
    terms, k = linear(x)
    return _make_sum({t: v // g for t, v in terms.items()}, k // g)


def cmod(a: ExprLike, b: ExprLike) -> Expr:
    """Remainder of ``cdiv(a, b)``: the sign of ``a``."""
    a, b = _e(a), _e(b)
    if not isinstance(b, Const):
        if a == b or a == Const(0):
            return Const(0)
        if a.vmin >= 0 and b.vmin > a.vmax:
            return a
        return Mod(a, b)
    c = abs(b.value)
    if c == 0:
        return Mod(a, b)
    if isinstance(a, Const):
        return Const(c_mod(a.value, c))
    if c == 1:
        return Const(0)
    if -c < a.vmin and a.vmax < c:
        return a
    if isinstance(a, Mod) and isinstance(a.rhs, Const) and a.rhs.value % c == 0:
        return cmod(a.lhs, c)
    if (g := _common_factor(a, c)) > 1:
        return mul(cmod(_scale_down(a, g), c // g), g)
    if (split := _split_multiples(a, c)) and _same_sign(a, split[1]):
        return cmod(split[1], c)
    if a.vmin >= 0 and a.vmin // c == a.vmax // c:
        return sub(a, c * (a.vmin // c))
    return Mod(a, Const(c))


def _factor(x: Expr, c: int) -> tuple[Expr, Expr, int] | None:
    """``(part, small, g)`` with ``x = part * g + small``, ``g`` a divisor of ``c`` above 1 and
    ``0 <= small < g``: then ``x // c == part // (c // g)`` and ``x % c == (part % (c // g)) * g + small`` in floor
    semantics (``(4*i + j) // 8`` is ``i // 2`` for ``0 <= j < 4``). The largest such g, or None."""
    terms, k = linear(x)
    for g in sorted({math.gcd(c, v) for v in terms.values()} - {1, c}, reverse=True):
        small = _make_sum({t: v for t, v in terms.items() if v % g}, k % g)
        if 0 <= small.vmin and small.vmax < g:
            return _make_sum({t: v // g for t, v in terms.items() if v % g == 0}, k // g), small, g
    return None


def _split_symbolic(x: Expr, d: Expr) -> tuple[Expr, Expr] | None:
    """``(q, r)`` with ``x = q * d + r`` and ``0 <= r < d``, for a positive divisor that is one variable or a
    product of them: what a reshape over symbolic dims leaves, ``(i*K + k) // K`` with ``k`` a range of size
    ``K``. None when ``0 <= r < d`` cannot be shown."""
    if isinstance(d, (Const, Sum)) or d.vmin <= 0:
        return None
    divisor = Counter(factors(d))
    terms, k = linear(x)
    q: Expr = Const(0)
    r: Expr = Const(k)
    for t, v in terms.items():
        have = Counter(factors(t))
        if have & divisor == divisor:
            q = add(q, reduce(mul, (have - divisor).elements(), Const(v)))
        else:
            r = add(r, mul(t, v))
    below = r.vmax < d.vmin or (isinstance(r, Var) and r.below == d)
    return (q, r) if r.vmin >= 0 and below else None


def fdiv(a: ExprLike, b: ExprLike) -> Expr:
    """``a / b`` rounded toward negative infinity (Python's ``//``)."""
    a, b = _e(a), _e(b)
    if not isinstance(b, Const):
        if a == b and b.vmin > 0:
            return Const(1)
        if (split := _split_symbolic(a, b)) is not None:
            return split[0]
        return FloorDiv(a, b)
    c = b.value
    if c == 0:
        return FloorDiv(a, b)  # undefined: left for the target
    if isinstance(a, Const):
        return Const(a.value // c)
    if c < 0:
        return fdiv(mul(a, -1), -c)
    if c == 1:
        return a
    q, r = _split_at(a, c)
    if r.vmin // c == r.vmax // c:  # one quotient over r's bounds (x - 1 for x in [1, 9], by 9: 0)
        return add(q, r.vmin // c)
    q_reduced, r_reduced = _reduce_coefficients(a, c)
    if 0 <= r_reduced.vmin and r_reduced.vmax < c:
        return q_reduced
    if (factored := _factor(r, c)) is not None:
        part, _, g = factored
        return add(q, fdiv(part, c // g))
    return add(q, FloorDiv(r, b))


def fmod(a: ExprLike, b: ExprLike) -> Expr:
    """Remainder of ``fdiv(a, b)`` (Python's ``%``): the sign of ``b``."""
    a, b = _e(a), _e(b)
    if not isinstance(b, Const):
        if 0 <= a.vmin and a.vmax < b.vmin:
            return a
        if (split := _split_symbolic(a, b)) is not None:
            return split[1]
        return FloorMod(a, b)
    c = b.value
    if c == 0:
        return FloorMod(a, b)
    if isinstance(a, Const):
        return Const(a.value % c)
    if c < 0:
        return mul(fmod(mul(a, -1), -c), -1)
    if c == 1:
        return Const(0)
    _, r = _split_at(a, c)
    if r.vmin // c == r.vmax // c:
        return sub(r, r.vmin // c * c)
    _, r_reduced = _reduce_coefficients(a, c)
    if 0 <= r_reduced.vmin and r_reduced.vmax < c:
        return r_reduced
    if (factored := _factor(r, c)) is not None:
        part, small, g = factored
        return add(mul(fmod(part, c // g), g), small)
    return FloorMod(r, b)


def ceildiv(a: ExprLike, b: ExprLike) -> Expr:
    """``a / b`` rounded toward positive infinity."""
    a, b = _e(a), _e(b)
    if b.vmin > 0:  # the form sizes take: (a + b - 1) // b
        return fdiv(add(a, sub(b, 1)), b)
    return mul(fdiv(mul(a, -1), b), -1)


def _shift_constant(a: Expr, b: Expr) -> tuple[Expr, Expr]:
    """Move the constant of ``a - b`` to the right-hand side: ``x + 3 < y + 10`` -> ``x < y + 7``."""
    _, ka = linear(a)
    return sub(a, ka), sub(b, ka)


def lt(a: ExprLike, b: ExprLike) -> Expr:
    """``a < b`` as 0/1."""
    a, b = _e(a), _e(b)
    d = sub(a, b)
    if d.vmax < 0:
        return Const(1)
    if d.vmin >= 0:
        return Const(0)
    a, b = _shift_constant(a, b)
    if isinstance(b, Const):
        terms, _ = linear(a)
        g = math.gcd(*terms.values())
        if g > 1:  # g*x < B  <=>  x < ceil(B / g)
            return Lt(_scale_down(a, g), Const(-(-b.value // g)))
    return Lt(a, b)


def le(a: ExprLike, b: ExprLike) -> Expr:
    return lt(a, add(b, 1))


def eq(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    d = sub(a, b)
    if isinstance(d, Const):
        return Const(int(d.value == 0))
    if d.vmin > 0 or d.vmax < 0:
        return Const(0)
    return Eq(*_shift_constant(a, b))


def ne(a: ExprLike, b: ExprLike) -> Expr:
    e = eq(a, b)
    return Const(1 - e.value) if isinstance(e, Const) else Ne(e.lhs, e.rhs)  # type: ignore[attr-defined]


def maximum(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    d = sub(a, b)  # the difference cancels shared terms: max(k, k + 1) is k + 1 whatever k is
    if d.vmin >= 0:
        return a
    if d.vmax <= 0:
        return b
    return Max(*sorted((a, b), key=lambda x: x.sort_key))


def minimum(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    d = sub(a, b)
    if d.vmax <= 0:
        return a
    if d.vmin >= 0:
        return b
    return Min(*sorted((a, b), key=lambda x: x.sort_key))


def _truth(x: Expr) -> bool | None:
    """Whether a value is always true (nonzero), always false (zero), or either."""
    if x.vmin > 0 or x.vmax < 0:
        return True
    if x.vmin == x.vmax == 0:
        return False
    return None


def _as_bool(x: Expr) -> Expr:
    """``x != 0`` as 0/1 (``x`` itself when it is already 0 or 1)."""
    return x if 0 <= x.vmin and x.vmax <= 1 else ne(x, 0)


def logical_not(x: ExprLike) -> Expr:
    x = _e(x)
    if (t := _truth(x)) is not None:
        return Const(int(not t))
    if isinstance(x, Not):
        return _as_bool(x.x)
    if isinstance(x, Eq):
        return Ne(x.lhs, x.rhs)
    if isinstance(x, Ne):
        return Eq(x.lhs, x.rhs)
    return Not(x)


def logical_and(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    ta, tb = _truth(a), _truth(b)
    if ta is False or tb is False:
        return Const(0)
    if ta:
        return _as_bool(b)
    if tb or a == b:
        return _as_bool(a)
    return And(*sorted((a, b), key=lambda x: x.sort_key))


def logical_or(a: ExprLike, b: ExprLike) -> Expr:
    a, b = _e(a), _e(b)
    ta, tb = _truth(a), _truth(b)
    if ta or tb:
        return Const(1)
    if ta is False:
        return _as_bool(b)
    if tb is False or a == b:
        return _as_bool(a)
    return Or(*sorted((a, b), key=lambda x: x.sort_key))


def where(cond: ExprLike, a: ExprLike, b: ExprLike) -> Expr:
    cond, a, b = _e(cond), _e(a), _e(b)
    if (t := _truth(cond)) is not None:
        return a if t else b
    if a == b:
        return a
    if isinstance(cond, Not):
        return Where(cond.x, b, a)
    return Where(cond, a, b)


BUILDERS: dict[str, Callable[..., Expr]] = {
    "add": add,
    "sub": sub,
    "mul": mul,
    "div": cdiv,
    "mod": cmod,
    "floordiv": fdiv,
    "floormod": fmod,
    "ceildiv": ceildiv,
    "max": maximum,
    "min": minimum,
    "lt": lt,
    "le": le,
    "eq": eq,
    "ne": ne,
    "and": logical_and,
    "or": logical_or,
    "not": logical_not,
    "where": where,
}
"""Builders by operation name (binary ops take (lhs, rhs); ``not`` one operand; ``where`` three)."""


def substitute(x: Expr, mapping: Mapping[Var, Expr]) -> Expr:
    """``x`` with every variable in ``mapping`` replaced, rebuilt (so simplified again) by the builders."""
    if isinstance(x, Var):
        return mapping.get(x, x)
    children = tuple(substitute(c, mapping) for c in x.children)
    return x if all(a is b for a, b in zip(children, x.children)) else x.rebuild(children)


# ---------------------------------------------------------------------------------------------
# text


def render(x: Expr) -> str:
    """Readable infix text (for messages and tests); ``//`` and ``%`` here mean C division."""
    if isinstance(x, Const):
        return str(x.value)
    if isinstance(x, Var):
        return x.name
    if isinstance(x, Sum):
        parts = [render(t) if c == 1 else f"{render(t)}*{c}" for t, c in x.terms]
        return "(" + " + ".join(parts + ([str(x.const)] if x.const else [])) + ")"
    if isinstance(x, Prod):
        return "*".join(render(f) for f in x.factors)
    if isinstance(x, Not):
        return f"!{render(x.x)}"
    if isinstance(x, Where):
        return f"({render(x.cond)} ? {render(x.lhs)} : {render(x.rhs)})"
    assert isinstance(x, Binary)
    infix = {"div": "//", "mod": "%", "lt": "<", "eq": "==", "ne": "!=", "and": "&&", "or": "||"}
    if x.OP in infix:
        return f"({render(x.lhs)} {infix[x.OP]} {render(x.rhs)})"
    return f"{x.OP}({render(x.lhs)}, {render(x.rhs)})"


_SIZE_OPS: dict[type, Callable[[Expr, Expr], Expr]] = {
    ast.Add: add,
    ast.Sub: sub,
    ast.Mult: mul,
    ast.FloorDiv: fdiv,
    ast.Mod: fmod,
}
_SIZE_CALLS: dict[str, Callable[[Expr, Expr], Expr]] = {"ceildiv": ceildiv, "max": maximum, "min": minimum}


def parse(text: str, variables: Mapping[str, Expr] | None = None) -> Expr:
    """An expression in the size syntax of IR attributes (``"ceildiv(N*32, 256)"``): ``+ - * // %`` with Python
    semantics, ``ceildiv``, ``max`` and ``min`` over integer literals and symbol names. A name is looked up in
    ``variables``; without them every name is a variable nothing is known about."""

    def build(node: ast.AST) -> Expr:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return Const(node.value)
        if isinstance(node, ast.Name):
            return variables[node.id] if variables is not None else Var(node.id, INDEX_MIN, INDEX_MAX)
        if isinstance(node, ast.BinOp) and type(node.op) in _SIZE_OPS:
            return _SIZE_OPS[type(node.op)](build(node.left), build(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SIZE_CALLS:
            if len(node.args) == 2 and not node.keywords:
                return _SIZE_CALLS[node.func.id](build(node.args[0]), build(node.args[1]))
        raise ValueError(f"unsupported size expression: {ast.unparse(node)}")

    return build(ast.parse(text, mode="eval").body)


@functools.lru_cache(maxsize=4096)
def compile_size(text: str) -> Callable[[Mapping[str, int]], int]:
    """A closure computing size text from symbol values: parsed, simplified and compiled once per distinct text,
    so a kernel launch pays one closure call per size."""
    return parse(text).compile()


def evaluate_size(text: str, symbols: Mapping[str, int]) -> int:
    return compile_size(text)(symbols)


def size_symbols(text: str) -> set[str]:
    """The symbol names size text depends on."""
    return {v.name for v in parse(text).variables()}
