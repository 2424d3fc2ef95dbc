"""``uop-stash-recomputed``: compute an expensive per-element value once when a reduce loop and the loop that
writes the output both compute it (softmax's ``exp(x - max)``: once in the row sum, once in the output).

The linearizer gives a kernel like softmax's row a loop ``L1`` that reduces ``e(r) = exp(x[r] - m)`` and, after
it, a sibling loop ``L2`` over the same range that stores ``e(r) / s`` to the output ``P[I(r)]``. This pass
stores ``e(r)`` into ``P[I(r)]`` inside ``L1`` and replaces ``e(r)`` in ``L2`` by a load of ``P[I(r)]``: each
element's exponential is computed once, and ``L2`` scales the row in place (store-then-scale). The output is
the scratch: the slots ``L1`` writes are exactly those ``L2`` overwrites, and the stash stays in cache between
the loops when the loops are short (a row).

Applied where all of these hold (otherwise the kernel is left as it is):
- the store to ``P`` is the only store to ``P`` in the kernel, it is not gated, and nothing loads from ``P``
  (buffers of one launch never overlap: ``noalias``, docs/internals.md), so nothing else sees the stash;
- the store is directly in a loop ``L2``; ``L1`` is an earlier loop in the same bracket with the same bounds;
- the stashed value ``e`` is computed from ``L2``'s index by pure ops and loads of buffers the kernel never
  writes, and ``L1`` computes the same expression of its own index (structurally: same ops, attributes,
  operands from outside the loops); it has the store's type and costs at least ``STASH_COST`` (a math
  function such as ``exp`` counts ``FUNCTION_COST``, other ALU ops on values 1, index arithmetic 0): reloading is not worth a load and a sub.
  A stored ``uop.vectorize`` of upcast lanes is stashed lane by lane (``L1`` stores the vector of the lanes'
  twins, ``L2`` loads it and extracts the lanes) when every lane has such a value; where ``L1`` computes them as
  one vector op (softmax's exp of a vector on the CPUs, while ``L2`` divides lane by lane), each lane of it is
  keyed as its scalar computation and the vector itself is stored;
- ``I(r)`` is affine in ``r`` with a step of at least the stored width (distinct iterations, distinct slots),
  and what it uses from outside ``L2`` is defined before ``L1``;
- the kernel shares no local memory and has no barriers (a workgroup's cooperating threads could see each
  other's stash). GPU kernels store one element per thread outside loops, so they never match today.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from kiln.dialects import uop as U
from kiln.dialects.alu import alu_kind, lanes
from kiln.dialects.ops.table import function_names
from kiln.passes.uop_simplify import remove_dead_code
from kiln.support import symbolic as S
from kiln.support.statistics import Statistic

FUNCTION_COST = 8
"""Weight of an ALU op C computes with a ``<math.h>`` function (exp, log, tanh, ...)."""
STASH_COST = 4
"""Least cost of a value worth a store and a load instead of its recomputation."""

STASHED = Statistic("values-stashed", "Number of values stored in a reduce loop and loaded where they were recomputed")

_INDEX_ARITHMETIC = {"add": S.add, "sub": S.sub, "mul": S.mul}

Key = tuple
"""A structural key: equal keys are the same value of the loop's index (``("index",)`` stands for it)."""


@dataclass(frozen=True)
class UopStashRecomputed(ModulePass):
    """Store a value a reduce loop computes into the output, and load it in the loop that writes the output."""

    name = "uop-stash-recomputed"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.ops if isinstance(k, U.UopKernelOp)]:
            if _KernelStasher(kernel).run():
                remove_dead_code(kernel.body.block)


def _same(a: SSAValue, b: SSAValue) -> bool:
    """Whether two loop bounds are one value: the same SSA value or equal constants."""
    if a == b:
        return True
    return isinstance(a.owner, U.ConstOp) and isinstance(b.owner, U.ConstOp) and a.owner.value == b.owner.value


class _KernelStasher:
    def __init__(self, kernel: U.UopKernelOp):
        self.block = kernel.body.block
        self.scope: dict[Operation, Operation | None] = {}
        self.position: dict[Operation, int] = {}
        open_scopes: list[Operation] = []
        for n, op in enumerate(self.block.ops):
            if isinstance(op, U.EndOp | U.EndIfOp):
                open_scopes.pop()
            self.scope[op] = open_scopes[-1] if open_scopes else None
            self.position[op] = n
            if isinstance(op, U.RangeOp | U.IfOp):
                open_scopes.append(op)
        ops = list(self.block.ops)
        self.stores = [o for o in ops if isinstance(o, U.StoreOp)]
        self.written = {s.ptr for s in self.stores}
        self.read = {o.ptr for o in ops if isinstance(o, U.LoadOp)}
        self.shares_memory = any(isinstance(o, U.DefineLocalOp | U.BarrierOp) for o in ops)
        self.function_kinds = set(function_names("c"))

    def run(self) -> bool:
        if self.shares_memory:
            return False
        changed = False
        for store in self.stores:
            if self._stash_for(store):
                STASHED.bump()
                changed = True
        return changed

    # -- the conditions ------------------------------------------------------------------------------

    def _stash_for(self, store: U.StoreOp) -> bool:
        ptr = store.ptr
        if len(store.operands) > 3 or ptr in self.read or sum(s.ptr == ptr for s in self.stores) != 1:
            return False
        output_loop = self.scope[store]
        if not isinstance(output_loop, U.RangeOp):
            return False
        step = self._step(store.index, output_loop)
        if step is None or abs(step) < lanes(store.value.type):
            return False
        wanted = self._keys(output_loop)
        lane_values = self._lanes(store.value, output_loop)
        for reduce_loop in self._earlier_twins(output_loop):
            if not self._available_before(store.index, output_loop, reduce_loop):
                continue
            reduce_keys = self._keys(reduce_loop)
            keys: dict[Key, SSAValue | tuple[SSAValue, int]] = dict(self._lane_keys(reduce_loop, reduce_keys))
            keys.update((key, v) for v, key in reduce_keys.items() if key is not None)
            best = [self._best(v, output_loop, wanted, keys) for v in lane_values]
            if None in best:
                continue
            twins = self._twins([keys[wanted[v]] for v in best])  # type: ignore[index]
            twin_index = keys.get(wanted[store.index])  # type: ignore[arg-type]
            if twins is None or isinstance(twin_index, tuple):
                continue
            self._rewrite(store, best, twins, twin_index, output_loop, reduce_loop)  # type: ignore[arg-type]
            return True
        return False

    @staticmethod
    def _twins(found: list[SSAValue | tuple[SSAValue, int]]) -> SSAValue | list[SSAValue] | None:
        """The values to stash: scalars (one per lane), or one vector whose lanes in order are the twins."""
        parts = [f for f in found if isinstance(f, tuple)]
        if not parts:
            return found  # type: ignore[return-value]
        vector = parts[0][0]
        if len(parts) == len(found) == lanes(vector.type) and parts == [(vector, k) for k in range(len(parts))]:
            return vector
        return None

    def _lanes(self, value: SSAValue, loop: U.RangeOp) -> list[SSAValue]:
        """The values stored: the lanes of a vector the loop builds from scalars (upcast lanes), else the value."""
        if isinstance(value.owner, U.VectorizeOp) and self._inside(value, loop):
            return list(value.owner.operands)
        return [value]

    def _best(self, value: SSAValue, loop: U.RangeOp, wanted: dict, keys: dict) -> SSAValue | None:
        """The costliest value of ``value``'s type that ``value`` is computed from and the other loop computes
        too, if it is worth stashing."""
        candidates = [v for v in self._subvalues(value, loop) if v.type == value.type and wanted.get(v) in keys]
        best = max(candidates, key=lambda v: self._cost(v, loop), default=None)
        return best if best is not None and self._cost(best, loop) >= STASH_COST else None

    def _earlier_twins(self, loop: U.RangeOp) -> list[U.RangeOp]:
        """Loops before ``loop`` in its bracket with its bounds, nearest first."""
        twins = [o for o in self.scope if isinstance(o, U.RangeOp) and self.scope[o] is self.scope[loop]
                 and self.position[o] < self.position[loop] and _same(o.lo, loop.lo) and _same(o.hi, loop.hi)]
        return sorted(twins, key=lambda o: -self.position[o])

    def _inside(self, value: SSAValue, loop: Operation) -> bool:
        """Whether ``value`` is computed directly in ``loop``'s body (the loop's index included)."""
        return value == loop.results[0] or (isinstance(value.owner, Operation) and self.scope.get(value.owner) is loop)

    def _available_before(self, value: SSAValue, loop: U.RangeOp, before: U.RangeOp) -> bool:
        """Whether what ``value`` uses from outside ``loop`` is defined before loop ``before`` opens."""
        if self._inside(value, loop):
            return value == loop.result or all(self._available_before(v, loop, before) for v in value.owner.operands)
        return not isinstance(value.owner, Operation) or self.position[value.owner] < self.position[before]

    def _step(self, index: SSAValue, loop: U.RangeOp) -> int | None:
        """``I(r + 1) - I(r)`` where it is a constant (``I`` affine in ``r``), else None."""
        def expr(value: SSAValue, r: S.Expr) -> S.Expr:
            if value == loop.result:
                return r
            owner = value.owner
            if isinstance(owner, U.ConstOp) and isinstance(value.type, IndexType):
                return S.const(owner.value.value.data)  # type: ignore[attr-defined]
            if self._inside(value, loop) and isinstance(owner, Operation):
                if (kind := alu_kind(owner)) in _INDEX_ARITHMETIC and isinstance(value.type, IndexType):
                    return _INDEX_ARITHMETIC[kind](*(expr(v, r) for v in owner.operands))
                return S.Var(f"opaque{id(value)}", S.INDEX_MIN, S.INDEX_MAX)  # the difference keeps it: no step
            return S.Var(f"outer{id(value)}", S.INDEX_MIN, S.INDEX_MAX)

        r = S.Var("r", 0, S.INDEX_MAX // 2)
        delta = S.sub(expr(index, S.add(r, 1)), expr(index, r))
        return delta.value if isinstance(delta, S.Const) else None

    # -- structural keys --------------------------------------------------------------------------------

    def _keys(self, loop: U.RangeOp) -> dict[SSAValue, Key | None]:
        """A key for each value computed in ``loop``'s body: None where it is not a pure function of the index
        (accumulators, loads of written buffers, nested brackets)."""
        keys: dict[SSAValue, Key | None] = {loop.result: ("index",)}

        def key_of(v: SSAValue) -> Key | None:
            return keys.get(v) if self._inside(v, loop) else ("outer", v)

        for op in self.block.ops:
            if self.scope[op] is not loop or not op.results:
                continue
            pure = op.has_trait(Pure) or (isinstance(op, U.LoadOp) and op.ptr not in self.written)
            operands = tuple(key_of(v) for v in op.operands)
            fields = (op.name, tuple(sorted((k, str(a)) for k, a in op.properties.items())),
                      tuple(str(t) for t in op.result_types))
            for n, result in enumerate(op.results):
                keys[result] = (*fields, operands, n) if pure and None not in operands else None
        return keys

    def _lane_keys(self, loop: U.RangeOp, keys: dict[SSAValue, Key | None]) -> dict[Key, tuple[SSAValue, int]]:
        """The key of each lane of ``loop``'s pure vector values as that lane's scalar computation would have it
        (``uop.extract`` of a vector load, the value of a broadcast, the op on its operands' lanes): where the
        reduce loop computes a vector (softmax's exp of 16 lanes) and the output loop its lanes one by one."""
        found: dict[Key, tuple[SSAValue, int]] = {}
        memo: dict[tuple[SSAValue, int], Key | None] = {}

        def lane_key(v: SSAValue, k: int) -> Key | None:
            if (v, k) in memo:
                return memo[(v, k)]
            owner, key = v.owner, None
            inside = self._inside(v, loop)
            if isinstance(owner, U.VectorizeOp) and len(set(owner.operands)) == 1:  # a broadcast
                scalar = owner.operands[0]
                key = keys.get(scalar) if inside and self._inside(scalar, loop) else ("outer", scalar)
            elif not inside or keys.get(v) is None:
                key = None
            elif isinstance(owner, U.LoadOp):
                element = str(v.type.get_element_type())
                key = ("uop.extract", (("lane", str(IntegerAttr(k, 64))),), (element,), (keys[v],), 0)
            elif alu_kind(owner) is not None and len(owner.results) == 1:
                operands = tuple(lane_key(o, k) if isinstance(o.type, VectorType) else None for o in owner.operands)
                if None not in operands:
                    fields = (owner.name, tuple(sorted((n, str(a)) for n, a in owner.properties.items())),
                              (str(v.type.get_element_type()),))
                    key = (*fields, operands, 0)
            memo[(v, k)] = key
            return key

        for v in keys:
            if isinstance(v.type, VectorType):
                for k in range(lanes(v.type)):
                    if (key := lane_key(v, k)) is not None:
                        found.setdefault(key, (v, k))
        return found

    def _subvalues(self, value: SSAValue, loop: U.RangeOp) -> list[SSAValue]:
        """``value`` and what it is computed from in ``loop``'s body."""
        seen: list[SSAValue] = []
        work = [value]
        while work:
            v = work.pop()
            if v in seen or not self._inside(v, loop) or v == loop.result:
                continue
            seen.append(v)
            work.extend(v.owner.operands)
        return seen

    def _cost(self, value: SSAValue, loop: U.RangeOp) -> int:
        kinds = [alu_kind(v.owner) for v in self._subvalues(value, loop) if not isinstance(v.type, IndexType)]
        return sum(FUNCTION_COST if k in self.function_kinds else 1 for k in kinds if k is not None)

    # -- the rewrite --------------------------------------------------------------------------------------

    def _rewrite(self, store: U.StoreOp, values: list[SSAValue], twins: SSAValue | list[SSAValue], twin_index: SSAValue | None,
                 loop: U.RangeOp, twin_loop: U.RangeOp) -> None:
        """Store the ``twins`` (one per lane, or one vector of them) at ``I(twin index)`` at the end of ``twin_loop`` (``twin_index``
        where that loop computes it already); load the ``values`` back from ``I(index)`` before the first."""
        end = next(u.operation for u in twin_loop.result.uses if isinstance(u.operation, U.EndOp))
        if twin_index is None:
            twin_index = self._copy(store.index, loop, {loop.result: twin_loop.result}, end)
        if isinstance(twins, SSAValue):
            stashed = twins
        elif len(twins) > 1:
            vector = U.VectorizeOp(twins)
            self.block.insert_op_before(vector, end)
            stashed = vector.result
        else:
            stashed = twins[0]
        self.block.insert_op_before(U.StoreOp(store.ptr, twin_index, stashed), end)
        at = min((v.owner for v in values), key=self.block.get_operation_index)
        load = U.LoadOp(store.ptr, self._copy(store.index, loop, {}, at), None, store.value.type)
        self.block.insert_op_before(load, at)
        if len(values) == 1:
            values[0].replace_all_uses_with(load.result)
            return
        for lane, value in enumerate(values):
            extract = U.ExtractOp(load.result, lane)
            self.block.insert_op_before(extract, at)
            value.replace_all_uses_with(extract.result)

    def _copy(self, value: SSAValue, loop: U.RangeOp, mapping: dict[SSAValue, SSAValue], before: Operation) -> SSAValue:
        """``value`` computed before ``before``: the ops of ``loop``'s body it needs are cloned there with
        ``mapping`` applied, unless they already come before it unchanged."""
        if value in mapping:
            return mapping[value]
        if not self._inside(value, loop) or value == loop.result:
            return value
        owner = value.owner
        operands = [self._copy(v, loop, mapping, before) for v in owner.operands]
        if not mapping and self._before(owner, before):
            return value
        clone = owner.clone(value_mapper=dict(zip(owner.operands, operands, strict=True)))
        self.block.insert_op_before(clone, before)
        self.scope[clone] = self.scope[before]
        return clone.results[value.index]

    def _before(self, op: Operation, other: Operation) -> bool:
        return op.parent is other.parent and self.block.get_operation_index(op) < self.block.get_operation_index(other)
