"""Builds the body of one `kernel.kernel` with hash-consing, so each value is emitted once.

The scheduler describes values as index expressions (`kiln.support.symbolic`, floor semantics) and graph ops;
this builder turns them into kernel ops, reusing an op whenever the same op with the same operands was built
before. Index variables are named so they cannot clash with symbol names: ``%r<id>`` for a loop range, ``%v<id>``
for an opaque index value (a gathered position); a symbolic dim is a variable named after its symbol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.types import BufferType
from kiln.support import symbolic as S
from kiln.support.locations import Unclaimed

INDEX = IndexType()

Cond = tuple[S.Expr, S.Expr, S.Expr]
"""`lo <= expr < hi`."""

_RANGE, _SYM, _VALUE = 0, 1, 2
"""Variable orders: in a sum, ranges come before symbols, symbols before opaque values."""


class KernelBuilder:
    """One kernel under construction: arguments discovered on demand, ops appended in order."""

    def __init__(self, symbols: dict[str, tuple[int, int]]):
        self.block = Block()
        self.symbols = symbols
        self._memo: dict[tuple, SSAValue] = {}
        self._buffers: dict[object, BlockArgument] = {}
        self._buffer_reasons: dict[object, str] = {}
        self._syms: dict[str, BlockArgument] = {}
        self._leaves: dict[str, SSAValue] = {}
        """Range and opaque value variables by name (a symbol's value is its kernel argument)."""
        self.output_key: object | None = None
        self.unclaimed: Unclaimed[Operation] = Unclaimed(_set_location)
        """The ops appended that no graph op has claimed yet: the scheduler claims them per graph op."""

    # -- arguments ---------------------------------------------------------------------------
    def buffer(self, key: object, t: BufferType, reason: str) -> BlockArgument:
        if key not in self._buffers:
            self._buffers[key] = self.block.insert_arg(t, len(self.block.args))
            self._buffer_reasons[key] = reason
        return self._buffers[key]

    def sym(self, name: str) -> SSAValue:
        if name not in self._syms:
            self._syms[name] = self.block.insert_arg(INDEX, len(self.block.args))
        return self._syms[name]

    def finish(self) -> tuple[Block, list[object], list[str], list[str]]:
        """Reorder arguments (output buffer, input buffers, symbols); return the block, buffer keys in
        order, their reasons, and symbol names in order."""
        keys = list(self._buffers)
        if self.output_key in self._buffers:
            keys.remove(self.output_key)
            keys.insert(0, self.output_key)
        order: list[BlockArgument] = [self._buffers[k] for k in keys] + list(self._syms.values())
        new = Block(arg_types=[a.type for a in order])
        for old_arg, new_arg in zip(order, new.args):
            old_arg.replace_all_uses_with(new_arg)
        for op in list(self.block.ops):
            op.detach()
            new.add_op(op)
        return new, keys, [self._buffer_reasons[k] for k in keys], list(self._syms)

    # -- ops ---------------------------------------------------------------------------------
    def _append(self, op: Operation) -> None:
        self.block.add_op(op)
        self.unclaimed.add(op)

    def _add(self, key: tuple | None, make: Callable[[], Operation]) -> SSAValue:
        """The value of the op ``make`` builds, built only when no op with ``key`` was (building an op costs
        more than the lookup, and a kernel's index arithmetic repeats)."""
        if key is not None and key in self._memo:
            return self._memo[key]
        op = make()
        self._append(op)
        if key is not None:
            self._memo[key] = op.results[0]
        return op.results[0]

    def const(self, value: int | float | bool, t: Attribute) -> SSAValue:
        attr = K.ConstOp.value_attr(value, t)
        key = ("const", type(attr), attr.value.data if isinstance(attr, IntegerAttr | FloatAttr) else attr, t)
        if isinstance(attr, FloatAttr):  # by repr: nan != nan, and -0.0 == 0.0 but is another constant
            key = ("const", "float", repr(attr.value.data), t)
        return self._add(key, lambda: K.ConstOp(attr))

    def alu(self, kind: str, *operands: SSAValue) -> SSAValue:
        return self._add((kind, *operands), lambda: K.ALU[kind](*operands))

    def cast(self, v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        return self._add(("cast", v, t), lambda: K.CastOp(v, t))

    def bitcast(self, v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        return self._add(("bitcast", v, t), lambda: K.BitcastOp(v, t))

    def dim(self, d: int | str) -> S.Expr:
        """A shape dim as an expression: a symbol is a variable with its declared bounds."""
        if isinstance(d, str):
            lo, hi = self.symbols[d]
            return S.Var(d, lo, hi, _SYM)
        return S.const(d)

    def range(self, rid: int, size: S.Expr, kind: K.AxisKind) -> tuple[S.Var, SSAValue]:
        """Loop range ``rid`` (built once) and its index variable, which is known to stay below ``size``."""
        var = S.Var(f"%r{rid}", 0, max(0, size.vmax - 1), _RANGE, below=size)
        if var.name not in self._leaves:
            self._leaves[var.name] = self._add(None, lambda: K.RangeOp(self.index(size), kind))
        return var, self._leaves[var.name]

    def reduce(self, kind: K.ReduceKind, v: SSAValue, ranges: Sequence[SSAValue]) -> SSAValue:
        return self._add(("reduce", kind, v, *ranges), lambda: K.ReduceOp(kind, v, list(ranges)))

    def load(self, buf: SSAValue, flat: S.Expr, gate: SSAValue | None) -> SSAValue:
        idx = self.index(flat)
        return self._add(("load", buf, idx, gate), lambda: K.LoadOp(buf, idx, gate))

    def store(self, buf: SSAValue, flat: S.Expr, v: SSAValue, gate: SSAValue | None) -> None:
        self._append(K.StoreOp(buf, self.index(flat), v, gate))

    def value_var(self, v: SSAValue, lo: int, hi: int) -> S.Var:
        """An index value the scheduler cannot see into (a gathered position) as a variable within [lo, hi]."""
        var = S.Var(f"%v{len(self._leaves)}", lo, hi, _VALUE)
        self._leaves[var.name] = v
        return var

    # -- index materialization -----------------------------------------------------------------
    def index(self, p: S.Expr) -> SSAValue:
        key = ("index", p)
        if key in self._memo:
            return self._memo[key]
        acc: SSAValue | None = None
        terms, const = S.linear(p)
        for mono, coeff in sorted(terms.items(), key=lambda tc: _emission_key(tc[0])):
            term: SSAValue | None = None
            for factor in sorted(S.factors(mono), key=_factor_key):
                a = self._factor(factor)
                term = a if term is None else self.alu("mul", term, a)
            assert term is not None
            if coeff == -1:
                acc = self.alu("sub", acc, term) if acc is not None else self.alu("neg", term)
                continue
            if coeff != 1:
                term = self.alu("mul", term, self.const(coeff, INDEX))
            acc = term if acc is None else self.alu("add", acc, term)
        if const or acc is None:
            c = self.const(const, INDEX)
            acc = c if acc is None else self.alu("add", acc, c)
        self._memo[key] = acc
        return acc

    def _factor(self, x: S.Expr) -> SSAValue:
        """A factor of an index term: a variable, or a floor division or remainder (non-negative where the
        scheduler builds them, so the kernel's truncating ``idiv``/``mod`` compute them)."""
        if isinstance(x, S.Var):
            return self._leaves[x.name] if x.name in self._leaves else self.sym(x.name)
        assert isinstance(x, S.FloorDiv | S.FloorMod), f"not an index factor: {S.render(x)}"
        return self.alu("idiv" if isinstance(x, S.FloorDiv) else "mod", self.index(x.lhs), self.index(x.rhs))

    def condition(self, conds: Sequence[Cond]) -> SSAValue | None:
        """The i1 value of a conjunction of `lo <= expr < hi` (None when there is nothing to check)."""
        out: SSAValue | None = None
        for expr, lo, hi in conds:
            elo, ehi = expr.bounds
            lhi, hlo = lo.vmax, hi.vmin
            parts = []
            if not elo >= lhi:
                parts.append(self.alu("cmple", self.index(lo), self.index(expr)))
            if not ehi < hlo:
                parts.append(self.alu("cmplt", self.index(expr), self.index(hi)))
            for c in parts:
                out = c if out is None else self.alu("and", out, c)
        return out


def _factor_key(x: S.Expr) -> tuple:
    """The order factors are emitted in: divisions, remainders (by their operands' terms), then ranges, symbols,
    values (by name)."""
    if isinstance(x, S.Var):
        return (2 + x.order, x.name)
    return (0 if isinstance(x, S.FloorDiv) else 1, _sum_key(x.lhs), _sum_key(x.rhs))  # type: ignore[attr-defined]


def _emission_key(term: S.Expr) -> list[tuple]:
    """The order the terms of a sum are emitted in (by their factors' keys), which fixes the kernel's op order."""
    return sorted(_factor_key(f) for f in S.factors(term))


def _sum_key(x: S.Expr) -> list[list[tuple]]:
    return sorted(_emission_key(t) for t in S.linear(x)[0])


def _set_location(op: Operation, location: Attribute) -> None:
    op.location = location
