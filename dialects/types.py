"""Types and attributes shared by every kiln level: dtypes, shapes with symbolic dims, tensors, buffers.

Element types are MLIR's builtin types (i1 is bool; signless integers are signed; ui* are unsigned).
Shapes are written MLIR-style, ``4x8xf32``; a dim may be a symbol declared on the enclosing function
(``Nx64xf32``). Symbol names start with a letter or '_' and do not contain a lowercase 'x' (the
separator), so every spelling has exactly one reading. See docs/types.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    Signedness,
    StringAttr,
    ArrayAttr,
)
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from kiln.support.dtypes import (
    DTYPE_FACTS,
    INDEX_BITS,
    DtypeFacts,
    check_dtype_name,
    dtype_of_numpy,
    numpy_dtype,
)

Dim: TypeAlias = int | str
Shape: TypeAlias = tuple[Dim, ...]

# ---------------------------------------------------------------------------------------------
# dtypes

_FLOAT_TYPES: dict[str, type[Attribute]] = {
    "f16": Float16Type, "bf16": BFloat16Type, "f32": Float32Type, "f64": Float64Type,
}


def _mlir_type(name: str, facts: DtypeFacts) -> Attribute:
    if facts.kind == "float":
        return _FLOAT_TYPES[name]()
    return IntegerType(facts.bits, Signedness.UNSIGNED if facts.kind == "uint" else Signedness.SIGNLESS)


DTYPES: dict[str, Attribute] = {name: _mlir_type(name, facts) for name, facts in DTYPE_FACTS.items()}
"""Every dtype a tensor may have, by its MLIR spelling (built from ``kiln.support.dtypes``, which the runtime
reads without xDSL)."""

_NAME_OF: dict[Attribute, str] = {t: n for n, t in DTYPES.items()}


def dtype_name(t: Attribute) -> str:
    """The MLIR spelling of a dtype ('f32', 'ui8', 'i1'); 'index' for the index type."""
    if isinstance(t, IndexType):
        return "index"
    try:
        return _NAME_OF[t]
    except KeyError:
        raise VerifyException(f"unsupported element type {t}") from None


def parse_dtype(name: str) -> Attribute:
    """The dtype attribute for an MLIR spelling; 'bool' is accepted for i1."""
    name = check_dtype_name(name)
    return IndexType() if name == "index" else DTYPES[name]


def is_dtype(t: Attribute) -> bool:
    return t in _NAME_OF


def to_numpy(t: Attribute | str) -> np.dtype:
    """The numpy dtype of a kiln dtype (bf16 is ml_dtypes.bfloat16; index is int64)."""
    return numpy_dtype(t if isinstance(t, str) else dtype_name(t))


def from_numpy(dt: np.dtype | type) -> Attribute:
    """The kiln dtype of a numpy dtype."""
    return DTYPES[dtype_of_numpy(dt)]


def is_float(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def is_int(t: Attribute) -> bool:
    """Integer (not bool) or index."""
    return isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data > 1)


def is_unsigned(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def bitwidth(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return INDEX_BITS
    if isinstance(t, IntegerType):
        return t.width.data
    return {Float16Type: 16, BFloat16Type: 16, Float32Type: 32, Float64Type: 64}[type(t)]


def itemsize(t: Attribute) -> int:
    """Bytes per element in memory (bool takes one byte)."""
    return max(1, bitwidth(t) // 8)


# ---------------------------------------------------------------------------------------------
# shapes

_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_symbol_name(s: str) -> bool:
    return bool(_SYMBOL.fullmatch(s)) and "x" not in s


def shape_to_attr(shape: Iterable[Dim]) -> ArrayAttr:
    out: list[Attribute] = []
    for d in shape:
        if isinstance(d, str):
            out.append(StringAttr(d))
        else:
            out.append(IntAttr(int(d)))
    return ArrayAttr(out)


def attr_to_shape(attr: ArrayAttr) -> Shape:
    return tuple(d.data for d in attr.data)  # type: ignore[attr-defined]


def format_shaped(shape: Shape, element_type: Attribute) -> str:
    """``4x8xf32``, ``Nx64xf32``; a rank-0 shape prints as just the element type."""
    return "".join(f"{d}x" for d in shape) + (
        dtype_name(element_type) if (is_dtype(element_type) or isinstance(element_type, IndexType)) else str(element_type)
    )


def parse_shaped(parser: AttrParser) -> tuple[Shape, Attribute]:
    """Parse ``4x8xf32`` / ``N x 64 x f32`` inside angle brackets (the brackets are the caller's)."""
    content = parser.lexer.input.content
    start = parser.pos
    end = content.find(">", start)
    if end < 0:
        parser.raise_error("expected '>' to close a shaped type", start)
    text = re.sub(r"\s+", "", content[start:end])
    parts = text.split("x")
    if not text or any(p == "" for p in parts):
        parser.raise_error(
            f"malformed shape '{content[start:end]}': expected dims separated by 'x' and an element type, "
            "e.g. 4x8xf32 or Nx64xf32",
            start,
            end,
        )
    *dims, elt = parts
    shape: list[Dim] = []
    for d in dims:
        if d.isdigit():
            shape.append(int(d))
        elif is_symbol_name(d):
            shape.append(d)
        else:
            parser.raise_error(
                f"bad dim '{d}': a dim is a non-negative integer or a symbol name "
                "(letters, digits, '_', no lowercase 'x')",
                start,
                end,
            )
    try:
        element_type = parse_dtype(elt)
    except ValueError as e:
        parser.raise_error(str(e), start, end)
    parser._resume_from(end)  # pyright: ignore[reportPrivateUsage]
    return tuple(shape), element_type


def shape_symbols(shape: Shape) -> list[str]:
    return [d for d in shape if isinstance(d, str)]


def broadcast_shapes(*shapes: Shape) -> Shape:
    """Numpy broadcasting over static and symbolic dims: equal dims, or 1 stretches. Raises ValueError."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[Dim] = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        non1 = {d for d in dims if d != 1}
        if len(non1) > 1:
            raise ValueError(
                "shapes " + ", ".join(format_shape(s) for s in shapes) + f" do not broadcast (axis {i} of the result)"
            )
        out.append(non1.pop() if non1 else 1)
    return tuple(out)


def format_shape(shape: Shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def numel(shape: Shape, symbols: dict[str, int] | None = None) -> int:
    """Number of elements; symbolic dims are looked up in ``symbols``."""
    n = 1
    for d in shape:
        n *= symbols[d] if isinstance(d, str) else d  # type: ignore[index]
    return n


# ---------------------------------------------------------------------------------------------
# the shaped types


class _ShapedType(ParametrizedAttribute, TypeAttribute):
    """Common parse/print and accessors of ``!graph.tensor`` and ``!kernel.buffer`` (each subclass declares the
    two parameters itself: IRDL makes each concrete class a dataclass, and fields are not inherited)."""

    shape_attr: ArrayAttr
    element_type: Attribute

    def __init__(self, shape: Iterable[Dim], element_type: Attribute):
        super().__init__(shape_to_attr(shape), element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape, elt = parse_shaped(parser)
        return (shape_to_attr(shape), elt)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + format_shaped(self.shape, self.element_type) + ">")

    def verify(self) -> None:
        for d in self.shape_attr.data:
            if isinstance(d, IntAttr):
                if d.data < 0:
                    raise VerifyException(f"{self.name} dims must be non-negative, got {d.data}")
            elif isinstance(d, StringAttr):
                if not is_symbol_name(d.data):
                    raise VerifyException(f"bad symbolic dim name '{d.data}'")
            else:
                raise VerifyException(f"{self.name} dims must be integers or symbol names")
        if not (is_dtype(self.element_type) or isinstance(self.element_type, IndexType)):
            raise VerifyException(f"unsupported element type {self.element_type}")

    @property
    def shape(self) -> Shape:
        return attr_to_shape(self.shape_attr)

    @property
    def rank(self) -> int:
        return len(self.shape_attr.data)

    @property
    def dtype(self) -> Attribute:
        return self.element_type

    def symbols(self) -> list[str]:
        return shape_symbols(self.shape)

    def is_static(self) -> bool:
        return not self.symbols()


@irdl_attr_definition
class TensorType(_ShapedType):
    """A whole tensor at the graph level: ``!graph.tensor<Nx64xf32>``."""

    name = "graph.tensor"
    shape_attr: ArrayAttr
    element_type: Attribute


@irdl_attr_definition
class BufferType(_ShapedType):
    """A buffer in memory at the kernel level: ``!kernel.buffer<Nx64xf32>`` (row-major, contiguous)."""

    name = "kernel.buffer"
    shape_attr: ArrayAttr
    element_type: Attribute


# ---------------------------------------------------------------------------------------------
# symbolic dims: declared once per function


@irdl_attr_definition
class DimsAttr(Data[tuple[tuple[str, int, int], ...]]):
    """Symbolic dims of a function and their inclusive bounds: ``#graph.dims<N = [1, 4096], M = [1, 64]>``."""

    name = "graph.dims"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[tuple[str, int, int], ...]:
        def entry() -> tuple[str, int, int]:
            pos = parser.pos
            name = parser.parse_identifier()
            if not is_symbol_name(name):
                parser.raise_error(f"bad symbol name '{name}' (no lowercase 'x' allowed)", pos)
            parser.parse_punctuation("=")
            parser.parse_punctuation("[")
            lo = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            hi = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation("]")
            return (name, lo, hi)

        with parser.in_angle_brackets():
            entries = parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
        return tuple(entries)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join(f"{n} = [{lo}, {hi}]" for n, lo, hi in self.data) + ">")

    def verify(self) -> None:
        seen: set[str] = set()
        for n, lo, hi in self.data:
            if n in seen:
                raise VerifyException(f"symbolic dim '{n}' declared twice")
            seen.add(n)
            if not (0 <= lo <= hi):
                raise VerifyException(f"symbolic dim '{n}' has bad bounds [{lo}, {hi}] (need 0 <= lo <= hi)")

    @staticmethod
    def from_dict(bounds: dict[str, tuple[int, int]]) -> DimsAttr:
        return DimsAttr(tuple((n, lo, hi) for n, (lo, hi) in bounds.items()))

    @property
    def bounds(self) -> dict[str, tuple[int, int]]:
        return {n: (lo, hi) for n, lo, hi in self.data}


DIMS_KEY = "graph.dims"
"""The discardable attribute on func.func (and kernel.kernel / uop.kernel) that declares its symbols."""


def declared_dims(op: Operation) -> dict[str, tuple[int, int]]:
    """Symbols declared by the nearest enclosing op (or the op itself) carrying ``graph.dims``."""
    cur: Operation | None = op
    while cur is not None:
        attr = cur.attributes.get(DIMS_KEY)
        if isinstance(attr, DimsAttr):
            return attr.bounds
        cur = cur.parent_op()
    return {}


def check_declared(op: Operation, types: Iterable[Attribute]) -> None:
    """Raise a VerifyException naming any symbolic dim in ``types`` that no enclosing function declares."""
    declared: dict[str, tuple[int, int]] | None = None
    for t in types:
        if isinstance(t, _ShapedType) and not t.is_static():
            if declared is None:
                declared = declared_dims(op)
            for s in t.symbols():
                if s not in declared:
                    raise VerifyException(
                        f"symbolic dim '{s}' is not declared; add it to the function's "
                        f'{DIMS_KEY} attribute, e.g. attributes {{{DIMS_KEY} = #graph.dims<{s} = [1, 1024]>}}'
                    )


def check_signatures(module: Operation) -> None:
    """Every symbolic dim in a function's signature is declared by its ``graph.dims``. (Ops check the types
    they use; an argument no op uses would otherwise slip through.) Raises VerifyException naming it."""
    from xdsl.dialects import func

    for op in module.walk():
        if isinstance(op, func.FuncOp):
            try:
                check_declared(op, [*op.function_type.inputs.data, *op.function_type.outputs.data])
            except VerifyException as e:
                raise VerifyException(f"@{op.sym_name.data}: {e}") from None
