"""Builds the body of one `kernel.kernel` with hash-consing, so each value is emitted once.

The scheduler describes values as index polynomials (`index_expr.Poly`) and graph ops; this builder
turns them into kernel ops, reusing an op whenever the same op with the same operands was built before.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.types import BufferType
from kiln.support.index_expr import Atom, Poly

INDEX = IndexType()

Cond = tuple[Poly, Poly, Poly]
"""`lo <= expr < hi`."""


class KernelBuilder:
    """One kernel under construction: arguments discovered on demand, ops appended in order."""

    def __init__(self, symbols: dict[str, tuple[int, int]]):
        self.block = Block()
        self.symbols = symbols
        self._memo: dict[tuple, SSAValue] = {}
        self._buffers: dict[object, BlockArgument] = {}
        self._buffer_reasons: dict[object, str] = {}
        self._syms: dict[str, BlockArgument] = {}
        self._ranges: dict[int, SSAValue] = {}
        self._values: dict[int, SSAValue] = {}
        self.output_key: object | None = None

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
    def _add(self, key: tuple | None, op: Operation) -> SSAValue:
        if key is not None and key in self._memo:
            op.erase()
            return self._memo[key]
        self.block.add_op(op)
        if key is not None:
            self._memo[key] = op.results[0]
        return op.results[0]

    def const(self, value: int | float | bool, t: Attribute) -> SSAValue:
        op = K.ConstOp.from_number(value, t)
        attr = op.value
        key = ("const", type(attr), attr.value.data if isinstance(attr, IntegerAttr | FloatAttr) else attr, t)
        if isinstance(attr, FloatAttr):  # by repr: nan != nan, and -0.0 == 0.0 but is another constant
            key = ("const", "float", repr(attr.value.data), t)
        return self._add(key, op)

    def alu(self, kind: str, *operands: SSAValue) -> SSAValue:
        op = K.ALU[kind](*operands)
        return self._add((kind, *operands), op)

    def cast(self, v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        return self._add(("cast", v, t), K.CastOp(v, t))

    def bitcast(self, v: SSAValue, t: Attribute) -> SSAValue:
        if v.type == t:
            return v
        return self._add(("bitcast", v, t), K.BitcastOp(v, t))

    def range(self, rid: int, size: Poly, kind: K.AxisKind) -> SSAValue:
        if rid not in self._ranges:
            self._ranges[rid] = self._add(None, K.RangeOp(self.index(size), kind))
        return self._ranges[rid]

    def reduce(self, kind: K.ReduceKind, v: SSAValue, ranges: Sequence[SSAValue]) -> SSAValue:
        return self._add(("reduce", kind, v, *ranges), K.ReduceOp(kind, v, list(ranges)))

    def load(self, buf: SSAValue, flat: Poly, gate: SSAValue | None) -> SSAValue:
        idx = self.index(flat)
        return self._add(("load", buf, idx, gate), K.LoadOp(buf, idx, gate))

    def store(self, buf: SSAValue, flat: Poly, v: SSAValue, gate: SSAValue | None) -> None:
        self.block.add_op(K.StoreOp(buf, self.index(flat), v, gate))

    def value_atom(self, v: SSAValue, lo: float, hi: float) -> Atom:
        vid = len(self._values)
        self._values[vid] = v
        return Atom("value", vid, lo, hi)

    # -- index materialization -----------------------------------------------------------------
    def index(self, p: Poly) -> SSAValue:
        key = ("poly", p)
        if key in self._memo:
            return self._memo[key]
        acc: SSAValue | None = None
        for mono, coeff in p.terms:
            term: SSAValue | None = None
            for atom in mono:
                a = self._atom(atom)
                term = a if term is None else self.alu("mul", term, a)
            assert term is not None
            if coeff == -1:
                acc = self.alu("sub", acc, term) if acc is not None else self.alu("neg", term)
                continue
            if coeff != 1:
                term = self.alu("mul", term, self.const(coeff, INDEX))
            acc = term if acc is None else self.alu("add", acc, term)
        if p.const or acc is None:
            c = self.const(p.const, INDEX)
            acc = c if acc is None else self.alu("add", acc, c)
        self._memo[key] = acc
        return acc

    def _atom(self, a: Atom) -> SSAValue:
        if a.kind == "range":
            return self._ranges[a.key]
        if a.kind == "sym":
            return self.sym(a.key)
        if a.kind == "value":
            return self._values[a.key]
        num, den = (self.index(p) for p in a.key)
        return self.alu("idiv" if a.kind == "div" else "mod", num, den)

    def condition(self, conds: Sequence[Cond]) -> SSAValue | None:
        """The i1 value of a conjunction of `lo <= expr < hi` (None when there is nothing to check)."""
        out: SSAValue | None = None
        for expr, lo, hi in conds:
            elo, ehi = expr.bounds()
            llo, lhi = lo.bounds()
            hlo, _ = hi.bounds()
            parts = []
            if not elo >= lhi:
                parts.append(self.alu("cmple", self.index(lo), self.index(expr)))
            if not ehi < hlo:
                parts.append(self.alu("cmplt", self.index(expr), self.index(hi)))
            for c in parts:
                out = c if out is None else self.alu("and", out, c)
        return out
