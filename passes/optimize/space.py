"""A read-only view of a kernel's iteration space: its ranges, their axis numbers and sizes, and how each
buffer access strides along each range.

Axis numbers (as in tinygrad): the kernel's ranges sorted by kind, ``loop`` first, then ``global``/``thread``,
``local``/``group_reduce``, ``upcast``, ``reduce``, ``unroll``, ties broken by their order in the block
(which is their nesting order). ``upcast``, ``local``, ``thread``, ``padto`` and ``swap`` count over all of
them; ``unroll``, ``group`` and ``grouptop`` count over the ``reduce`` ranges only (``unroll:0:4`` is the
first reduce range).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.alu import AluOp
from kiln.dialects.types import declared_dims
from kiln.support import symbolic as S

AxisKind = K.AxisKind

AXIS_ORDER = {
    AxisKind.LOOP: -1,
    AxisKind.GLOBAL: 0,
    AxisKind.THREAD: 0,
    AxisKind.LOCAL: 2,
    AxisKind.GROUP_REDUCE: 2,
    AxisKind.UPCAST: 3,
    AxisKind.REDUCE: 4,
    AxisKind.UNROLL: 5,
}
EXPANDED_KINDS = frozenset({AxisKind.UPCAST, AxisKind.UNROLL})


def ranges(kernel: K.KernelOp) -> list[K.RangeOp]:
    """The kernel's ranges in block (nesting) order."""
    return [op for op in kernel.body.block.ops if isinstance(op, K.RangeOp)]


def axes(kernel: K.KernelOp) -> list[K.RangeOp]:
    """The ranges in axis-number order."""
    found = ranges(kernel)
    return sorted(found, key=lambda r: (AXIS_ORDER[kind(r)], found.index(r)))


def reduce_axes(kernel: K.KernelOp) -> list[K.RangeOp]:
    """The ``reduce`` ranges in axis-number order (what ``unroll``/``group`` axis numbers count)."""
    return [r for r in axes(kernel) if kind(r) == AxisKind.REDUCE]


def kind(r: K.RangeOp) -> AxisKind:
    return r.kind.data


def const_size(r: K.RangeOp) -> int | None:
    """The size of a range with a constant size, else None (a symbolic dim)."""
    return K.int_constant(r.size)


def symbol_names(kernel: K.KernelOp) -> list[str]:
    """The ``symbols`` attribute: the symbolic dim each index argument carries, in order."""
    attr = kernel.attributes.get("symbols")
    return [s.data for s in attr.data if isinstance(s, StringAttr)] if isinstance(attr, ArrayAttr) else []


SIZE_ALU = {"add": "+", "mul": "*", "idiv": "//"}
"""The index ops a range size may be computed with (``padto`` of a symbolic range: ``((N + m-1) // m) * m``)."""


def size_ops(kernel: K.KernelOp) -> list[Operation]:
    """The ops computing range sizes that are neither a ``kernel.const`` nor an argument, in block order."""
    found: set[Operation] = set()
    stack = [r.size for r in ranges(kernel)]
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, AluOp) and owner not in found:
            found.add(owner)
            stack.extend(owner.operands)
    return [op for op in kernel.body.block.ops if op in found]


def sizes_are_computable(kernel: K.KernelOp) -> bool:
    """Whether every range size is a constant, an index argument, or add/mul/idiv of those."""
    ops = size_ops(kernel)
    values = [r.size for r in ranges(kernel)] + [v for op in ops for v in op.operands]
    return all(op.alu_kind in SIZE_ALU for op in ops) and all(  # type: ignore[attr-defined]
        isinstance(v, BlockArgument) or isinstance(v.owner, K.ConstOp | AluOp) for v in values
    )


def size_multiple(r: K.RangeOp) -> int:
    """A constant the range's size is known to be a multiple of: the size itself when constant, ``m`` for a
    padded symbolic size ``q * m``, else 1."""
    if (n := const_size(r)) is not None:
        return n
    owner = r.size.owner
    if isinstance(owner, AluOp) and owner.alu_kind == "mul":
        return math.prod(K.int_constant(v) or 1 for v in owner.operands)
    return 1


def size_text(v: SSAValue, symbols: list[str]) -> str:
    """A range size as ``kiln.support.symbolic`` size text over the kernel's symbolic dims."""
    if (n := K.int_constant(v)) is not None:
        return str(n)
    if isinstance(v, BlockArgument):
        index_args = [a for a in v.owner.args if not isinstance(a.type, K.BufferType)]
        return symbols[index_args.index(v)]
    owner = v.owner
    if not (isinstance(owner, AluOp) and owner.alu_kind in SIZE_ALU):
        raise ValueError("a range size must be computed from constants and index arguments with add, mul, idiv")
    a, b = (size_text(x, symbols) for x in owner.operands)
    return f"({a} {SIZE_ALU[owner.alu_kind]} {b})"


def size_bound(r: K.RangeOp, bounds: dict[str, tuple[int, int]], symbols: list[str]) -> int:
    """The size of a range, or its value at the upper bounds of the symbolic dims (sizes only grow with them)."""
    return S.evaluate_size(size_text(r.size, symbols), {name: hi for name, (lo, hi) in bounds.items()})


def dependencies(kernel: K.KernelOp) -> dict[Operation, frozenset[SSAValue]]:
    """The ranges each op depends on (a reduce's result no longer depends on the ranges it combines over)."""
    of_value: dict[SSAValue, frozenset[SSAValue]] = {}
    found: dict[Operation, frozenset[SSAValue]] = {}
    for op in kernel.body.block.ops:
        if isinstance(op, K.RangeOp):
            of_value[op.result] = frozenset({op.result})
            continue
        ds = frozenset().union(*(of_value.get(v, frozenset()) for v in op.operands))
        found[op] = ds
        if isinstance(op, K.ReduceOp):
            ds = ds - set(op.ranges)
        for r in op.results:
            of_value[r] = ds
    return found


LOOP_KINDS = frozenset({AxisKind.LOOP, AxisKind.REDUCE})
"""Range kinds one GPU invocation runs as a loop (the others are threads or unrolled copies)."""


def loop_iterations(kernel: K.KernelOp) -> int:
    """Loop iterations one invocation runs, all loops together (symbolic sizes at their declared upper bounds):
    each distinct nest of loop ranges that some op runs in counts the product of its sizes, so loops one after
    the other add up and an inner loop counts once per outer iteration."""
    bounds, symbols = declared_dims(kernel), symbol_names(kernel)
    nests = {frozenset(r for r in found if kind(r.owner) in LOOP_KINDS) for found in dependencies(kernel).values()}  # type: ignore[arg-type]
    return sum(math.prod(size_bound(r.owner, bounds, symbols) for r in nest) for nest in nests if nest)  # type: ignore[arg-type]


def expansion(kernel: K.KernelOp) -> int:
    """Copies one thread makes of an op: the product of the upcast and unroll ranges it depends on, for the op
    with the most (the loops of reductions computed one after the other copy their bodies separately), divided
    by the 32 lanes of a warp when a tensor core spreads its tile over them (the ``tc`` opt marks the reduce)."""
    expanded = {r.result: const_size(r) or 1 for r in ranges(kernel) if kind(r) in EXPANDED_KINDS}
    copies = max((math.prod(expanded.get(r, 1) for r in found) for found in dependencies(kernel).values()), default=1)
    warp = any("tensor_core" in op.attributes for op in kernel.body.block.ops if isinstance(op, K.ReduceOp))
    return copies // 32 if warp else copies


def applied(kernel: K.KernelOp) -> list[str] | None:
    """The ``opts`` attribute (None when the kernel was never optimized)."""
    attr = kernel.attributes.get("opts")
    if not isinstance(attr, ArrayAttr):
        return None
    return [s.data for s in attr.data if isinstance(s, StringAttr)]


def record(kernel: K.KernelOp, opt_text: str | None = None) -> None:
    """Append ``opt_text`` to the ``opts`` attribute (creating it, also when ``opt_text`` is None)."""
    done = applied(kernel) or []
    kernel.attributes["opts"] = ArrayAttr([StringAttr(s) for s in [*done, *([opt_text] if opt_text else [])]])


def body_ops(kernel: K.KernelOp) -> Iterator[Operation]:
    return iter(kernel.body.block.ops)


# ---------------------------------------------------------------------------------------------
# accesses and their strides


class Strides:
    """For every load and store: its index as a linear combination of ranges, where it is one.

    ``stride(access, r)`` is the coefficient of range ``r`` in the access's index (0: the access does not move
    along ``r``, a broadcast), or None when ``r`` enters the index non-linearly (through a division, ...).
    """

    def __init__(self, kernel: K.KernelOp):
        self._vars: dict[SSAValue, S.Var] = {}
        self._exprs: dict[SSAValue, S.Expr] = {}
        for n, r in enumerate(ranges(kernel)):
            self._vars[r.result] = S.Var(f"r{n}", 0, max(0, (const_size(r) or 2**31) - 1), order=n)
        self.accesses = [op for op in body_ops(kernel) if isinstance(op, K.LoadOp | K.StoreOp)]
        self._linear = {a: self._split(self._expr(a.index)) for a in self.accesses}

    def _expr(self, v: SSAValue) -> S.Expr:
        if v in self._vars:
            return self._vars[v]
        if v not in self._exprs:
            self._exprs[v] = self._make(v)
        return self._exprs[v]

    def _make(self, v: SSAValue) -> S.Expr:
        op = v.owner
        if (c := K.int_constant(v)) is not None:
            return S.Const(c)
        builders = {"add": S.add, "sub": S.sub, "mul": S.mul, "idiv": S.cdiv, "mod": S.cmod}
        if isinstance(op, AluOp) and op.alu_kind in builders:
            return builders[op.alu_kind](*(self._expr(o) for o in op.operands))
        return S.Var(f"v{len(self._exprs)}", S.INDEX_MIN, S.INDEX_MAX, order=10**6 + len(self._exprs))

    def _split(self, e: S.Expr) -> tuple[dict[S.Var, int], set[S.Var]]:
        """(coefficients of ranges that appear as plain terms, ranges that appear inside other terms)."""
        terms = e.terms if isinstance(e, S.Sum) else ((e, 1),)  # type: ignore[attr-defined]
        linear: dict[S.Var, int] = {}
        other: set[S.Var] = set()
        for term, coefficient in terms:
            if isinstance(term, S.Var):
                linear[term] = coefficient
            elif not isinstance(term, S.Const):
                other |= _variables(term)
        return linear, other

    def stride(self, access: Operation, r: K.RangeOp) -> int | None:
        var = self._vars[r.result]
        linear, other = self._linear[access]
        if var in other:
            return None
        return linear.get(var, 0)


def _variables(e: S.Expr) -> set[S.Var]:
    if isinstance(e, S.Var):
        return {e}
    return set().union(*(_variables(c) for c in e.children)) if e.children else set()
