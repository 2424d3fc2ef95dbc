"""The ``wgsl`` dialect: WGSL compute entry points as statements and SSA expressions (see docs/dialects/wgsl.md).

One ``wgsl.entry`` is one ``@compute`` function and the module-scope declarations only it uses: its parameters
are the storage-buffer bindings (``var<storage, read_write> name: array<T>``, bindings 0..n-1 in order) and then
the ``i32`` scalars, which the emitter gathers into one uniform struct at binding n -- the calling convention of
``kiln.runtime.device_webgpu``. Workgroup arrays (``wgsl.workgroup_array``) and builtin values
(``wgsl.builtin``) are ops of the body. Statements (``for``, ``if``, ``var``, ``assign``, ``store``,
``barrier``) are ops in order; expressions are SSA ops, and the emitter names each one with a ``let``.

The verifiers keep WGSL's typing rules, so that the emitted text is what naga accepts: scalars are ``bool``
(i1), ``i32``, ``u32`` (ui32), ``f32`` and ``f16``; memory holds only host-shareable scalars (no bool);
operators take the operand types WGSL defines for them (``-`` not on u32, shift amounts are u32, no ``<`` on
bool); every ``wgsl.call`` names a function of ``FUNCTIONS`` with exactly its signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasAncestor,
    HasParent,
    IsolatedFromAbove,
    MemoryAllocEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.alu import describe, parse_defined_operand
from kiln.dialects.types import DTYPES, bitwidth, is_float

# ---------------------------------------------------------------------------------------------
# value types: WGSL's scalars, spelled as builtin MLIR types

BOOL, I32, U32, F32, F16 = (DTYPES[n] for n in ("i1", "i32", "ui32", "f32", "f16"))
SCALARS: dict[Attribute, str] = {BOOL: "bool", I32: "i32", U32: "u32", F32: "f32", F16: "f16"}
"""WGSL's scalar types and their WGSL spelling."""
HOST_SHAREABLE = frozenset({I32, U32, F32, F16})
"""Scalars that memory (storage buffers, workgroup arrays) can hold: everything but bool."""
INTEGERS = frozenset({I32, U32})
FLOATS = frozenset({F32, F16})
NUMBERS = INTEGERS | FLOATS


def wgsl_name(t: Attribute) -> str:
    """How WGSL spells a scalar type (``u32`` for ui32), or the MLIR text of anything else."""
    return SCALARS.get(t, str(t))


def _check_scalar(t: Attribute, what: str, allowed: frozenset[Attribute] | None = None) -> None:
    allowed = frozenset(SCALARS) if allowed is None else allowed
    if t not in allowed:
        names = ", ".join(sorted(wgsl_name(a) for a in allowed))
        raise VerifyException(f"{what} must be one of the WGSL types {names}, got {wgsl_name(t)}")


@irdl_attr_definition
class StorageType(ParametrizedAttribute, TypeAttribute):
    """A storage buffer binding: ``!wgsl.storage<f32>`` is ``var<storage, read_write> name: array<f32>``."""

    name = "wgsl.storage"

    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)

    def verify(self) -> None:
        _check_scalar(self.element_type, "!wgsl.storage element type", HOST_SHAREABLE)


@irdl_attr_definition
class WorkgroupType(ParametrizedAttribute, TypeAttribute):
    """Memory shared by a workgroup: ``!wgsl.workgroup<f32, 256>`` is ``var<workgroup> name: array<f32, 256>``."""

    name = "wgsl.workgroup"

    element_type: Attribute
    size: IntAttr

    def __init__(self, element_type: Attribute, size: int):
        super().__init__(element_type, IntAttr(size))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            element = parser.parse_type()
            parser.parse_punctuation(",")
            size = parser.parse_integer(allow_boolean=False)
        return (element, IntAttr(size))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            printer.print_string(f", {self.size.data}")

    def verify(self) -> None:
        _check_scalar(self.element_type, "!wgsl.workgroup element type", HOST_SHAREABLE)
        if self.size.data <= 0:
            raise VerifyException(f"!wgsl.workgroup size must be positive, got {self.size.data}")


ArrayType = StorageType | WorkgroupType
"""What ``wgsl.load``/``wgsl.store`` index: a storage buffer or a workgroup array."""


@irdl_attr_definition
class VarType(ParametrizedAttribute, TypeAttribute):
    """A function-scope ``var`` holding a T: ``!wgsl.var<f32>`` (made by ``wgsl.var``)."""

    name = "wgsl.var"

    value_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.value_type)

    def verify(self) -> None:
        _check_scalar(self.value_type, "!wgsl.var value type")


# ---------------------------------------------------------------------------------------------
# the functions a wgsl.call may name


@dataclass(frozen=True)
class Function:
    """A callable WGSL function: a builtin, or one of kiln's helpers that the emitter defines where used."""

    name: str
    params: tuple[Attribute, ...]
    result: Attribute
    builtin: bool
    summary: str


def _functions() -> dict[tuple[str, tuple[Attribute, ...]], Function]:
    out: list[Function] = []
    for t in (F32, F16):
        for name in "exp exp2 log log2 sin cos sqrt tanh trunc floor ceil abs".split():
            out.append(Function(name, (t,), t, True, f"WGSL {name}"))
        out.append(Function("fma", (t, t, t), t, True, "WGSL fma: a * b + c"))
        n = wgsl_name(t)
        out.append(Function(f"kiln_max_{n}", (t, t), t, False, "the larger operand; nan if either is nan"))
        out.append(Function(f"kiln_min_{n}", (t, t), t, False, "the smaller operand; nan if either is nan"))
        out.append(Function(f"kiln_sign_{n}", (t,), t, False, "-1, 0 or 1 by the sign; nan stays nan"))
        out.append(Function(f"kiln_fmod_{n}", (t, t), t, False, "C fmod: the remainder of trunc(a / b), exactly"))
    for t in (I32, U32):
        for name in ("max", "min"):
            out.append(Function(name, (t, t), t, True, f"WGSL {name}"))
        n = wgsl_name(t)
        out.append(Function(f"kiln_shl_{n}", (t, t), t, False, "a << b; 0 if b (as u32) >= 32"))
        out.append(Function(f"kiln_shr_{n}", (t, t), t, False, "a >> b (arithmetic on i32); b (as u32) >= 32: 0 or -1"))
    out.append(Function("abs", (I32,), I32, True, "WGSL abs (abs of the most negative i32 is itself)"))
    return {(f.name, f.params): f for f in out}


FUNCTIONS: dict[tuple[str, tuple[Attribute, ...]], Function] = _functions()
"""Every function ``wgsl.call`` may name, by (name, parameter types): WGSL builtins are overloaded on their
operand type, kiln's helpers (``kiln_*``) are not."""


def find_function(name: str, params: Sequence[Attribute]) -> Function | None:
    return FUNCTIONS.get((name, tuple(params)))


# ---------------------------------------------------------------------------------------------
# entry points and control flow


@irdl_op_definition
class EntryOp(IRDLOperation):
    """``wgsl.entry @name(%out: !wgsl.storage<f32>, %n: i32) workgroup_size(64, 1, 1) attributes {...} {...}``:
    one ``@compute @workgroup_size(64, 1, 1) fn name(...)``. Parameters are the storage buffers (bindings 0..n-1
    in order), then the ``i32`` scalars (fields of the uniform struct at binding n). The body is one block
    without terminator; the attributes (launch sizes, symbols) are for the runtime."""

    name = "wgsl.entry"

    sym_name = prop_def(SymbolNameConstraint())
    workgroup_size = prop_def(DenseArrayBase)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(
        self,
        name: str,
        param_types: Sequence[Attribute],
        workgroup_size: Sequence[int],
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "workgroup_size": DenseArrayBase.from_list(i64, list(workgroup_size)),
            },
            regions=[Region(Block(arg_types=param_types))],
            attributes=attributes,
        )

    @property
    def params(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    @property
    def buffers(self) -> tuple[SSAValue, ...]:
        return tuple(a for a in self.params if isinstance(a.type, StorageType))

    @property
    def scalars(self) -> tuple[SSAValue, ...]:
        return tuple(a for a in self.params if not isinstance(a.type, StorageType))

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(self.workgroup_size.get_values())  # type: ignore[arg-type]

    def verify_(self) -> None:
        sizes = self.sizes
        if self.workgroup_size.elt_type != i64 or len(sizes) != 3 or min(sizes) < 1:
            raise VerifyException(f"wgsl.entry workgroup_size must be 3 positive i64, got {self.workgroup_size}")
        seen_scalar = None
        for arg in self.params:
            if isinstance(arg.type, StorageType):
                if seen_scalar is not None:
                    raise VerifyException(
                        f"wgsl.entry parameter {describe(arg)} is a buffer after the scalar {describe(seen_scalar)}: "
                        "buffers come first (bindings 0..n-1), then the scalars (the uniform struct)"
                    )
            elif arg.type == I32:
                seen_scalar = arg
            else:
                raise VerifyException(
                    f"wgsl.entry parameter {describe(arg)} must be a !wgsl.storage or an i32 scalar, got {arg.type}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> EntryOp:
        name = parser.parse_symbol_name()
        paren = Parser.Delimiter.PAREN
        args = parser.parse_comma_separated_list(paren, lambda: parser.parse_argument(expect_type=True))
        parser.parse_keyword("workgroup_size")
        pos = parser.pos
        sizes = parser.parse_comma_separated_list(paren, lambda: parser.parse_integer(allow_boolean=False))
        if len(sizes) != 3:
            parser.raise_error(f"workgroup_size takes 3 sizes (x, y, z), got {len(sizes)}", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        return cls.create(
            properties={"sym_name": name, "workgroup_size": DenseArrayBase.from_list(i64, sizes)},
            regions=[body],
            attributes=dict(attrs.data) if isinstance(attrs, DictionaryAttr) else {},
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        with printer.in_parens():
            printer.print_list(self.params, printer.print_block_argument)
        printer.print_string(f" workgroup_size({', '.join(map(str, self.sizes))})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


BUILTINS = ("global_invocation_id", "workgroup_id", "local_invocation_id", "num_workgroups")
"""The ``@builtin`` compute-shader inputs ``wgsl.builtin`` reads (each a ``vec3<u32>``)."""


@irdl_op_definition
class BuiltinOp(IRDLOperation):
    """``%g = wgsl.builtin workgroup_id.x``: one component (a u32) of a compute builtin input, which the emitter
    declares as a parameter of the entry point: ``global_invocation_id``, ``workgroup_id``,
    ``local_invocation_id`` or ``num_workgroups``, then ``.x``, ``.y`` or ``.z``."""

    name = "wgsl.builtin"

    builtin = prop_def(StringAttr)
    result = result_def(U32)
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, builtin: str):
        super().__init__(properties={"builtin": StringAttr(builtin)}, result_types=[U32])

    @property
    def input_name(self) -> str:
        """The builtin input (``workgroup_id``)."""
        return self.builtin.data.partition(".")[0]

    @property
    def component(self) -> str:
        return self.builtin.data.partition(".")[2]

    def verify_(self) -> None:
        if self.input_name not in BUILTINS or self.component not in ("x", "y", "z"):
            raise VerifyException(
                f"unknown wgsl.builtin '{self.builtin.data}' "
                f"(expected <name>.<x|y|z>, name one of {', '.join(BUILTINS)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> BuiltinOp:
        name = parser.parse_identifier()
        attributes = parser.parse_optional_attr_dict()
        return cls.create(properties={"builtin": StringAttr(name)}, result_types=[U32], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.builtin.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class WorkgroupArrayOp(IRDLOperation):
    """``%l = wgsl.workgroup_array : !wgsl.workgroup<f32, 256>``: ``var<workgroup> name: array<f32, 256>;``,
    a module-scope variable only this entry point uses (so it stands directly in the entry's body)."""

    name = "wgsl.workgroup_array"

    result = result_def(WorkgroupType)
    traits = traits_def(MemoryAllocEffect(), HasParent(EntryOp))
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, element_type: Attribute, size: int):
        super().__init__(result_types=[WorkgroupType(element_type, size)])


@irdl_op_definition
class ForOp(IRDLOperation):
    """``wgsl.for %i = %lo to %hi : i32 { ... }``: ``for (var i: i32 = lo; i < hi; i++) { ... }``; the body's
    one block argument is the counter (the body never assigns it)."""

    name = "wgsl.for"

    lo = operand_def(AnyAttr())
    hi = operand_def(AnyAttr())
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect(), HasAncestor(EntryOp))

    def __init__(self, lo: SSAValue | Operation, hi: SSAValue | Operation):
        t = SSAValue.get(lo).type
        super().__init__(operands=[lo, hi], regions=[Region(Block(arg_types=[t]))])

    @property
    def counter(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        t = self.lo.type
        _check_scalar(t, "wgsl.for bounds", INTEGERS)
        if self.hi.type != t:
            raise VerifyException(
                f"wgsl.for bounds must have one type, got {wgsl_name(t)} and {wgsl_name(self.hi.type)}"
            )
        args = self.body.block.args
        if len(args) != 1 or args[0].type != t:
            raise VerifyException(
                f"wgsl.for body must take one argument of the bound type {wgsl_name(t)} (the counter)"
            )

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


@irdl_op_definition
class IfOp(IRDLOperation):
    """``wgsl.if %c { ... }``: ``if (c) { ... }``."""

    name = "wgsl.if"

    cond = operand_def(i1)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect(), HasAncestor(EntryOp))
    assembly_format = "$cond attr-dict-with-keyword $body"

    def __init__(self, cond: SSAValue | Operation):
        super().__init__(operands=[cond], regions=[Region(Block())])

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException("wgsl.if body takes no block arguments")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``wgsl.barrier``: ``workgroupBarrier();`` -- every invocation of the workgroup waits here, and their
    workgroup-memory writes become visible (WGSL requires it in uniform control flow)."""

    name = "wgsl.barrier"

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect(), HasAncestor(EntryOp))
    assembly_format = "attr-dict"


# ---------------------------------------------------------------------------------------------
# function-scope variables and memory


@irdl_op_definition
class VarOp(IRDLOperation):
    """``%acc = wgsl.var %init : f32``: ``var acc: f32 = init;``, a mutable local (``!wgsl.var<f32>``)."""

    name = "wgsl.var"

    init = operand_def(AnyAttr())
    result = result_def(VarType)
    traits = traits_def(MemoryAllocEffect(), HasAncestor(EntryOp))

    def __init__(self, init: SSAValue | Operation):
        super().__init__(operands=[init], result_types=[VarType(SSAValue.get(init).type)])

    def verify_(self) -> None:
        assert isinstance(self.result.type, VarType)
        if self.result.type.value_type != self.init.type:
            raise VerifyException(f"wgsl.var of {self.init.type} must produce !wgsl.var<{self.init.type}>")

    @classmethod
    def parse(cls, parser: Parser) -> VarOp:
        init = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(init, t)], result_types=[VarType(t)], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.init)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.init.type)


@irdl_op_definition
class ReadOp(IRDLOperation):
    """``%v = wgsl.read %acc : f32``: the variable's value now (``let v = acc;``)."""

    name = "wgsl.read"

    var = operand_def(VarType)
    result = result_def(AnyAttr())
    traits = traits_def(MemoryReadEffect(), HasAncestor(EntryOp))

    def __init__(self, var: SSAValue | Operation):
        t = SSAValue.get(var).type
        assert isinstance(t, VarType)
        super().__init__(operands=[var], result_types=[t.value_type])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.result.type != self.var.type.value_type:
            raise VerifyException(f"wgsl.read of a {self.var.type} gives {self.var.type.value_type}")

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        var = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(operands=[parser.resolve_operand(var, VarType(t))], result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.var)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AssignOp(IRDLOperation):
    """``wgsl.assign %acc = %v``: ``acc = v;``."""

    name = "wgsl.assign"

    var = operand_def(VarType)
    value = operand_def(AnyAttr())
    traits = traits_def(MemoryWriteEffect(), HasAncestor(EntryOp))

    def __init__(self, var: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[var, value])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.value.type != self.var.type.value_type:
            raise VerifyException(f"wgsl.assign of {self.value.type} to a {self.var.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AssignOp:
        pos = parser.pos
        var = parse_defined_operand(parser, "variable")
        if not isinstance(var.type, VarType):
            parser.raise_error(f"expected a !wgsl.var value, got {var.type}", pos, parser.pos)
        parser.parse_punctuation("=")
        value = parser.parse_operand(var.type.value_type)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(operands=[var, value], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.var)
        printer.print_string(" = ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)


def _array_element(op: Operation, array: SSAValue, index: SSAValue) -> Attribute:
    """The element type of an indexed array, after checking the index is an integer."""
    assert isinstance(array.type, ArrayType)
    _check_scalar(index.type, f"{op.name} index", INTEGERS)
    return array.type.element_type


def _parse_element(parser: Parser) -> tuple[SSAValue, SSAValue]:
    """``%p[%i]``: both already defined, so their types are not repeated."""
    pos = parser.pos
    array = parse_defined_operand(parser, "array")
    if not isinstance(array.type, ArrayType):
        parser.raise_error(f"expected a !wgsl.storage or !wgsl.workgroup value, got {array.type}", pos, parser.pos)
    with parser.in_square_brackets():
        index = parse_defined_operand(parser, "index")
    return array, index


def _print_element(printer: Printer, array: SSAValue, index: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(array)
    printer.print_string("[")
    printer.print_operand(index)
    printer.print_string("]")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """``%v = wgsl.load %p[%i] : f32``: ``p[i]``, from a storage buffer or a workgroup array. The index must be
    in bounds (WGSL would clamp or zero an out-of-bounds read, so gated reads clamp their index first)."""

    name = "wgsl.load"

    array = operand_def(ArrayType)
    index = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(MemoryReadEffect(), HasAncestor(EntryOp))

    def __init__(self, array: SSAValue, index: SSAValue | Operation):
        assert isinstance(array.type, ArrayType)
        super().__init__(operands=[array, index], result_types=[array.type.element_type])

    def verify_(self) -> None:
        element = _array_element(self, self.array, self.index)
        if self.result.type != element:
            raise VerifyException(f"wgsl.load from a {self.array.type} gives {element}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        array, index = _parse_element(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(operands=[array, index], result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        _print_element(printer, self.array, self.index)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """``wgsl.store %p[%i] = %v``: ``p[i] = v;``."""

    name = "wgsl.store"

    array = operand_def(ArrayType)
    index = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    traits = traits_def(MemoryWriteEffect(), HasAncestor(EntryOp))

    def __init__(self, array: SSAValue, index: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[array, index, value])

    def verify_(self) -> None:
        element = _array_element(self, self.array, self.index)
        if self.value.type != element:
            raise VerifyException(f"wgsl.store of {self.value.type} into a {self.array.type}")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        array, index = _parse_element(parser)
        assert isinstance(array.type, ArrayType)
        parser.parse_punctuation("=")
        value = parser.parse_operand(array.type.element_type)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(operands=[array, index, value], attributes=attributes)

    def print(self, printer: Printer) -> None:
        _print_element(printer, self.array, self.index)
        printer.print_string(" = ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# expressions

ARITHMETIC, BITWISE, SHIFT = "arith", "bitwise", "shift"
COMPARISON, EQUALITY, LOGICAL = "compare", "equality", "logical"
BINARY_OPERATORS: dict[str, str] = {
    **dict.fromkeys(("+", "-", "*", "/", "%"), ARITHMETIC),
    **dict.fromkeys(("&", "|", "^"), BITWISE),
    **dict.fromkeys(("<<", ">>"), SHIFT),
    **dict.fromkeys(("<", "<=", ">", ">="), COMPARISON),
    **dict.fromkeys(("==", "!="), EQUALITY),
    **dict.fromkeys(("&&", "||"), LOGICAL),
}
"""WGSL binary operators by kind; comparisons and logical operators give bool, the others the operand type."""
_OPERAND_TYPES: dict[str, frozenset[Attribute]] = {
    ARITHMETIC: NUMBERS,
    BITWISE: INTEGERS,
    SHIFT: INTEGERS,
    COMPARISON: NUMBERS,
    EQUALITY: frozenset(SCALARS),
    LOGICAL: frozenset({BOOL}),
}
_BOOL_BITWISE = ("&", "|")
"""Bitwise operators WGSL also defines on bool (logical, both operands evaluated); ``^`` is integers only."""


def binary_operand_allowed(operator: str) -> frozenset[Attribute]:
    """The left operand types a binary operator takes."""
    allowed = _OPERAND_TYPES[BINARY_OPERATORS[operator]]
    return allowed | {BOOL} if operator in _BOOL_BITWISE else allowed
UNARY_OPERATORS: dict[str, frozenset[Attribute]] = {
    "-": frozenset({I32, F32, F16}),
    "~": INTEGERS,
    "!": frozenset({BOOL}),
}
"""WGSL unary operators and the operand types each takes (``-`` is not defined on u32)."""


def binary_operand_types(operator: str, lhs: Attribute) -> tuple[Attribute, Attribute]:
    """The operand types a binary operator takes given its left operand: shift amounts are u32."""
    return (lhs, U32) if BINARY_OPERATORS.get(operator) == SHIFT else (lhs, lhs)


def binary_result_type(operator: str, lhs: Attribute) -> Attribute:
    return BOOL if BINARY_OPERATORS.get(operator) in (COMPARISON, EQUALITY, LOGICAL) else lhs


@irdl_op_definition
class LiteralOp(IRDLOperation):
    """``%c = wgsl.literal 1.500000e+00 : f32`` (``1.5f``), ``wgsl.literal 64 : i32`` (``64i``),
    ``wgsl.literal 7 : ui32`` (``7u``), ``wgsl.literal true``. Infinities and nan are allowed (the emitter
    writes their bit patterns, ``bitcast<f32>(0x7f800000u)``); integers must fit their type."""

    name = "wgsl.literal"

    value = prop_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, value: IntegerAttr | FloatAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def of(cls, number: int | float | bool, t: Attribute) -> LiteralOp:
        value = FloatAttr(float(number), t) if is_float(t) else IntegerAttr(int(number), t)  # type: ignore[arg-type]
        return cls(value)

    def verify_(self) -> None:
        if not isinstance(self.value, IntegerAttr | FloatAttr):
            raise VerifyException(f"wgsl.literal value must be an integer, float or boolean, got {self.value}")
        _check_scalar(self.value.type, "wgsl.literal type")
        if self.result.type != self.value.type:
            raise VerifyException(f"wgsl.literal result type {self.result.type} must be {self.value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LiteralOp:
        pos = parser.pos
        value = parser.parse_optional_builtin_int_or_float_attr()
        if value is None:
            parser.raise_error("expected a number or true/false after wgsl.literal", pos)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(properties={"value": value}, result_types=[value.type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class UnaryOp(IRDLOperation):
    """``%r = wgsl.unary "-" %a : f32``: ``-a`` (i32, f32, f16), ``~a`` (i32, u32) or ``!a`` (bool)."""

    name = "wgsl.unary"

    operator = prop_def(StringAttr)
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, operator: str, operand: SSAValue | Operation):
        t = SSAValue.get(operand).type
        super().__init__(operands=[operand], properties={"operator": StringAttr(operator)}, result_types=[t])

    def verify_(self) -> None:
        op, t = self.operator.data, self.operand.type
        if op not in UNARY_OPERATORS:
            raise VerifyException(f"unknown unary operator '{op}' (known: {' '.join(UNARY_OPERATORS)})")
        _check_scalar(t, f"operator '{op}' operand", UNARY_OPERATORS[op])
        if self.result.type != t:
            raise VerifyException(f"wgsl.unary result type must be {t}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> UnaryOp:
        operator = parser.parse_str_literal()
        operand = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(operand, t)],
            properties={"operator": StringAttr(operator)},
            result_types=[t],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.operator.data)
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)


@irdl_op_definition
class BinaryOp(IRDLOperation):
    """``%r = wgsl.binary "+" %a, %b : f32``: ``a + b``. The type after ``:`` is the left operand's; the right
    operand has the same type, except for shifts (``<<``, ``>>``), whose amount is a u32. Comparisons and
    ``&&``/``||`` give bool."""

    name = "wgsl.binary"

    operator = prop_def(StringAttr)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, operator: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        t = SSAValue.get(lhs).type
        super().__init__(
            operands=[lhs, rhs],
            properties={"operator": StringAttr(operator)},
            result_types=[binary_result_type(operator, t)],
        )

    def verify_(self) -> None:
        op, t = self.operator.data, self.lhs.type
        if op not in BINARY_OPERATORS:
            raise VerifyException(f"unknown binary operator '{op}' (known: {' '.join(BINARY_OPERATORS)})")
        _check_scalar(t, f"operator '{op}' operand", binary_operand_allowed(op))
        expected = binary_operand_types(op, t)[1]
        if self.rhs.type != expected:
            raise VerifyException(
                f"wgsl.binary '{op}' on {wgsl_name(t)} takes a {wgsl_name(expected)} right operand, "
                f"got {wgsl_name(self.rhs.type)}"
            )
        if self.result.type != binary_result_type(op, t):
            expected = binary_result_type(op, t)
            raise VerifyException(f"wgsl.binary '{op}' on {t} gives {expected}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> BinaryOp:
        operator = parser.parse_str_literal()
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        lhs_type, rhs_type = binary_operand_types(operator, t)
        return cls.create(
            operands=[parser.resolve_operand(lhs, lhs_type), parser.resolve_operand(rhs, rhs_type)],
            properties={"operator": StringAttr(operator)},
            result_types=[binary_result_type(operator, t)],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.operator.data)
        printer.print_string(" ")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``%r = wgsl.select %c, %a, %b : f32``: ``c ? a : b``, which WGSL writes ``select(b, a, c)``."""

    name = "wgsl.select"

    cond = operand_def(i1)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, cond: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[cond, lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        t = self.lhs.type
        _check_scalar(t, "wgsl.select operand")
        if self.rhs.type != t or self.result.type != t:
            raise VerifyException(f"wgsl.select operands and result must have one type, got {t}, {self.rhs.type}")

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
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


class _ConversionOp(IRDLOperation):
    """``%r = wgsl.<op> %x : i32 -> f32``."""

    input = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[value], result_types=[result_type])


@irdl_op_definition
class ConvertOp(_ConversionOp):
    """``%r = wgsl.convert %x : i32 -> f32``: WGSL's value conversion ``f32(x)`` between scalars: float to
    integer truncates toward zero and saturates (nan gives an unspecified value), i32 <-> u32 keeps the bits,
    ``bool(x)`` is ``x != 0``, a bool converts to 0 or 1."""

    name = "wgsl.convert"

    def verify_(self) -> None:
        _check_scalar(self.input.type, "wgsl.convert operand")
        _check_scalar(self.result.type, "wgsl.convert result")


@irdl_op_definition
class BitcastOp(_ConversionOp):
    """``%r = wgsl.bitcast %x : f32 -> ui32``: ``bitcast<u32>(x)``, the same 32 bits read as another type."""

    name = "wgsl.bitcast"

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        for t, what in ((src, "operand"), (dst, "result")):
            _check_scalar(t, f"wgsl.bitcast {what}", NUMBERS)
        if bitwidth(src) != bitwidth(dst):
            raise VerifyException(
                f"wgsl.bitcast needs two scalars of one width, got {wgsl_name(src)} -> {wgsl_name(dst)}"
            )


@irdl_op_definition
class CallOp(IRDLOperation):
    """``%r = wgsl.call @exp(%x) : (f32) -> f32``: a call of a ``FUNCTIONS`` entry (all are pure), with exactly
    its signature: a WGSL builtin or a ``kiln_*`` helper the emitter defines."""

    name = "wgsl.call"

    callee = prop_def(StringAttr)
    args = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(EntryOp))

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        f = find_function(callee, [SSAValue.get(a).type for a in args])
        if f is None:
            raise ValueError(f"no WGSL function {callee} for these operand types")
        super().__init__(operands=[list(args)], properties={"callee": StringAttr(callee)}, result_types=[f.result])

    @property
    def function(self) -> Function:
        f = find_function(self.callee.data, [a.type for a in self.args])
        assert f is not None, "a verified wgsl.call names a known function"
        return f

    def verify_(self) -> None:
        name = self.callee.data
        types = [a.type for a in self.args]
        f = find_function(name, types)
        if f is None:
            known = [FunctionType.from_lists(g.params, [g.result]) for g in FUNCTIONS.values() if g.name == name]
            if not known:
                raise VerifyException(f"wgsl.call of unknown function '{name}' (not in the wgsl function table)")
            raise VerifyException(
                f"wgsl.call @{name} takes ({', '.join(map(wgsl_name, types))}), but {name} is "
                + " or ".join(map(str, known))
            )
        if self.result.type != f.result:
            raise VerifyException(f"wgsl.call @{name} gives {f.result}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_function_type()
        if len(t.inputs) != len(args) or len(t.outputs) != 1:
            parser.raise_error(
                f"expected a function type of {len(args)} inputs and one result, got {t}", pos, parser.pos
            )
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


EXPRESSION_OPS = (LiteralOp, UnaryOp, BinaryOp, SelectOp, ConvertOp, BitcastOp, CallOp, LoadOp, ReadOp, BuiltinOp)
"""Ops that compute one value and change nothing."""

WGSL = Dialect(
    "wgsl",
    [
        EntryOp, BuiltinOp, WorkgroupArrayOp, ForOp, IfOp, BarrierOp, VarOp, ReadOp, AssignOp, LoadOp, StoreOp,
        LiteralOp, UnaryOp, BinaryOp, SelectOp, ConvertOp, BitcastOp, CallOp,
    ],
    [StorageType, WorkgroupType, VarType],
)  # fmt: skip

__all__ = [
    "BINARY_OPERATORS",
    "BUILTINS",
    "EXPRESSION_OPS",
    "FUNCTIONS",
    "Function",
    "HOST_SHAREABLE",
    "SCALARS",
    "UNARY_OPERATORS",
    "WGSL",
    "find_function",
    "wgsl_name",
]
