"""The ``kernel`` dialect: kernels with explicit iteration spaces over buffers, and the schedule that runs them.

A ``kernel.kernel`` is one block, no terminator, graph-like: each value is computed at every point of the
ranges in its backward slice; a ``kernel.store`` runs once per point of the ranges its operands depend on;
``kernel.reduce`` combines a value over ranges so its result no longer depends on them. The schedule is a
``func.func`` over ``!kernel.buffer`` values using ``kernel.symbol``, ``kernel.alloc`` and ``kernel.launch``.
docs/dialects/kernel.md is the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    i1,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    MemoryAllocEffect,
    NoTerminator,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from kiln.dialects.alu import (
    ALU_OPS,
    check_value_type,
    describe,
    dtype_class,
    make_alu_ops,
    make_const_op,
    make_conversion_ops,
    print_function,
)
from kiln.dialects.target_ops import IndexedAccess, make_access_ops
from kiln.dialects.types import BufferType, TensorType, check_declared, declared_dims

# ---------------------------------------------------------------------------------------------
# attributes


class AxisKind(StrEnum):
    """What a range becomes when the kernel is linearized (tinygrad's AxisType)."""

    GLOBAL = "global"  # a launch dimension (GPU grid, CPU outer loop)
    LOCAL = "local"  # a workgroup dimension (GPU threads that share local memory)
    LOOP = "loop"  # a sequential loop inside one thread
    REDUCE = "reduce"  # a loop that a kernel.reduce combines over
    GROUP_REDUCE = "group_reduce"  # a reduce split over the threads of a workgroup
    UPCAST = "upcast"  # unrolled into vector lanes / registers
    UNROLL = "unroll"  # an unrolled reduce loop
    THREAD = "thread"  # split over CPU cores


REDUCE_AXES = frozenset({AxisKind.REDUCE, AxisKind.UNROLL, AxisKind.GROUP_REDUCE})
"""Range kinds a ``kernel.reduce`` may combine over."""


@irdl_attr_definition
class AxisKindAttr(EnumAttribute[AxisKind], SpacedOpaqueSyntaxAttribute):
    """``#kernel<axis reduce>``; printed bare in ``kernel.range``."""

    name = "kernel.axis"


class ReduceKind(StrEnum):
    ADD = "add"
    MUL = "mul"
    MAX = "max"
    MIN = "min"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    """``#kernel<reduce_kind add>``; printed bare in ``kernel.reduce``."""

    name = "kernel.reduce_kind"


# ---------------------------------------------------------------------------------------------
# the kernel


def _string_list(op: Operation, key: str) -> list[str] | None:
    """The discardable attribute ``key`` as a list of strings (None when absent); raise if it is not one."""
    attr = op.attributes.get(key)
    if attr is None:
        return None
    if not isinstance(attr, ArrayAttr) or not all(isinstance(s, StringAttr) for s in attr.data):
        raise VerifyException(f'{op.name} attribute "{key}" must be an array of strings, got {attr}')
    return [s.data for s in attr.data]  # type: ignore[attr-defined]


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A kernel: ``kernel.kernel @name(%x: !kernel.buffer<Nx64xf32>, %N: index) attributes {...} { ... }``.
    Arguments are buffers and index scalars (symbol values). Optional attributes: ``graph.dims`` (the
    symbols its buffer types use), ``symbols`` (one name per index argument, in order: the symbolic dim it
    carries), ``inputs`` (one string per buffer argument: why it is a buffer) and ``opts`` (the
    optimizations applied, as strings). One block, no terminator."""

    name = "kernel.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(
        self,
        name: str,
        arg_types: Sequence[Attribute],
        body: Region | None = None,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            properties={"sym_name": StringAttr(name)},
            regions=[body if body is not None else Region(Block(arg_types=arg_types))],
            attributes=attributes,
        )

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        return self.body.block.args

    @property
    def buffer_args(self) -> tuple[BlockArgument, ...]:
        return tuple(a for a in self.args if isinstance(a.type, BufferType))

    @property
    def arg_types(self) -> tuple[Attribute, ...]:
        return tuple(a.type for a in self.args)

    def verify_(self) -> None:
        where = f"kernel.kernel @{self.sym_name.data}"
        for i, arg in enumerate(self.args):
            if not isinstance(arg.type, BufferType | IndexType):
                raise VerifyException(f"{where} argument {i} must be a !kernel.buffer or index, got {arg.type}")
        check_declared(self, self.arg_types)
        for op in self.body.block.ops:
            for result in op.results:
                if isinstance(result.type, TensorType):
                    raise VerifyException(
                        f"{where} contains {op.name} producing {result.type}: tensors do not exist inside "
                        "kernels (use buffers, loads and stores)"
                    )
        inputs = _string_list(self, "inputs")
        if inputs is not None and len(inputs) != len(self.buffer_args):
            raise VerifyException(
                f'{where} attribute "inputs" has {len(inputs)} entries for {len(self.buffer_args)} buffer '
                "arguments (one reason per buffer)"
            )
        _string_list(self, "opts")
        symbols = _string_list(self, "symbols")
        if symbols is not None:
            index_args = [a for a in self.args if isinstance(a.type, IndexType)]
            if len(symbols) != len(index_args):
                raise VerifyException(
                    f'{where} attribute "symbols" has {len(symbols)} names for {len(index_args)} index '
                    "arguments (one symbol per index argument, in order)"
                )
            declared = declared_dims(self)
            for name in symbols:
                if name not in declared:
                    raise VerifyException(f"{where}: symbol '{name}' is not declared in graph.dims")

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument())
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        return cls.create(
            properties={"sym_name": name}, regions=[body], attributes=dict(attrs.data) if attrs else {}
        )

    def print(self, printer: Printer) -> None:
        print_function(printer, self, self.sym_name.data, self.args, self.body)


# ---------------------------------------------------------------------------------------------
# ranges and reductions


@irdl_op_definition
class RangeOp(IRDLOperation):
    """``%i = kernel.range %size <kind>``: an index running over ``0 .. size-1``; the kind says how it is
    executed. Ranges are distinct loops even when size and kind agree, so they are never merged or erased."""

    name = "kernel.range"

    size = operand_def(AnyAttr())
    kind = prop_def(AxisKindAttr)
    result = result_def(IndexType)
    traits = traits_def(HasParent(KernelOp))

    def __init__(self, size: SSAValue | Operation, kind: AxisKind):
        super().__init__(operands=[size], properties={"kind": AxisKindAttr(kind)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if not isinstance(self.size.type, IndexType):
            raise VerifyException(f"kernel.range size must be index, got {self.size.type}")

    @classmethod
    def parse(cls, parser: Parser) -> RangeOp:
        size = parser.parse_operand(IndexType())
        kind = AxisKindAttr(AxisKindAttr.parse_parameter(parser))
        attributes = parser.parse_optional_attr_dict()
        return cls.create(
            operands=[size], properties={"kind": kind}, result_types=[IndexType()], attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.size)
        printer.print_string(" " + self.kind.data.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """``%s = kernel.reduce add %v over %k, %l : f32``: combine ``%v`` over every point of the listed
    ranges (each a reduce, unroll or group_reduce range) with add, mul, max or min."""

    name = "kernel.reduce"

    T: ClassVar = VarConstraint("T", AnyAttr())
    kind = prop_def(ReduceKindAttr)
    value = operand_def(T)
    ranges = var_operand_def(IndexType)
    result = result_def(T)
    traits = traits_def(Pure(), HasParent(KernelOp))
    assembly_format = "$kind $value `over` $ranges attr-dict `:` type($result)"

    def __init__(self, kind: ReduceKind, value: SSAValue | Operation, ranges: Sequence[SSAValue | Operation]):
        super().__init__(
            operands=[value, list(ranges)],
            properties={"kind": ReduceKindAttr(kind)},
            result_types=[SSAValue.get(value).type],
        )

    def verify_(self) -> None:
        kind = self.kind.data.value
        t = self.value.type
        check_value_type(t, False, f"kernel.reduce {kind} operand")
        if dtype_class(t) not in ALU_OPS[kind].dtypes:
            raise VerifyException(f"kernel.reduce {kind} does not accept {t}")
        if not self.ranges:
            raise VerifyException("kernel.reduce needs at least one range to reduce over")
        seen: set[SSAValue] = set()
        for r in self.ranges:
            owner = r.owner
            if not isinstance(owner, RangeOp):
                raise VerifyException(f"kernel.reduce over {describe(r)}: it is not a kernel.range result")
            if owner.kind.data not in REDUCE_AXES:
                raise VerifyException(
                    f"kernel.reduce over {describe(r)}: it is a {owner.kind.data.value} range; reduce over "
                    "reduce, unroll or group_reduce ranges only"
                )
            if r in seen:
                raise VerifyException(f"kernel.reduce lists range {describe(r)} twice")
            seen.add(r)


# ---------------------------------------------------------------------------------------------
# memory


def _verify_access(op: Operation, buffer: SSAValue, index: SSAValue, gate: SSAValue | None) -> BufferType:
    """Checks load and store share: the buffer is a kernel argument, the index is index, the gate i1."""
    kernel = op.parent_op()
    if not (isinstance(buffer, BlockArgument) and kernel is not None and buffer.owner.parent_op() is kernel):
        raise VerifyException(f"{op.name} buffer {describe(buffer)} must be an argument of the enclosing kernel")
    if not isinstance(index.type, IndexType):
        raise VerifyException(f"{op.name} index must be index, got {index.type}")
    if gate is not None and gate.type != i1:
        raise VerifyException(f"{op.name} gate must be i1, got {gate.type}")
    assert isinstance(buffer.type, BufferType)  # the operand constraint
    return buffer.type


def _verify_load(op: IRDLOperation) -> None:
    buffer, index, *gate = op.operands
    expected = _verify_access(op, buffer, index, gate[0] if gate else None).element_type
    if op.results[0].type != expected:
        raise VerifyException(
            f"kernel.load result type {op.results[0].type} must be the buffer's element type {expected}"
        )


def _verify_store(op: IRDLOperation) -> None:
    buffer, index, value, *gate = op.operands
    expected = _verify_access(op, buffer, index, gate[0] if gate else None).element_type
    if value.type != expected:
        raise VerifyException(f"kernel.store value type {value.type} must be the buffer's element type {expected}")


_ELEMENTS = IndexedAccess(
    "buffer", BufferType, "buffer", "a !kernel.buffer", index_type=IndexType(), gate=",", gated=("load", "store")
)
"""``%buf[%idx]``: the buffer must be defined already (a kernel argument), its type is not repeated; a gate
follows after a comma."""

LoadOp, StoreOp = make_access_ops(
    "kernel", HasParent(KernelOp), _ELEMENTS, verify_load=_verify_load, verify_store=_verify_store,
    load_doc="""``%v = kernel.load %buf[%i] : f32``: element ``%i`` (a linear row-major index) of a buffer argument.
    Gated: ``kernel.load %buf[%i], %valid : f32`` reads nothing and gives 0 where ``%valid`` is false.""",
    store_doc="""``kernel.store %buf[%i], %v``: write ``%v`` (of the buffer's element type) to element ``%i``, once
    per point of the ranges the operands depend on. Gated: ``kernel.store %buf[%i], %v, %valid`` writes
    only where ``%valid`` is true.""",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# the schedule


@irdl_op_definition
class SymbolOp(IRDLOperation):
    """``%N = kernel.symbol "N" : index``: the value a symbolic dim of the enclosing function is bound to
    at run time."""

    name = "kernel.symbol"

    symbol = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$symbol attr-dict `:` type($result)"

    def __init__(self, symbol: str):
        super().__init__(properties={"symbol": StringAttr(symbol)}, result_types=[IndexType()])

    def verify_(self) -> None:
        name = self.symbol.data
        if name not in declared_dims(self):
            raise VerifyException(
                f'kernel.symbol "{name}": symbolic dim \'{name}\' is not declared by the enclosing function\'s '
                "graph.dims"
            )


@irdl_op_definition
class AllocOp(IRDLOperation):
    """``%t = kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx32xf32>``: an intermediate buffer.
    ``slot`` (set by kernel-plan-memory) names its storage; allocs that share a slot share memory."""

    name = "kernel.alloc"

    slot = opt_prop_def(IntegerAttr[I64])
    result = result_def(BufferType)
    traits = traits_def(MemoryAllocEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, buffer_type: BufferType, slot: int | None = None):
        props = {"slot": IntegerAttr(slot, 64)} if slot is not None else {}
        super().__init__(properties=props, result_types=[buffer_type])

    def verify_(self) -> None:
        if self.slot is not None and self.slot.value.data < 0:
            raise VerifyException(f"kernel.alloc slot must be >= 0, got {self.slot.value.data}")
        check_declared(self, [self.result.type])


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """``kernel.launch @k(%a, %b, %N) : T1, T2, index``: run kernel ``@k`` on these buffers and index
    values, after every earlier launch of the schedule has finished."""

    name = "kernel.launch"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def(AnyAttr())
    assembly_format = "$callee `(` $args `)` attr-dict `:` type($args)"

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        super().__init__(properties={"callee": SymbolRefAttr(callee)}, operands=[list(args)])

    def verify_(self) -> None:
        name = self.callee.string_value()
        types = [a.type for a in self.args]
        for i, t in enumerate(types):
            if not isinstance(t, BufferType | IndexType):
                raise VerifyException(f"kernel.launch @{name} argument {i} must be a !kernel.buffer or index, got {t}")
        check_declared(self, types)
        table_op = self.parent_op()
        while table_op is not None and not table_op.has_trait(SymbolTable):
            table_op = table_op.parent_op()
        if table_op is None:
            return  # a detached launch: nothing to check it against
        callee = SymbolTable.lookup_symbol(table_op, self.callee)
        if callee is None:
            raise VerifyException(f"kernel.launch @{name}: there is no kernel.kernel @{name} in the module")
        if isinstance(callee, func.FuncOp):
            raise VerifyException(f"kernel.launch @{name}: @{name} is a func.func, not a kernel.kernel")
        if not isinstance(callee, KernelOp):
            return  # lowered further (uop.kernel, llvm.func, ...): the conversion keeps the signature
        expected = callee.arg_types
        if len(types) != len(expected):
            raise VerifyException(
                f"kernel.launch @{name} passes {len(types)} arguments, the kernel takes {len(expected)}"
            )
        for i, (t, e) in enumerate(zip(types, expected)):
            if t != e:
                raise VerifyException(f"kernel.launch @{name} argument {i} has type {t}, the kernel expects {e}")


# ---------------------------------------------------------------------------------------------
# ALU, casts, constants and the dialect

ALU = make_alu_ops("kernel")
"""``kernel.<kind>`` op classes by ALU kind: ``ALU["add"](a, b)``."""
CastOp, BitcastOp = make_conversion_ops("kernel")
ConstOp = make_const_op("kernel")


def int_constant(v: SSAValue) -> int | None:
    """The value of ``v`` when an integer ``kernel.const`` makes it (a constant size, step or index), else None."""
    owner = v.owner
    return owner.value.value.data if isinstance(owner, ConstOp) and isinstance(owner.value, IntegerAttr) else None

Kernel = Dialect(
    "kernel",
    [KernelOp, RangeOp, ReduceOp, LoadOp, StoreOp, SymbolOp, AllocOp, LaunchOp, CastOp, BitcastOp, ConstOp, *ALU.values()],
    [BufferType, AxisKindAttr, ReduceKindAttr],
)
