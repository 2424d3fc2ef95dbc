"""The ``ptx`` dialect: NVIDIA PTX kernels as typed virtual registers and instructions (docs/dialects/ptx.md).

One ``ptx.entry`` is one ``.visible .entry``: its ``.param`` list, then a single block of instructions in
program order, with labels and (predicated) branches as in PTX itself. Every SSA value is a virtual register
of a PTX register class (``!ptx.reg<b32>``: ``.pred .b16 .b32 .b64 .f32 .f64``) written once by the op that
defines it; the registers a loop updates (counters, accumulators) are declared by ``ptx.reg`` and written by
``ptx.assign``. Instructions spell their PTX opcode after the op name, ``%r = ptx.mul lo.s32 %a, %b``, and the
verifiers check that opcode against what PTX accepts (``INSTRUCTIONS``) and the register classes against the
instruction type. The emitter (``kiln.targets.ptx.emitter``) prints one line of PTX per op.

Register classes hold kiln's values this way: ``.pred`` an i1, ``.b16`` the bits of an f16/bf16, ``.b32`` a
32-bit integer and also an 8- or 16-bit one (sign- or zero-extended: PTX lets ``ld``, ``st`` and ``cvt`` use
registers wider than their type), ``.b64`` a 64-bit integer or an address, ``.f32``/``.f64`` floats.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoTerminator,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.alu import describe, parse_defined_operand

# ---------------------------------------------------------------------------------------------
# register classes and PTX types

REG_KINDS = ("pred", "b16", "b32", "b64", "f32", "f64")
"""PTX register classes (``.reg .b32 %r<9>;``)."""

REG_BITS = {"pred": 1, "b16": 16, "b32": 32, "b64": 64, "f32": 32, "f64": 64}


@irdl_attr_definition
class RegType(ParametrizedAttribute, TypeAttribute):
    """A virtual register of a PTX register class: ``!ptx.reg<b32>`` (pred, b16, b32, b64, f32 or f64)."""

    name = "ptx.reg"

    kind: StringAttr

    def __init__(self, kind: str):
        super().__init__(StringAttr(kind))

    @property
    def bits(self) -> int:
        return REG_BITS[self.kind.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            kind = parser.parse_identifier()
            if kind not in REG_KINDS:
                parser.raise_error(f"expected a PTX register class ({', '.join(REG_KINDS)}), got '{kind}'", pos, parser.pos)
        return (StringAttr(kind),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind.data}>")

    def verify(self) -> None:
        if self.kind.data not in REG_KINDS:
            raise VerifyException(f"!ptx.reg class must be one of {', '.join(REG_KINDS)}, got '{self.kind.data}'")


REG: dict[str, RegType] = {k: RegType(k) for k in REG_KINDS}
"""The register type of each class: ``REG["b32"]``."""

SUBWORD_INTS = frozenset({"b8", "s8", "u8", "s16", "u16"})
"""Integer types narrower than 32 bits: their values live in .b32 registers (or .b16 ones, in ld/st/cvt)."""
PTX_TYPES = frozenset(
    {"pred", "b16", "b32", "b64", "u32", "u64", "s32", "s64", "f16", "bf16", "f32", "f64"} | SUBWORD_INTS
)
"""Instruction types (``add.s32``: s32)."""


def type_bits(ptx_type: str) -> int:
    """The width of a PTX instruction type in bits."""
    return 1 if ptx_type == "pred" else int(ptx_type.lstrip("bsuf"))


def register_kind(ptx_type: str) -> str:
    """The register class that holds a value of an instruction type."""
    if ptx_type in ("pred", "f32", "f64"):
        return ptx_type
    if ptx_type in ("b16", "f16", "bf16"):
        return "b16"
    return "b64" if type_bits(ptx_type) == 64 else "b32"


def accepted_kinds(ptx_type: str, wide: bool = False) -> frozenset[str]:
    """Register classes an operand of ``ptx_type`` may be in; ``wide`` for ld/st/cvt, which also take a
    16-bit register for an 8- or 16-bit integer type."""
    kind = register_kind(ptx_type)
    if wide and ptx_type in SUBWORD_INTS:
        return frozenset({"b16", "b32"})
    return frozenset({kind})


def _kind(value: SSAValue) -> str | None:
    return value.type.kind.data if isinstance(value.type, RegType) else None


def _check_register(value: SSAValue, kinds: frozenset[str], what: str) -> None:
    if _kind(value) not in kinds:
        expected = " or ".join(f"!ptx.reg<{k}>" for k in sorted(kinds))
        raise VerifyException(f"{what} must be {expected}, got {describe(value)} of type {value.type}")


# ---------------------------------------------------------------------------------------------
# shared syntax helpers


def _parse_operands(parser: Parser) -> list[SSAValue]:
    """``%a, %b, ...``: registers defined earlier, whose types the text does not repeat."""
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: parse_defined_operand(parser, "register"))


def _parse_result_types(parser: Parser) -> list[Attribute]:
    parser.parse_punctuation(":")
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def _print_result_types(printer: Printer, op: Operation) -> None:
    if op.results:
        printer.print_string(" : ")
        printer.print_list([r.type for r in op.results], printer.print_attribute)


def _parse_guard(parser: Parser) -> tuple[SSAValue | None, bool]:
    """An optional ``if %p`` / ``unless %p``: the predicate and whether it is negated."""
    if parser.parse_optional_keyword("if"):
        return parse_defined_operand(parser, "predicate"), False
    if parser.parse_optional_keyword("unless"):
        return parse_defined_operand(parser, "predicate"), True
    return None, False


def _print_guard(printer: Printer, guard: SSAValue | None, negated: bool = False) -> None:
    if guard is not None:
        printer.print_string(" unless " if negated else " if ")
        printer.print_operand(guard)


def _check_guard(op: Operation, guard: SSAValue | None) -> None:
    if guard is not None:
        _check_register(guard, frozenset({"pred"}), f"{op.name} guard")


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def _check_identifier(name: str, what: str) -> None:
    if not _IDENTIFIER.match(name):
        raise VerifyException(f"{what} '{name}' is not a PTX identifier ([A-Za-z_][A-Za-z0-9_]*)")


# ---------------------------------------------------------------------------------------------
# the entry


PARAM_TYPES = frozenset({"u32", "s32", "u64", "s64", "b32", "b64", "f32", "f64"})
"""Types a ``.param`` of an entry may have."""


@irdl_op_definition
class EntryOp(IRDLOperation):
    """A kernel: ``ptx.entry @name(p0: u64, p1: u32) maxntid(64, 1, 1) attributes {...} { ... }`` is
    ``.visible .entry name(.param .u64 p0, .param .u32 p1) .maxntid 64, 1, 1``. One block of instructions
    in program order, ending with ``ptx.ret``; free-form attributes (the launch sizes the runtime reads)."""

    name = "ptx.entry"

    sym_name = prop_def(SymbolNameConstraint())
    param_names = prop_def(ArrayAttr[StringAttr])
    param_types = prop_def(ArrayAttr[StringAttr])
    maxntid = opt_prop_def(DenseArrayBase)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(
        self,
        name: str,
        params: Sequence[tuple[str, str]],
        maxntid: Sequence[int] | None = None,
        attributes: dict[str, Attribute] | None = None,
        body: Region | None = None,
    ):
        properties: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "param_names": ArrayAttr([StringAttr(n) for n, _ in params]),
            "param_types": ArrayAttr([StringAttr(t) for _, t in params]),
        }
        if maxntid is not None:
            properties["maxntid"] = DenseArrayBase.from_list(i64, list(maxntid))
        super().__init__(properties=properties, regions=[body if body is not None else Region(Block())], attributes=attributes)

    @property
    def params(self) -> list[tuple[str, str]]:
        """The ``.param`` list: (name, type) in order."""
        return [(n.data, t.data) for n, t in zip(self.param_names.data, self.param_types.data)]

    def verify_(self) -> None:
        block = self.body.block
        if block.args:
            raise VerifyException(f"ptx.entry @{self.sym_name.data} takes no block arguments (parameters are ptx.ld_param)")
        if len(self.param_names.data) != len(self.param_types.data):
            raise VerifyException("ptx.entry needs one type per parameter name")
        seen: set[str] = set()
        for name, t in self.params:
            _check_identifier(name, "ptx.entry parameter")
            if name in seen:
                raise VerifyException(f"ptx.entry parameter '{name}' is declared twice")
            seen.add(name)
            if t not in PARAM_TYPES:
                raise VerifyException(f"ptx.entry parameter '{name}' has type '{t}'; expected one of {', '.join(sorted(PARAM_TYPES))}")
        if self.maxntid is not None:
            sizes = self.maxntid.get_values()
            if len(sizes) != 3 or min(sizes) < 1:
                raise VerifyException(f"ptx.entry maxntid must be three positive sizes, got {list(sizes)}")
        _check_body(self)

    @classmethod
    def parse(cls, parser: Parser) -> EntryOp:
        name = parser.parse_symbol_name().data

        def parse_param() -> tuple[str, str]:
            param = parser.parse_identifier()
            parser.parse_punctuation(":")
            return param, parser.parse_identifier()

        params = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_param)
        maxntid = None
        if parser.parse_optional_keyword("maxntid"):
            maxntid = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:  # `{ }`: an empty entry still has its block
            body.add_block(Block())
        return cls(name, params, maxntid, dict(attrs.data) if attrs else None, body)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(" + ", ".join(f"{n}: {t}" for n, t in self.params) + ")")
        if self.maxntid is not None:
            printer.print_string(f" maxntid({', '.join(str(v) for v in self.maxntid.get_values())})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _check_body(entry: EntryOp) -> None:
    """Program-order checks of an entry's block: registers are defined before they are read, only
    ``ptx.reg`` registers are assigned, labels are unique and every branch targets one, parameters read
    exist with their declared type, and the block ends with ``ptx.ret``."""
    defined: set[SSAValue] = set()
    labels: set[str] = set()
    branches: list[BraOp] = []
    params = dict(entry.params)
    for op in entry.body.block.ops:
        for v in op.operands:
            if v not in defined:
                raise VerifyException(f"register {describe(v)} is read by {op.name} before it is defined")
        defined.update(op.results)
        if isinstance(op, LabelOp):
            if op.label.data in labels:
                raise VerifyException(f"label {op.label.data} is defined twice")
            labels.add(op.label.data)
        elif isinstance(op, BraOp):
            branches.append(op)
        elif isinstance(op, LdParamOp):
            name, t = op.param.data, op.param_type.data
            if params.get(name) != t:
                declared = f"declared as {params[name]}" if name in params else "not declared"
                raise VerifyException(f"ptx.ld_param {t} {name}: the entry parameter is {declared}")
    for bra in branches:
        if bra.target.data not in labels:
            raise VerifyException(f"ptx.bra to {bra.target.data}, which is not a label of @{entry.sym_name.data}")
    last = entry.body.block.last_op
    if not isinstance(last, RetOp):
        raise VerifyException(f"ptx.entry @{entry.sym_name.data} must end with ptx.ret")


# ---------------------------------------------------------------------------------------------
# instructions from the table


ROUND = frozenset({"rn", "rz", "rm", "rp"})
"""Float rounding modifiers."""
INT_ROUND = frozenset({"rni", "rzi", "rmi", "rpi"})
"""Rounding to an integral value (float -> int, or float -> float of the same size)."""
INT_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
FLOAT_CMP = INT_CMP | frozenset({"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})
"""setp comparisons: ordered (false if either operand is NaN) and unordered (``u``: true then), num/nan."""

_INTS = frozenset({"s32", "s64", "u32", "u64"})
_SINTS = frozenset({"s32", "s64"})
_BITS = frozenset({"b32", "b64"})
_FLOATS = frozenset({"f32", "f64"})
_HALVES = frozenset({"f16", "bf16"})
_OPTIONAL = ""


@dataclass(frozen=True)
class Form:
    """One accepted shape of an instruction: its types, modifier slots (in order; a slot holding "" may be
    left out), operand roles and result role. Roles: ``T`` a register of the instruction type, ``P`` a
    predicate, ``A`` a 32-bit shift amount, ``W`` a register twice as wide as the type (``mul.wide``)."""

    types: frozenset[str]
    modifiers: tuple[frozenset[str], ...]
    operands: str
    result: str = "T"

    def match(self, modifiers: tuple[str, ...]) -> bool:
        slots = list(self.modifiers)
        for m in modifiers:
            while slots and m not in slots[0]:
                if _OPTIONAL not in slots.pop(0):
                    return False
            if not slots:
                return False
            slots.pop(0)
        return all(_OPTIONAL in s for s in slots)

    def spelling(self, mnemonic: str) -> str:
        """The form as PTX: ``mul.wide.{s32,u32}``, ``add[.{rm,rn,rp,rz}].{f32,f64}``."""
        text = mnemonic
        for slot in (*self.modifiers, self.types):
            names = sorted(slot - {_OPTIONAL})
            choice = names[0] if len(names) == 1 else "{" + ",".join(names) + "}"
            text += f"[.{choice}]" if _OPTIONAL in slot else f".{choice}"
        return text


def _form(types: frozenset[str], operands: str, *modifiers: frozenset[str], result: str = "T") -> Form:
    return Form(types, modifiers, operands, result)


def _opt(*names: str) -> frozenset[str]:
    return frozenset({_OPTIONAL, *names})


_ROUND_OPT = ROUND | {_OPTIONAL}
_WIDE32 = frozenset({"s32", "u32"})
_BINARY = (_form(_INTS, "TT"), _form(_FLOATS, "TT", _ROUND_OPT))
_APPROX = frozenset({"approx"})

INSTRUCTIONS: dict[str, tuple[str, tuple[Form, ...]]] = {
    "add": ("d = a + b", _BINARY),
    "sub": ("d = a - b", _BINARY),
    "mul": ("d = a * b; integers take lo (low half), hi or wide (the full product, twice as wide)", (
        _form(_INTS, "TT", frozenset({"lo", "hi"})), _form(_WIDE32, "TT", frozenset({"wide"}), result="W"),
        _form(_FLOATS, "TT", _ROUND_OPT))),
    "mad": ("d = a * b + c on integers (lo, hi, or wide with a wide c)", (
        _form(_INTS, "TTT", frozenset({"lo", "hi"})), _form(_WIDE32, "TTW", frozenset({"wide"}), result="W"))),
    "fma": ("d = a * b + c rounded once", (_form(_FLOATS | _HALVES, "TTT", ROUND),)),
    "div": ("d = a / b: integers truncate; f32 takes approx, full or a rounding, f64 a rounding", (
        _form(_INTS, "TT"), _form(frozenset({"f32"}), "TT", ROUND | {"approx", "full"}), _form(frozenset({"f64"}), "TT", ROUND))),
    "rem": ("d = a % b (the sign of a, as in C)", (_form(_INTS, "TT"),)),
    "min": ("the smaller operand; NaN (f32/f16/bf16) propagates NaN, else a NaN operand is ignored", (
        _form(_INTS | {"f64"}, "TT"), _form(frozenset({"f32"}) | _HALVES, "TT", _opt("NaN")))),
    "max": ("the larger operand; NaN (f32/f16/bf16) propagates NaN, else a NaN operand is ignored", (
        _form(_INTS | {"f64"}, "TT"), _form(frozenset({"f32"}) | _HALVES, "TT", _opt("NaN")))),
    "neg": ("d = -a", (_form(_SINTS | _FLOATS | _HALVES, "T"),)),
    "abs": ("d = |a|", (_form(_SINTS | _FLOATS | _HALVES, "T"),)),
    "and": ("bitwise and (pred: logical)", (_form(_BITS | {"pred"}, "TT"),)),
    "or": ("bitwise or (pred: logical)", (_form(_BITS | {"pred"}, "TT"),)),
    "xor": ("bitwise xor (pred: logical)", (_form(_BITS | {"pred"}, "TT"),)),
    "not": ("bitwise not (pred: logical)", (_form(_BITS | {"pred"}, "T"),)),
    "shl": ("d = a << b; an amount above the width counts as the width (the result is 0)", (_form(_BITS, "TA"),)),
    "shr": ("d = a >> b, arithmetic for s types; an amount above the width counts as the width", (
        _form(_BITS | _INTS, "TA"),)),
    "ex2": ("2^a, approx (2 ulp)", (_form(frozenset({"f32"}), "T", _APPROX),)),
    "lg2": ("log2(a), approx", (_form(frozenset({"f32"}), "T", _APPROX),)),
    "sin": ("sin(a), approx (absolute error 2^-20.5 on |a| <= 100*pi)", (_form(frozenset({"f32"}), "T", _APPROX),)),
    "cos": ("cos(a), approx (absolute error 2^-20.5 on |a| <= 100*pi)", (_form(frozenset({"f32"}), "T", _APPROX),)),
    "sqrt": ("sqrt(a): rn is correctly rounded", (
        _form(frozenset({"f32"}), "T", ROUND | _APPROX), _form(frozenset({"f64"}), "T", ROUND))),
    "rcp": ("1 / a: rn is correctly rounded", (
        _form(frozenset({"f32"}), "T", ROUND | _APPROX), _form(frozenset({"f64"}), "T", ROUND))),
    "rsqrt": ("1 / sqrt(a), approx", (_form(_FLOATS, "T", _APPROX),)),
    "copysign": ("b with the sign of a", (_form(_FLOATS, "TT"),)),
    "selp": ("d = c ? a : b", (_form(_BITS | {"b16"} | _INTS | _FLOATS, "TTP"),)),
    "setp": ("the comparison a <cmp> b as a predicate", (
        _form(_INTS, "TT", INT_CMP, result="P"), _form(_FLOATS, "TT", FLOAT_CMP, result="P"))),
    "cvta": ("a generic address converted to the global state space", (
        _form(frozenset({"u64"}), "T", frozenset({"to"}), frozenset({"global"})),)),
}
"""PTX instructions with one result, by mnemonic: (what it computes, the forms it accepts). ``cvt`` is
``CvtOp`` (two types); memory, control and register ops are their own ops below."""


def split_opcode(suffix: str, ntypes: int = 1) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``"lo.s32"`` -> (("lo",), ("s32",)): the modifiers and the trailing ``ntypes`` instruction types."""
    parts = tuple(suffix.split("."))
    return parts[: len(parts) - ntypes], parts[len(parts) - ntypes :]


def _role_kinds(role: str, ptx_type: str) -> frozenset[str]:
    match role:
        case "P":
            return frozenset({"pred"})
        case "A":
            return frozenset({"b32"})
        case "W":
            return frozenset({"b64"})
    return accepted_kinds(ptx_type)


def instruction_result(mnemonic: str, suffix: str) -> RegType:
    """The register type an instruction defines (``mul wide.s32`` -> ``!ptx.reg<b64>``)."""
    modifiers, (ptx_type,) = split_opcode(suffix)
    form = _find_form(mnemonic, modifiers, ptx_type)
    return REG[next(iter(_role_kinds(form.result, ptx_type)))]


def _find_form(mnemonic: str, modifiers: tuple[str, ...], ptx_type: str) -> Form:
    summary, forms = INSTRUCTIONS[mnemonic]
    for form in forms:
        if ptx_type in form.types and form.match(modifiers):
            return form
    opcode = ".".join((mnemonic, *modifiers, ptx_type))
    raise VerifyException(f"{opcode} is not a PTX instruction kiln knows ({mnemonic}: {summary})")


class InstructionOp(IRDLOperation):
    """Base of the table instructions: ``%d = ptx.<mnemonic> <modifiers>.<type> %a, %b : !ptx.reg<K>``."""

    MNEMONIC: ClassVar[str]

    opcode = prop_def(StringAttr)
    args = var_operand_def(RegType)
    result = result_def(RegType)

    def __init__(self, suffix: str, operands: Sequence[SSAValue], result_type: Attribute):
        super().__init__(properties={"opcode": StringAttr(suffix)}, operands=[list(operands)], result_types=[result_type])

    @property
    def suffix(self) -> str:
        """The opcode after the mnemonic: ``lo.s32`` of ``mul.lo.s32``."""
        return self.opcode.data

    @property
    def text(self) -> str:
        """The whole PTX opcode: ``mul.lo.s32``."""
        return f"{self.MNEMONIC}.{self.suffix}"

    def verify_(self) -> None:
        modifiers, (ptx_type,) = split_opcode(self.suffix)
        form = _find_form(self.MNEMONIC, modifiers, ptx_type)
        if len(self.args) != len(form.operands):
            raise VerifyException(f"{self.text} takes {len(form.operands)} operands, got {len(self.args)}")
        for i, (v, role) in enumerate(zip(self.args, form.operands)):
            _check_register(v, _role_kinds(role, ptx_type), f"{self.text} operand {i}")
        _check_register(self.result, _role_kinds(form.result, ptx_type), f"{self.text} result")

    @classmethod
    def parse(cls, parser: Parser) -> InstructionOp:
        suffix = parser.parse_identifier()
        operands = _parse_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        (t,) = _parse_result_types(parser)
        op = cls(suffix, operands, t)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.suffix} ")
        printer.print_list(self.args, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


def _instruction_class(mnemonic: str, summary: str, forms: tuple[Form, ...]) -> type[InstructionOp]:
    spellings = ", ".join(f"``{f.spelling(mnemonic)}``" for f in forms)
    body = {
        "name": f"ptx.{mnemonic}",
        "MNEMONIC": mnemonic,
        "traits": traits_def(Pure(), HasParent(EntryOp)),
        "__module__": __name__,
        "__qualname__": f"{mnemonic.capitalize()}Op",
        "__doc__": f"``%d = ptx.{mnemonic} <modifiers>.<type> %a, ...``: {summary}. Forms: {spellings}.",
        "__annotations__": {"MNEMONIC": ClassVar[str]},
    }
    return irdl_op_definition(type(f"{mnemonic.capitalize()}Op", (InstructionOp,), body))


INSTRUCTION_OPS: dict[str, type[InstructionOp]] = {
    m: _instruction_class(m, summary, forms) for m, (summary, forms) in INSTRUCTIONS.items()
}
"""``ptx.<mnemonic>`` op classes: ``INSTRUCTION_OPS["add"]("s32", [a, b], REG["b32"])``."""


@irdl_op_definition
class CvtOp(InstructionOp):
    """``%d = ptx.cvt rn.f32.s32 %a : !ptx.reg<f32>``: convert between types (destination type first).
    Float destinations narrower than the value, and int -> float, take a rounding (rn, rz, rm, rp);
    float -> int takes an integral rounding (rni, rzi, rmi, rpi; out-of-range values saturate, NaN gives
    0), as does float -> float of the same type (rounding to an integral value); widening float -> float
    takes none; int -> int takes none (narrowing keeps the low bits, widening extends by the source type).
    8- and 16-bit integer types may be in 16- or 32-bit registers."""

    name = "ptx.cvt"
    MNEMONIC: ClassVar[str] = "cvt"
    traits = traits_def(Pure(), HasParent(EntryOp))

    def verify_(self) -> None:
        modifiers, (dst, src) = split_opcode(self.suffix, 2)
        if dst not in PTX_TYPES or src not in PTX_TYPES or "pred" in (dst, src) or dst in _BITS or src in _BITS:
            raise VerifyException(f"{self.text}: cvt converts between integer and float types")
        expected = _cvt_rounding(dst, src)
        rounding = tuple(m for m in modifiers if m != "sat")
        if len(rounding) > 1 or (rounding and rounding[0] not in expected) or (not rounding and _OPTIONAL not in expected):
            wanted = " or ".join(sorted(m for m in expected if m)) or "no rounding modifier"
            raise VerifyException(f"{self.text}: converting {src} to {dst} takes {wanted}")
        if len(self.args) != 1:
            raise VerifyException(f"{self.text} takes 1 operand, got {len(self.args)}")
        _check_register(self.args[0], accepted_kinds(src, wide=True), f"{self.text} operand")
        _check_register(self.result, accepted_kinds(dst, wide=True), f"{self.text} result")


def _is_float_type(t: str) -> bool:
    return t.startswith(("f", "bf"))


def _cvt_rounding(dst: str, src: str) -> frozenset[str]:
    """The rounding modifiers cvt accepts from ``src`` to ``dst`` ("" = none)."""
    if _is_float_type(dst) and _is_float_type(src):
        if dst == src:
            return INT_ROUND
        return ROUND if type_bits(dst) < type_bits(src) or {dst, src} == _HALVES else frozenset({_OPTIONAL})
    if _is_float_type(dst):
        return ROUND
    if _is_float_type(src):
        return INT_ROUND
    return frozenset({_OPTIONAL})


# ---------------------------------------------------------------------------------------------
# registers, constants, special registers, parameters


@irdl_op_definition
class ConstOp(IRDLOperation):
    """``%c = ptx.const 1.000000e+00 : f32``: a register holding a constant (printed ``mov.f32 %f1,
    0f3F800000``); the value's type gives the register class (i1: pred, i32: b32, i64: b64, f16/bf16: the
    b16 bits, f32, f64)."""

    name = "ptx.const"

    value = prop_def(AnyAttr())
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    VALUE_KINDS: ClassVar[dict[Attribute, str]] = {
        IntegerType(1): "pred", IntegerType(32): "b32", IntegerType(64): "b64",
        Float16Type(): "b16", BFloat16Type(): "b16", Float32Type(): "f32", Float64Type(): "f64",
    }  # fmt: skip

    def __init__(self, value: IntegerAttr | FloatAttr):
        kind = self.VALUE_KINDS.get(value.type)
        if kind is None:
            raise VerifyException(f"ptx.const cannot hold a value of type {value.type}")
        super().__init__(properties={"value": value}, result_types=[REG[kind]])

    def verify_(self) -> None:
        kind = self.VALUE_KINDS.get(self.value.type) if isinstance(self.value, IntegerAttr | FloatAttr) else None
        if kind is None:
            raise VerifyException(f"ptx.const value must be an i1, i32, i64, f16, bf16, f32 or f64 number, got {self.value}")
        if self.result.type != REG[kind]:
            raise VerifyException(f"ptx.const of {self.value.type} defines a !ptx.reg<{kind}>, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_optional_builtin_int_or_float_attr()
        if value is None:
            parser.raise_error("expected a number or true/false after ptx.const", pos)
        if value.type == IntegerType(1) and parser.parse_optional_punctuation(":"):
            parser.parse_type()
        attributes = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        if self.value.type == IntegerType(1):
            printer.print_string(" : i1")
        printer.print_op_attributes(self.attributes)


def _typed_result_op_parse(cls: type[IRDLOperation], parser: Parser, operands: list[SSAValue], **props: Attribute) -> IRDLOperation:
    attributes = parser.parse_optional_attr_dict()
    types = _parse_result_types(parser)
    return cls.create(operands=operands, properties=props, result_types=types, attributes=attributes)


@irdl_op_definition
class RegOp(IRDLOperation):
    """``%acc = ptx.reg : !ptx.reg<f32>``: a register that ``ptx.assign`` writes, for values that change
    while the kernel runs (loop counters, accumulators); reading it gives the value written last."""

    name = "ptx.reg"

    result = result_def(RegType)
    traits = traits_def(HasParent(EntryOp))

    def __init__(self, kind: str):
        super().__init__(result_types=[REG[kind]])

    @classmethod
    def parse(cls, parser: Parser) -> RegOp:
        return _typed_result_op_parse(cls, parser, [])  # type: ignore[return-value]

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


@irdl_op_definition
class AssignOp(IRDLOperation):
    """``ptx.assign %acc, %v``: write ``%v`` into a ``ptx.reg`` register of the same class (``mov``)."""

    name = "ptx.assign"

    dst = operand_def(RegType)
    src = operand_def(RegType)
    traits = traits_def(HasParent(EntryOp), MemoryWriteEffect())

    def __init__(self, dst: SSAValue, src: SSAValue):
        super().__init__(operands=[dst, src])

    def verify_(self) -> None:
        if not isinstance(self.dst.owner, RegOp):
            raise VerifyException(f"ptx.assign writes registers made by ptx.reg; {describe(self.dst)} is defined by an instruction")
        if self.dst.type != self.src.type:
            raise VerifyException(f"ptx.assign of a {self.src.type} to a {self.dst.type}: the classes must match")

    @classmethod
    def parse(cls, parser: Parser) -> AssignOp:
        dst = parse_defined_operand(parser, "register")
        parser.parse_punctuation(",")
        src = parse_defined_operand(parser, "register")
        op = cls(dst, src)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.dst, self.src), printer.print_operand)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class MovOp(IRDLOperation):
    """``%r = ptx.mov %f : !ptx.reg<b32>``: a copy of a register in a new one of the same width, of the
    same class or another (``mov.b32 %r1, %f1`` reinterprets the bits of an f32)."""

    name = "ptx.mov"

    src = operand_def(RegType)
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    def __init__(self, src: SSAValue, result_type: RegType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.src.type, self.result.type
        assert isinstance(src, RegType) and isinstance(dst, RegType)
        if src.bits != dst.bits or (src.kind.data == "pred") != (dst.kind.data == "pred"):
            raise VerifyException(f"ptx.mov from {src} to {dst}: the registers must have the same width")

    @classmethod
    def parse(cls, parser: Parser) -> MovOp:
        return _typed_result_op_parse(cls, parser, [parse_defined_operand(parser, "register")])  # type: ignore[return-value]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


SPECIAL_REGISTERS = tuple(f"{r}.{a}" for r in ("tid", "ntid", "ctaid", "nctaid") for a in "xyz")
"""Special registers ``ptx.sreg`` reads: thread id in the block, block size, block id in the grid, grid size."""


@irdl_op_definition
class SregOp(IRDLOperation):
    """``%t = ptx.sreg tid.x : !ptx.reg<b32>``: a special register (``mov.u32 %r1, %tid.x``)."""

    name = "ptx.sreg"

    register = prop_def(StringAttr)
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    def __init__(self, register: str):
        super().__init__(properties={"register": StringAttr(register)}, result_types=[REG["b32"]])

    def verify_(self) -> None:
        if self.register.data not in SPECIAL_REGISTERS:
            raise VerifyException(f"unknown special register %{self.register.data} (expected one of {', '.join(SPECIAL_REGISTERS)})")
        _check_register(self.result, frozenset({"b32"}), "ptx.sreg result")

    @classmethod
    def parse(cls, parser: Parser) -> SregOp:
        register = parser.parse_identifier()
        return _typed_result_op_parse(cls, parser, [], register=StringAttr(register))  # type: ignore[return-value]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.register.data}")
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


@irdl_op_definition
class LdParamOp(IRDLOperation):
    """``%x = ptx.ld_param u64 p0 : !ptx.reg<b64>``: a kernel parameter (``ld.param.u64 %rd1, [p0]``)."""

    name = "ptx.ld_param"

    param_type = prop_def(StringAttr)
    param = prop_def(StringAttr)
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    def __init__(self, ptx_type: str, param: str):
        super().__init__(
            properties={"param_type": StringAttr(ptx_type), "param": StringAttr(param)},
            result_types=[REG[register_kind(ptx_type)]],
        )

    def verify_(self) -> None:
        t = self.param_type.data
        if t not in PARAM_TYPES:
            raise VerifyException(f"ptx.ld_param type must be one of {', '.join(sorted(PARAM_TYPES))}, got '{t}'")
        _check_register(self.result, accepted_kinds(t), f"ptx.ld_param {t} result")

    @classmethod
    def parse(cls, parser: Parser) -> LdParamOp:
        ptx_type = parser.parse_identifier()
        param = parser.parse_identifier()
        return _typed_result_op_parse(cls, parser, [], param_type=StringAttr(ptx_type), param=StringAttr(param))  # type: ignore[return-value]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.param_type.data} {self.param.data}")
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


# ---------------------------------------------------------------------------------------------
# memory

SPACES = ("global", "shared")
"""State spaces ``ld``/``st`` address: global memory (64-bit addresses), the block's shared memory (32-bit)."""


def split_access(suffix: str) -> tuple[str, int, str]:
    """``"global.v4.f32"`` -> ("global", 4, "f32"): state space, lanes (1 without .vN), element type."""
    parts = suffix.split(".")
    lanes = 1
    if len(parts) == 3 and parts[1] in ("v2", "v4"):
        lanes = int(parts[1][1])
        parts = [parts[0], parts[2]]
    if len(parts) != 2:
        raise VerifyException(f"expected <space>[.v2|.v4].<type>, got '{suffix}'")
    return parts[0], lanes, parts[1]


def _check_access(op: Operation, suffix: str, address: SSAValue, values: Sequence[SSAValue], guard: SSAValue | None) -> None:
    """Checks ld and st share: the space and type exist, the address register fits the space, there is one
    value register per lane, each of a class the type may use."""
    space, lanes, ptx_type = split_access(suffix)
    if space not in SPACES:
        raise VerifyException(f"{op.name} state space must be one of {', '.join(SPACES)}, got '{space}'")
    if ptx_type not in PTX_TYPES or ptx_type == "pred":
        raise VerifyException(f"{op.name} type must be a PTX memory type, got '{ptx_type}'")
    _check_register(address, frozenset({"b64"} if space == "global" else {"b32", "b64"}), f"{op.name} {space} address")
    if len(values) != lanes:
        raise VerifyException(f"{op.name}.{suffix} moves {lanes} value(s), got {len(values)}")
    for v in values:
        _check_register(v, accepted_kinds(ptx_type, wide=True), f"{op.name}.{suffix} value")
    _check_guard(op, guard)


def _parse_address(parser: Parser) -> SSAValue:
    with parser.in_square_brackets():
        return parse_defined_operand(parser, "address")


@irdl_op_definition
class LdOp(IRDLOperation):
    """``%v = ptx.ld global.f32 [%a] : !ptx.reg<f32>``: load from a state space (``.v2``/``.v4``: that many
    consecutive elements, one register each, aligned to their total size). Guarded, ``ptx.ld ... [%a] if
    %p``, it reads nothing where ``%p`` is false and the registers hold 0 (the emitter sets them to 0 first).
    An 8- or 16-bit integer load extends the value to the register by the type's signedness."""

    name = "ptx.ld"

    access = prop_def(StringAttr)
    address = operand_def(RegType)
    guard = opt_operand_def(RegType)
    values = var_result_def(RegType)
    traits = traits_def(HasParent(EntryOp), MemoryReadEffect())

    def __init__(self, access: str, address: SSAValue, result_types: Sequence[Attribute], guard: SSAValue | None = None):
        super().__init__(
            properties={"access": StringAttr(access)},
            operands=[address, [guard] if guard is not None else []],
            result_types=[list(result_types)],
        )

    def verify_(self) -> None:
        _check_access(self, self.access.data, self.address, self.values, self.guard)

    @classmethod
    def parse(cls, parser: Parser) -> LdOp:
        access = parser.parse_identifier()
        address = _parse_address(parser)
        guard, _ = _parse_guard(parser)
        attributes = parser.parse_optional_attr_dict()
        op = cls(access, address, _parse_result_types(parser), guard)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.access.data} [")
        printer.print_operand(self.address)
        printer.print_string("]")
        _print_guard(printer, self.guard)
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


@irdl_op_definition
class StOp(IRDLOperation):
    """``ptx.st global.f32 [%a], %v``: store to a state space (``.v2``/``.v4``: one register per element);
    ``if %p`` stores only where ``%p`` is true. An 8- or 16-bit store writes the low bits of the register."""

    name = "ptx.st"

    access = prop_def(StringAttr)
    address = operand_def(RegType)
    values = var_operand_def(RegType)
    guard = opt_operand_def(RegType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(HasParent(EntryOp), MemoryWriteEffect())

    def __init__(self, access: str, address: SSAValue, values: Sequence[SSAValue], guard: SSAValue | None = None):
        super().__init__(
            properties={"access": StringAttr(access)},
            operands=[address, list(values), [guard] if guard is not None else []],
        )

    def verify_(self) -> None:
        _check_access(self, self.access.data, self.address, self.values, self.guard)

    @classmethod
    def parse(cls, parser: Parser) -> StOp:
        access = parser.parse_identifier()
        address = _parse_address(parser)
        parser.parse_punctuation(",")
        values = _parse_operands(parser)
        guard, _ = _parse_guard(parser)
        op = cls(access, address, values, guard)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.access.data} [")
        printer.print_operand(self.address)
        printer.print_string("], ")
        printer.print_list(self.values, printer.print_operand)
        _print_guard(printer, self.guard)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class SharedOp(IRDLOperation):
    """``%s = ptx.shared 1024 align 16 : !ptx.reg<b32>``: a block-shared array of that many bytes (declared
    ``.shared .align 16 .b8 smem0[1024]`` at the top of the entry) and its 32-bit shared address."""

    name = "ptx.shared"

    bytes = prop_def(IntegerAttr[I64])
    align = prop_def(IntegerAttr[I64])
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    def __init__(self, nbytes: int, align: int = 16):
        super().__init__(
            properties={"bytes": IntegerAttr(nbytes, 64), "align": IntegerAttr(align, 64)}, result_types=[REG["b32"]]
        )

    def verify_(self) -> None:
        nbytes, align = self.bytes.value.data, self.align.value.data
        if nbytes <= 0:
            raise VerifyException(f"ptx.shared size must be positive, got {nbytes}")
        if align <= 0 or align & (align - 1):
            raise VerifyException(f"ptx.shared alignment must be a power of two, got {align}")
        _check_register(self.result, frozenset({"b32"}), "ptx.shared address")

    @classmethod
    def parse(cls, parser: Parser) -> SharedOp:
        nbytes = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("align")
        align = parser.parse_integer(allow_boolean=False)
        return _typed_result_op_parse(  # type: ignore[return-value]
            cls, parser, [], bytes=IntegerAttr(nbytes, 64), align=IntegerAttr(align, 64)
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bytes.value.data} align {self.align.value.data}")
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


# ---------------------------------------------------------------------------------------------
# tensor cores


@irdl_op_definition
class PackOp(IRDLOperation):
    """``%r = ptx.pack %lo, %hi : !ptx.reg<b32>``: two 16-bit registers as the halves of one 32-bit register
    (``mov.b32 %r1, {%rs1, %rs2}``; ``%lo`` in the low half), the form ``mma`` takes f16/bf16 pairs in."""

    name = "ptx.pack"

    lo = operand_def(RegType)
    hi = operand_def(RegType)
    result = result_def(RegType)
    traits = traits_def(Pure(), HasParent(EntryOp))

    def __init__(self, lo: SSAValue, hi: SSAValue):
        super().__init__(operands=[lo, hi], result_types=[REG["b32"]])

    def verify_(self) -> None:
        for v, what in ((self.lo, "low half"), (self.hi, "high half")):
            _check_register(v, frozenset({"b16"}), f"ptx.pack {what}")
        _check_register(self.result, frozenset({"b32"}), "ptx.pack result")

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        lo = parse_defined_operand(parser, "register")
        parser.parse_punctuation(",")
        return _typed_result_op_parse(cls, parser, [lo, parse_defined_operand(parser, "register")])  # type: ignore[return-value]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.lo, self.hi), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


MMA_SHAPES: dict[str, tuple[int, int, int, int]] = {"m16n8k16": (4, 2, 4, 4)}
"""``mma.sync`` shapes kiln emits, with the registers per thread of A, B (packed f16/bf16 pairs), C and D (f32)."""
MMA_INPUTS = frozenset({"f16", "bf16"})


@irdl_op_definition
class MmaOp(IRDLOperation):
    """``%d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.f16.f16.f32 {%a0, ..., %a3}, {%b0, %b1},
    {%c0, ..., %c3}``: a warp's tensor-core D = A * B + C (``mma.sync.aligned``; A row-major, B column-major),
    each thread holding its fragment registers in the instruction's layout: A and B as packed pairs (.b32),
    C and D as f32. Every thread of the warp must execute it."""

    name = "ptx.mma"

    opcode = prop_def(StringAttr)
    a = var_operand_def(RegType)
    b = var_operand_def(RegType)
    c = var_operand_def(RegType)
    d = var_result_def(RegType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(HasParent(EntryOp))

    def __init__(self, suffix: str, a: Sequence[SSAValue], b: Sequence[SSAValue], c: Sequence[SSAValue]):
        super().__init__(
            properties={"opcode": StringAttr(suffix)},
            operands=[list(a), list(b), list(c)],
            result_types=[[REG["f32"]] * len(c)],
        )

    @property
    def text(self) -> str:
        return f"mma.sync.aligned.{self.opcode.data}"

    def verify_(self) -> None:
        parts = self.opcode.data.split(".")
        if len(parts) != 7 or parts[1:3] != ["row", "col"] or parts[3] != "f32" or parts[6] != "f32":
            raise VerifyException(f"{self.text}: expected <shape>.row.col.f32.<ab>.<ab>.f32")
        shape, ab = parts[0], parts[4]
        if shape not in MMA_SHAPES or ab not in MMA_INPUTS or parts[5] != ab:
            raise VerifyException(
                f"{self.text}: kiln emits shapes {', '.join(MMA_SHAPES)} with f16 or bf16 inputs (the same for A and B)"
            )
        for values, count, kind, what in zip(
            (self.a, self.b, self.c, self.d), MMA_SHAPES[shape], ("b32", "b32", "f32", "f32"), "ABCD"
        ):
            if len(values) != count:
                raise VerifyException(f"{self.text} takes {count} {what} registers per thread, got {len(values)}")
            for v in values:
                _check_register(v, frozenset({kind}), f"{self.text} {what} fragment")

    @classmethod
    def parse(cls, parser: Parser) -> MmaOp:
        suffix = parser.parse_identifier()

        def fragment() -> list[SSAValue]:
            return parser.parse_comma_separated_list(parser.Delimiter.BRACES, lambda: parse_defined_operand(parser, "register"))

        a = fragment()
        parser.parse_punctuation(",")
        b = fragment()
        parser.parse_punctuation(",")
        c = fragment()
        attributes = parser.parse_optional_attr_dict()
        _parse_result_types(parser)
        op = cls(suffix, a, b, c)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        def fragment(values: Sequence[SSAValue]) -> None:
            printer.print_string("{")
            printer.print_list(values, printer.print_operand)
            printer.print_string("}")

        printer.print_string(f" {self.opcode.data} ")
        printer.print_list((self.a, self.b, self.c), fragment)
        printer.print_op_attributes(self.attributes)
        _print_result_types(printer, self)


# ---------------------------------------------------------------------------------------------
# control


@irdl_op_definition
class LabelOp(IRDLOperation):
    """``ptx.label L_loop_0``: a branch target (``L_loop_0:``)."""

    name = "ptx.label"

    label = prop_def(StringAttr)
    traits = traits_def(HasParent(EntryOp))

    def __init__(self, label: str):
        super().__init__(properties={"label": StringAttr(label)})

    def verify_(self) -> None:
        _check_identifier(self.label.data, "ptx.label")

    @classmethod
    def parse(cls, parser: Parser) -> LabelOp:
        op = cls(parser.parse_identifier())
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.label.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class BraOp(IRDLOperation):
    """``ptx.bra L_end_0``: jump to a label of the entry; ``if %p`` jumps where ``%p`` is true (``@%p bra``),
    ``unless %p`` where it is false (``@!%p bra``)."""

    name = "ptx.bra"

    target = prop_def(StringAttr)
    negated = opt_prop_def(UnitAttr)
    guard = opt_operand_def(RegType)
    traits = traits_def(HasParent(EntryOp))

    def __init__(self, target: str, guard: SSAValue | None = None, negated: bool = False):
        properties: dict[str, Attribute] = {"target": StringAttr(target)}
        if negated:
            properties["negated"] = UnitAttr()
        super().__init__(properties=properties, operands=[[guard] if guard is not None else []])

    @property
    def is_negated(self) -> bool:
        return self.negated is not None

    def verify_(self) -> None:
        _check_identifier(self.target.data, "ptx.bra target")
        _check_guard(self, self.guard)
        if self.is_negated and self.guard is None:
            raise VerifyException("ptx.bra: only a guarded branch can be negated")

    @classmethod
    def parse(cls, parser: Parser) -> BraOp:
        target = parser.parse_identifier()
        guard, negated = _parse_guard(parser)
        op = cls(target, guard, negated)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.target.data}")
        _print_guard(printer, self.guard, self.is_negated)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class BarSyncOp(IRDLOperation):
    """``ptx.bar_sync 0``: wait until every thread of the block reached barrier 0; their shared-memory
    writes are visible after it (``bar.sync 0``)."""

    name = "ptx.bar_sync"

    barrier = prop_def(IntegerAttr[I64])
    traits = traits_def(HasParent(EntryOp))

    def __init__(self, barrier: int = 0):
        super().__init__(properties={"barrier": IntegerAttr(barrier, 64)})

    def verify_(self) -> None:
        if not 0 <= self.barrier.value.data < 16:
            raise VerifyException(f"ptx.bar_sync barrier must be 0..15, got {self.barrier.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> BarSyncOp:
        op = cls(parser.parse_integer(allow_boolean=False))
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.barrier.value.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class RetOp(IRDLOperation):
    """``ptx.ret``: the thread is done (``ret``); every entry ends with one."""

    name = "ptx.ret"

    traits = traits_def(HasParent(EntryOp))
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


TARGET_ATTRIBUTE = "ptx.target"
"""The ``builtin.module`` attribute naming the sm the module is for (``"sm_80"``); ``-t ptx`` reads it."""

PTX = Dialect(
    "ptx",
    [
        EntryOp, *INSTRUCTION_OPS.values(), CvtOp, ConstOp, RegOp, AssignOp, MovOp, SregOp, LdParamOp,
        LdOp, StOp, SharedOp, PackOp, MmaOp, LabelOp, BraOp, BarSyncOp, RetOp,
    ],
    [RegType],
)  # fmt: skip
