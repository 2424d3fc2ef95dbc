"""Op bases the kiln dialects share, and the factories that make a dialect's op classes from them.

The target-language dialects (``cstyle``, ``wgsl``) have the same statements and expressions -- counted loops,
conditionals, mutable locals, literals, operators, select, conversions, calls -- differing only in the dialect
prefix, the op they must live in, and which value types they accept. Each base class here holds what such an
op is everywhere (fields, builder, syntax, the checks every dialect makes); ``make_<op>(prefix, parent, ...)``
makes the dialect's IRDL op class ``<prefix>.<op>`` from it, as ``kiln.dialects.alu.make_alu_ops`` does for the
ALU ops. The factories take:

- ``prefix``: the dialect name (``cstyle`` makes ``cstyle.for``);
- ``parent``: the trait that places the op, e.g. ``HasAncestor(FuncOp)`` or ``HasParent(UopKernelOp)``;
- the dialect's type checks, each a ``Check``: ``check(t, what)`` raises a ``VerifyException`` about ``what``
  unless the dialect accepts type ``t`` there;
- ``doc``: the op's docstring in the dialect's words, which the generated dialect reference shows.

``uop`` makes its accumulators from the mutable-cell ops, and every dialect with element accesses (``kernel``,
``uop``, ``cstyle``, ``wgsl``) its loads and stores, described by an ``IndexedAccess``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Any, ClassVar

from xdsl.dialects.builtin import FloatAttr, FunctionType, IntegerAttr, StringAttr, i1
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import AnyAttr, IRDLOperation, irdl_attr_definition, operand_def, prop_def, region_def, result_def
from xdsl.irdl import opt_operand_def, traits_def, var_operand_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, MemoryReadEffect, MemoryWriteEffect, NoTerminator, OpTrait, Pure
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.alu import camel, define_op, parse_defined_operand, print_operands_and_type
from kiln.dialects.types import is_float

Check = Callable[[Attribute, str], None]
"""``check(t, what)``: raise a ``VerifyException`` that names ``what`` unless type ``t`` is allowed there."""

TypeName = Callable[[Attribute], str]
"""How a dialect's error messages spell a type (``str``, or e.g. WGSL's own names)."""


def _make(base: type, prefix: str, op: str, parent: OpTrait, doc: str, traits: Sequence[OpTrait], **members: Any):
    """``<prefix>.<op>``: a subclass of ``base`` with ``traits`` and then ``parent``, ``doc`` and ``members``
    (fields, methods and upper-case class constants); its class name is ``class_name`` or the base's."""
    class_name = members.pop("class_name", base.__name__)
    body = {"traits": traits_def(*traits, parent), "__doc__": doc, **members}
    return define_op(base, class_name, f"{prefix}.{op}", f"kiln.dialects.{prefix}", body)


# ---------------------------------------------------------------------------------------------
# types with one type parameter: !<prefix>.<name><T>


class TypeParameterSyntax(ParametrizedAttribute, TypeAttribute):
    """Base of types written ``!<prefix>.<name><T>``: one type parameter in angle brackets."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.parameters[0])


class CellType(TypeParameterSyntax):
    """Base of the types of mutable cells (local variables, accumulators): ``!<prefix>.<name><T>`` holds a T."""

    CHECK: ClassVar[Check]

    value_type: Attribute

    def verify(self) -> None:
        self.CHECK(self.value_type, f"!{self.name} value type")


def make_cell_type(prefix: str, name: str, check: Check, doc: str, class_name: str) -> type[CellType]:
    """The type ``!<prefix>.<name><T>`` of a dialect's mutable cells; ``check`` says which T it may hold."""
    body = {
        "name": f"{prefix}.{name}",
        "CHECK": staticmethod(check),
        "__doc__": doc,
        "__module__": f"kiln.dialects.{prefix}",
        "__qualname__": class_name,
        # declared here again: the dataclass equality and hash xDSL gives the class compare only the fields the
        # class itself declares, so without this every !<prefix>.<name><T> equalled every other, whatever T
        "__annotations__": {"value_type": Attribute},
    }
    return irdl_attr_definition(type(class_name, (CellType,), body))


# ---------------------------------------------------------------------------------------------
# structured control flow


class ForOp(IRDLOperation):
    """Base of ``<prefix>.for %i = %lo to %hi : T { ... }``: a counted loop, ``i`` from ``lo`` to ``hi - 1``;
    the body's one block argument is the counter."""

    lo = operand_def(AnyAttr())
    hi = operand_def(AnyAttr())
    body = region_def("single_block")

    def __init__(self, lo: SSAValue | Operation, hi: SSAValue | Operation):
        t = SSAValue.get(lo).type
        super().__init__(operands=[lo, hi], regions=[Region(Block(arg_types=[t]))])

    @property
    def counter(self) -> SSAValue:
        return self.body.block.args[0]

    @staticmethod
    def _check_bounds(t: Attribute, what: str) -> None:
        raise NotImplementedError

    @staticmethod
    def _type_name(t: Attribute) -> str:
        return str(t)

    def verify_(self) -> None:
        t, name = self.lo.type, self._type_name
        self._check_bounds(t, f"{self.name} bounds")
        if self.hi.type != t:
            raise VerifyException(f"{self.name} bounds must have one type, got {name(t)} and {name(self.hi.type)}")
        args = self.body.block.args
        if len(args) != 1 or args[0].type != t:
            raise VerifyException(f"{self.name} body must take one argument of the bound type {name(t)} (the counter)")

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        counter = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lo = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        hi = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        body = parser.parse_region([counter.resolve(t)])
        return cls.create(operands=[parser.resolve_operand(lo, t), parser.resolve_operand(hi, t)], regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.counter)
        printer.print_string(" = ")
        printer.print_operand(self.lo)
        printer.print_string(" to ")
        printer.print_operand(self.hi)
        printer.print_string(" : ")
        printer.print_attribute(self.lo.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def make_for_op(prefix: str, parent: OpTrait, *, check_bounds: Check, type_name: TypeName = str, doc: str):
    """``<prefix>.for``; ``check_bounds`` says which types the bounds (and the counter) may have."""
    traits = (NoTerminator(), RecursiveMemoryEffect())
    return _make(
        ForOp, prefix, "for", parent, doc, traits, _check_bounds=staticmethod(check_bounds),
        _type_name=staticmethod(type_name),
    )  # fmt: skip


class IfOp(IRDLOperation):
    """Base of ``<prefix>.if %c { ... }``: the body runs where ``%c`` (i1) is true."""

    cond = operand_def(i1)
    body = region_def("single_block")
    assembly_format = "$cond attr-dict-with-keyword $body"

    def __init__(self, cond: SSAValue | Operation):
        super().__init__(operands=[cond], regions=[Region(Block())])

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException(f"{self.name} body takes no block arguments")


def make_if_op(prefix: str, parent: OpTrait, *, doc: str):
    """``<prefix>.if``."""
    return _make(IfOp, prefix, "if", parent, doc, (NoTerminator(), RecursiveMemoryEffect()))


# ---------------------------------------------------------------------------------------------
# mutable cells: a new one holding a value, reading it, writing it


class _TypedOperandOp(IRDLOperation):
    """``%r = <prefix>.<op> %x : T``: one operand, then the type ``T`` both the operand's and the result's type
    follow from (``_types``); ``T`` is the type the printer reads from ``_printed_type``."""

    @classmethod
    def _types(cls, t: Attribute) -> tuple[Attribute, Attribute]:
        """The operand's and the result's type when the text gives ``t``."""
        raise NotImplementedError

    def _printed_type(self) -> Attribute:
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser) -> _TypedOperandOp:
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand_type, result_type = cls._types(parser.parse_type())
        operands = [parser.resolve_operand(operand, operand_type)]
        return cls.create(operands=operands, result_types=[result_type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        print_operands_and_type(printer, self, self.operands, self._printed_type())


class CellInitOp(_TypedOperandOp):
    """Base of ``%c = <prefix>.<op> %init : T``: a new mutable cell (of the dialect's cell type) holding
    ``%init``. The cell-typed ``result`` is the dialect's field."""

    CELL: ClassVar[type[CellType]]
    MISMATCH: ClassVar[str] = "{op} of {init} must produce !{cell}<{init}>"
    """The error when the result does not hold the init type (fields: op, init, cell, result)."""

    init = operand_def(AnyAttr())

    def __init__(self, init: SSAValue | Operation):
        super().__init__(operands=[init], result_types=[self.CELL(SSAValue.get(init).type)])

    def verify_(self) -> None:
        t = self.results[0].type
        assert isinstance(t, CellType)
        if t.value_type != self.init.type:
            fields = {"op": self.name, "init": self.init.type, "cell": self.CELL.name, "result": t}
            raise VerifyException(self.MISMATCH.format(**fields))

    @classmethod
    def _types(cls, t: Attribute) -> tuple[Attribute, Attribute]:
        return t, cls.CELL(t)

    def _printed_type(self) -> Attribute:
        return self.init.type


class _CellUseOp(IRDLOperation):
    """An op whose first operand is a cell (the dialect's field)."""

    CELL: ClassVar[type[CellType]]
    MISMATCH: ClassVar[str]

    @property
    def cell(self) -> SSAValue:
        return self.operands[0]

    def _check_held(self, t: Attribute, **fields: Attribute) -> None:
        """Raise ``MISMATCH`` (with ``fields``) unless ``t`` is the type the cell holds."""
        cell = self.cell.type
        assert isinstance(cell, CellType)
        if t != cell.value_type:
            raise VerifyException(self.MISMATCH.format(op=self.name, cell=cell, held=cell.value_type, **fields))


class CellReadOp(_CellUseOp, _TypedOperandOp):
    """Base of ``%v = <prefix>.<op> %cell : T``: the value the cell holds now."""

    MISMATCH: ClassVar[str] = "{op} of a {cell} gives {held}"
    """The error when the result is not the held type (fields: op, cell, held, result)."""

    result = result_def(AnyAttr())

    def __init__(self, cell: SSAValue | Operation):
        t = SSAValue.get(cell).type
        assert isinstance(t, self.CELL)
        super().__init__(operands=[cell], result_types=[t.value_type])

    def verify_(self) -> None:
        self._check_held(self.result.type, result=self.result.type)

    @classmethod
    def _types(cls, t: Attribute) -> tuple[Attribute, Attribute]:
        return cls.CELL(t), t

    def _printed_type(self) -> Attribute:
        return self.result.type


class CellWriteOp(_CellUseOp):
    """Base of ``<prefix>.<op> %cell = %v`` (or ``%cell, %v``): the cell holds ``%v`` from now on."""

    ROLE: ClassVar[str]
    """What parse errors call the cell (``variable``)."""
    SEPARATOR: ClassVar[str]
    """What stands between the cell and the value, with its spaces (`` = `` or ``, ``)."""
    MISMATCH: ClassVar[str] = "{op} of {value} to a {cell}"
    """The error when the value is not of the held type (fields: op, value, cell, held)."""

    value = operand_def(AnyAttr())

    def __init__(self, cell: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[cell, value])

    def verify_(self) -> None:
        self._check_held(self.value.type, value=self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> CellWriteOp:
        pos = parser.pos
        cell = parse_defined_operand(parser, cls.ROLE)
        if not isinstance(cell.type, cls.CELL):
            parser.raise_error(f"expected a !{cls.CELL.name} value, got {cell.type}", pos, parser.pos)
        parser.parse_punctuation(cls.SEPARATOR.strip())  # type: ignore[arg-type]
        value = parser.parse_operand(cell.type.value_type)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(operands=[cell, value], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cell)
        printer.print_string(self.SEPARATOR)
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)


def make_cell_ops(
    prefix: str,
    parent: OpTrait,
    cell: type[CellType],
    *,
    operand: str,
    role: str,
    separator: str = " = ",
    init: tuple[str, str],
    read: tuple[str, str],
    write: tuple[str, str],
    mismatch: dict[str, str] | None = None,
) -> tuple[type[CellInitOp], type[CellReadOp], type[CellWriteOp]]:
    """The ops that make, read and write cells of type ``cell``: ``init``, ``read`` and ``write`` give each one's
    name and docstring (``("decl", doc)`` makes ``<prefix>.decl``, class ``DeclOp``). The cell operand of read
    and write is the field ``operand``, which parse errors call ``role``; ``separator`` stands between the cell
    and the written value. ``mismatch`` may replace the ``MISMATCH`` message of ``init``, ``read`` or ``write``."""
    mismatch = mismatch or {}
    ops = []
    for key, base, effect, (op, doc) in (
        ("init", CellInitOp, MemoryAllocEffect(), init),
        ("read", CellReadOp, MemoryReadEffect(), read),
        ("write", CellWriteOp, MemoryWriteEffect(), write),
    ):
        members: dict[str, Any] = {"CELL": cell, "class_name": f"{camel(op)}Op"}
        if key == "init":
            members["result"] = result_def(cell)
        else:
            members[operand] = operand_def(cell)
        if key == "write":
            members.update(ROLE=role, SEPARATOR=separator)
        if key in mismatch:
            members["MISMATCH"] = mismatch[key]
        ops.append(_make(base, prefix, op, parent, doc, (effect,), **members))
    return ops[0], ops[1], ops[2]


# ---------------------------------------------------------------------------------------------
# element accesses: %base[%index]


@dataclass(frozen=True)
class IndexedAccess:
    """What a dialect's loads and stores of an element ``%base[%index]`` are: the base operand (its field, its
    types), the index, and the syntax. The base is defined already, so its type is not repeated; a load may
    have a gate and ends with the result type, a store gives the value (and may have a gate).

    ``kernel.load %buf[%i], %g : f32`` and ``kernel.store %buf[%i], %v, %g`` have ``gate=","`` and
    ``gated=("load", "store")``; ``cstyle.load %p[%i] if %g : f32`` has ``gate="if"``, ``gated=("load",)`` and
    ``cstyle.store %p[%i] = %v`` ``value="="``."""

    base: str
    """The field of the base operand (``ptr``)."""
    base_type: type | UnionType
    """The types the base may have (each has an ``element_type``)."""
    role: str
    """What parse errors call the base (``pointer``)."""
    expected: str
    """How parse errors name the base types (``a !cstyle.ptr``)."""
    index_type: Attribute | None = None
    """Parse the index as an operand of this type; None: the index must be defined already."""
    gate: str | None = None
    """The token before a gate (``,`` or ``if``)."""
    gated: tuple[str, ...] = ()
    """The accesses that may have a gate: ``load``, ``store``."""
    gate_type: Attribute | AnyAttr = AnyAttr()
    """The constraint on a gate operand (the verifier may check it further)."""
    value: str = ","
    """The token before a stored value (``,`` or ``=``)."""
    vector_store: Callable[[Attribute], bool] | None = None
    """Stores whose value type this holds for print it (``: vector<4xf32>``); its absence means the element type."""

    def parse_element(self, parser: Parser) -> tuple[SSAValue, SSAValue]:
        """``%base[%index]``."""
        pos = parser.pos
        base = parse_defined_operand(parser, self.role)
        if not isinstance(base.type, self.base_type):
            parser.raise_error(f"expected {self.expected} value, got {base.type}", pos, parser.pos)
        with parser.in_square_brackets():
            if self.index_type is None:
                index = parse_defined_operand(parser, "index")
            else:
                index = parser.parse_operand(self.index_type)
        return base, index

    @staticmethod
    def print_element(printer: Printer, base: SSAValue, index: SSAValue) -> None:
        printer.print_string(" ")
        printer.print_operand(base)
        printer.print_string("[")
        printer.print_operand(index)
        printer.print_string("]")

    def parse_gate(self, parser: Parser, access: str) -> list[SSAValue]:
        """The gate of a ``load`` or ``store``, if there is one: ``[%g]``, else ``[]``."""
        if access not in self.gated:
            return []
        found = parser.parse_optional_punctuation(",") if self.gate == "," else parser.parse_optional_keyword(self.gate)
        return [parser.parse_operand(i1)] if found else []

    def print_gate(self, printer: Printer, gate: Sequence[SSAValue]) -> None:
        """The gate, if there is one (``gate`` holds it or nothing)."""
        if gate:
            printer.print_string(", " if self.gate == "," else f" {self.gate} ")
            printer.print_operand(gate[0])

    def gate_operands(
        self, op: str, access: str, gate: SSAValue | Operation | None
    ) -> list[list[SSAValue | Operation]]:
        """The operand group of the optional gate of a ``load`` or ``store`` ``op``, if it has one."""
        if access not in self.gated:
            if gate is not None:
                raise ValueError(f"{op} takes no gate")
            return []
        return [[gate] if gate is not None else []]


class IndexedLoadOp(IRDLOperation):
    """Base of loads ``%v = <prefix>.load %base[%index] : T`` (and gated forms, where the dialect has them):
    operands the base, ``index`` and ``gate`` if the dialect has gates, the ``result``."""

    ACCESS: ClassVar[IndexedAccess]

    def __init__(
        self,
        base: SSAValue,
        index: SSAValue | Operation,
        gate: SSAValue | Operation | None = None,
        result_type: Attribute | None = None,
    ):
        """A load of the element type of ``base``, or of ``result_type`` where the dialect allows another."""
        t = result_type if result_type is not None else base.type.element_type  # type: ignore[attr-defined]
        super().__init__(operands=[base, index, *self.ACCESS.gate_operands(self.name, "load", gate)], result_types=[t])

    @classmethod
    def parse(cls, parser: Parser) -> IndexedLoadOp:
        base, index = cls.ACCESS.parse_element(parser)
        gate = cls.ACCESS.parse_gate(parser, "load")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(operands=[base, index, *gate], result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        base, index, *gate = self.operands
        self.ACCESS.print_element(printer, base, index)
        self.ACCESS.print_gate(printer, gate)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.results[0].type)


class IndexedStoreOp(IRDLOperation):
    """Base of stores ``<prefix>.store %base[%index], %v`` (or ``= %v``; gated forms where the dialect has them):
    operands the base, ``index``, ``value`` and ``gate`` if the dialect has gates."""

    ACCESS: ClassVar[IndexedAccess]

    def __init__(
        self,
        base: SSAValue,
        index: SSAValue | Operation,
        value: SSAValue | Operation,
        gate: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[base, index, value, *self.ACCESS.gate_operands(self.name, "store", gate)])

    @classmethod
    def parse(cls, parser: Parser) -> IndexedStoreOp:
        access = cls.ACCESS
        base, index = access.parse_element(parser)
        element = base.type.element_type  # type: ignore[attr-defined]
        parser.parse_punctuation(access.value)  # type: ignore[arg-type]
        if access.vector_store is None:
            value = parser.parse_operand(element)
            gate = access.parse_gate(parser, "store")
            attributes = parser.parse_optional_attr_dict()
        else:  # the value's type follows, when it is not the element type
            unresolved = parser.parse_unresolved_operand()
            gate = access.parse_gate(parser, "store")
            attributes = parser.parse_optional_attr_dict()
            t = parser.parse_type() if parser.parse_optional_punctuation(":") else element
            value = parser.resolve_operand(unresolved, t)
        return cls.create(operands=[base, index, value, *gate], attributes=attributes)

    def print(self, printer: Printer) -> None:
        base, index, value, *gate = self.operands
        self.ACCESS.print_element(printer, base, index)
        printer.print_string(", " if self.ACCESS.value == "," else f" {self.ACCESS.value} ")
        printer.print_operand(value)
        self.ACCESS.print_gate(printer, gate)
        printer.print_op_attributes(self.attributes)
        if self.ACCESS.vector_store is not None and self.ACCESS.vector_store(value.type):
            printer.print_string(" : ")
            printer.print_attribute(value.type)


def make_access_ops(
    prefix: str,
    parent: OpTrait,
    access: IndexedAccess,
    *,
    verify_load: Callable[[IndexedLoadOp], None],
    verify_store: Callable[[IndexedStoreOp], None],
    load_doc: str,
    store_doc: str,
) -> tuple[type[IndexedLoadOp], type[IndexedStoreOp]]:
    """``<prefix>.load`` and ``<prefix>.store`` of elements as ``access`` says, checked by ``verify_load(op)`` and
    ``verify_store(op)`` (their verifiers)."""
    base, index = {access.base: operand_def(access.base_type)}, {"index": operand_def(AnyAttr())}
    gate = {kind: {"gate": opt_operand_def(access.gate_type)} for kind in access.gated}
    load = _make(
        IndexedLoadOp, prefix, "load", parent, load_doc, (MemoryReadEffect(),), class_name="LoadOp", **base, **index,
        **gate.get("load", {}), result=result_def(AnyAttr()), ACCESS=access, verify_=verify_load,
    )  # fmt: skip
    store = _make(
        IndexedStoreOp, prefix, "store", parent, store_doc, (MemoryWriteEffect(),), class_name="StoreOp", **base,
        **index, value=operand_def(AnyAttr()), **gate.get("store", {}), ACCESS=access, verify_=verify_store,
    )  # fmt: skip
    return load, store


# ---------------------------------------------------------------------------------------------
# expressions


class LiteralOp(IRDLOperation):
    """Base of ``%c = <prefix>.literal 1.500000e+00 : f32``, ``... 64 : i32``, ``... true``."""

    value = prop_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, value: IntegerAttr | FloatAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def of(cls, number: int | float | bool, t: Attribute) -> LiteralOp:
        value = FloatAttr(float(number), t) if is_float(t) else IntegerAttr(int(number), t)  # type: ignore[arg-type]
        return cls(value)

    @staticmethod
    def _check_type(t: Attribute, what: str) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        if not isinstance(self.value, IntegerAttr | FloatAttr):
            raise VerifyException(f"{self.name} value must be an integer, float or boolean, got {self.value}")
        self._check_type(self.value.type, f"{self.name} type")
        if self.result.type != self.value.type:
            raise VerifyException(f"{self.name} result type {self.result.type} must be {self.value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LiteralOp:
        pos = parser.pos
        if (value := parser.parse_optional_builtin_int_or_float_attr()) is None:
            parser.raise_error(f"expected a number or true/false after {cls.name}", pos)
        properties, attributes = {"value": value}, parser.parse_optional_attr_dict()
        return cls.create(properties=properties, result_types=[value.type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


def make_literal_op(prefix: str, parent: OpTrait, *, check: Check, doc: str):
    """``<prefix>.literal``; ``check`` says which types a literal may have."""
    return _make(LiteralOp, prefix, "literal", parent, doc, (Pure(),), _check_type=staticmethod(check))


class OperatorOp(IRDLOperation):
    """Base of ``%r = <prefix>.<unary|binary> "<operator>" %a[, %b] : T``: an operator of the language (the
    ``operator`` property, one of ``OPERATORS``) applied to the operands; ``T`` is the (left) operand's type."""

    ARITY: ClassVar[str]
    """``unary`` or ``binary``."""
    OPERATORS: ClassVar[Collection[str]]

    operator = prop_def(StringAttr)

    @classmethod
    def _types(cls, operator: str, t: Attribute) -> tuple[list[Attribute], Attribute]:
        """The operand types and the result type of ``operator`` on a (left) operand of type ``t``."""
        raise NotImplementedError

    def _check_known(self) -> None:
        op = self.operator.data
        if op not in self.OPERATORS:
            raise VerifyException(f"unknown {self.ARITY} operator '{op}' (known: {' '.join(self.OPERATORS)})")

    @classmethod
    def parse(cls, parser: Parser) -> OperatorOp:
        operator = parser.parse_str_literal()
        operands = [parser.parse_unresolved_operand()]
        if cls.ARITY == "binary":
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand_types, result_type = cls._types(operator, parser.parse_type())
        return cls.create(
            operands=[parser.resolve_operand(o, t) for o, t in zip(operands, operand_types)],
            properties={"operator": StringAttr(operator)},
            result_types=[result_type],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.operator.data)
        print_operands_and_type(printer, self, self.operands, self.operands[0].type)


class UnaryOp(OperatorOp):
    """Base of ``%r = <prefix>.unary "-" %a : T``: an operator on one operand; the result has its type."""

    ARITY: ClassVar[str] = "unary"

    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, operator: str, operand: SSAValue | Operation):
        t = SSAValue.get(operand).type
        super().__init__(operands=[operand], properties={"operator": StringAttr(operator)}, result_types=[t])

    @staticmethod
    def _check_operand(operator: str, t: Attribute) -> None:
        raise NotImplementedError

    @classmethod
    def _types(cls, operator: str, t: Attribute) -> tuple[list[Attribute], Attribute]:
        return [t], t

    def verify_(self) -> None:
        self._check_known()
        op, t = self.operator.data, self.operand.type
        self._check_operand(op, t)
        if self.result.type != t:
            raise VerifyException(f"{self.name} result type must be {t}, got {self.result.type}")


def make_unary_op(
    prefix: str,
    parent: OpTrait,
    *,
    operators: Collection[str],
    check_operand: Callable[[str, Attribute], None],
    doc: str,
):
    """``<prefix>.unary`` with these operators; ``check_operand(operator, t)`` raises unless ``operator``
    takes type ``t``."""
    return _make(
        UnaryOp, prefix, "unary", parent, doc, (Pure(),), OPERATORS=operators,
        _check_operand=staticmethod(check_operand),
    )  # fmt: skip


class BinaryOp(OperatorOp):
    """Base of ``%r = <prefix>.binary "+" %a, %b : T``: an operator on two operands; T is the left operand's
    type, the right operand's comes from ``_operand_types`` and the result's from ``result_type``."""

    ARITY: ClassVar[str] = "binary"

    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, operator: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        t = SSAValue.get(lhs).type
        super().__init__(
            operands=[lhs, rhs],
            properties={"operator": StringAttr(operator)},
            result_types=[self.result_type(operator, t)],
        )

    @staticmethod
    def result_type(operator: str, operand_type: Attribute) -> Attribute:
        """The result type of ``operator`` on a left operand of ``operand_type``."""
        raise NotImplementedError

    @staticmethod
    def _operand_types(operator: str, lhs: Attribute) -> tuple[Attribute, Attribute]:
        """The operand types ``operator`` takes given its left operand's: both the same unless a dialect says."""
        return (lhs, lhs)

    @classmethod
    def _types(cls, operator: str, t: Attribute) -> tuple[list[Attribute], Attribute]:
        return list(cls._operand_types(operator, t)), cls.result_type(operator, t)

    def _check_operands(self, operator: str, t: Attribute) -> None:
        """Raise unless the operands' types suit ``operator`` (``t`` is the left one's)."""

    def _check_constants(self, operator: str, t: Attribute) -> None:
        """Raise where a literal operand makes the operation undefined in the language."""

    def verify_(self) -> None:
        self._check_known()
        op, t = self.operator.data, self.lhs.type
        self._check_operands(op, t)
        expected = self.result_type(op, t)
        if self.result.type != expected:
            raise VerifyException(f"{self.name} '{op}' on {t} gives {expected}, not {self.result.type}")
        self._check_constants(op, t)


def make_binary_op(
    prefix: str,
    parent: OpTrait,
    *,
    operators: Collection[str],
    result_type: Callable[[str, Attribute], Attribute],
    check_operands: Callable[[BinaryOp, str, Attribute], None],
    doc: str,
    **hooks: Callable[..., Any],
):
    """``<prefix>.binary`` with these operators. ``check_operands(op, operator, t)`` checks the operand types
    before the result type is; ``hooks`` may give ``operand_types`` (a function of the operator and the left
    type) and ``check_constants`` (a method, run after the result type is checked)."""
    members: dict[str, Any] = {"_check_operands": check_operands}
    if "operand_types" in hooks:
        members["_operand_types"] = staticmethod(hooks.pop("operand_types"))
    if "check_constants" in hooks:
        members["_check_constants"] = hooks.pop("check_constants")
    assert not hooks, f"unknown binary op hooks {sorted(hooks)}"
    return _make(
        BinaryOp, prefix, "binary", parent, doc, (Pure(),), OPERATORS=operators,
        result_type=staticmethod(result_type), **members,
    )  # fmt: skip


class SelectOp(IRDLOperation):
    """Base of ``%r = <prefix>.select %c, %a, %b : T``: ``c ? a : b``."""

    cond = operand_def(i1)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, cond: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[cond, lhs, rhs], result_types=[SSAValue.get(lhs).type])

    @staticmethod
    def _check_type(t: Attribute, what: str) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        t = self.lhs.type
        self._check_type(t, f"{self.name} operand")
        if self.rhs.type != t or self.result.type != t:
            raise VerifyException(f"{self.name} operands and result must have one type, got {t}, {self.rhs.type}")

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        operands = [parser.resolve_operand(cond, i1), parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t)]
        return cls.create(operands=operands, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        print_operands_and_type(printer, self, self.operands, self.result.type)


def make_select_op(prefix: str, parent: OpTrait, *, check: Check, doc: str):
    """``<prefix>.select``; ``check`` says which types may be selected."""
    return _make(SelectOp, prefix, "select", parent, doc, (Pure(),), _check_type=staticmethod(check))


class ConversionOp(IRDLOperation):
    """Base of ``%r = <prefix>.<op> %x : i32 -> f32``: a value of one type made from a value of another."""

    input = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[value], result_types=[result_type])

    @staticmethod
    def _check_type(t: Attribute, what: str) -> None:
        raise NotImplementedError

    def _check_pair(self, src: Attribute, dst: Attribute) -> None:
        """Raise unless the op converts ``src`` to ``dst`` (each already accepted by ``_check_type``)."""

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        self._check_type(src, f"{self.name} operand")
        self._check_type(dst, f"{self.name} result")
        self._check_pair(src, dst)


def make_conversion_op(
    prefix: str,
    op: str,
    parent: OpTrait,
    *,
    check: Check,
    doc: str,
    check_pair: Callable[[ConversionOp, Attribute, Attribute], None] | None = None,
):
    """``<prefix>.<op>`` (class ``<Op>Op``) converting between types ``check`` accepts; ``check_pair(op, src,
    dst)`` (a method) may reject pairs of them."""
    members: dict[str, Any] = {"_check_pair": check_pair} if check_pair is not None else {}
    return _make(
        ConversionOp, prefix, op, parent, doc, (Pure(),), class_name=f"{camel(op)}Op", _check_type=staticmethod(check),
        **members,
    )  # fmt: skip


class CallOp(IRDLOperation):
    """Base of ``%r = <prefix>.call @f(%x, %y) : (f32, f32) -> f32``: a call of a pure function of the dialect's
    function table, with exactly its signature."""

    callee = prop_def(StringAttr)
    args = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        result = self._result_of(callee, [SSAValue.get(a).type for a in args])
        super().__init__(operands=[list(args)], properties={"callee": StringAttr(callee)}, result_types=[result])

    @staticmethod
    def _result_of(callee: str, arg_types: Sequence[Attribute]) -> Attribute:
        """The result type of calling ``callee`` on these types; a ValueError if the table has no such function."""
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_function_type()
        if len(t.inputs) != len(args) or len(t.outputs) != 1:
            expected = f"expected a function type of {len(args)} inputs and one result, got {t}"
            parser.raise_error(expected, pos, parser.pos)
        return cls.create(
            operands=[parser.resolve_operand(a, ty) for a, ty in zip(args, t.inputs.data)],
            properties={"callee": callee},
            result_types=[t.outputs.data[0]],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.data)
        with printer.in_parens():
            printer.print_list(self.args, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists([a.type for a in self.args], [self.result.type]))


def make_call_op(
    prefix: str,
    parent: OpTrait,
    *,
    result_of: Callable[[str, Sequence[Attribute]], Attribute],
    verify: Callable[[CallOp], None],
    function: Callable[[CallOp], Any],
    doc: str,
):
    """``<prefix>.call``: ``result_of(callee, arg_types)`` for the builder, ``verify(op)`` the verifier and
    ``function(op)`` the table entry of a verified call (the ``function`` property)."""
    return _make(
        CallOp, prefix, "call", parent, doc, (Pure(),), _result_of=staticmethod(result_of), verify_=verify,
        function=property(function),
    )  # fmt: skip


__all__ = [
    "CallOp",
    "CellInitOp",
    "CellReadOp",
    "CellType",
    "CellWriteOp",
    "Check",
    "ConversionOp",
    "ForOp",
    "IfOp",
    "IndexedAccess",
    "IndexedLoadOp",
    "IndexedStoreOp",
    "LiteralOp",
    "OperatorOp",
    "SelectOp",
    "TypeParameterSyntax",
    "UnaryOp",
    "BinaryOp",
    "make_access_ops",
    "make_binary_op",
    "make_call_op",
    "make_cell_ops",
    "make_cell_type",
    "make_conversion_op",
    "make_for_op",
    "make_if_op",
    "make_literal_op",
    "make_select_op",
    "make_unary_op",
]
