"""What the conversions of ``uop`` kernels into the source-language dialects (``cstyle``, ``wgsl``) share.

Both walk a kernel's ops once, in order, keeping the block being filled (the function body, then one block per
open ``uop.range``/``uop.if`` bracket) and the target values of each uop value, one per vector lane: vectors
are scalarized, so a ``vector<4xf32>`` value is four target values. Brackets become the dialect's ``for``/``if``
regions, accumulators its mutable cells; ``uop.vectorize`` and ``uop.extract`` only regroup lanes; every ALU
op is converted lane by lane, ``uop.reduce_lanes`` as its pairwise ALU ops. ``KernelConverter`` does all that
with the op classes a subclass names (made by ``kiln.dialects.target_ops``), and leaves the rest -- the function,
specials, memory, constants, conversions and what each ALU op means in the language -- to the subclass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import ClassVar

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import target_ops, uop
from kiln.dialects.alu import AluOp, element_type, lanes
from kiln.support.prototypes import OpPrototypes, OpT, Settings, number_key


class ConvertUopToTarget(ModulePass):
    """A conversion that leaves the uop level for a target dialect. The driver reads the program's schedule
    just before the first such pass, while the module still holds ``uop.kernel`` launch attributes."""


class KernelConverter:
    """Converts one ``uop.kernel``: subclasses name the target dialect's ops, build the function and call
    ``_convert_body`` with its block, and convert the ops ``_convert_target_op`` gets."""

    FOR: ClassVar[type[target_ops.ForOp]]
    IF: ClassVar[type[target_ops.IfOp]]
    CELL: ClassVar[tuple[type[target_ops.CellInitOp], type[target_ops.CellReadOp], type[target_ops.CellWriteOp]]]
    """The ops that make, read and write a mutable local (an accumulator)."""
    LITERAL: ClassVar[type[target_ops.LiteralOp]]
    UNARY: ClassVar[type[target_ops.UnaryOp]]
    BINARY: ClassVar[type[target_ops.BinaryOp]]
    SELECT: ClassVar[type[target_ops.SelectOp]]
    CALL: ClassVar[type[target_ops.CallOp]]

    def __init__(self, kernel: uop.UopKernelOp):
        self.kernel = kernel
        self.lanes: dict[SSAValue, list[SSAValue]] = {}
        """uop value -> its target values, one per lane (one for a scalar; the variables for an accumulator)."""
        self.blocks: list[Block] = []
        """The blocks being filled: the function body, then one per open range/if bracket (innermost last)."""
        self.current: Operation | None = None
        """The uop op being converted: the new ops take over its location."""
        self._prototypes = OpPrototypes()
        """Vector code converts to thousands of ops of a few kinds: built from the first of each."""

    # -- structure ----------------------------------------------------------------------------

    def _convert_body(self, body: Block) -> None:
        """Convert the kernel's ops, in order, into ``body`` (the function's block)."""
        self.blocks.append(body)
        for op in self.kernel.body.block.ops:
            self.current = op
            self._convert_op(op)

    @property
    def block(self) -> Block:
        return self.blocks[-1]

    def _convert_op(self, op: Operation) -> None:
        make, read, write = self.CELL
        match op:
            case uop.ParamOp():
                pass  # a parameter of the function already
            case uop.RangeOp():
                loop = self._add(self.FOR(self._scalar(op.lo), self._scalar(op.hi)))
                loop.counter.name_hint = op.result.name_hint
                self.lanes[op.result] = [loop.counter]
                self.blocks.append(loop.body.block)
            case uop.IfOp():
                self.blocks.append(self._add(self.IF(self._scalar(op.cond))).body.block)
            case uop.EndOp() | uop.EndIfOp():
                self.blocks.pop()  # the uop verifier guarantees it closes the innermost bracket
            case uop.DefineAccOp():
                inits = self.lanes[op.init]
                self._define(op, [self._built(make, (v,), (), lambda v=v: make(v)).results[0] for v in inits])
            case uop.AccGetOp():
                cells = self.lanes[op.acc]
                self._define(op, [self._built(read, (x,), (), lambda x=x: read(x)).results[0] for x in cells])
            case uop.AccSetOp():
                for var, value in zip(self.lanes[op.acc], self.lanes[op.value], strict=True):
                    self._built(write, (var, value), (), lambda var=var, value=value: write(var, value))
            case uop.VectorizeOp():
                self._define(op, [self._scalar(e) for e in op.elements])
            case uop.ExtractOp():
                self._define(op, [self.lanes[op.vector][op.lane.value.data]])
            case uop.ReduceLanesOp():
                self._reduce_lanes(op)
            case AluOp():
                self._alu_op(op)
            case _:
                self._convert_target_op(op)

    def _convert_target_op(self, op: Operation) -> None:
        """Convert an op ``_convert_op`` leaves to the target, or raise a located error."""
        raise NotImplementedError

    @contextmanager
    def _only_where(self, gate: SSAValue | None) -> Iterator[None]:
        """The ops added inside run only where the uop value ``gate`` is true (always when it is None)."""
        if gate is None:
            yield
            return
        self.blocks.append(self._add(self.IF(self._scalar(gate))).body.block)
        yield
        self.blocks.pop()

    @staticmethod
    def _const_numbers(op: uop.ConstOp) -> list:
        """The value of each lane of a ``uop.const`` (a splat gives every lane the one number)."""
        value = op.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            numbers = list(value.get_values())
        else:
            numbers = [value.value.data]  # type: ignore[union-attr]
        return numbers * lanes(op.result.type) if len(numbers) == 1 else numbers

    # -- ALU ------------------------------------------------------------------------------------

    def _alu_op(self, op: AluOp) -> None:
        t = self._alu_type(element_type(op.value_operands[0].type), op)
        per_operand = [self.lanes[v] for v in op.operands]
        self._define(op, [self._alu(op, op.alu_kind, t, list(xs)) for xs in zip(*per_operand, strict=True)])

    def _reduce_lanes(self, op: uop.ReduceLanesOp) -> None:
        """The lanes combined in ``uop.reduce_lanes``'s order: the upper half onto the lower half."""
        kind, t = op.reduce_kind, self._alu_type(element_type(op.vector.type), op)  # type: ignore[arg-type]

        def combine(x: SSAValue, y: SSAValue) -> SSAValue:
            return self._alu(op, kind, t, [x, y])  # type: ignore[arg-type]

        self._define(op, [uop.pairwise_lanes(self.lanes[op.vector], combine)])

    def _alu_type(self, t: Attribute, op: AluOp) -> Attribute:
        """The operand type ``_alu`` is told, from the uop scalar type ``t``."""
        return t

    def _alu(self, op: AluOp, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue:
        """One lane of an ALU op of kind ``kind`` on operand type ``t``."""
        raise NotImplementedError

    # -- bookkeeping ----------------------------------------------------------------------------

    def _add(self, new: Operation) -> Operation:
        """Append ``new`` to the block being filled, located where the uop op being converted is."""
        if self.current is not None:
            new.location = self.current.location
        self.block.add_op(new)
        return new

    def _built(self, cls: type[OpT], operands: Sequence[SSAValue], settings: Settings, make: Callable[[], OpT]) -> OpT:
        """``self._add(make())``, the op built from a prototype (``OpPrototypes.build``)."""
        return self._add(self._prototypes.build(cls, operands, settings, make))  # type: ignore[return-value]

    def _define(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """Record the lanes of ``op``'s result, passing its name on to the values."""
        hint = op.results[0].name_hint
        for v in values:
            if hint and v.name_hint is None:
                v.name_hint = hint
        self.lanes[op.results[0]] = list(values)

    def _scalar(self, value: SSAValue) -> SSAValue:
        (v,) = self.lanes[value]
        return v

    def _literal(self, number: int | float | bool, t: Attribute) -> SSAValue:
        return self._built(self.LITERAL, (), (number_key(number), t), lambda: self.LITERAL.of(number, t)).results[0]

    def _binary(self, operator: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._built(self.BINARY, (a, b), (operator,), lambda: self.BINARY(operator, a, b)).results[0]

    def _unary(self, operator: str, a: SSAValue) -> SSAValue:
        return self._built(self.UNARY, (a,), (operator,), lambda: self.UNARY(operator, a)).results[0]

    def _select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._built(self.SELECT, (c, a, b), (), lambda: self.SELECT(c, a, b)).results[0]

    def _call(self, name: str, *args: SSAValue) -> SSAValue:
        return self._built(self.CALL, args, (name,), lambda: self.CALL(name, args)).results[0]


__all__ = ["KernelConverter"]
