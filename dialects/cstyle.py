"""The ``cstyle`` dialect: the statements and expressions of C kernel functions (see docs/dialects/cstyle.md).

One ``cstyle.func`` is one C function of a flavour of C ("c" for C11 on the CPU; the ops are the common core of
C-like languages, so a CUDA C flavour can reuse them). Statements (``for``, ``if``, ``decl``, ``assign``,
``store``) are ops in order; expressions are SSA ops, and the emitter decides which become named locals and
which are printed inline. Mutable locals are explicit: ``cstyle.decl`` makes a ``!cstyle.var<T>``,
``cstyle.read``/``cstyle.assign`` use it.

Vectors (``vector<8xf32>``: 2, 4, 8 or 16 lanes of f32, f64, i32, i64, ui32 or ui64) are values too, C's
vector extension types (``kiln_f32x8``, gcc and clang ``vector_size``): loaded, stored, held in variables,
combined by the arithmetic operators (integers: ``+ - *``, bitwise operators and shifts too), compared into lane
masks (``a < b`` is a ``vector<8xi32>`` of -1 where true, 0 where false: ``mask_type``), chosen between with
``kiln_where``, reinterpreted by ``cstyle.bitcast`` (same size), combined by ``kiln_max``/``kiln_min`` (float),
built from scalars (``cstyle.vector``) and taken apart (``cstyle.extract``). Everything else works on scalars.

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
    VectorType,
    FunctionType,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
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
from xdsl.traits import HasAncestor, IsolatedFromAbove, NoTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from kiln.dialects import target_ops
from kiln.dialects.alu import ALU_OPS, describe, print_function
from kiln.dialects.ops.table import function_names
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


VECTOR_ELEMENTS = frozenset(DTYPES[n] for n in ("f32", "f64", "i32", "i64", "ui32", "ui64"))
"""The element types of C vector values."""

VECTOR_LANES = (2, 4, 8, 16)
"""The lane counts of C vector values."""


def is_vector_type(t: Attribute) -> bool:
    """A C vector value type: a one-dimensional ``vector`` of 2, 4, 8 or 16 ``VECTOR_ELEMENTS`` (``kiln_f32x8``)."""
    return (
        isinstance(t, VectorType)
        and t.get_num_dims() == 1
        and not t.get_num_scalable_dims()
        and t.get_shape()[0] in VECTOR_LANES
        and t.get_element_type() in VECTOR_ELEMENTS
    )


def vector_types() -> list[VectorType]:
    """Every C vector value type."""
    return [VectorType(e, [n]) for e in sorted(VECTOR_ELEMENTS, key=dtype_name) for n in VECTOR_LANES]


def mask_type(t: VectorType) -> VectorType:
    """What C's comparison of two ``t`` vectors gives: the signed integers of the lanes' width, -1 or 0 per lane."""
    return VectorType(DTYPES[f"i{bitwidth(t.get_element_type())}"], t.get_shape())


def vector_bits(t: Attribute) -> int:
    """The width of a scalar, or of a whole vector, in bits."""
    if isinstance(t, VectorType):
        return t.get_shape()[0] * bitwidth(t.get_element_type())
    return bitwidth(t)


def vector_tag(t: VectorType) -> str:
    """The name part of a vector type: ``f32x8`` (C type ``kiln_f32x8``, helpers ``kiln_max_f32x8``)."""
    return f"{dtype_name(t.get_element_type())}x{t.get_shape()[0]}"


def is_integer(t: Attribute) -> bool:
    """A C integer type other than ``_Bool``."""
    return is_dtype(t) and is_int(t)


def _check_value_type(t: Attribute, what: str) -> None:
    if not is_value_type(t):
        raise VerifyException(f"{what} must be a scalar dtype (i1, i8..i64, ui8..ui64, f16, bf16, f32, f64), got {t}")


def _check_value_or_vector(t: Attribute, what: str) -> None:
    if not is_vector_type(t):
        _check_value_type(t, what)


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


REDUCED_KINDS = ("add", "max", "min")
"""Float ALU kinds the prelude reduces over a vector's lanes (``kiln_reduce_max_f32x16``)."""


def _library() -> dict[str, CFunction]:
    f32, f64, f16, bf16 = (DTYPES[n] for n in ("f32", "f64", "f16", "bf16"))
    out: list[CFunction] = []
    for suffix, t in (("f", f32), ("", f64)):
        for kind, base in function_names("c").items():
            params = (t,) * ALU_OPS[kind].arity
            out.append(CFunction(base + suffix, params, t, "math.h", f"C {base}: {ALU_OPS[kind].summary}"))
    for t in (f32, f64):
        n = dtype_name(t)
        out.append(CFunction(f"kiln_max_{n}", (t, t), t, None, "the larger operand; nan if either is nan"))
        out.append(CFunction(f"kiln_min_{n}", (t, t), t, None, "the smaller operand; nan if either is nan"))
        for kind in ("max", "min"):
            out.append(CFunction(f"kiln_running_{kind}_{n}", (t, t), t, None,
                                 f"kiln_{kind}_{n} for a reduction's accumulator in its loop"))
    for v in vector_types():
        n = vector_tag(v)
        out.append(CFunction(f"kiln_where_{n}", (mask_type(v), v, v), v, None, "per lane: mask ? a : b"))
        if is_float(v.get_element_type()):
            out.append(CFunction(f"kiln_max_{n}", (v, v), v, None, "the larger lane of each pair; nan if either is nan"))
            out.append(CFunction(f"kiln_min_{n}", (v, v), v, None, "the smaller lane of each pair; nan if either is nan"))
            for kind in REDUCED_KINDS:
                out.append(CFunction(f"kiln_reduce_{kind}_{n}", (v,), v.get_element_type(), None,
                                     f"the {kind} of all lanes, combined pairwise (halves, then quarters, ...)"))
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
        printer.print_string(f" {self.flavour.data}")
        print_function(printer, self, self.sym_name.data, self.body.block.args, self.body)


IN_FUNC = HasAncestor(FuncOp)
"""Every op but ``cstyle.func`` lives in a function."""


def _check_integers(t: Attribute, what: str) -> None:
    if not is_integer(t):
        raise VerifyException(f"{what} must be integers, got {t}")


ForOp = target_ops.make_for_op(
    "cstyle", IN_FUNC, check_bounds=_check_integers,
    doc="""``cstyle.for %i = %lo to %hi : i64 { ... }``: ``for (int64_t i = lo; i < hi; i++) { ... }``; the body's
    one block argument is the counter.""",
)  # fmt: skip
IfOp = target_ops.make_if_op("cstyle", IN_FUNC, doc="""``cstyle.if %c { ... }``: ``if (c) { ... }``.""")


# ---------------------------------------------------------------------------------------------
# local variables and memory

VarType = target_ops.make_cell_type(
    "cstyle", "var", _check_value_or_vector, "A mutable local variable holding a T (a scalar or a float vector): "
    "``!cstyle.var<f32>`` (made by ``cstyle.decl``).", "VarType"
)  # fmt: skip

DeclOp, ReadOp, AssignOp = target_ops.make_cell_ops(
    "cstyle", IN_FUNC, VarType, operand="var", role="variable",
    init=("decl", "``%acc = cstyle.decl %init : f32``: ``float acc = init;``, a mutable local (``!cstyle.var<f32>``)."),
    read=("read", "``%v = cstyle.read %acc : f32``: the variable's value now."),
    write=("assign", "``cstyle.assign %acc = %v``: ``acc = v;``."),
)


def _check_element_access(op: Operation, ptr: SSAValue, index: SSAValue) -> PtrType:
    assert isinstance(ptr.type, PtrType)
    if not is_integer(index.type):
        raise VerifyException(f"{op.name} index must be an integer, got {index.type}")
    return ptr.type


def _is_element_access(value_type: Attribute, ptr: PtrType) -> bool:
    """Whether a load or store moves ``value_type`` through ``ptr``: one element, or a vector of consecutive ones."""
    if is_vector_type(value_type):
        assert isinstance(value_type, VectorType)
        return value_type.get_element_type() == ptr.element_type
    return value_type == ptr.element_type


def _verify_load(op: IRDLOperation) -> None:
    ptr, index, *_ = op.operands
    t = _check_element_access(op, ptr, index)
    if not _is_element_access(op.results[0].type, t):
        raise VerifyException(
            f"cstyle.load from a {t} gives {t.element_type} or a vector of it, not {op.results[0].type}"
        )


def _verify_store(op: IRDLOperation) -> None:
    ptr, index, value = op.operands
    t = _check_element_access(op, ptr, index)
    if t.is_const:
        raise VerifyException(f"cstyle.store through {describe(ptr)}, a pointer to const ({t})")
    if not _is_element_access(value.type, t):
        raise VerifyException(f"cstyle.store of {value.type} through a {t}")


_ELEMENTS = target_ops.IndexedAccess(
    "ptr", PtrType, "pointer", "a !cstyle.ptr", gate="if", gated=("load",), gate_type=i1, value="=",
    vector_store=is_vector_type,
)
"""``%p[%i]``: both already defined, so their types are not repeated; a gated load ends ``if %g``, a vector
store ``: vector<8xf32>``."""

LoadOp, StoreOp = target_ops.make_access_ops(
    "cstyle", IN_FUNC, _ELEMENTS, verify_load=_verify_load, verify_store=_verify_store,
    load_doc="""``%v = cstyle.load %p[%i] : f32``: ``p[i]``. Gated, ``cstyle.load %p[%i] if %g : f32`` is
    ``(g ? p[i] : 0)``: nothing is read where ``%g`` is false. ``: vector<8xf32>`` loads ``p[i]`` to ``p[i + 7]``.""",
    store_doc="""``cstyle.store %p[%i] = %v``: ``p[i] = v;`` (not through a ``const`` pointer); a vector,
    ``cstyle.store %p[%i] = %v : vector<8xf32>``, stores its lanes to consecutive elements.""",
)  # fmt: skip


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


LiteralOp = target_ops.make_literal_op(
    "cstyle", IN_FUNC, check=_check_computable,
    doc="""``%c = cstyle.literal 1.500000e+00 : f32`` (``1.5f``), ``cstyle.literal 64 : i64``,
    ``cstyle.literal true``; not of a storage-only type (convert an f32 literal instead).""",
)  # fmt: skip
def _check_vector_operator(operator: str, kind: str, t: Attribute) -> bool:
    """Whether ``t`` is a vector type, and then that ``operator`` takes it: float vectors the arithmetic operators
    and comparisons, integer vectors those but ``/`` (a zero lane is undefined) and the bitwise ones and shifts."""
    if not is_vector_type(t):
        return False
    assert isinstance(t, VectorType)
    allowed = (ARITHMETIC, COMPARISON) if is_float(t.get_element_type()) else (ARITHMETIC, COMPARISON, BITWISE, SHIFT)
    if kind not in allowed or (operator == "/" and not is_float(t.get_element_type())):
        raise VerifyException(f"operator '{operator}' does not take {t}")
    return True


def _binary_result_type(operator: str, t: Attribute) -> Attribute:
    if BINARY_OPERATORS.get(operator) == COMPARISON and isinstance(t, VectorType):
        return mask_type(t)
    return i1 if BINARY_OPERATORS.get(operator) in (COMPARISON, LOGICAL) else t


def _check_unary_operand(operator: str, t: Attribute) -> None:
    kind = {"-": ARITHMETIC, "~": SHIFT, "!": LOGICAL}[operator]
    if not _check_vector_operator(operator, kind, t):
        _check_operator_operand(operator, kind, t)


UnaryOp = target_ops.make_unary_op(
    "cstyle", IN_FUNC, operators=UNARY_OPERATORS, check_operand=_check_unary_operand,
    doc="""``%r = cstyle.unary "-" %a : f32``: ``-a`` (also of a vector), ``~a`` (integers) or ``!a`` (i1).""",
)  # fmt: skip
SelectOp = target_ops.make_select_op(
    "cstyle", IN_FUNC, check=_check_value_type,
    doc="""``%r = cstyle.select %c, %a, %b : f32``: ``c ? a : b`` (any scalar type, storage-only ones too).""",
)  # fmt: skip


def _check_binary_operands(op: IRDLOperation, operator: str, t: Attribute) -> None:
    if op.operands[1].type != t:
        raise VerifyException(f"{op.name} '{operator}' operands must have one type, got {t} and {op.operands[1].type}")
    if not _check_vector_operator(operator, BINARY_OPERATORS[operator], t):
        _check_operator_operand(operator, BINARY_OPERATORS[operator], t)


def _check_binary_constants(op: IRDLOperation, operator: str, t: Attribute) -> None:
    """C leaves division by zero and shifts by the width or more undefined."""
    divisor = _literal_int(op.operands[1])
    if operator in ("/", "%") and divisor == 0:
        raise VerifyException(f"{op.name} '{operator}' by the literal 0 is undefined in C")
    if BINARY_OPERATORS[operator] == SHIFT and divisor is not None and not 0 <= divisor < bitwidth(t):
        raise VerifyException(f"{op.name} '{operator}' by {divisor} is undefined in C for {t} (width {bitwidth(t)})")


BinaryOp = target_ops.make_binary_op(
    "cstyle", IN_FUNC, operators=BINARY_OPERATORS,
    result_type=_binary_result_type,
    check_operands=_check_binary_operands, check_constants=_check_binary_constants,
    doc="""``%r = cstyle.binary "+" %a, %b : f32``: ``a + b``; comparisons and ``&&``/``||`` give i1. The type
    after ``:`` is the operands' type. Two vectors of one type go lane by lane (see ``_check_vector_operator``);
    their comparison gives a lane mask (``mask_type``).""",
)  # fmt: skip
CastOp = target_ops.make_conversion_op(
    "cstyle", "cast", IN_FUNC, check=_check_computable,
    doc="""``%r = cstyle.cast %x : i32 -> f32``: ``(float)x``, C's value conversion between computable types
    (float -> integer is undefined in C when the truncated value does not fit; integer narrowing wraps).""",
)  # fmt: skip


def _check_same_width(op: IRDLOperation, src: Attribute, dst: Attribute) -> None:
    vectors = isinstance(src, VectorType), isinstance(dst, VectorType)
    if is_bool(src) or is_bool(dst) or vectors[0] != vectors[1] or vector_bits(src) != vector_bits(dst):
        raise VerifyException(f"{op.name} needs two non-i1 types of one width, got {src} -> {dst}")


BitcastOp = target_ops.make_conversion_op(
    "cstyle", "bitcast", IN_FUNC, check=_check_value_or_vector, check_pair=_check_same_width,
    doc="""``%r = cstyle.bitcast %x : f32 -> i32``: the same bits read as another type of the same width (also a
    vector as another vector type of the same size: ``vector<8xf32> -> vector<8xi32>``).""",
)  # fmt: skip


def _call_result(callee: str, arg_types: Sequence[Attribute]) -> Attribute:
    if callee not in LIBRARY:
        raise ValueError(f"unknown C function '{callee}'")
    return LIBRARY[callee].result


def _verify_call(op: IRDLOperation) -> None:
    name = op.callee.data  # type: ignore[attr-defined]
    if name not in LIBRARY:
        raise VerifyException(f"cstyle.call of unknown function '{name}' (not in the cstyle library)")
    f = LIBRARY[name]
    types = tuple(a.type for a in op.operands)
    if types != f.params or op.results[0].type != f.result:
        expected = FunctionType.from_lists(f.params, [f.result])
        got = FunctionType.from_lists(types, [op.results[0].type])
        raise VerifyException(f"cstyle.call @{name} has type {got}, but {name} is {expected}")


CallOp = target_ops.make_call_op(
    "cstyle", IN_FUNC, result_of=_call_result, verify=_verify_call, function=lambda op: LIBRARY[op.callee.data],
    doc="""``%r = cstyle.call @sqrtf(%x) : (f32) -> f32``: a call of a ``LIBRARY`` function (all of them are pure),
    with exactly its signature.""",
)  # fmt: skip


@irdl_op_definition
class VectorOp(IRDLOperation):
    """``%v = cstyle.vector %a, %b, %c, %d : vector<4xf32>``: ``(kiln_f32x4){a, b, c, d}``, a vector of the
    scalars, one per lane."""

    name = "cstyle.vector"

    elements = var_operand_def()
    result = result_def()
    traits = traits_def(IN_FUNC, Pure())

    def __init__(self, elements: Sequence[SSAValue], t: VectorType):
        super().__init__(operands=[list(elements)], result_types=[t])

    def verify_(self) -> None:
        t = self.result.type
        if not is_vector_type(t):
            raise VerifyException(f"cstyle.vector makes a C vector type (2, 4, 8 or 16 lanes), not {t}")
        assert isinstance(t, VectorType)
        if len(self.elements) != t.get_shape()[0]:
            raise VerifyException(f"cstyle.vector of {t} needs {t.get_shape()[0]} elements, got {len(self.elements)}")
        for e in self.elements:
            if e.type != t.get_element_type():
                raise VerifyException(f"cstyle.vector of {t} takes {t.get_element_type()} elements, got {e.type}")

    @classmethod
    def parse(cls, parser: Parser) -> VectorOp:
        unresolved = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        element = t.get_element_type() if isinstance(t, VectorType) else t
        elements = [parser.resolve_operand(e, element) for e in unresolved]
        return cls.create(operands=elements, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.elements, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """``%x = cstyle.extract %v[3] : vector<8xf32>``: ``v[3]``, one lane of a vector (the type after ``:`` is
    the vector's; the result is its element)."""

    name = "cstyle.extract"

    vector = operand_def()
    lane = prop_def(IntAttr)
    result = result_def()
    traits = traits_def(IN_FUNC, Pure())

    def __init__(self, vector: SSAValue, lane: int):
        t = vector.type
        assert isinstance(t, VectorType)
        super().__init__(operands=[vector], properties={"lane": IntAttr(lane)}, result_types=[t.get_element_type()])

    def verify_(self) -> None:
        t = self.vector.type
        if not is_vector_type(t):
            raise VerifyException(f"cstyle.extract takes a C vector type, not {t}")
        assert isinstance(t, VectorType)
        if not 0 <= self.lane.data < t.get_shape()[0]:
            raise VerifyException(f"cstyle.extract lane {self.lane.data} is outside {t}")
        if self.result.type != t.get_element_type():
            raise VerifyException(f"cstyle.extract of {t} gives {t.get_element_type()}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ExtractOp:
        unresolved = parser.parse_unresolved_operand()
        lane = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        vector = parser.resolve_operand(unresolved, t)
        element = t.get_element_type() if isinstance(t, VectorType) else t
        if len(lane) != 1:
            parser.raise_error("cstyle.extract takes one lane number")
        return cls.create(
            operands=[vector], properties={"lane": IntAttr(lane[0])}, result_types=[element], attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string(f"[{self.lane.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


EXPRESSION_OPS = (LiteralOp, UnaryOp, BinaryOp, SelectOp, CastOp, BitcastOp, CallOp, LoadOp, ReadOp, VectorOp, ExtractOp)
"""Ops that compute one value and change nothing (loads and reads depend on memory, the others do not)."""

CStyle = Dialect(
    "cstyle",
    [
        FuncOp, ForOp, IfOp, DeclOp, AssignOp, ReadOp, LoadOp, StoreOp,
        LiteralOp, UnaryOp, BinaryOp, SelectOp, CastOp, BitcastOp, CallOp, VectorOp, ExtractOp,
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
    "VECTOR_ELEMENTS",
    "VECTOR_LANES",
    "REDUCED_KINDS",
    "is_vector_type",
    "mask_type",
    "vector_bits",
    "vector_tag",
    "vector_types",
]
