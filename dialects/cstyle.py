"""The ``cstyle`` dialect: the statements and expressions of C kernel functions (see docs/dialects/cstyle.md).

One ``cstyle.func`` is one C function of a flavour of C ("c" for C11 on the CPU; the ops are the common core of
C-like languages, so a CUDA C flavour can reuse them). Statements (``for``, ``if``, ``decl``, ``assign``,
``store``) are ops in order; expressions are SSA ops, and the emitter decides which become named locals and
which are printed inline. Mutable locals are explicit: ``cstyle.decl`` makes a ``!cstyle.var<T>``,
``cstyle.read``/``cstyle.assign`` use it.

The verifiers make the emitted C mean what the IR says: arithmetic operators only take types C does not promote
(``int32_t``, ``int64_t``, their unsigned twins, ``float``, ``double``; narrower integers are converted
explicitly by whoever builds the IR), the storage-only types ``f16`` and ``bf16`` (C ``kiln_f16``,
``kiln_bf16``) are only moved and converted through library helpers, and every call names a function of
``LIBRARY`` with its exact signature. C's own undefined behaviour (signed overflow, out-of-range float-to-int
casts) is not rejected here: the conversion from ``uop`` never produces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
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
from kiln.dialects.types import DTYPES, bitwidth, dtype_name, is_bool, is_dtype, is_float, is_int

# ---------------------------------------------------------------------------------------------
# value types: kiln's dtypes, each one C type (i1 is _Bool, f16/bf16 are the storage types kiln_f16/kiln_bf16)

FLAVOURS = ("c",)
"""The C flavours a ``cstyle.func`` may be written in."""

STORAGE_ONLY = frozenset({DTYPES["f16"], DTYPES["bf16"]})
"""Types C cannot compute with portably: loaded, stored, selected, bit-cast and converted by helpers only."""

UNPROMOTED = frozenset(DTYPES[n] for n in ("i32", "i64", "ui32", "ui64", "f32", "f64"))
"""Types C's arithmetic keeps as they are (no integer promotion), so ``a + b`` has the operands' type."""


def is_value_type(t: Attribute) -> bool:
    """A type a C scalar can have here: one of kiln's dtypes (never ``index``: C has no such type)."""
    return is_dtype(t)


def is_integer(t: Attribute) -> bool:
    """A C integer type other than ``_Bool``."""
    return is_dtype(t) and is_int(t)


def _check_value_type(t: Attribute, what: str) -> None:
    if not is_value_type(t):
        raise VerifyException(f"{what} must be a scalar dtype (i1, i8..i64, ui8..ui64, f16, bf16, f32, f64), got {t}")


def _check_computable(t: Attribute, what: str) -> None:
    _check_value_type(t, what)
    if t in STORAGE_ONLY:
        raise VerifyException(
            f"{what} is {t}, a storage-only type: convert it to f32 with the kiln_{dtype_name(t)}_to_f32 helper first"
        )


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer parameter: ``!cstyle.ptr<f32>`` is ``float *``, ``!cstyle.ptr<const f32, restrict>`` is
    ``const float *restrict`` (read-only elements; no other pointer of the call reaches them)."""

    name = "cstyle.ptr"

    element_type: Attribute
    const: IntAttr
    restrict: IntAttr

    def __init__(self, element_type: Attribute, const: bool = False, restrict: bool = False):
        super().__init__(element_type, IntAttr(int(const)), IntAttr(int(restrict)))

    @property
    def is_const(self) -> bool:
        return bool(self.const.data)

    @property
    def is_restrict(self) -> bool:
        return bool(self.restrict.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            const = parser.parse_optional_keyword("const") is not None
            element = parser.parse_type()
            restrict = False
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("restrict", " after ',' in !cstyle.ptr")
                restrict = True
        return (element, IntAttr(int(const)), IntAttr(int(restrict)))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            if self.is_const:
                printer.print_string("const ")
            printer.print_attribute(self.element_type)
            if self.is_restrict:
                printer.print_string(", restrict")

    def verify(self) -> None:
        _check_value_type(self.element_type, "!cstyle.ptr element type")
        if self.const.data not in (0, 1) or self.restrict.data not in (0, 1):
            raise VerifyException("!cstyle.ptr const and restrict flags must be 0 or 1")


@irdl_attr_definition
class VarType(ParametrizedAttribute, TypeAttribute):
    """A mutable local variable holding a T: ``!cstyle.var<f32>`` (made by ``cstyle.decl``)."""

    name = "cstyle.var"

    value_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.value_type)

    def verify(self) -> None:
        _check_value_type(self.value_type, "!cstyle.var value type")


# ---------------------------------------------------------------------------------------------
# the library: every function a cstyle.call may name


@dataclass(frozen=True)
class CFunction:
    """A callable C function: its name, parameter and result types, and where it comes from."""

    name: str
    params: tuple[Attribute, ...]
    result: Attribute
    header: str | None
    """The system header that declares it (``math.h``), or None for kiln's own prelude helpers."""
    summary: str


def _library() -> dict[str, CFunction]:
    f32, f64, f16, bf16 = (DTYPES[n] for n in ("f32", "f64", "f16", "bf16"))
    out: list[CFunction] = []
    for suffix, t in (("f", f32), ("", f64)):
        for base in "sqrt exp exp2 log log2 sin cos tanh erf trunc floor ceil fabs".split():
            out.append(CFunction(base + suffix, (t,), t, "math.h", f"C {base}"))
        for base in ("pow", "fmod"):
            out.append(CFunction(base + suffix, (t, t), t, "math.h", f"C {base}"))
        out.append(CFunction("fma" + suffix, (t, t, t), t, "math.h", "C fma: a * b + c rounded once"))
    for t in (f32, f64):
        n = dtype_name(t)
        out.append(CFunction(f"kiln_max_{n}", (t, t), t, None, "the larger operand; nan if either is nan"))
        out.append(CFunction(f"kiln_min_{n}", (t, t), t, None, "the smaller operand; nan if either is nan"))
    for t in (f16, bf16):
        n = dtype_name(t)
        out.append(CFunction(f"kiln_{n}_to_f32", (t,), f32, None, f"{n} -> f32 (exact)"))
        out.append(CFunction(f"kiln_f32_to_{n}", (f32,), t, None, f"f32 -> {n}, round to nearest even"))
        out.append(CFunction(f"kiln_f64_to_{n}", (f64,), t, None, f"f64 -> {n}, round to nearest even (one rounding)"))
    out.append(CFunction("kiln_f64_to_i64", (f64,), DTYPES["i64"], None, "truncate; nan -> 0; saturates"))
    out.append(
        CFunction("kiln_f64_to_ui64", (f64,), DTYPES["ui64"], None, "truncate; below 2^63 as kiln_f64_to_i64, wrapped")
    )
    for t in (DTYPES[n] for n in ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")):
        n = dtype_name(t)
        out.append(CFunction(f"kiln_idiv_{n}", (t, t), t, None, "a / b truncated; 0 if b == 0; wraps on MIN / -1"))
        out.append(CFunction(f"kiln_mod_{n}", (t, t), t, None, "a % b with the sign of a; 0 if b == 0"))
        out.append(CFunction(f"kiln_shl_{n}", (t, t), t, None, "a << b, wrapping; 0 if b is not in [0, width)"))
        out.append(
            CFunction(f"kiln_shr_{n}", (t, t), t, None, "a >> b (arithmetic if signed); b out of [0, width): 0 or -1")
        )
    return {f.name: f for f in out}


LIBRARY: dict[str, CFunction] = _library()
"""Every function ``cstyle.call`` may name: ``<math.h>`` functions and kiln's prelude helpers (the emitter
defines the helpers it uses in the translation unit)."""


# ---------------------------------------------------------------------------------------------
# functions and control flow


@irdl_op_definition
class FuncOp(IRDLOperation):
    """``cstyle.func c @name(%x: !cstyle.ptr<const f32, restrict>, %n: i64) attributes {...} { ... }``: a
    ``void`` C function of the given flavour. The body is one block whose arguments are the parameters (their
    names become the C parameter names); it has no terminator."""

    name = "cstyle.func"

    sym_name = prop_def(SymbolNameConstraint())
    flavour = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(
        self,
        name: str,
        param_types: Sequence[Attribute],
        flavour: str = "c",
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            properties={"sym_name": StringAttr(name), "flavour": StringAttr(flavour)},
            regions=[Region(Block(arg_types=param_types))],
            attributes=attributes,
        )

    @property
    def params(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    def verify_(self) -> None:
        if self.flavour.data not in FLAVOURS:
            raise VerifyException(f"unknown cstyle.func flavour '{self.flavour.data}' (known: {', '.join(FLAVOURS)})")
        for arg in self.body.block.args:
            if not (isinstance(arg.type, PtrType) or is_value_type(arg.type)):
                raise VerifyException(
                    f"cstyle.func parameter {describe(arg)} must be a !cstyle.ptr or a scalar dtype, got {arg.type}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        flavour = parser.parse_keyword_in(FLAVOURS, " (the C flavour of cstyle.func)")
        name = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True)
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        return cls.create(
            properties={"sym_name": name, "flavour": StringAttr(flavour)},
            regions=[body],
            attributes=dict(attrs.data) if isinstance(attrs, DictionaryAttr) else {},
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.flavour.data} ")
        printer.print_symbol_name(self.sym_name.data)
        with printer.in_parens():
            printer.print_list(self.body.block.args, printer.print_block_argument)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


@irdl_op_definition
class ForOp(IRDLOperation):
    """``cstyle.for %i = %lo to %hi : i64 { ... }``: ``for (int64_t i = lo; i < hi; i++) { ... }``; the body's
    one block argument is the counter."""

    name = "cstyle.for"

    lo = operand_def(AnyAttr())
    hi = operand_def(AnyAttr())
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect(), HasAncestor(FuncOp))

    def __init__(self, lo: SSAValue | Operation, hi: SSAValue | Operation):
        t = SSAValue.get(lo).type
        super().__init__(operands=[lo, hi], regions=[Region(Block(arg_types=[t]))])

    @property
    def counter(self) -> SSAValue:
        return self.body.block.args[0]

    def verify_(self) -> None:
        t = self.lo.type
        if not is_integer(t):
            raise VerifyException(f"cstyle.for bounds must be integers, got {t}")
        if self.hi.type != t:
            raise VerifyException(f"cstyle.for bounds must have one type, got {t} and {self.hi.type}")
        args = self.body.block.args
        if len(args) != 1 or args[0].type != t:
            raise VerifyException(f"cstyle.for body must take one argument of the bound type {t} (the counter)")

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
    """``cstyle.if %c { ... }``: ``if (c) { ... }``."""

    name = "cstyle.if"

    cond = operand_def(i1)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect(), HasAncestor(FuncOp))
    assembly_format = "$cond attr-dict-with-keyword $body"

    def __init__(self, cond: SSAValue | Operation):
        super().__init__(operands=[cond], regions=[Region(Block())])

    def verify_(self) -> None:
        if self.body.block.args:
            raise VerifyException("cstyle.if body takes no block arguments")


# ---------------------------------------------------------------------------------------------
# local variables and memory


@irdl_op_definition
class DeclOp(IRDLOperation):
    """``%acc = cstyle.decl %init : f32``: ``float acc = init;``, a mutable local (``!cstyle.var<f32>``)."""

    name = "cstyle.decl"

    init = operand_def(AnyAttr())
    result = result_def(VarType)
    traits = traits_def(MemoryAllocEffect(), HasAncestor(FuncOp))

    def __init__(self, init: SSAValue | Operation):
        super().__init__(operands=[init], result_types=[VarType(SSAValue.get(init).type)])

    def verify_(self) -> None:
        assert isinstance(self.result.type, VarType)
        if self.result.type.value_type != self.init.type:
            raise VerifyException(f"cstyle.decl of {self.init.type} must produce !cstyle.var<{self.init.type}>")

    @classmethod
    def parse(cls, parser: Parser) -> DeclOp:
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


def _parse_var(parser: Parser) -> SSAValue:
    pos = parser.pos
    var = parse_defined_operand(parser, "variable")
    if not isinstance(var.type, VarType):
        parser.raise_error(f"expected a !cstyle.var value, got {var.type}", pos, parser.pos)
    return var


@irdl_op_definition
class AssignOp(IRDLOperation):
    """``cstyle.assign %acc = %v``: ``acc = v;``."""

    name = "cstyle.assign"

    var = operand_def(VarType)
    value = operand_def(AnyAttr())
    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(self, var: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[var, value])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.value.type != self.var.type.value_type:
            raise VerifyException(f"cstyle.assign of {self.value.type} to a {self.var.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AssignOp:
        var = _parse_var(parser)
        assert isinstance(var.type, VarType)
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


@irdl_op_definition
class ReadOp(IRDLOperation):
    """``%v = cstyle.read %acc : f32``: the variable's value now."""

    name = "cstyle.read"

    var = operand_def(VarType)
    result = result_def(AnyAttr())
    traits = traits_def(MemoryReadEffect(), HasAncestor(FuncOp))

    def __init__(self, var: SSAValue | Operation):
        t = SSAValue.get(var).type
        assert isinstance(t, VarType)
        super().__init__(operands=[var], result_types=[t.value_type])

    def verify_(self) -> None:
        assert isinstance(self.var.type, VarType)
        if self.result.type != self.var.type.value_type:
            raise VerifyException(f"cstyle.read of a {self.var.type} gives {self.var.type.value_type}")

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


def _check_element_access(op: Operation, ptr: SSAValue, index: SSAValue) -> PtrType:
    assert isinstance(ptr.type, PtrType)
    if not is_integer(index.type):
        raise VerifyException(f"{op.name} index must be an integer, got {index.type}")
    return ptr.type


def _parse_element(parser: Parser) -> tuple[SSAValue, SSAValue]:
    """``%p[%i]``: both already defined, so their types are not repeated."""
    pos = parser.pos
    ptr = parse_defined_operand(parser, "pointer")
    if not isinstance(ptr.type, PtrType):
        parser.raise_error(f"expected a !cstyle.ptr value, got {ptr.type}", pos, parser.pos)
    with parser.in_square_brackets():
        index = parse_defined_operand(parser, "index")
    return ptr, index


def _print_element(printer: Printer, ptr: SSAValue, index: SSAValue) -> None:
    printer.print_string(" ")
    printer.print_operand(ptr)
    printer.print_string("[")
    printer.print_operand(index)
    printer.print_string("]")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """``%v = cstyle.load %p[%i] : f32``: ``p[i]``. Gated, ``cstyle.load %p[%i] if %g : f32`` is
    ``(g ? p[i] : 0)``: nothing is read where ``%g`` is false."""

    name = "cstyle.load"

    ptr = operand_def(PtrType)
    index = operand_def(AnyAttr())
    gate = opt_operand_def(i1)
    result = result_def(AnyAttr())
    traits = traits_def(MemoryReadEffect(), HasAncestor(FuncOp))

    def __init__(self, ptr: SSAValue, index: SSAValue | Operation, gate: SSAValue | Operation | None = None):
        assert isinstance(ptr.type, PtrType)
        gates = [gate] if gate is not None else []
        super().__init__(operands=[ptr, index, gates], result_types=[ptr.type.element_type])

    def verify_(self) -> None:
        t = _check_element_access(self, self.ptr, self.index)
        if self.result.type != t.element_type:
            raise VerifyException(f"cstyle.load from a {t} gives {t.element_type}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        ptr, index = _parse_element(parser)
        gate = [parser.parse_operand(i1)] if parser.parse_optional_keyword("if") else []
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(operands=[ptr, index, *gate], result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        _print_element(printer, self.ptr, self.index)
        if self.gate is not None:
            printer.print_string(" if ")
            printer.print_operand(self.gate)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """``cstyle.store %p[%i] = %v``: ``p[i] = v;`` (not through a ``const`` pointer)."""

    name = "cstyle.store"

    ptr = operand_def(PtrType)
    index = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    traits = traits_def(MemoryWriteEffect(), HasAncestor(FuncOp))

    def __init__(self, ptr: SSAValue, index: SSAValue | Operation, value: SSAValue | Operation):
        super().__init__(operands=[ptr, index, value])

    def verify_(self) -> None:
        t = _check_element_access(self, self.ptr, self.index)
        if t.is_const:
            raise VerifyException(f"cstyle.store through {describe(self.ptr)}, a pointer to const ({t})")
        if self.value.type != t.element_type:
            raise VerifyException(f"cstyle.store of {self.value.type} through a {t}")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        ptr, index = _parse_element(parser)
        assert isinstance(ptr.type, PtrType)
        parser.parse_punctuation("=")
        value = parser.parse_operand(ptr.type.element_type)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(operands=[ptr, index, value], attributes=attributes)

    def print(self, printer: Printer) -> None:
        _print_element(printer, self.ptr, self.index)
        printer.print_string(" = ")
        printer.print_operand(self.value)
        printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# expressions

ARITHMETIC, REMAINDER, BITWISE, SHIFT, COMPARISON, LOGICAL = "arith", "rem", "bitwise", "shift", "compare", "logical"
BINARY_OPERATORS: dict[str, str] = {
    **dict.fromkeys(("+", "-", "*", "/"), ARITHMETIC),
    "%": REMAINDER,
    **dict.fromkeys(("&", "|", "^"), BITWISE),
    **dict.fromkeys(("<<", ">>"), SHIFT),
    **dict.fromkeys(("<", "<=", ">", ">=", "==", "!="), COMPARISON),
    **dict.fromkeys(("&&", "||"), LOGICAL),
}
"""C binary operators by kind; comparisons and logical operators give i1, the others the operand type."""
UNARY_OPERATORS = ("-", "~", "!")


def _literal_int(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, LiteralOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _check_operator_operand(operator: str, kind: str, t: Attribute) -> None:
    """The operand types each operator accepts, so that C's promotions never change a result."""
    what = f"operator '{operator}' operand"
    _check_computable(t, what)
    if kind in (COMPARISON,):
        return
    if kind == LOGICAL:
        if t != i1:
            raise VerifyException(f"{what} must be i1, got {t}")
        return
    if kind == BITWISE and t == i1:
        return
    allowed = {
        ARITHMETIC: "i32, i64, ui32, ui64, f32 or f64",
        REMAINDER: "i32, i64, ui32 or ui64",
        BITWISE: "i1, i32, i64, ui32 or ui64",
        SHIFT: "i32, i64, ui32 or ui64",
    }[kind]
    if t not in UNPROMOTED or (kind != ARITHMETIC and is_float(t)):
        raise VerifyException(f"{what} must be {allowed} (convert narrower integers explicitly), got {t}")


@irdl_op_definition
class LiteralOp(IRDLOperation):
    """``%c = cstyle.literal 1.500000e+00 : f32`` (``1.5f``), ``cstyle.literal 64 : i64``,
    ``cstyle.literal true``; not of a storage-only type (convert an f32 literal instead)."""

    name = "cstyle.literal"

    value = prop_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, value: IntegerAttr | FloatAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def of(cls, number: int | float | bool, t: Attribute) -> LiteralOp:
        value = FloatAttr(float(number), t) if is_float(t) else IntegerAttr(int(number), t)  # type: ignore[arg-type]
        return cls(value)

    def verify_(self) -> None:
        if not isinstance(self.value, IntegerAttr | FloatAttr):
            raise VerifyException(f"cstyle.literal value must be an integer, float or boolean, got {self.value}")
        _check_computable(self.value.type, "cstyle.literal type")
        if self.result.type != self.value.type:
            raise VerifyException(f"cstyle.literal result type {self.result.type} must be {self.value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LiteralOp:
        pos = parser.pos
        value = parser.parse_optional_builtin_int_or_float_attr()
        if value is None:
            parser.raise_error("expected a number or true/false after cstyle.literal", pos)
        attributes = parser.parse_optional_attr_dict()
        return cls.create(properties={"value": value}, result_types=[value.type], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class UnaryOp(IRDLOperation):
    """``%r = cstyle.unary "-" %a : f32``: ``-a``, ``~a`` (integers) or ``!a`` (i1)."""

    name = "cstyle.unary"

    operator = prop_def(StringAttr)
    operand = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, operator: str, operand: SSAValue | Operation):
        t = SSAValue.get(operand).type
        super().__init__(operands=[operand], properties={"operator": StringAttr(operator)}, result_types=[t])

    def verify_(self) -> None:
        op, t = self.operator.data, self.operand.type
        if op not in UNARY_OPERATORS:
            raise VerifyException(f"unknown unary operator '{op}' (known: {' '.join(UNARY_OPERATORS)})")
        _check_operator_operand(op, {"-": ARITHMETIC, "~": SHIFT, "!": LOGICAL}[op], t)
        if self.result.type != t:
            raise VerifyException(f"cstyle.unary result type must be {t}, got {self.result.type}")

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
    """``%r = cstyle.binary "+" %a, %b : f32``: ``a + b``; comparisons and ``&&``/``||`` give i1. The type
    after ``:`` is the operands' type."""

    name = "cstyle.binary"

    operator = prop_def(StringAttr)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, operator: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        t = SSAValue.get(lhs).type
        super().__init__(
            operands=[lhs, rhs],
            properties={"operator": StringAttr(operator)},
            result_types=[self.result_type(operator, t)],
        )

    @staticmethod
    def result_type(operator: str, operand_type: Attribute) -> Attribute:
        return i1 if BINARY_OPERATORS.get(operator) in (COMPARISON, LOGICAL) else operand_type

    def verify_(self) -> None:
        op, t = self.operator.data, self.lhs.type
        if op not in BINARY_OPERATORS:
            raise VerifyException(f"unknown binary operator '{op}' (known: {' '.join(BINARY_OPERATORS)})")
        if self.rhs.type != t:
            raise VerifyException(f"cstyle.binary '{op}' operands must have one type, got {t} and {self.rhs.type}")
        kind = BINARY_OPERATORS[op]
        _check_operator_operand(op, kind, t)
        if self.result.type != self.result_type(op, t):
            expected = self.result_type(op, t)
            raise VerifyException(f"cstyle.binary '{op}' on {t} gives {expected}, not {self.result.type}")
        divisor = _literal_int(self.rhs)
        if op in ("/", "%") and divisor == 0:
            raise VerifyException(f"cstyle.binary '{op}' by the literal 0 is undefined in C")
        if kind == SHIFT and divisor is not None and not 0 <= divisor < bitwidth(t):
            raise VerifyException(f"cstyle.binary '{op}' by {divisor} is undefined in C for {t} (width {bitwidth(t)})")

    @classmethod
    def parse(cls, parser: Parser) -> BinaryOp:
        operator = parser.parse_str_literal()
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t)],
            properties={"operator": StringAttr(operator)},
            result_types=[cls.result_type(operator, t)],
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
    """``%r = cstyle.select %c, %a, %b : f32``: ``c ? a : b`` (any scalar type, storage-only ones too)."""

    name = "cstyle.select"

    cond = operand_def(i1)
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, cond: SSAValue | Operation, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[cond, lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        t = self.lhs.type
        _check_value_type(t, "cstyle.select operand")
        if self.rhs.type != t or self.result.type != t:
            raise VerifyException(f"cstyle.select operands and result must have one type, got {t}, {self.rhs.type}")

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
    """``%r = cstyle.<op> %x : i32 -> f32``."""

    input = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[value], result_types=[result_type])


@irdl_op_definition
class CastOp(_ConversionOp):
    """``%r = cstyle.cast %x : i32 -> f32``: ``(float)x``, C's value conversion between computable types
    (float -> integer is undefined in C when the truncated value does not fit; integer narrowing wraps)."""

    name = "cstyle.cast"

    def verify_(self) -> None:
        _check_computable(self.input.type, "cstyle.cast operand")
        _check_computable(self.result.type, "cstyle.cast result")


@irdl_op_definition
class BitcastOp(_ConversionOp):
    """``%r = cstyle.bitcast %x : f32 -> i32``: the same bits read as another type of the same width."""

    name = "cstyle.bitcast"

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        _check_value_type(src, "cstyle.bitcast operand")
        _check_value_type(dst, "cstyle.bitcast result")
        if is_bool(src) or is_bool(dst) or bitwidth(src) != bitwidth(dst):
            raise VerifyException(f"cstyle.bitcast needs two non-i1 types of one width, got {src} -> {dst}")


@irdl_op_definition
class CallOp(IRDLOperation):
    """``%r = cstyle.call @sqrtf(%x) : (f32) -> f32``: a call of a ``LIBRARY`` function (all of them are pure),
    with exactly its signature."""

    name = "cstyle.call"

    callee = prop_def(StringAttr)
    args = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasAncestor(FuncOp))

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        if callee not in LIBRARY:
            raise ValueError(f"unknown C function '{callee}'")
        super().__init__(
            operands=[list(args)], properties={"callee": StringAttr(callee)}, result_types=[LIBRARY[callee].result]
        )

    @property
    def function(self) -> CFunction:
        return LIBRARY[self.callee.data]

    def verify_(self) -> None:
        name = self.callee.data
        if name not in LIBRARY:
            raise VerifyException(f"cstyle.call of unknown function '{name}' (not in the cstyle library)")
        f = LIBRARY[name]
        types = tuple(a.type for a in self.args)
        if types != f.params or self.result.type != f.result:
            expected = FunctionType.from_lists(f.params, [f.result])
            got = FunctionType.from_lists(types, [self.result.type])
            raise VerifyException(f"cstyle.call @{name} has type {got}, but {name} is {expected}")

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


EXPRESSION_OPS = (LiteralOp, UnaryOp, BinaryOp, SelectOp, CastOp, BitcastOp, CallOp, LoadOp, ReadOp)
"""Ops that compute one value and change nothing (loads and reads depend on memory, the others do not)."""

CStyle = Dialect(
    "cstyle",
    [
        FuncOp, ForOp, IfOp, DeclOp, AssignOp, ReadOp, LoadOp, StoreOp,
        LiteralOp, UnaryOp, BinaryOp, SelectOp, CastOp, BitcastOp, CallOp,
    ],
    [PtrType, VarType],
)  # fmt: skip

__all__ = [
    "BINARY_OPERATORS",
    "CFunction",
    "CStyle",
    "EXPRESSION_OPS",
    "FLAVOURS",
    "LIBRARY",
    "STORAGE_ONLY",
    "UNARY_OPERATORS",
    "UNPROMOTED",
]
