"""Index expressions used while scheduling: polynomials over ranges, symbols and opaque values.

Movement ops become index arithmetic (tinygrad's "rangeify"). Building that arithmetic naively gives
chains of div/mod (a reshape of a reshape of a permute ...). Here an index is a polynomial with integer
coefficients over *atoms* (loop ranges, symbolic dims, loaded values, and div/mod nodes) with interval
bounds, so `(i*64 + j) // 64` folds to `i` while the kernel is built, and only what remains is
materialized as `kernel` ALU ops.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from math import prod
from typing import Any

INF = float("inf")


@dataclass(frozen=True)
class Atom:
    """A leaf of an index polynomial.

    kind: "range" (a kernel loop index, key = range id), "sym" (a symbolic dim, key = name),
    "value" (an opaque index-typed SSA value such as a gathered index, key = id), "div"/"mod"
    (key = (numerator Poly, denominator Poly)).
    """

    kind: str
    key: Any
    lo: float = field(compare=False)
    hi: float = field(compare=False)
    extent: Poly | None = field(default=None, compare=False)
    """A range's size: the range is below it even when the size is symbolic."""

    def sort_key(self) -> tuple[str, str]:
        return (self.kind, repr(self.key))


Monomial = tuple[Atom, ...]


@dataclass(frozen=True)
class Poly:
    """sum(coeff * prod(atoms)) + const, with sorted terms so equal polynomials compare equal."""

    terms: tuple[tuple[Monomial, int], ...] = ()
    const: int = 0

    # -- construction -------------------------------------------------------------------------
    @staticmethod
    def of(x: int | Atom | Poly) -> Poly:
        if isinstance(x, Poly):
            return x
        if isinstance(x, Atom):
            return Poly((((x,), 1),), 0)
        return Poly((), int(x))

    @staticmethod
    def _make(terms: dict[Monomial, int], const: int) -> Poly:
        items = tuple(sorted(((m, c) for m, c in terms.items() if c), key=lambda mc: [a.sort_key() for a in mc[0]]))
        return Poly(items, const)

    def __add__(self, other: int | Atom | Poly) -> Poly:
        o = Poly.of(other)
        terms = dict(self.terms)
        for m, c in o.terms:
            terms[m] = terms.get(m, 0) + c
        return Poly._make(terms, self.const + o.const)

    __radd__ = __add__

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms), -self.const)

    def __sub__(self, other: int | Atom | Poly) -> Poly:
        return self + (-Poly.of(other))

    def __rsub__(self, other: int | Atom | Poly) -> Poly:
        return Poly.of(other) - self

    def __mul__(self, other: int | Atom | Poly) -> Poly:
        o = Poly.of(other)
        terms: dict[Monomial, int] = {}
        const = self.const * o.const
        for m, c in self.terms:
            if o.const:
                terms[m] = terms.get(m, 0) + c * o.const
        for m, c in o.terms:
            if self.const:
                terms[m] = terms.get(m, 0) + c * self.const
        for m1, c1 in self.terms:
            for m2, c2 in o.terms:
                m = tuple(sorted(m1 + m2, key=Atom.sort_key))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Poly._make(terms, const)

    __rmul__ = __mul__

    # -- queries --------------------------------------------------------------------------------
    def is_const(self) -> bool:
        return not self.terms

    def bounds(self) -> tuple[float, float]:
        """Interval bounds (may be infinite)."""
        lo = hi = float(self.const)
        for m, c in self.terms:
            mlo, mhi = 1.0, 1.0
            for a in m:
                cands = [mlo * a.lo, mlo * a.hi, mhi * a.lo, mhi * a.hi]
                cands = [0.0 if v != v else v for v in cands]  # inf*0
                mlo, mhi = min(cands), max(cands)
            tl, th = sorted((c * mlo, c * mhi))
            lo, hi = lo + tl, hi + th
        return lo, hi

    def atoms(self) -> set[Atom]:
        out: set[Atom] = set()
        for m, _ in self.terms:
            for a in m:
                out.add(a)
                if a.kind in ("div", "mod"):
                    out |= a.key[0].atoms() | a.key[1].atoms()
        return out

    # -- div / mod ------------------------------------------------------------------------------
    def floordiv(self, d: int | Poly) -> Poly:
        """floor(self / d) for d > 0 (index arithmetic is non-negative where it matters)."""
        d = Poly.of(d)
        if d.is_const():
            c = d.const
            if c == 1:
                return self
            if self.is_const():
                return Poly.of(self.const // c)
            exact, rest = self._split(c)
            lo, hi = rest.bounds()
            if 0 <= lo and hi < c:
                return exact
            factored = rest._factor(c)
            if factored is not None:
                part, small, g = factored  # rest = part*g + small, 0 <= small < g, g | c
                return exact + part.floordiv(c // g)
            if exact.terms or exact.const:
                # (exact + rest) // c == exact/c + rest // c since exact is a multiple of c
                return exact + Poly.of(_div_atom(rest, d))
        if self == d:
            return Poly.of(1)
        if (parts := self._split_symbolic(d)) is not None:
            return parts[0]
        return Poly.of(_div_atom(self, d))

    def mod(self, d: int | Poly) -> Poly:
        """self mod d for d > 0 (floor semantics)."""
        d = Poly.of(d)
        if d.is_const():
            c = d.const
            if c == 1:
                return Poly.of(0)
            if self.is_const():
                return Poly.of(self.const % c)
            _, rest = self._split(c)
            lo, hi = rest.bounds()
            if 0 <= lo and hi < c:
                return rest
            factored = rest._factor(c)
            if factored is not None:
                part, small, g = factored
                return part.mod(c // g) * g + small
            return Poly.of(_mod_atom(rest, d))
        lo, hi = self.bounds()
        dlo, _ = d.bounds()
        if 0 <= lo and hi < dlo:
            return self
        if (parts := self._split_symbolic(d)) is not None:
            return parts[1]
        return Poly.of(_mod_atom(self, d))

    def _split_symbolic(self, d: Poly) -> tuple[Poly, Poly] | None:
        """(q, r) with self = q*d + r and 0 <= r < d, for a divisor d that is one monomial (a symbolic dim, or a
        product of them): what a reshape with symbolic dims leaves, ``(i*K + k) // K`` with k a range of size K.
        None when that cannot be shown."""
        if len(d.terms) != 1 or d.const or d.terms[0][1] != 1:
            return None
        divisor = Counter(d.terms[0][0])
        q, r = Poly.of(0), Poly.of(self.const)
        for m, k in self.terms:
            atoms = Counter(m)
            if atoms & divisor == divisor:
                q = q + Poly.of(k) * prod((Poly.of(a) for a in (atoms - divisor).elements()), start=Poly.of(1))
            else:
                r = r + Poly(((m, k),))
        lo, hi = r.bounds()
        one_range = len(r.terms) == 1 and r.terms[0][1] == 1 and len(r.terms[0][0]) == 1 and not r.const
        below = hi < d.bounds()[0] or (one_range and r.terms[0][0][0].extent == d)
        return (q, r) if lo >= 0 and below else None

    def recombine(self) -> Poly:
        """Fold ``(x // c) * (k*c) + (x % c) * k`` back into ``x * k`` (what a reshape of a reshape leaves)."""
        out = self
        changed = True
        while changed:
            changed = False
            coeffs = dict(out.terms)
            for mono, k in out.terms:
                if len(mono) != 1 or mono[0].kind != "mod" or not mono[0].key[1].is_const():
                    continue
                x, c = mono[0].key
                div = (_div_atom(x, c),)
                if coeffs.get(div) == k * c.const:
                    del coeffs[mono], coeffs[div]
                    out = Poly._make(coeffs, out.const) + x * k
                    changed = True
                    break
        return out

    def _factor(self, c: int) -> tuple[Poly, Poly, int] | None:
        """Find g | c, g > 1 with self = part*g + small and 0 <= small < g (so // and % by c reduce to part)."""
        from math import gcd

        for g in sorted({gcd(c, k) for _, k in self.terms} - {1, c}, reverse=True):
            big: dict[Monomial, int] = {}
            small: dict[Monomial, int] = {}
            for m, k in self.terms:
                (big if k % g == 0 else small)[m] = k // g if k % g == 0 else k
            q, r = divmod(self.const, g)
            sp = Poly._make(small, r)
            lo, hi = sp.bounds()
            if 0 <= lo and hi < g:
                return Poly._make(big, q), sp, g
        return None

    def _split(self, c: int) -> tuple[Poly, Poly]:
        """(exact, rest): exact/c is integral; exact is divided by c already; self = exact*c + rest."""
        exact: dict[Monomial, int] = {}
        rest: dict[Monomial, int] = {}
        for m, k in self.terms:
            if k % c == 0:
                exact[m] = k // c
            else:
                rest[m] = k
        q, r = divmod(self.const, c)
        return Poly._make(exact, q), Poly._make(rest, r)


def _div_atom(num: Poly, den: Poly) -> Atom:
    lo, hi = num.bounds()
    dlo, dhi = den.bounds()
    if dlo > 0 and lo >= 0:
        return Atom("div", (num, den), lo // dhi if dhi != INF else 0, hi // dlo if hi != INF else INF)
    return Atom("div", (num, den), -INF, INF)


def _mod_atom(num: Poly, den: Poly) -> Atom:
    _, dhi = den.bounds()
    return Atom("mod", (num, den), 0, dhi - 1)


def range_atom(rid: int, size: Poly) -> Atom:
    _, hi = size.bounds()
    return Atom("range", rid, 0, hi - 1, size)


def sym_atom(name: str, lo: int, hi: int) -> Atom:
    return Atom("sym", name, lo, hi)


def value_atom(vid: int, lo: float = -INF, hi: float = INF) -> Atom:
    return Atom("value", vid, lo, hi)


def dim_poly(d: int | str, symbols: dict[str, tuple[int, int]]) -> Poly:
    """A shape dim as a polynomial (a symbol becomes a sym atom with its declared bounds)."""
    if isinstance(d, str):
        lo, hi = symbols[d]
        return Poly.of(sym_atom(d, lo, hi))
    return Poly.of(d)


def row_major_strides(shape: list[Poly]) -> list[Poly]:
    strides: list[Poly] = []
    acc = Poly.of(1)
    for d in reversed(shape):
        strides.append(acc)
        acc = acc * d
    return list(reversed(strides))


def linearize(idx: list[Poly], shape: list[Poly]) -> Poly:
    out = Poly.of(0)
    for i, s in zip(idx, row_major_strides(shape)):
        out = out + i * s
    return out.recombine()


def delinearize(flat: Poly, shape: list[Poly]) -> list[Poly]:
    """The per-dim indices of an in-bounds row-major flat index (the outermost needs no mod)."""
    out: list[Poly] = []
    for i, (d, s) in enumerate(zip(shape, row_major_strides(shape))):
        q = flat.floordiv(s)
        out.append(q if i == 0 else q.mod(d))
    return out
