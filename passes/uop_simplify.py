"""``uop-simplify``: symbolic simplification of the index arithmetic of ``uop.kernel`` ops.

Every ``index`` and ``i1`` value is read as an expression of ``kiln.support.symbolic`` (so building it folds
constants, applies identities, splits div/mod by constants, recombines ``(x // c) * c + x % c``, decides
comparisons by bounds). What is not index arithmetic is a variable with bounds: a ``uop.range`` runs over
``[lo, hi)``, a ``uop.param`` symbol over its ``graph.dims`` bounds, a ``uop.special`` over the launch
(``core_extent``, ``global_size``/``local_size``), a cast from a small integer over that type; loads and
everything else are unknown. Each op is then rewritten to its simplified expression, reusing equal values
already computed in a visible scope (so equal index math is computed once) and the op itself when it is
already in simplest form. Gates that are always true are dropped from loads and stores; a store whose gate is
always false, a ``uop.if`` that never runs and a loop that never iterates are removed; a load whose gate is
always false is 0. Finally pure ops nobody uses are deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr, i1
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp
from kiln.dialects.types import DIMS_KEY, DimsAttr, bitwidth, is_bool, is_unsigned
from kiln.support import symbolic as S
from kiln.support.locations import inherit_locations

INDEX = IndexType()
"""Built once: building a type verifies it, and the pass asks for this one several times per op."""

_INDEX_OPS = {"add": S.add, "sub": S.sub, "mul": S.mul, "idiv": S.cdiv, "mod": S.cmod, "max": S.maximum, "min": S.minimum}
_COMPARISONS = {"cmplt": S.lt, "cmple": S.le, "cmpeq": S.eq, "cmpne": S.ne}
_LOGIC = {"and": S.logical_and, "or": S.logical_or}
_RENDER = {S.Div: "idiv", S.Mod: "mod", S.Max: "max", S.Min: "min", S.Lt: "cmplt", S.Eq: "cmpeq", S.Ne: "cmpne"}
_LOGIC_RENDER = {S.And: "and", S.Or: "or"}


def type_bounds(t: Attribute) -> tuple[int, int]:
    """The values a scalar of type ``t`` can hold (index and non-integers: any 64-bit value)."""
    if is_bool(t):
        return (0, 1)
    if isinstance(t, IntegerType):
        width = bitwidth(t)
        return (0, 2**width - 1) if is_unsigned(t) else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    return (S.INDEX_MIN, S.INDEX_MAX)


@dataclass(frozen=True)
class UopSimplify(ModulePass):
    """Simplify index arithmetic and gates of every uop.kernel with bounds-aware symbolic rewriting."""

    name = "uop-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.ops if isinstance(k, U.UopKernelOp)]:
            KernelSimplifier(kernel).run()
            remove_dead_code(kernel.body.block)
            inherit_locations(kernel)  # the index arithmetic it rebuilt serves the whole kernel


class KernelSimplifier:
    def __init__(self, kernel: U.UopKernelOp):
        self.kernel = kernel
        self.block = kernel.body.block
        self.exprs: dict[SSAValue, S.Expr] = {}
        self.leaves: dict[str, SSAValue] = {}
        self.available: dict[tuple[S.Expr, Attribute], list[tuple[SSAValue, tuple[Operation, ...]]]] = {}
        self.scopes: list[Operation] = []
        self.symbols = self._symbol_vars()
        self.param_symbols = self._param_symbols()
        self._launch = self._launch_bounds()

    # -- bounds of what is not arithmetic ------------------------------------------------------

    def _symbol_vars(self) -> dict[str, S.Var]:
        dims = self.kernel.attributes.get(DIMS_KEY)
        bounds = dims.bounds if isinstance(dims, DimsAttr) else {}
        return {name: S.Var(name, lo, hi, order=-1) for name, (lo, hi) in bounds.items()}

    def _param_symbols(self) -> dict[SSAValue, S.Var]:
        """Index params in param order are the kernel's ``symbols``."""
        attr = self.kernel.attributes.get("symbols")
        names = [s.data for s in attr.data if isinstance(s, StringAttr)] if isinstance(attr, ArrayAttr) else []
        params = sorted(
            (op for op in self.block.ops if isinstance(op, U.ParamOp) and isinstance(op.result.type, IndexType)),
            key=lambda op: op.index.value.data,
        )
        return {op.result: self.symbols[name] for op, name in zip(params, names) if name in self.symbols}

    def _size(self, text: str) -> S.Expr:
        return S.parse(text, self.symbols)

    def _launch_bounds(self) -> dict[str, tuple[int, int]]:
        """Bounds of each special from the launch attributes."""
        a = self.kernel.attributes
        out: dict[str, tuple[int, int]] = {}
        if isinstance(extent := a.get("core_extent"), StringAttr):
            top = self._size(extent.data).vmax
            out["core_start"] = out["core_end"] = (0, top)
        grid, local = a.get("global_size"), a.get("local_size")
        if isinstance(grid, ArrayAttr) and isinstance(local, ArrayAttr):
            for axis, g, n in zip("xyz", grid.data, local.data):
                if isinstance(g, StringAttr) and isinstance(n, IntegerAttr):
                    groups, threads = self._size(g.data).vmax, n.value.data
                    out[f"group_id.{axis}"] = (0, max(0, groups - 1))
                    out[f"local_id.{axis}"] = (0, max(0, threads - 1))
                    out[f"global_id.{axis}"] = (0, max(0, groups * threads - 1))
        return out

    def _leaf(self, value: SSAValue, lo: int, hi: int) -> S.Var:
        name = f"%{len(self.leaves)}"  # never a symbol name
        self.leaves[name] = value
        return S.Var(name, lo, hi, order=len(self.leaves))

    def _leaf_for(self, op: Operation, value: SSAValue) -> S.Expr:
        """The expression of a value that is not index arithmetic: a bounded variable."""
        if value in self.param_symbols:
            symbol = self.param_symbols[value]
            self.leaves[symbol.name] = value
            return symbol
        if isinstance(op, U.SpecialOp) and op.special.data in self._launch:
            return self._leaf(value, *self._launch[op.special.data])
        if isinstance(op, U.CastOp):
            return self._leaf(value, *type_bounds(op.input.type))
        return self._leaf(value, *type_bounds(value.type))

    # -- the walk ------------------------------------------------------------------------------

    def run(self) -> None:
        ops = list(self.block.ops)
        skip_to: Operation | None = None
        dropped_brackets: set[Operation] = set()
        for op in ops:
            if skip_to is not None:  # inside a bracket that never runs
                done = op is skip_to
                op.detach()
                op.erase(safe_erase=False)
                skip_to = None if done else skip_to
                continue
            if isinstance(op, U.EndOp | U.EndIfOp):
                opener = self.scopes.pop()
                if opener in dropped_brackets:
                    op.detach()
                    op.erase()
                continue
            if isinstance(op, U.IfOp | U.RangeOp):
                decided = self._bracket(op)
                if decided is False:
                    skip_to = _closer(ops, op)
                    op.detach()
                    op.erase(safe_erase=False)
                    continue
                self.scopes.append(op)
                if decided is True:
                    dropped_brackets.add(op)
                    op.detach()
                    op.erase()
                continue
            self._simplify(op)

    def _bracket(self, op: U.IfOp | U.RangeOp) -> bool | None:
        """Whether a bracket always runs (an if; its brackets can go), never runs, or either."""
        if isinstance(op, U.IfOp):
            cond = self.exprs.get(op.cond)
            return None if not isinstance(cond, S.Const) else bool(cond.value)
        lo, hi = self._expr(op.lo), self._expr(op.hi)
        if hi.vmax <= lo.vmin:
            return False
        self.exprs[op.result] = self._leaf(op.result, lo.vmin, hi.vmax - 1)
        self._register(op.result, self.exprs[op.result])
        return None

    def _expr(self, value: SSAValue) -> S.Expr:
        if value not in self.exprs:
            owner = value.owner
            assert isinstance(owner, Operation)
            self.exprs[value] = self._leaf_for(owner, value)
        return self.exprs[value]

    def _simplify(self, op: Operation) -> None:
        if isinstance(op, U.LoadOp | U.StoreOp) and op.gate is not None:
            self._simplify_gate(op)
            return
        if not op.results:
            return
        result = op.results[0]
        expr = self._translate(op)
        if expr is None:
            if isinstance(op, AluOp) and op.alu_kind == "where":
                self._fold_select(op)
            elif result.type in (INDEX, i1):
                self._register(result, self._expr(result))
            return
        value = self._materialize(expr, result.type, op)
        if value is result:
            self.exprs[result] = expr
            self._register(result, expr)
        else:
            result.replace_all_uses_with(value)
            op.detach()
            op.erase()

    def _translate(self, op: Operation) -> S.Expr | None:
        """The expression ``op`` computes, if it is index or boolean arithmetic."""
        t = op.results[0].type
        if isinstance(op, U.ConstOp) and t in (INDEX, i1):
            value = op.value.value.data  # type: ignore[union-attr]
            return S.Const(int(bool(value)) if t == i1 else value)
        if not isinstance(op, AluOp):
            return None
        kind, args = op.alu_kind, op.operands
        operand_type = args[-1].type
        if kind in _INDEX_OPS and t == INDEX:
            return _INDEX_OPS[kind](*(self._expr(a) for a in args))
        if kind == "neg" and t == INDEX:
            return S.mul(self._expr(args[0]), -1)
        if kind in _COMPARISONS and operand_type == INDEX:
            return _COMPARISONS[kind](*(self._expr(a) for a in args))
        if kind in _LOGIC and t == i1:
            return _LOGIC[kind](*(self._expr(a) for a in args))
        if kind == "not" and t == i1:
            return S.logical_not(self._expr(args[0]))
        if kind == "where" and t in (INDEX, i1):
            return S.where(*(self._expr(a) for a in args))
        return None

    def _fold_select(self, op: AluOp) -> None:
        """``where`` on other types: pick the operand when the condition is known."""
        cond = self.exprs.get(op.operands[0])
        if isinstance(cond, S.Const):
            op.results[0].replace_all_uses_with(op.operands[1] if cond.value else op.operands[2])
            op.detach()
            op.erase()

    def _simplify_gate(self, op: U.LoadOp | U.StoreOp) -> None:
        gate = self.exprs.get(op.gate)  # type: ignore[arg-type]
        if not isinstance(gate, S.Const):
            return
        if isinstance(op, U.StoreOp):
            if gate.value:
                self.block.insert_op_before(U.StoreOp(op.ptr, op.index, op.value), op)
        elif gate.value:
            load = U.LoadOp(op.ptr, op.index, result_type=op.result.type)
            self.block.insert_op_before(load, op)
            op.result.replace_all_uses_with(load.result)
        else:
            zero = self._emit_constant(U.ConstOp.from_number(0, op.result.type), S.Const(0))
            op.result.replace_all_uses_with(zero)
        op.detach()
        op.erase()

    # -- materializing expressions ----------------------------------------------------------

    def _register(self, value: SSAValue, expr: S.Expr) -> None:
        self.available.setdefault((expr, value.type), []).append((value, tuple(self.scopes)))

    def _lookup(self, expr: S.Expr, t: Attribute) -> SSAValue | None:
        """A value computing ``expr`` defined in a scope that is still open."""
        for value, scopes in reversed(self.available.get((expr, t), [])):
            if tuple(self.scopes[: len(scopes)]) == scopes:
                return value
        return None

    def _materialize(self, expr: S.Expr, t: Attribute, at: Operation) -> SSAValue:
        """A value of type ``t`` computing ``expr`` before ``at``: an existing one, ``at`` itself when it
        already computes it, or new ops."""
        found = self._lookup(expr, t)
        if found is not None:
            return found
        if isinstance(expr, S.Var):
            value = self.leaves[expr.name]
            return value if value.type == t else self._emit(U.CastOp(value, t), at, expr)
        if isinstance(expr, S.Const):
            if isinstance(at, U.ConstOp) and at.results[0].type == t and self._translate(at) == expr:
                return at.results[0]
            return self._emit_constant(U.ConstOp.from_number(expr.value, t), expr)
        if isinstance(expr, S.Sum):
            return self._materialize_sum(expr, at)
        if isinstance(expr, S.Prod):
            acc = self._materialize(expr.factors[0], INDEX, at)
            for i, f in enumerate(expr.factors[1:], 2):
                part = S.Prod(expr.factors[:i]) if i < len(expr.factors) else expr
                acc = self._alu("mul", [acc, self._materialize(f, INDEX, at)], at, part)
            return acc
        if isinstance(expr, S.Not):
            return self._alu("not", [self._materialize(expr.x, i1, at)], at, expr)
        if isinstance(expr, S.Where):
            cond = self._materialize(expr.cond, i1, at)
            args = [cond, self._materialize(expr.lhs, t, at), self._materialize(expr.rhs, t, at)]
            return self._alu("where", args, at, expr)
        if type(expr) in _LOGIC_RENDER:
            args = [self._materialize(x, i1, at) for x in (expr.lhs, expr.rhs)]  # type: ignore[attr-defined]
            return self._alu(_LOGIC_RENDER[type(expr)], args, at, expr)
        args = [self._materialize(x, INDEX, at) for x in (expr.lhs, expr.rhs)]  # type: ignore[attr-defined]
        return self._alu(_RENDER[type(expr)], args, at, expr)

    def _materialize_sum(self, expr: S.Sum, at: Operation) -> SSAValue:
        """``t0*c0 + t1*c1 + ... + k`` left to right, each partial sum reusable (``base + lane`` shares ``base``)."""
        index = INDEX
        acc: SSAValue | None = None
        partial: dict[S.Expr, int] = {}
        for term, coef in expr.terms:
            partial[term] = coef
            whole = S.Sum(tuple(partial.items()), 0) if len(partial) > 1 or coef != 1 else term
            if (found := self._lookup(whole, index)) is not None:
                acc = found
                continue
            value = self._materialize(term, index, at)
            if acc is None:
                acc = value if coef == 1 else self._alu("mul", [value, self._const(coef, at)], at, whole)
            elif abs(coef) == 1:
                acc = self._alu("add" if coef > 0 else "sub", [acc, value], at, whole)
            else:
                scaled = self._materialize(S.mul(term, abs(coef)), index, at)
                acc = self._alu("add" if coef > 0 else "sub", [acc, scaled], at, whole)
        assert acc is not None
        if expr.const:
            kind = "add" if expr.const > 0 else "sub"
            acc = self._alu(kind, [acc, self._const(abs(expr.const), at)], at, expr)
        return acc

    def _const(self, value: int, at: Operation) -> SSAValue:
        return self._materialize(S.Const(value), INDEX, at)

    def _alu(self, kind: str, args: Sequence[SSAValue], at: Operation, expr: S.Expr) -> SSAValue:
        """``kind(args)``: ``at`` itself when it is exactly that op, else a new op before ``at``."""
        if isinstance(at, AluOp) and at.alu_kind == kind and _same_operands(at, args):
            return at.results[0]
        return self._emit(U.ALU[kind](*args), at, expr)

    def _emit_constant(self, op: U.ConstOp, expr: S.Const) -> SSAValue:
        """A new constant goes with the kernel's other leading params, specials and constants."""
        first = next(o for o in self.block.ops if not isinstance(o, U.ParamOp | U.SpecialOp | U.ConstOp))
        self.block.insert_op_before(op, first)
        self.exprs[op.result] = expr
        self.available.setdefault((expr, op.result.type), []).append((op.result, ()))
        return op.result

    def _emit(self, op: Operation, at: Operation, expr: S.Expr) -> SSAValue:
        self.block.insert_op_before(op, at)
        self.exprs[op.results[0]] = expr
        self._register(op.results[0], expr)
        return op.results[0]


def _same_operands(op: AluOp, args: Sequence[SSAValue]) -> bool:
    have = tuple(op.operands)
    return have == tuple(args) or (op.SPEC.commutative and have == tuple(reversed(args)))


def _closer(ops: list[Operation], opener: Operation) -> Operation:
    """The ``uop.end``/``uop.endif`` matching ``opener`` in ``ops``."""
    depth = 0
    for op in ops[ops.index(opener) :]:
        depth += isinstance(op, U.RangeOp | U.IfOp)
        depth -= isinstance(op, U.EndOp | U.EndIfOp)
        if depth == 0:
            return op
    raise AssertionError("unclosed bracket")


def remove_dead_code(block: Block) -> None:
    """Delete unused pure ops and loads (never params: the calling convention needs them), accumulators that
    are never read, and brackets left empty."""
    changed = True
    while changed:
        changed = False
        for op in reversed(list(block.ops)):
            if op.parent is None or isinstance(op, U.ParamOp):
                continue
            if isinstance(op, U.EndOp | U.EndIfOp):
                opener = op.prev_op
                if isinstance(opener, U.IfOp) or (isinstance(opener, U.RangeOp) and op.operands[0] == opener.result):
                    dead = [op, opener]
                else:
                    continue
            elif isinstance(op, U.DefineAccOp) and all(isinstance(u.operation, U.AccSetOp) for u in op.result.uses):
                dead = [u.operation for u in op.result.uses] + [op]
            elif is_trivially_dead(op):
                dead = [op]
            else:
                continue
            for d in dead:
                d.detach()
                d.erase()
            changed = True
