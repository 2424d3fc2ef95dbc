"""The symbolic index engine: named rewrites, and property-based agreement with direct evaluation."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kiln.support import symbolic as S
from kiln.support.symbolic import Const, Var, c_div, c_mod

i = Var("i", 0, 99, order=0)
j = Var("j", 0, 7, order=1)
k = Var("k", 0, 63, order=2)
n = Var("N", 1, 4096, order=3)
s = Var("s", -10, 10, order=4)


# ---------------------------------------------------------------------------------------------
# named rewrites


def test_c_division_semantics() -> None:
    assert (c_div(-7, 2), c_mod(-7, 2), c_div(7, -2), c_mod(7, -2)) == (-3, -1, -3, 1)
    assert S.cdiv(-7, 2) == Const(-3) and S.cmod(-7, 2) == Const(-1)


def test_identities_and_constant_folding() -> None:
    assert S.add(i, 0) == i and S.mul(i, 1) == i and S.mul(i, 0) == Const(0)
    assert S.cdiv(i, 1) == i and S.cmod(i, 1) == Const(0)
    assert S.add(S.add(i, 3), 4) == S.add(i, 7)
    assert S.sub(i, i) == Const(0)
    assert S.mul(S.add(i, 2), 3) == S.add(S.mul(i, 3), 6)


def test_div_mod_by_bounds() -> None:
    assert S.cdiv(k, 64) == Const(0) and S.cmod(k, 64) == k
    assert S.cdiv(k, 100) == Const(0)
    assert S.cmod(s, 11) == s  # |s| < 11: C remainder keeps it
    assert isinstance(S.cmod(s, 4), S.Mod)


def test_split_multiples_out_of_div_and_mod() -> None:
    x = i * 64 + k
    assert S.cdiv(x, 64) == i
    assert S.cmod(x, 64) == k
    assert S.cdiv(i * 8 + j + 16, 8) == S.add(i, 2)
    assert S.cmod(i * 8 + j + 16, 8) == j
    # b = 2*j + 1 may reach 15 >= 8: the quotient keeps a div of the remainder
    assert S.cdiv(i * 8 + j * 2 + 1, 8) == S.add(i, S.cdiv(j * 2 + 1, 8))


def test_gcd_and_nested_division() -> None:
    assert S.cdiv(i * 4 + j * 4, 8) == S.cdiv(i + j, 2)
    assert S.cmod(i * 4, 8) == S.mul(S.cmod(i, 2), 4)
    assert S.cdiv(S.cdiv(i, 4), 8) == S.cdiv(i, 32)
    assert S.cmod(S.cmod(i, 64), 8) == S.cmod(i, 8)


def test_recombine_div_and_mod() -> None:
    x = i * 3 + k  # 3 does not divide 64: no shortcut applies to x // 64
    assert S.add(S.mul(S.cdiv(x, 64), 64), S.cmod(x, 64)) == x
    assert S.add(S.mul(S.cdiv(n, 4), 8), S.mul(S.cmod(n, 4), 2)) == S.mul(n, 2)


def test_comparisons_decided_by_bounds() -> None:
    x = i * 64 + k  # [0, 6399]
    assert S.lt(x, 6400) == Const(1)
    assert S.lt(x, 0) == Const(0)
    assert S.le(x, 6399) == Const(1)
    assert S.eq(S.add(i, 1), 0) == Const(0)
    assert S.ne(i, S.add(i, 1)) == Const(1)
    assert S.lt(S.add(i, 3), 10) == S.Lt(i, Const(7))
    assert S.lt(S.mul(i, 4), 10) == S.Lt(i, Const(3))


def test_logic_and_select() -> None:
    c = S.lt(i, 50)
    assert S.logical_and(c, 1) == c and S.logical_and(c, 0) == Const(0)
    assert S.logical_or(c, 1) == Const(1) and S.logical_not(S.logical_not(c)) == c
    assert S.where(S.lt(i, 100), i, k) == i
    assert S.maximum(k, S.add(k, 1)) == S.add(k, 1) and S.minimum(i, -1) == Const(-1)


def test_bounds() -> None:
    assert (i * 64 + k).bounds == (0, 6399)
    assert S.cmod(S.add(n, 3), 8).bounds == (0, 7)
    assert S.cdiv(s, 3).bounds == (-3, 3)
    assert S.mul(s, s).bounds == (-100, 100)


def test_recombine_nested_quotient() -> None:
    """A flat index split over several dims and put back (a reshape read through a reshape): the quotient of
    ``(k // 3) % 3`` is written ``k // 9``, not ``(k // 3) // 3``."""
    k9 = Var("k", 0, 575)
    assert S.fdiv(k9, 9) * 9 + S.fmod(S.fdiv(k9, 3), 3) * 3 + S.fmod(k9, 3) == k9
    assert S.cdiv(k9, 9) * 9 + S.cmod(S.cdiv(k9, 3), 3) * 3 + S.cmod(k9, 3) == k9
    assert S.fdiv(k9, 9) * 18 + S.fmod(S.fdiv(k9, 3), 3) * 6 == S.fdiv(k9, 3) * 6


def test_floor_coefficients_reduced_modulo_the_divisor() -> None:
    """A sliding window's row ``(i*(D+1) + o) % D`` (graph-decompose's windows) is ``i + o`` when that stays
    below D; any coefficient may be taken modulo the divisor in floor semantics."""
    win, out = Var("i", 0, 2), Var("o", 0, 55)
    assert S.fmod(win * 59 + out, 58) == win + out
    assert S.fdiv(win * 59 + out, 58) == win
    assert isinstance(S.fmod(win * 59 + Var("o", 0, 56), 58), S.FloorMod)  # 2 + 56 reaches 58: kept


def test_floor_quotient_constant_over_the_bounds() -> None:
    """A dividend whose bounds give one quotient folds whatever its constant: x - 1 for x in [1, 9] (a low pad's
    valid region) divided by 9 is 0, its remainder x - 1; over [0, 9] the quotient is -1 or 0 and stays."""
    x, c = Var("x", 1, 9), Var("c", 0, 1)
    assert S.fdiv(x - 1, 9) == Const(0) and S.fmod(x - 1, 9) == x - 1
    assert S.fdiv(c * 9 + x - 1, 9) == c and S.fmod(c * 9 + x - 1, 9) == x - 1
    assert S.fdiv(x + 17, 9) == Const(2) and S.fmod(x + 17, 9) == x - 1
    assert not isinstance(S.fdiv(Var("x", 0, 9) - 1, 9), Const)


def test_substitute_rebuilds() -> None:
    """Replacing a variable by a narrower one rebuilds the expression, so it simplifies for the new bounds."""
    wide, narrow = Var("x", 0, 15), Var("x", 0, 8)
    e = S.fdiv(c9 := wide + i * 9, 9) * 16 + S.fmod(c9, 9)
    assert S.substitute(e, {wide: narrow}) == i * 16 + narrow
    assert S.substitute(e, {}) is e


def test_floor_division_semantics() -> None:
    assert S.fdiv(-7, 2) == Const(-4) and S.fmod(-7, 2) == Const(1)
    assert S.fdiv(7, -2) == Const(-4) and S.fmod(7, -2) == Const(-1)
    assert S.ceildiv(-7, 2) == Const(-3) and S.ceildiv(7, 2) == Const(4)
    assert S.fdiv(s, 4) != S.cdiv(s, 4)  # distinct operations where signs make them differ


def test_floor_normal_forms() -> None:
    assert S.fdiv(i * 64 + k, 64) == i and S.fmod(i * 64 + k, 64) == k
    assert S.fdiv(s * 64 + k, 64) == s  # floor semantics split multiples off whatever their sign
    assert S.fdiv(i * 4 + S.Var("q", 0, 3), 8) == S.fdiv(i, 2)  # a common factor taken out
    assert S.fmod(i * 4 + S.Var("q", 0, 3), 8) == S.fmod(i, 2) * 4 + S.Var("q", 0, 3)
    assert S.fdiv(s, 4) * 4 + S.fmod(s, 4) == s  # recombination, as after a reshape of a reshape
    assert S.cdiv(s, 4) * 4 + S.cmod(s, 4) == s


def test_symbolic_divisor() -> None:
    size = Var("K", 1, 64)
    inner = Var("r1", 0, 63, below=size)
    flat = i * size + inner
    assert S.fdiv(flat, size) == i and S.fmod(flat, size) == inner
    assert S.fdiv(i * size * n, size * n) == i  # a product of symbols divides too
    unknown = Var("r2", 0, 63)  # bounds cannot show r2 < K
    assert isinstance(S.fdiv(i * size + unknown, size), S.FloorDiv)


def test_parse_size_text() -> None:
    size = S.parse("ceildiv(N*32, 256)", {"N": n})
    assert size.bounds == (1, 512)
    assert size.evaluate({"N": 9}) == 2
    assert S.compile_size("ceildiv(N*32, 256)")({"N": 9}) == 2
    assert S.evaluate_size("(N - 9) // 4 + (N - 9) % 4", {"N": 2}) == (2 - 9) // 4 + (2 - 9) % 4  # Python semantics
    assert S.size_symbols("max(N, 3) * M + 1") == {"N", "M"}


# ---------------------------------------------------------------------------------------------
# property: simplified expressions evaluate like the expression they came from

BINARY = ["add", "sub", "mul", "max", "min", "lt", "le", "eq", "ne", "and", "or"]
DIVISIONS = ["div", "mod", "floordiv", "floormod", "ceildiv"]


def _reference(op: str, *args: int) -> int:
    a = args[0]
    b = args[1] if len(args) > 1 else 0
    return {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: c_div(a, b),
        "mod": lambda: c_mod(a, b),
        "floordiv": lambda: a // b,
        "floormod": lambda: a % b,
        "ceildiv": lambda: -(-a // b),
        "max": lambda: max(a, b),
        "min": lambda: min(a, b),
        "lt": lambda: int(a < b),
        "le": lambda: int(a <= b),
        "eq": lambda: int(a == b),
        "ne": lambda: int(a != b),
        "and": lambda: int(bool(a) and bool(b)),
        "or": lambda: int(bool(a) or bool(b)),
        "not": lambda: int(not a),
        "where": lambda: args[1] if a else args[2],
    }[op]()


Tree = tuple  # ("var", name) | ("const", v) | (op, *children)


def evaluate_tree(tree: Tree, env: dict[str, int]) -> int:
    if tree[0] == "var":
        return env[tree[1]]
    if tree[0] == "const":
        return tree[1]
    return _reference(tree[0], *(evaluate_tree(t, env) for t in tree[1:]))


def build_tree(tree: Tree, variables: dict[str, Var]) -> S.Expr:
    if tree[0] == "var":
        return variables[tree[1]]
    if tree[0] == "const":
        return Const(tree[1])
    return S.BUILDERS[tree[0]](*(build_tree(t, variables) for t in tree[1:]))


leaves = st.one_of(
    st.sampled_from(["x", "y", "z"]).map(lambda name: ("var", name)),
    st.integers(-12, 12).map(lambda v: ("const", v)),
)
divisors = st.one_of(
    st.integers(-9, 9).filter(bool).map(lambda v: ("const", v)),
    st.just(("var", "w")),  # w >= 1
)


def _extend(children: st.SearchStrategy[Tree]) -> st.SearchStrategy[Tree]:
    return st.one_of(
        st.tuples(st.sampled_from(BINARY), children, children),
        st.tuples(st.sampled_from(DIVISIONS), children, divisors),
        st.tuples(st.just("not"), children),
        st.tuples(st.just("where"), children, children, children),
        # the shapes index arithmetic takes: (a*c + b) // c, x % c
        st.tuples(st.integers(1, 9), children, children, st.sampled_from(DIVISIONS)).map(
            lambda t: (t[3], ("add", ("mul", t[1], ("const", t[0])), t[2]), ("const", t[0]))
        ),
    )


trees = st.recursive(leaves, _extend, max_leaves=12)
bounds = st.tuples(st.integers(-20, 20), st.integers(0, 30)).map(lambda b: (b[0], b[0] + b[1]))


@settings(max_examples=400, deadline=None)
@given(tree=trees, xb=bounds, yb=bounds, zb=bounds, wmax=st.integers(1, 12), seed=st.integers(0, 2**32))
def test_simplified_expressions_evaluate_equal(
    tree: Tree, xb: tuple[int, int], yb: tuple[int, int], zb: tuple[int, int], wmax: int, seed: int
) -> None:
    ranges = {"x": xb, "y": yb, "z": zb, "w": (1, wmax)}
    variables = {name: Var(name, lo, hi, order) for order, (name, (lo, hi)) in enumerate(ranges.items())}
    expr = build_tree(tree, variables)
    again = expr.simplify()
    rng = random.Random(seed)
    corners = [{name: (lo, hi)[(m >> b) & 1] for b, (name, (lo, hi)) in enumerate(ranges.items())} for m in range(16)]
    samples = corners + [{name: rng.randint(lo, hi) for name, (lo, hi) in ranges.items()} for _ in range(48)]
    for env in samples:
        want = evaluate_tree(tree, env)  # divisors are nonzero constants or w >= 1
        got = expr.evaluate(env)
        assert got == want, f"{S.render(expr)} at {env}: {got} != {want}"
        assert expr.vmin <= got <= expr.vmax, f"{S.render(expr)} at {env}: {got} outside {expr.bounds}"
        assert again.evaluate(env) == want
        assert expr.compile()(env) == want


@settings(max_examples=400, deadline=None)
@given(
    coefs=st.tuples(st.integers(-16, 16), st.integers(-16, 16), st.integers(-40, 40)),
    c=st.integers(2, 16),
    op=st.sampled_from(DIVISIONS),
    xb=bounds,
    yb=bounds,
)
def test_linear_index_division_preserves_value(
    coefs: tuple[int, int, int], c: int, op: str, xb: tuple[int, int], yb: tuple[int, int]
) -> None:
    """``(x*a + y*b + k) op c``, the shape index arithmetic takes (where splitting off multiples and taking out
    common factors apply), at every point of the bound box."""
    a, b, k = coefs
    x, y = Var("x", *xb, order=0), Var("y", *yb, order=1)
    expr = S.BUILDERS[op](x * a + y * b + k, c)
    for xv in range(xb[0], xb[1] + 1):
        for yv in range(yb[0], yb[1] + 1):
            want = _reference(op, xv * a + yv * b + k, c)
            assert expr.evaluate({"x": xv, "y": yv}) == want, f"{S.render(expr)} at x={xv}, y={yv}"
            assert expr.vmin <= want <= expr.vmax


@settings(max_examples=300, deadline=None)
@given(
    g=st.integers(2, 8),
    t=st.integers(2, 4),
    m=st.integers(-3, 3),
    w=st.integers(0, 10),
    k=st.integers(-20, 20),
    op=st.sampled_from(DIVISIONS),
)
def test_common_factor_preserves_value(g: int, t: int, m: int, w: int, k: int, op: str) -> None:
    """``(x*g*m + y + k) op (g*t)`` with ``y`` in ``[0, w]``: a factor ``g`` can be taken out exactly when what
    is left below it stays below it (the edge ``w`` near ``g`` is where a wrong bound shows)."""
    x, y = Var("x", -5, 5, order=0), Var("y", 0, w, order=1)
    expr = S.BUILDERS[op](x * (g * m) + y + k, g * t)
    for xv in range(-5, 6):
        for yv in range(w + 1):
            want = _reference(op, xv * g * m + yv + k, g * t)
            assert expr.evaluate({"x": xv, "y": yv}) == want, f"{S.render(expr)} at x={xv}, y={yv}"
            assert expr.vmin <= want <= expr.vmax


@settings(max_examples=300, deadline=None)
@given(
    outer=st.tuples(st.integers(-5, 5), st.integers(0, 20)),
    kmax=st.integers(1, 9),
    coef=st.integers(-3, 3),
    const=st.integers(-20, 20),
    op=st.sampled_from(["floordiv", "floormod"]),
    seed=st.integers(0, 2**32),
)
def test_symbolic_divisor_preserves_value(
    outer: tuple[int, int], kmax: int, coef: int, const: int, op: str, seed: int
) -> None:
    """``(i*K + k) * c + K*const`` over a symbolic ``K`` and a range ``k`` below it, divided by K."""
    size = Var("K", 1, kmax)
    x = Var("x", outer[0], outer[0] + outer[1])
    inner = Var("k", 0, kmax - 1, below=size)
    expr = S.BUILDERS[op](S.add(S.mul(S.add(S.mul(x, size), inner), coef), S.mul(size, const)), size)
    rng = random.Random(seed)
    for _ in range(40):
        kv = rng.randint(1, kmax)
        env = {"K": kv, "x": rng.randint(outer[0], outer[0] + outer[1]), "k": rng.randint(0, kv - 1)}
        want = _reference(op, ((env["x"] * kv + env["k"]) * coef + kv * const), kv)
        assert expr.evaluate(env) == want, f"{S.render(expr)} at {env}"
        assert expr.vmin <= want <= expr.vmax


SIZE_NAMES = ["N", "M"]
size_leaves = st.one_of(st.sampled_from(SIZE_NAMES), st.integers(0, 300).map(str))


def _size_extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    positive = st.integers(1, 64).map(str)
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, st.sampled_from(["//", "%"]), st.one_of(positive, st.just("M"))).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(st.sampled_from(["ceildiv", "max", "min"]), children, positive).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
    )


@settings(max_examples=300, deadline=None)
@given(text=st.recursive(size_leaves, _size_extend, max_leaves=8), nv=st.integers(0, 5000), mv=st.integers(1, 64))
def test_size_text_evaluates_as_python(text: str, nv: int, mv: int) -> None:
    """Size text means what Python means by it (``ceildiv(a, b)`` is ``-(-a // b)``)."""
    env = {"N": nv, "M": mv}
    want = eval(text, {"ceildiv": lambda a, b: -(-a // b), "max": max, "min": min}, dict(env))  # noqa: S307 - test oracle
    assert S.evaluate_size(text, env) == want


# ---------------------------------------------------------------------------------------------
# what the scheduler relies on: a reshape's index round trip folds away


@settings(max_examples=200, deadline=None)
@given(
    dims=st.lists(st.one_of(st.integers(1, 6), st.just("K")), min_size=1, max_size=4),
    kmax=st.integers(1, 8),
    seed=st.integers(0, 2**32),
)
def test_reshape_round_trip(dims: list[int | str], kmax: int, seed: int) -> None:
    """``delinearize(linearize(idx))`` over the ranges of a shape gives the ranges back in value, and in form
    for static dims of size 2 or more (the scheduler's static reshapes leave no div/mod behind). A symbolic
    stride with a coefficient (``K*2``) is not folded: its remainder is below it only by reasoning over ``K``."""
    from kiln.lowering.graph_to_kernel import delinearize, linearize

    size = Var("K", 1, kmax, order=1)
    shape = [size if d == "K" else Const(d) for d in dims]
    ranges = [Var(f"%r{n}", 0, max(0, d.vmax - 1), below=d) for n, d in enumerate(shape)]
    back = delinearize(linearize(list(ranges), shape), shape)
    if all(isinstance(d, int) and d > 1 for d in dims):
        assert back == ranges
    rng = random.Random(seed)
    for _ in range(20):
        kv = rng.randint(1, kmax)
        env = {"K": kv} | {r.name: rng.randint(0, d.evaluate({"K": kv}) - 1) for r, d in zip(ranges, shape)}
        assert [b.evaluate(env) for b in back] == [r.evaluate(env) for r in ranges]
