"""The scalar ops the ``kernel`` and ``uop`` dialects share: ALU ops, casts and constants.

One table (``ALU_OPS``, derived from the op declarations of ``kiln.dialects.ops``) says what every ALU op is;
``make_alu_ops(prefix)`` turns it into IRDL op classes for a dialect, so ``kernel.add`` and ``uop.add`` have one
definition, one verifier and one syntax. ``uop`` passes ``vectors=True``: its values may also be ``vector<NxT>``
(the op applies lane by lane). See docs/dialects/kernel.md for the semantics of each op.

Syntax (``kernel`` shown; ``uop`` is the same)::

    %r = kernel.add %a, %b : f32            // the type is the operand type
    %c = kernel.cmplt %a, %b : f32          // comparisons return i1 (vector<Nxi1> for vectors)
    %w = kernel.where %c, %a, %b : f32      // %c is i1
    %f = kernel.cast %i : i32 -> f32
    %k = kernel.const 64 : index
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    VectorType,
    i1,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, ConstantLike, OpTrait, Pure
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.ops.spec import BOOL, FLOAT, INDEX, INT, Elementwise
from kiln.dialects.ops.table import OPS as ELEMENTWISE
from kiln.dialects.types import bitwidth, is_bool, is_dtype, is_float

# ---------------------------------------------------------------------------------------------
# value types: scalars (a kiln dtype or index) and, in uop, vector<NxT> of them



def dtype_class(t: Attribute) -> str | None:
    """The dtype class of a scalar type, or None if it is not a kiln scalar type."""
    if isinstance(t, IndexType):
        return INDEX
    if not is_dtype(t):
        return None
    if is_float(t):
        return FLOAT
    return BOOL if is_bool(t) else INT


def is_vector(t: Attribute) -> bool:
    return isinstance(t, VectorType)


def element_type(t: Attribute) -> Attribute:
    """The scalar type of a value type: T for T and for vector<NxT>."""
    return t.get_element_type() if isinstance(t, VectorType) else t


def lanes(t: Attribute) -> int:
    """How many scalars a value of this type holds: N for vector<NxT>, 1 for a scalar."""
    return t.get_shape()[0] if isinstance(t, VectorType) else 1


def like(t: Attribute, scalar: Attribute) -> Attribute:
    """``scalar`` with the shape of ``t``: i1 for f32, vector<4xi1> for vector<4xf32>."""
    return VectorType(scalar, t.get_shape()) if isinstance(t, VectorType) else scalar


def check_value_type(t: Attribute, vectors: bool, what: str) -> None:
    """Raise unless ``t`` is a scalar kiln type (or, when ``vectors``, a 1-D fixed vector of one)."""
    if isinstance(t, VectorType):
        if not vectors:
            raise VerifyException(f"{what} must be a scalar, got {t} (vectors exist only in uop)")
        if t.get_num_dims() != 1 or t.get_num_scalable_dims() or t.get_shape()[0] < 1:
            raise VerifyException(f"{what} must be a 1-D fixed-size vector<NxT>, got {t}")
    if dtype_class(element_type(t)) is None:
        kinds = "a scalar dtype, index or vector<NxT>" if vectors else "a scalar dtype or index"
        raise VerifyException(f"{what} must be {kinds}, got {t}")


def parse_defined_operand(parser: Parser, role: str) -> SSAValue:
    """Parse ``%name`` that must already be defined; ops whose text does not repeat an operand's type
    (``kernel.load %buf[...]``, ``uop.acc_set %acc, ...``) take the type from the definition."""
    pos = parser.pos
    unresolved = parser.parse_unresolved_operand(f"expected {role}")
    values = parser.ssa_values.get(unresolved.operand_name)
    if values is None or unresolved.index >= len(values):
        parser.raise_error(f"{role} %{unresolved.operand_name} must be defined before this use", pos, parser.pos)
    return values[unresolved.index]


def print_operands_and_type(printer: Printer, op: Operation, operands: Sequence[SSAValue], t: Attribute) -> None:
    """`` %a, %b {attrs} : T``: the operands, ``op``'s attributes and the one type the op's types follow from."""
    printer.print_string(" ")
    printer.print_list(operands, printer.print_operand)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(t)


def print_function(
    printer: Printer, op: Operation, name: str, params: Sequence[SSAValue], body: Region, after_params: str = ""
) -> None:
    """`` @name(%a: T, ...)<after_params> attributes {...} { ... }``: a function-like op whose body's block
    arguments are its parameters."""
    printer.print_string(" ")
    printer.print_symbol_name(name)
    with printer.in_parens():
        printer.print_list(params, printer.print_block_argument)
    printer.print_string(after_params)
    printer.print_op_attributes(op.attributes, print_keyword=True)
    printer.print_string(" ")
    printer.print_region(body, print_entry_block_args=False, print_empty_block=False)


def describe(value: SSAValue) -> str:
    """How an error message names a value: ``%name`` when it has one, else the op that makes it."""
    if value.name_hint:
        return f"%{value.name_hint}"
    owner = value.owner
    return f"the result of {owner.name}" if isinstance(owner, Operation) else "a block argument"


# ---------------------------------------------------------------------------------------------
# the ALU table


AluSpec = Elementwise
"""What the ALU ops are generated from: their declaration (name, operands, dtype classes, summary, result)."""

ALU_OPS: dict[str, AluSpec] = {op.name: op for op in ELEMENTWISE}
"""Every ALU op kind, by name. Integer idiv/mod by zero is undefined at these levels: a producer that needs
numpy's answer (0) divides by ``where(rhs == 0, 1, rhs)`` and selects 0 afterwards."""


class AluOp(IRDLOperation):
    """Base of every generated ALU op class; ``isinstance(op, AluOp)`` finds them in any dialect."""

    SPEC: ClassVar[AluSpec]
    VECTORS: ClassVar[bool]

    def __init__(self, *operands: SSAValue | Operation, attributes: dict[str, Attribute] | None = None):
        spec = self.SPEC
        if len(operands) != spec.arity:
            raise ValueError(f"{self.name} takes {spec.arity} operands, got {len(operands)}")
        values = [SSAValue.get(o) for o in operands]
        # The generic IRDL builder (``irdl_op_init``) sorts operands into variadic groups and checks each against
        # the op's definition: about half of building an op, and the compiler builds hundreds of thousands of
        # ALU ops. These have a fixed arity, one result, no properties or regions, so they are built directly
        # (the verifier still checks them).
        Operation.__init__(
            self, operands=values, result_types=[self._result_type(values[-1].type)],
            attributes={k: v for k, v in (attributes or {}).items() if v is not None},
        )

    @property
    def alu_kind(self) -> str:
        """The ALU op kind (``"add"``), the same for ``kernel.add`` and ``uop.add``."""
        return self.SPEC.name

    @classmethod
    def _result_type(cls, value_type: Attribute) -> Attribute:
        return like(value_type, i1) if cls.SPEC.returns_bool else value_type

    @property
    def value_operands(self) -> tuple[SSAValue, ...]:
        """The operands that carry the computed type (all but ``where``'s condition)."""
        return tuple(self.operands[1:] if self.SPEC.takes_condition else self.operands)

    def verify_(self) -> None:
        spec = self.SPEC
        values = self.value_operands
        t = values[0].type
        for v in values[1:]:
            if v.type != t:
                raise VerifyException(f"{self.name} operands must have the same type, got {t} and {v.type}")
        check_value_type(t, self.VECTORS, f"{self.name} operand")
        if dtype_class(element_type(t)) not in spec.dtypes:
            accepted = ", ".join(sorted(spec.dtypes))
            raise VerifyException(f"{self.name} does not accept {t} (it accepts {accepted} types)")
        if spec.takes_condition and self.operands[0].type != like(t, i1):
            raise VerifyException(
                f"{self.name} condition must be {like(t, i1)} to match {t}, got {self.operands[0].type}"
            )
        expected = self._result_type(t)
        if self.results[0].type != expected:
            raise VerifyException(f"{self.name} result type must be {expected}, got {self.results[0].type}")

    @classmethod
    def parse(cls, parser: Parser) -> AluOp:
        pos = parser.pos
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        if len(unresolved) != cls.SPEC.arity:
            parser.raise_error(f"{cls.name} takes {cls.SPEC.arity} operands, got {len(unresolved)}", pos, parser.pos)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        types = [t] * cls.SPEC.arity
        if cls.SPEC.takes_condition:
            types[0] = like(t, i1)
        operands = [parser.resolve_operand(u, ty) for u, ty in zip(unresolved, types)]
        return cls.create(operands=operands, result_types=[cls._result_type(t)], attributes=attributes)

    def print(self, printer: Printer) -> None:
        print_operands_and_type(printer, self, self.operands, self.value_operands[0].type)


def camel(name: str) -> str:
    """``define_acc`` -> ``DefineAcc``."""
    return "".join(part.capitalize() for part in name.split("_"))


def define_op(base: type[IRDLOperation], class_name: str, op_name: str, module: str, body: dict) -> type:
    """Create and IRDL-register the op class ``class_name`` named ``op_name``: a subclass of ``base`` with the
    members of ``body``, documented as living in ``module``. Upper-case members are class constants."""
    annotations = {**{k: ClassVar for k in body if k.isupper()}, **body.get("__annotations__", {})}
    body = {"name": op_name, "__module__": module, "__qualname__": class_name, **body, "__annotations__": annotations}
    return irdl_op_definition(type(class_name, (base,), body))


def make_alu_ops(prefix: str, *, vectors: bool = False) -> dict[str, type[AluOp]]:
    """One op class per ``ALU_OPS`` entry, named ``<prefix>.<kind>`` (class ``<Kind>Op``), by kind."""
    module = f"kiln.dialects.{prefix}"
    ops: dict[str, type[AluOp]] = {}
    for spec in ALU_OPS.values():
        fields: dict[str, object] = {n: operand_def(AnyAttr()) for n in spec.operands}
        traits: list[OpTrait] = [Pure()] + ([Commutative()] if spec.commutative else [])
        body = {
            **fields,
            "result": result_def(AnyAttr()),
            "traits": traits_def(*traits),
            "SPEC": spec,
            "VECTORS": vectors,
            "__doc__": f"{prefix}.{spec.name}: {spec.summary}.",
        }
        ops[spec.name] = define_op(AluOp, f"{camel(spec.name)}Op", f"{prefix}.{spec.name}", module, body)
    return ops


def alu_kind(op: Operation) -> str | None:
    """The ALU op kind of ``op`` (``"add"``), or None if it is not an ALU op."""
    return op.alu_kind if isinstance(op, AluOp) else None


# ---------------------------------------------------------------------------------------------
# casts


class ConversionOp(IRDLOperation):
    """Base of ``cast`` and ``bitcast``: ``%y = <prefix>.cast %x : i32 -> f32``."""

    VECTORS: ClassVar[bool]

    input = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        check_value_type(src, self.VECTORS, f"{self.name} operand")
        check_value_type(dst, self.VECTORS, f"{self.name} result")
        if is_vector(src) != is_vector(dst) or lanes(src) != lanes(dst):
            raise VerifyException(f"{self.name} must keep the number of lanes: {src} -> {dst}")


class CastOp(ConversionOp):
    """Value conversion between any two scalar types, as numpy ``astype``: float -> int truncates toward
    zero (out of range / nan is undefined), int -> float rounds to nearest, x -> i1 is ``x != 0``,
    i1 -> x gives 0 or 1, integer narrowing wraps, index converts like i64."""


class BitcastOp(ConversionOp):
    """Reinterpret the bits of a value as another type of the same bit width (``f32 -> i32``); not index."""

    def verify_(self) -> None:
        super().verify_()
        src, dst = element_type(self.input.type), element_type(self.result.type)
        if isinstance(src, IndexType) or isinstance(dst, IndexType):
            raise VerifyException(f"{self.name} cannot convert index (its width is the target's): {src} -> {dst}")
        if bitwidth(src) != bitwidth(dst):
            raise VerifyException(
                f"{self.name} needs types of the same bit width: {src} ({bitwidth(src)} bits) -> "
                f"{dst} ({bitwidth(dst)} bits)"
            )


def make_conversion_ops(prefix: str, *, vectors: bool = False) -> tuple[type[CastOp], type[BitcastOp]]:
    """``<prefix>.cast`` and ``<prefix>.bitcast``."""
    module = f"kiln.dialects.{prefix}"
    cast = define_op(CastOp, "CastOp", f"{prefix}.cast", module, {"VECTORS": vectors, "__doc__": CastOp.__doc__})
    body = {"VECTORS": vectors, "__doc__": BitcastOp.__doc__}
    bitcast = define_op(BitcastOp, "BitcastOp", f"{prefix}.bitcast", module, body)
    return cast, bitcast


# ---------------------------------------------------------------------------------------------
# constants

ConstValue = IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr


class ConstOp(IRDLOperation, HasFolderInterface):
    """A constant: ``<prefix>.const 64 : index``, ``1.000000e+00 : f32``, ``true : i1``; +-inf and nan
    print as MLIR hex bit patterns (``0x7f800000 : f32``). In uop a vector constant is a dense attribute:
    ``uop.const dense<0.000000e+00> : vector<4xf32>``."""

    VECTORS: ClassVar[bool]

    value = prop_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: ConstValue):
        Operation.__init__(self, properties={"value": value}, result_types=[value.type])  # as AluOp's, built directly

    @classmethod
    def from_number(cls, number: int | float | bool, type: Attribute) -> ConstOp:
        """A constant of ``type`` (a scalar type, or in uop a vector type: a splat)."""
        return cls(cls.value_attr(number, type))

    @staticmethod
    def value_attr(number: int | float | bool, type: Attribute) -> ConstValue:
        """The value ``from_number`` gives its constant (builders key their hash-consing on it)."""
        scalar = element_type(type)
        if is_float(scalar):
            attr: ConstValue = FloatAttr(float(number), scalar)  # type: ignore[arg-type]
        else:
            attr = IntegerAttr(int(number), scalar)  # type: ignore[arg-type]
        if isinstance(type, VectorType):
            attr = DenseIntOrFPElementsAttr.from_list(type, [attr.value.data])  # type: ignore[arg-type]
        return attr

    def fold(self) -> Sequence[Attribute]:
        return (self.value,)

    def verify_(self) -> None:
        value, t = self.value, self.result.type
        if isinstance(value, DenseIntOrFPElementsAttr):
            if not self.VECTORS:
                raise VerifyException(f"{self.name} takes a scalar literal; dense vector constants exist only in uop")
            if not isinstance(value.type, VectorType):
                raise VerifyException(f"{self.name}: a dense value must have a vector type, got {value.type}")
        elif not isinstance(value, IntegerAttr | FloatAttr):
            raise VerifyException(f"{self.name} value must be an integer, float or boolean literal, got {value}")
        check_value_type(value.type, self.VECTORS, f"{self.name} type")
        if t != value.type:
            raise VerifyException(f"{self.name} result type {t} does not match its value's type {value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_optional_builtin_int_or_float_attr()
        if value is not None and value.type == i1 and parser.parse_optional_punctuation(":"):
            pos_t = parser.pos
            if parser.parse_type() != i1:  # `true`/`false` were already typed i1
                parser.raise_error("a boolean constant has type i1", pos_t, parser.pos)
        if value is None:
            value = parser.parse_optional_attribute()
            if not isinstance(value, DenseIntOrFPElementsAttr):
                parser.raise_error(f"expected a number, true/false or a dense vector constant after {cls.name}", pos)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(properties={"value": value}, result_types=[value.type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if self.value.type == i1:
            printer.print_string(" : i1")
        printer.print_op_attributes(self.attributes)


def make_const_op(prefix: str, *, vectors: bool = False) -> type[ConstOp]:
    """``<prefix>.const``."""
    body = {"VECTORS": vectors, "__doc__": ConstOp.__doc__}
    return define_op(ConstOp, "ConstOp", f"{prefix}.const", f"kiln.dialects.{prefix}", body)


__all__ = [
    "ALU_OPS",
    "AluOp",
    "AluSpec",
    "BitcastOp",
    "CastOp",
    "ConstOp",
    "alu_kind",
    "define_op",
    "make_alu_ops",
    "make_const_op",
    "make_conversion_ops",
    "print_function",
    "print_operands_and_type",
]
