"""Turning a piece of the lazy graph into a `graph` function: the nodes it needs, its key, its IR.

``Subgraph.of(outputs)`` walks from the requested nodes down to the leaves. Its ``key`` is a structural
fingerprint (ops, properties, types, wiring; not the data of buffers), so two computations with the same
structure share one compiled program in memory without building or printing IR. ``module`` builds the
``func.func`` whose arguments are the leaves in ``args`` order and whose results are the outputs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Region, SSAValue

from kiln.dialects import graph
from kiln.dialects.types import DIMS_KEY, DimsAttr
from kiln.jit.lazy import Node, postorder


@dataclass
class Subgraph:
    order: list[Node]
    """Every node the outputs depend on, operands before users."""
    leaves: list[Node]
    """The ``buffer`` and ``input`` nodes among them, in first-use order."""
    outputs: list[Node]

    @staticmethod
    def of(outputs: Sequence[Node]) -> Subgraph:
        order, _ = postorder(outputs, lambda node: True)
        leaves = [n for n in order if n.op in ("buffer", "input")]
        return Subgraph(order, leaves, list(outputs))

    def key(self, args: Sequence[Node]) -> tuple:
        """Structural fingerprint of the function with arguments ``args``: equal keys, equal IR."""
        index = {id(n): i for i, n in enumerate(self.order)}
        arg_pos = {id(n): i for i, n in enumerate(args)}
        parts: list[tuple] = []
        for n in self.order:
            if n.op == "const":
                leaf: object = (type(n.arg), repr(n.arg))
            elif n.op in ("buffer", "input"):
                leaf = arg_pos[id(n)]
            else:
                leaf = tuple(sorted(n.props.items()))
            parts.append((n.op, n.shape, n.dtype, leaf, tuple(index[id(s)] for s in n.srcs)))
        return (tuple(parts), tuple(index[id(o)] for o in self.outputs))

    def module(self, name: str, args: Sequence[Node], dims: Mapping[str, tuple[int, int]] | None = None) -> ModuleOp:
        """A module with one ``func.func @name(args...) -> (outputs...)``; ``dims`` declares the symbols used."""
        block = Block(arg_types=[a.type for a in args])
        values: dict[int, SSAValue] = {id(a): v for a, v in zip(args, block.args)}
        for n in self.order:
            if id(n) in values:
                continue
            if n.op == "const":
                op = graph.ConstantOp.splat(n.arg, n.type)
            elif n.op in ("buffer", "input"):
                raise AssertionError(f"leaf {n} is not among the function's arguments")
            else:
                op = graph.op(n.op).build_op([values[id(s)] for s in n.srcs], result_type=n.type, **n.props)
            block.add_op(op)
            values[id(n)] = op.results[0]
        block.add_op(func.ReturnOp(*(values[id(o)] for o in self.outputs)))
        function = func.FuncOp(
            name, FunctionType.from_lists([a.type for a in args], [o.type for o in self.outputs]), Region(block)
        )
        if dims:
            function.attributes[DIMS_KEY] = DimsAttr.from_dict(dict(dims))
        return ModuleOp([function])
