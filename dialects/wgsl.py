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
    FunctionType,
    IntAttr,
    StringAttr,
    SymbolNameConstraint,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    region_def,
    result_def,
    traits_def,
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
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from kiln.dialects import target_ops
from kiln.dialects.alu import ALU_OPS, describe, print_function
from kiln.dialects.ops.table import function_names
from kiln.dialects.types import DTYPES, bitwidth

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
class StorageType(target_ops.TypeParameterSyntax):
    """A storage buffer binding: ``!wgsl.storage<f32>`` is ``var<storage, read_write> name: array<f32>``."""

    name = "wgsl.storage"

    element_type: Attribute

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


VarType = target_ops.make_cell_type(
    "wgsl", "var", _check_scalar, "A function-scope ``var`` holding a T: ``!wgsl.var<f32>`` (made by ``wgsl.var``).",
    "VarType"
)  # fmt: skip


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
        for kind, name in function_names("wgsl").items():
            out.append(Function(name, (t,) * ALU_OPS[kind].arity, t, True, f"WGSL {name}: {ALU_OPS[kind].summary}"))
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
        sizes = f" workgroup_size({', '.join(map(str, self.sizes))})"
        print_function(printer, self, self.sym_name.data, self.params, self.body, sizes)


IN_ENTRY = HasAncestor(EntryOp)
"""Every op but ``wgsl.entry`` lives in an entry point."""

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
    traits = traits_def(Pure(), IN_ENTRY)

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


ForOp = target_ops.make_for_op(
    "wgsl", IN_ENTRY, check_bounds=lambda t, what: _check_scalar(t, what, INTEGERS), type_name=wgsl_name,
    doc="""``wgsl.for %i = %lo to %hi : i32 { ... }``: ``for (var i: i32 = lo; i < hi; i++) { ... }``; the body's
    one block argument is the counter (the body never assigns it).""",
)  # fmt: skip
IfOp = target_ops.make_if_op("wgsl", IN_ENTRY, doc="""``wgsl.if %c { ... }``: ``if (c) { ... }``.""")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``wgsl.barrier``: ``workgroupBarrier();`` -- every invocation of the workgroup waits here, and their
    workgroup-memory writes become visible (WGSL requires it in uniform control flow)."""

    name = "wgsl.barrier"

    traits = traits_def(MemoryWriteEffect(), MemoryReadEffect(), IN_ENTRY)
    assembly_format = "attr-dict"


# ---------------------------------------------------------------------------------------------
# function-scope variables and memory

VarOp, ReadOp, AssignOp = target_ops.make_cell_ops(
    "wgsl", IN_ENTRY, VarType, operand="var", role="variable",
    init=("var", "``%acc = wgsl.var %init : f32``: ``var acc: f32 = init;``, a mutable local (``!wgsl.var<f32>``)."),
    read=("read", "``%v = wgsl.read %acc : f32``: the variable's value now (``let v = acc;``)."),
    write=("assign", "``wgsl.assign %acc = %v``: ``acc = v;``."),
)


def _array_element(op: Operation, array: SSAValue, index: SSAValue) -> Attribute:
    """The element type of an indexed array, after checking the index is an integer."""
    assert isinstance(array.type, ArrayType)
    _check_scalar(index.type, f"{op.name} index", INTEGERS)
    return array.type.element_type


def _verify_load(op: IRDLOperation) -> None:
    array, index = op.operands
    element = _array_element(op, array, index)
    if op.results[0].type != element:
        raise VerifyException(f"wgsl.load from a {array.type} gives {element}, not {op.results[0].type}")


def _verify_store(op: IRDLOperation) -> None:
    array, index, value = op.operands
    if value.type != _array_element(op, array, index):
        raise VerifyException(f"wgsl.store of {value.type} into a {array.type}")


_ELEMENTS = target_ops.IndexedAccess("array", ArrayType, "array", "a !wgsl.storage or !wgsl.workgroup", value="=")
"""``%p[%i]``: both already defined, so their types are not repeated."""

LoadOp, StoreOp = target_ops.make_access_ops(
    "wgsl", IN_ENTRY, _ELEMENTS, verify_load=_verify_load, verify_store=_verify_store,
    load_doc="""``%v = wgsl.load %p[%i] : f32``: ``p[i]``, from a storage buffer or a workgroup array. The index must be
    in bounds (WGSL would clamp or zero an out-of-bounds read, so gated reads clamp their index first).""",
    store_doc="""``wgsl.store %p[%i] = %v``: ``p[i] = v;``.""",
)  # fmt: skip


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


LiteralOp = target_ops.make_literal_op(
    "wgsl", IN_ENTRY, check=_check_scalar,
    doc="""``%c = wgsl.literal 1.500000e+00 : f32`` (``1.5f``), ``wgsl.literal 64 : i32`` (``64i``),
    ``wgsl.literal 7 : ui32`` (``7u``), ``wgsl.literal true``. Infinities and nan are allowed (the emitter
    writes their bit patterns, ``bitcast<f32>(0x7f800000u)``); integers must fit their type.""",
)  # fmt: skip
UnaryOp = target_ops.make_unary_op(
    "wgsl", IN_ENTRY, operators=UNARY_OPERATORS,
    check_operand=lambda op, t: _check_scalar(t, f"operator '{op}' operand", UNARY_OPERATORS[op]),
    doc="""``%r = wgsl.unary "-" %a : f32``: ``-a`` (i32, f32, f16), ``~a`` (i32, u32) or ``!a`` (bool).""",
)  # fmt: skip


def _check_binary_operands(op: IRDLOperation, operator: str, t: Attribute) -> None:
    _check_scalar(t, f"operator '{operator}' operand", binary_operand_allowed(operator))
    expected, rhs = binary_operand_types(operator, t)[1], op.operands[1].type
    if rhs != expected:
        raise VerifyException(
            f"{op.name} '{operator}' on {wgsl_name(t)} takes a {wgsl_name(expected)} right operand, "
            f"got {wgsl_name(rhs)}"
        )


BinaryOp = target_ops.make_binary_op(
    "wgsl", IN_ENTRY, operators=BINARY_OPERATORS, result_type=binary_result_type, operand_types=binary_operand_types,
    check_operands=_check_binary_operands,
    doc="""``%r = wgsl.binary "+" %a, %b : f32``: ``a + b``. The type after ``:`` is the left operand's; the right
    operand has the same type, except for shifts (``<<``, ``>>``), whose amount is a u32. Comparisons and
    ``&&``/``||`` give bool.""",
)  # fmt: skip
SelectOp = target_ops.make_select_op(
    "wgsl", IN_ENTRY, check=_check_scalar,
    doc="""``%r = wgsl.select %c, %a, %b : f32``: ``c ? a : b``, which WGSL writes ``select(b, a, c)``.""",
)  # fmt: skip
ConvertOp = target_ops.make_conversion_op(
    "wgsl", "convert", IN_ENTRY, check=_check_scalar,
    doc="""``%r = wgsl.convert %x : i32 -> f32``: WGSL's value conversion ``f32(x)`` between scalars: float to
    integer truncates toward zero and saturates (nan gives an unspecified value), i32 <-> u32 keeps the bits,
    ``bool(x)`` is ``x != 0``, a bool converts to 0 or 1.""",
)  # fmt: skip


def _check_same_width(op: IRDLOperation, src: Attribute, dst: Attribute) -> None:
    if bitwidth(src) != bitwidth(dst):
        raise VerifyException(f"{op.name} needs two scalars of one width, got {wgsl_name(src)} -> {wgsl_name(dst)}")


BitcastOp = target_ops.make_conversion_op(
    "wgsl", "bitcast", IN_ENTRY, check=lambda t, what: _check_scalar(t, what, NUMBERS), check_pair=_check_same_width,
    doc="""``%r = wgsl.bitcast %x : f32 -> ui32``: ``bitcast<u32>(x)``, the same 32 bits read as another type.""",
)  # fmt: skip


def _call_result(callee: str, arg_types: Sequence[Attribute]) -> Attribute:
    f = find_function(callee, arg_types)
    if f is None:
        raise ValueError(f"no WGSL function {callee} for these operand types")
    return f.result


def _called_function(op: IRDLOperation) -> Function:
    f = find_function(op.callee.data, [a.type for a in op.operands])  # type: ignore[attr-defined]
    assert f is not None, "a verified wgsl.call names a known function"
    return f


def _verify_call(op: IRDLOperation) -> None:
    name = op.callee.data  # type: ignore[attr-defined]
    types = [a.type for a in op.operands]
    f = find_function(name, types)
    if f is None:
        known = [FunctionType.from_lists(g.params, [g.result]) for g in FUNCTIONS.values() if g.name == name]
        if not known:
            raise VerifyException(f"wgsl.call of unknown function '{name}' (not in the wgsl function table)")
        raise VerifyException(
            f"wgsl.call @{name} takes ({', '.join(map(wgsl_name, types))}), but {name} is "
            + " or ".join(map(str, known))
        )
    if op.results[0].type != f.result:
        raise VerifyException(f"wgsl.call @{name} gives {f.result}, not {op.results[0].type}")


CallOp = target_ops.make_call_op(
    "wgsl", IN_ENTRY, result_of=_call_result, verify=_verify_call, function=_called_function,
    doc="""``%r = wgsl.call @exp(%x) : (f32) -> f32``: a call of a ``FUNCTIONS`` entry (all are pure), with exactly
    its signature: a WGSL builtin or a ``kiln_*`` helper the emitter defines.""",
)  # fmt: skip


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

