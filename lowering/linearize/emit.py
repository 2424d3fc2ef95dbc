"""Write a ``Program`` out as the ops of a ``uop.kernel`` block, in an order that respects every dependency.

Each scope is emitted as its bracket (``uop.range``/``uop.end``, ``uop.if``/``uop.endif``) around its items: its
nodes and its child scopes, topologically sorted with a priority (params, specials and constants first,
loops late, so everything a loop does not need to recompute comes before it). A child scope counts as one
item that depends on every node of this scope used anywhere inside it. Besides operands, a node's ``after``
list orders it (a barrier after the local stores it publishes, the loads that read them after the barrier).
Only nodes that feed a store or an accumulator update are emitted (plus every param, which the calling
convention needs).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from xdsl.ir import Block, Operation, SSAValue

from kiln.dialects import uop as U
from kiln.lowering.linearize.nodes import Node, Program, Scope
from kiln.support.prototypes import OpPrototypes

_PRIORITY = {"param": 0, "special": 1, "const": 2, "define_local": 3, "define_acc": 4, "store": 7}
_SCOPE_PRIORITY = 6
_OTHER_PRIORITY = 5


def live_nodes(program: Program) -> set[Node]:
    """Stores and params, everything they use, the updates of every accumulator they use, and the openers of
    the scopes all of these sit in."""
    nodes = [n for s in program.root.walk() for n in s.nodes]
    updates: dict[Node, list[Node]] = {}
    for n in nodes:
        if n.op == "acc_set":
            updates.setdefault(n.operands[0], []).append(n)
    live: set[Node] = set()
    stack = [n for n in nodes if n.op in ("store", "param")]
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        stack.extend(n.operands)
        stack.extend(x for x in n.after if isinstance(x, Node))
        stack.extend(updates.get(n, ()))
        scope: Scope | None = n.scope
        while scope is not None:
            stack.extend(scope.opener)
            scope = scope.parent
    return live


class Emitter:
    def __init__(self, program: Program, block: Block):
        self.program, self.block = program, block
        self.live = live_nodes(program)
        self.values: dict[Node, SSAValue] = {}
        self._used_inside: dict[Scope, set[Node]] = {}
        self._prototypes = OpPrototypes()
        """A tile's ops are thousands of a few kinds: built from the first of each (`OpPrototypes`)."""

    def run(self) -> None:
        self._scope_body(self.program.root)

    def _append(self, op: Operation, node: Node | None = None) -> None:
        self.block.add_op(op)
        if node is not None and node.location is not None:
            op.location = node.location
        if node is not None and op.results:
            self.values[node] = op.results[0]
            if node.name:
                op.results[0].name_hint = node.name

    def _has_live(self, scope: Scope) -> bool:
        return any(n in self.live for s in scope.walk() for n in s.nodes)

    def _needs(self, scope: Scope) -> set[Node]:
        """Nodes used by (or ordered before) the nodes and openers of ``scope`` and of every scope inside it."""
        if scope not in self._used_inside:
            used: set[Node] = set(scope.opener)
            for s in scope.walk():
                used.update(s.opener)
                for n in s.nodes:
                    if n in self.live:
                        used.update(n.operands)
                        used.update(x for x in n.after if isinstance(x, Node))
            self._used_inside[scope] = used
        return self._used_inside[scope]

    @staticmethod
    def _item(x: Node | Scope, scope: Scope) -> Node | Scope | None:
        """What ``x`` is among the items of ``scope``: itself (a node of ``scope``), the child scope holding it,
        or None when it lies outside ``scope`` (emitted before it opened)."""
        inner = x.scope if isinstance(x, Node) else x
        if isinstance(x, Node) and inner is scope:
            return x
        while inner is not None and inner.parent is not scope:
            inner = inner.parent
        return inner

    def _scope_body(self, scope: Scope) -> None:
        nodes = [n for n in scope.nodes if n in self.live]
        children = [c for c in scope.children if self._has_live(c)]
        items: list[Node | Scope] = [*nodes, *children]
        present = set(items)
        deps: dict[Node | Scope, set[Node | Scope]] = {}
        for n in nodes:
            deps[n] = {i for x in (*n.operands, *n.after) if (i := self._item(x, scope)) in present}
        for c in children:
            deps[c] = {i for x in self._needs(c) if (i := self._item(x, scope)) in present and i is not c}
        users: dict[Node | Scope, list[Node | Scope]] = {item: [] for item in items}
        for item, ds in deps.items():
            for d in ds:
                users[d].append(item)
        waiting = {item: len(ds) for item, ds in deps.items()}
        ready = [self._entry(item) for item in items if not waiting[item]]
        heapq.heapify(ready)
        emitted = 0
        while ready:
            *_, item = heapq.heappop(ready)
            self._emit_item(item)
            emitted += 1
            for u in users[item]:
                waiting[u] -= 1
                if not waiting[u]:
                    heapq.heappush(ready, self._entry(u))
        assert emitted == len(items), "cyclic dependencies between the linearizer's nodes"

    @staticmethod
    def _entry(item: Node | Scope) -> tuple[int, int, int, Node | Scope]:
        prio = _SCOPE_PRIORITY if isinstance(item, Scope) else _PRIORITY.get(item.op, _OTHER_PRIORITY)
        return (prio, item.seq, id(item), item)

    def _emit_item(self, item: Node | Scope) -> None:
        if isinstance(item, Scope):
            self._emit_scope(item)
        else:
            self._append(self._op(item), item)

    def _emit_scope(self, scope: Scope) -> None:
        if scope.kind == "loop":
            lo, hi = self._get(scope.opener)
            rng = U.RangeOp(lo, hi)
            assert scope.index is not None
            self._append(rng, scope.index)
            self._scope_body(scope)
            self._append(U.EndOp(rng.result))
        else:
            (cond,) = self._get(scope.opener)
            self._append(U.IfOp(cond))
            self._scope_body(scope)
            self._append(U.EndIfOp())

    def _get(self, nodes: Iterable[Node]) -> list[SSAValue]:
        return [self.values[n] for n in nodes]

    def _op(self, n: Node) -> Operation:
        args = self._get(n.operands)
        build = self._prototypes.build
        match n.op:
            case "param":
                return U.ParamOp(n.attr, n.type)  # type: ignore[arg-type]
            case "special":
                return U.SpecialOp(n.attr)  # type: ignore[arg-type]
            case "const":
                return U.ConstOp(n.attr)  # type: ignore[arg-type]
            case "alu":
                alu = U.ALU[n.attr]  # type: ignore[index]
                return build(alu, args, (), lambda: alu(*args))
            case "cast":
                return build(U.CastOp, args, (n.type,), lambda: U.CastOp(args[0], n.type))  # type: ignore[arg-type]
            case "bitcast":
                t = n.type
                return build(U.BitcastOp, args, (t,), lambda: U.BitcastOp(args[0], t))  # type: ignore[arg-type]
            case "load":
                return build(
                    U.LoadOp, args, (n.type,),
                    lambda: U.LoadOp(args[0], args[1], args[2] if len(args) > 2 else None, result_type=n.type),
                )
            case "store":
                gate = args[3] if len(args) > 3 else None
                return build(U.StoreOp, args, (), lambda: U.StoreOp(args[0], args[1], args[2], gate))
            case "define_acc":
                return build(U.DefineAccOp, args, (), lambda: U.DefineAccOp(args[0]))
            case "acc_get":
                return build(U.AccGetOp, args, (), lambda: U.AccGetOp(args[0]))
            case "acc_set":
                return build(U.AccSetOp, args, (), lambda: U.AccSetOp(args[0], args[1]))
            case "vectorize":
                return build(U.VectorizeOp, args, (), lambda: U.VectorizeOp(args))
            case "extract":
                lane = n.attr
                return build(U.ExtractOp, args, (lane,), lambda: U.ExtractOp(args[0], lane))  # type: ignore[arg-type]
            case "reduce_lanes":
                kind: str = n.attr  # type: ignore[assignment]
                return build(U.ReduceLanesOp, args, (kind,), lambda: U.ReduceLanesOp(kind, args[0]))
            case "define_local":
                return U.DefineLocalOp(n.attr, n.type.element_type)  # type: ignore[arg-type, union-attr]
            case "barrier":
                return U.BarrierOp()
            case "wmma":
                return U.WmmaOp(*args, *n.attr)  # type: ignore[misc]
        raise AssertionError(f"no uop op for node {n}")


def emit(program: Program, block: Block) -> None:
    """Append ``program``'s ops to ``block`` (the body of a ``uop.kernel``)."""
    Emitter(program, block).run()
