"""The ``uop`` dialect: a kernel as one block of micro-ops in program order (tinygrad's linearized UOps).

Loops and conditionals are bracket pairs in the block (``uop.range``/``uop.end``, ``uop.if``/``uop.endif``)
rather than regions, so a renderer walks the ops once, top to bottom. Values are scalars or short
``vector<NxT>`` registers, pointers (``!uop.ptr``), or accumulators (``!uop.acc``). The ``uop.kernel``
verifier checks the brackets nest and close and that no value escapes the bracket that defines it.
docs/dialects/uop.md is the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr, SymbolNameConstraint, VectorType, i1
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
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
from xdsl.traits import HasParent, IsolatedFromAbove, MemoryAllocEffect, NoTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.alu import (
    ALU_OPS,
    FLOAT,
    INT,
    check_value_type,
    describe,
    dtype_class,
    element_type,
    is_vector,
    lanes,
    make_alu_ops,
    make_const_op,
    make_conversion_ops,
    print_operands_and_type,
)
from kiln.dialects.target_ops import IndexedAccess, make_access_ops, make_cell_ops, make_cell_type
from kiln.dialects.types import is_dtype

# ---------------------------------------------------------------------------------------------
# types


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A pointer to elements of a dtype: ``!uop.ptr<f32>`` (global memory, a kernel parameter) or
    ``!uop.ptr<f32, local>`` (memory shared by a workgroup, from ``uop.define_local``)."""

    name = "uop.ptr"

    element_type: Attribute
    space: StringAttr

    def __init__(self, element_type: Attribute, local: bool = False):
        super().__init__(element_type, StringAttr("local" if local else "global"))

    @property
    def local(self) -> bool:
        return self.space.data == "local"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            elt = parser.parse_type()
            space = "global"
            if parser.parse_optional_punctuation(","):
                pos = parser.pos
                space = parser.parse_identifier()
                if space not in ("global", "local"):
                    parser.raise_error(f"expected address space 'global' or 'local', got '{space}'", pos, parser.pos)
        return (elt, StringAttr(space))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)
            if self.local:
                printer.print_string(", local")

    def verify(self) -> None:
        if not is_dtype(self.element_type):
            raise VerifyException(f"!uop.ptr element type must be a dtype, got {self.element_type}")
        if self.space.data not in ("global", "local"):
            raise VerifyException(f"!uop.ptr address space must be global or local, got '{self.space.data}'")


AccType = make_cell_type(
    "uop",
    "acc",
    lambda t, what: check_value_type(t, True, what),
    """An accumulator register holding a value of type T: ``!uop.acc<f32>``, ``!uop.acc<vector<4xf32>>``.
    Unlike SSA values it is updated in place (``uop.acc_set``), so it carries a reduction across loop
    iterations.""",
    "AccType",
)


# ---------------------------------------------------------------------------------------------
# the kernel and its structure checks


@irdl_op_definition
class UopKernelOp(IRDLOperation):
    """A linearized kernel: ``uop.kernel @name attributes {...} { ... }``. No block arguments (parameters
    are ``uop.param`` ops); one block, no terminator; free-form attributes (e.g. launch dimensions)."""

    name = "uop.kernel"

    sym_name = prop_def(SymbolNameConstraint())
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    def __init__(self, name: str, body: Region | None = None, attributes: dict[str, Attribute] | None = None):
        super().__init__(
            properties={"sym_name": StringAttr(name)},
            regions=[body if body is not None else Region(Block())],
            attributes=attributes,
        )

    def params(self) -> list[ParamOp]:
        """The kernel's parameters in index order (the verifier guarantees indices 0..n-1)."""
        return sorted((o for o in self.body.block.ops if isinstance(o, ParamOp)), key=lambda p: p.index.value.data)

    def verify_(self) -> None:
        block = self.body.block
        if block.args:
            raise VerifyException(
                f"uop.kernel @{self.sym_name.data} takes no block arguments (kernel parameters are uop.param ops)"
            )
        _check_params(block)
        _check_structure(block)

    @classmethod
    def parse(cls, parser: Parser) -> UopKernelOp:
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:  # `{ }`: an empty kernel still has its block
            body.add_block(Block())
        return cls.create(
            properties={"sym_name": name}, regions=[body], attributes=dict(attrs.data) if attrs else {}
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _check_params(block: Block) -> None:
    """Param indices are 0..n-1, each once: every target forms its signature from them."""
    seen: dict[int, ParamOp] = {}
    for op in block.ops:
        if isinstance(op, ParamOp):
            n = op.index.value.data
            if n in seen:
                raise VerifyException(
                    f"uop.param index {n} is used twice ({describe(seen[n].result)} and {describe(op.result)})"
                )
            seen[n] = op
    missing = sorted(set(range(len(seen))) - seen.keys())
    if missing:
        raise VerifyException(f"uop.param indices must be 0..{len(seen) - 1}; {missing[0]} is missing")


def _scope_name(scope: Operation) -> str:
    return f"loop {describe(scope.results[0])}" if isinstance(scope, RangeOp) else f"uop.if {describe(scope.operands[0])}"


def _check_structure(block: Block) -> None:
    """Walk the ops in order with a stack of open range/if brackets: every bracket is closed innermost-first
    and exactly once, every value is defined before it is used and not used after its bracket closed."""
    open_scopes: list[Operation] = []
    members: dict[Operation | None, list[SSAValue]] = {None: []}
    closed: dict[SSAValue, tuple[Operation, Operation]] = {}  # value -> (its bracket, the op that closed it)
    defined: set[SSAValue] = set()
    for op in block.ops:
        for v in () if isinstance(op, EndOp) else op.operands:  # uop.end of a closed loop: _close says so
            if v in closed:
                scope, closer = closed[v]
                raise VerifyException(
                    f"value {describe(v)} defined inside {_scope_name(scope)} used after {closer.name} "
                    f"(by {op.name})"
                )
            if v not in defined:
                raise VerifyException(f"value {describe(v)} is used by {op.name} before it is defined")
        if isinstance(op, EndOp | EndIfOp):
            scope = _close(op, open_scopes)
            for v in members.pop(scope):
                closed[v] = (scope, op)
        if isinstance(op, RangeOp | IfOp):
            open_scopes.append(op)
            members[op] = []
        innermost = open_scopes[-1] if open_scopes else None
        members[innermost].extend(op.results)
        defined.update(op.results)
    if open_scopes:
        scope = open_scopes[-1]
        fix = f"uop.end {describe(scope.results[0])}" if isinstance(scope, RangeOp) else "uop.endif"
        raise VerifyException(f"{_scope_name(scope)} is never closed (add {fix})")


def _close(op: Operation, open_scopes: list[Operation]) -> Operation:
    """Pop the bracket that ``op`` (uop.end / uop.endif) closes, or raise naming what is wrong."""
    top = open_scopes[-1] if open_scopes else None
    if isinstance(op, EndIfOp):
        if not isinstance(top, IfOp):
            raise VerifyException(
                "uop.endif with no open uop.if" if top is None else f"uop.endif inside {_scope_name(top)}: close it first"
            )
        return open_scopes.pop()
    assert isinstance(op, EndOp)
    loop = op.range.owner
    if top is loop:
        return open_scopes.pop()
    name = describe(op.range)
    if loop not in open_scopes:
        raise VerifyException(f"uop.end {name}: loop {name} is not open")
    raise VerifyException(
        f"uop.end {name} must close the innermost open bracket, which is {_scope_name(top)}"  # type: ignore[arg-type]
    )


# ---------------------------------------------------------------------------------------------
# parameters and indices


@irdl_op_definition
class ParamOp(IRDLOperation):
    """``%x = uop.param 0 : !uop.ptr<f32>``: kernel argument number n (a global pointer, index or integer);
    the indices of a kernel's params are distinct."""

    name = "uop.param"

    index = prop_def(IntegerAttr[I64])
    result = result_def(AnyAttr())
    traits = traits_def(Pure(), HasParent(UopKernelOp))

    def __init__(self, index: int, type: Attribute):
        super().__init__(properties={"index": IntegerAttr(index, 64)}, result_types=[type])

    def verify_(self) -> None:
        t = self.result.type
        if self.index.value.data < 0:
            raise VerifyException(f"uop.param index must be >= 0, got {self.index.value.data}")
        ok = (isinstance(t, PtrType) and not t.local) or isinstance(t, IndexType) or dtype_class(t) == INT
        if not ok:
            raise VerifyException(f"uop.param type must be a global !uop.ptr, index or an integer type, got {t}")

    @classmethod
    def parse(cls, parser: Parser) -> ParamOp:
        index = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(properties={"index": IntegerAttr(index, 64)}, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.index.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


SPECIALS = (
    "group_id.x", "group_id.y", "group_id.z",
    "local_id.x", "local_id.y", "local_id.z",
    "global_id.x", "global_id.y", "global_id.z",
    "core_start", "core_end",
)  # fmt: skip
"""Names of ``uop.special``: GPU workgroup/thread ids per dimension, and a CPU thread's slice of the outer range."""


@irdl_op_definition
class SpecialOp(IRDLOperation):
    """``%g = uop.special group_id.x : index``: a value the launch provides. GPU: ``group_id`` (workgroup
    index), ``local_id`` (thread index in the workgroup), ``global_id`` (group_id * group size + local_id),
    per dimension x/y/z. CPU: ``core_start``/``core_end``, the bounds of this thread's slice of the
    outermost range."""

    name = "uop.special"

    special = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure(), HasParent(UopKernelOp))

    def __init__(self, special: str):
        super().__init__(properties={"special": StringAttr(special)}, result_types=[IndexType()])

    def verify_(self) -> None:
        if self.special.data not in SPECIALS:
            raise VerifyException(f"unknown uop.special '{self.special.data}' (expected one of {', '.join(SPECIALS)})")

    @classmethod
    def parse(cls, parser: Parser) -> SpecialOp:
        special = parser.parse_identifier()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(properties={"special": StringAttr(special)}, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_identifier_or_string_literal(self.special.data)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : index")


# ---------------------------------------------------------------------------------------------
# control flow brackets


@irdl_op_definition
class RangeOp(IRDLOperation):
    """``%i = uop.range %lo, %hi : index``: open a loop; ``%i`` runs from ``%lo`` to ``%hi - 1`` over the
    ops up to the matching ``uop.end %i``."""

    name = "uop.range"

    lo = operand_def(IndexType)
    hi = operand_def(IndexType)
    result = result_def(IndexType)
    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "$lo `,` $hi attr-dict `:` type($result)"

    def __init__(self, lo: SSAValue | Operation, hi: SSAValue | Operation):
        super().__init__(operands=[lo, hi], result_types=[IndexType()])


@irdl_op_definition
class EndOp(IRDLOperation):
    """``uop.end %i``: close the loop opened by ``%i = uop.range``; it must be the innermost open bracket."""

    name = "uop.end"

    range = operand_def(IndexType)
    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "$range attr-dict"

    def __init__(self, range: SSAValue | Operation):
        super().__init__(operands=[range])

    def verify_(self) -> None:
        if not isinstance(self.range.owner, RangeOp):
            raise VerifyException(f"uop.end {describe(self.range)} must name a uop.range result")


@irdl_op_definition
class IfOp(IRDLOperation):
    """``uop.if %c``: run the ops up to the matching ``uop.endif`` only where ``%c`` (i1) is true."""

    name = "uop.if"

    cond = operand_def(i1)
    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "$cond attr-dict"

    def __init__(self, cond: SSAValue | Operation):
        super().__init__(operands=[cond])


@irdl_op_definition
class EndIfOp(IRDLOperation):
    """``uop.endif``: close the innermost open ``uop.if``."""

    name = "uop.endif"

    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``uop.barrier``: wait until every thread of the workgroup got here and its local-memory writes are
    visible (must be reached by all threads of the workgroup)."""

    name = "uop.barrier"

    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


# ---------------------------------------------------------------------------------------------
# memory


def _check_pointer_access(op: Operation, ptr: SSAValue, index: SSAValue, gate: SSAValue | None, value_type: Attribute) -> None:
    """Checks load and store share: index is index, gate is i1, the value is the pointee type or a vector of it."""
    assert isinstance(ptr.type, PtrType)  # the operand constraint
    if not isinstance(index.type, IndexType):
        raise VerifyException(f"{op.name} index must be index, got {index.type}")
    if gate is not None and gate.type != i1:
        raise VerifyException(f"{op.name} gate must be i1, got {gate.type}")
    check_value_type(value_type, True, f"{op.name} value type")
    if element_type(value_type) != ptr.type.element_type:
        raise VerifyException(
            f"{op.name} value type {value_type} must be {ptr.type.element_type} or a vector of it "
            f"(the pointer is {ptr.type})"
        )


def _verify_load(op: IRDLOperation) -> None:
    ptr, index, *gate = op.operands
    _check_pointer_access(op, ptr, index, gate[0] if gate else None, op.results[0].type)


def _verify_store(op: IRDLOperation) -> None:
    ptr, index, value, *gate = op.operands
    _check_pointer_access(op, ptr, index, gate[0] if gate else None, value.type)


_ELEMENTS = IndexedAccess(
    "ptr", PtrType, "pointer", "a !uop.ptr", index_type=IndexType(), gate=",", gated=("load", "store"),
    vector_store=is_vector,
)  # fmt: skip
"""``%p[%i]``: the pointer must be defined already; its type is not repeated. A gate follows after a comma; a
stored vector value is followed by its type."""

LoadOp, StoreOp = make_access_ops(
    "uop", HasParent(UopKernelOp), _ELEMENTS, verify_load=_verify_load, verify_store=_verify_store,
    load_doc="""``%v = uop.load %p[%i] : f32``: element ``%i`` of the pointer. With a vector result type
    (``: vector<4xf32>``) it loads the N consecutive elements starting at ``%i``. Gated:
    ``uop.load %p[%i], %g : f32`` reads nothing and gives 0 where ``%g`` is false.""",
    store_doc="""``uop.store %p[%i], %v``: write ``%v`` to element ``%i``; a vector value (printed with its type,
    ``uop.store %p[%i], %v : vector<4xf32>``) writes N consecutive elements. Gated:
    ``uop.store %p[%i], %v, %g`` writes only where ``%g`` is true.""",
)  # fmt: skip


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """``uop.prefetch %p[%i]``: a hint to bring the cache line holding element ``%i`` of the pointer close to
    the core before a later load reads it. It reads and writes nothing and never faults: ``%i`` may lie outside
    the buffer (a CPU row kernel prefetches the next row, which the last row does not have)."""

    name = "uop.prefetch"

    ptr = operand_def(PtrType)
    index = operand_def(IndexType)
    traits = traits_def(HasParent(UopKernelOp))
    assembly_format = "$ptr `[` $index `]` attr-dict `:` type($ptr)"

    def __init__(self, ptr: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[ptr, index])


@irdl_op_definition
class DefineLocalOp(IRDLOperation):
    """``%l = uop.define_local 256 : !uop.ptr<f32, local>``: local (workgroup-shared) memory of n elements."""

    name = "uop.define_local"

    size = prop_def(IntegerAttr[I64])
    result = result_def(PtrType)
    traits = traits_def(MemoryAllocEffect(), HasParent(UopKernelOp))

    def __init__(self, size: int, element_type: Attribute):
        super().__init__(properties={"size": IntegerAttr(size, 64)}, result_types=[PtrType(element_type, local=True)])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, PtrType)
        if not t.local:
            raise VerifyException(f"uop.define_local result must be a local pointer (!uop.ptr<T, local>), got {t}")
        if self.size.value.data <= 0:
            raise VerifyException(f"uop.define_local size must be positive, got {self.size.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> DefineLocalOp:
        size = parser.parse_integer(allow_boolean=False)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(properties={"size": IntegerAttr(size, 64)}, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.size.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


# ---------------------------------------------------------------------------------------------
# accumulators


DefineAccOp, AccGetOp, AccSetOp = make_cell_ops(
    "uop", HasParent(UopKernelOp), AccType, operand="acc", role="accumulator", separator=", ",
    init=("define_acc", "``%acc = uop.define_acc %init : f32``: a new accumulator (``!uop.acc<f32>``) holding "
          "``%init``."),
    read=("acc_get", "``%v = uop.acc_get %acc : f32``: the value the accumulator holds now."),
    write=("acc_set", "``uop.acc_set %acc, %v``: make the accumulator hold ``%v`` (of its value type) from now on."),
    mismatch={
        "init": "{op} of {init} must produce !{cell}<{init}>, got {result}",
        "read": "{op} result type {result} must be {held} (the acc is {cell})",
        "write": "{op} value type {value} must be {held} (the acc is {cell})",
    },
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# vectors and tensor cores


@irdl_op_definition
class VectorizeOp(IRDLOperation):
    """``%v = uop.vectorize %a, %b, %c, %d : vector<4xf32>``: a vector from N scalars (lane i = operand i)."""

    name = "uop.vectorize"

    elements = var_operand_def(AnyAttr())
    result = result_def(VectorType)
    traits = traits_def(Pure())

    def __init__(self, elements: Sequence[SSAValue | Operation]):
        t = SSAValue.get(elements[0]).type
        super().__init__(operands=[list(elements)], result_types=[VectorType(t, [len(elements)])])

    def verify_(self) -> None:
        t = self.result.type
        check_value_type(t, True, "uop.vectorize result")
        if len(self.elements) != lanes(t):
            raise VerifyException(f"uop.vectorize to {t} needs {lanes(t)} operands, got {len(self.elements)}")
        for e in self.elements:
            if e.type != element_type(t):
                raise VerifyException(f"uop.vectorize to {t} takes {element_type(t)} operands, got {e.type}")

    @classmethod
    def parse(cls, parser: Parser) -> VectorizeOp:
        elements = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        t, attributes = _parse_vector_type(parser, "uop.vectorize produces")
        operands = [parser.resolve_operand(e, t.get_element_type()) for e in elements]
        return cls.create(operands=operands, result_types=[t], attributes=attributes)

    def print(self, printer: Printer) -> None:
        print_operands_and_type(printer, self, self.elements, self.result.type)


def _parse_vector_type(parser: Parser, what: str) -> tuple[VectorType, dict[str, Attribute]]:
    """The end of a custom form, ``{attrs} : vector<NxT>``: the vector type and the attributes; ``what``
    ("uop.extract reads") begins the error where the type is not a vector."""
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, VectorType):
        parser.raise_error(f"{what} a vector type, got {t}", pos, parser.pos)
    return t, attributes


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """``%e = uop.extract %v[2] : vector<4xf32>``: lane 2 of a vector (an f32)."""

    name = "uop.extract"

    vector = operand_def(VectorType)
    lane = prop_def(IntegerAttr[I64])
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def __init__(self, vector: SSAValue | Operation, lane: int):
        t = SSAValue.get(vector).type
        super().__init__(operands=[vector], properties={"lane": IntegerAttr(lane, 64)}, result_types=[element_type(t)])

    def verify_(self) -> None:
        t = self.vector.type
        n = self.lane.value.data
        if not 0 <= n < lanes(t):
            raise VerifyException(f"uop.extract lane {n} is out of range for {t}")
        if self.result.type != element_type(t):
            raise VerifyException(f"uop.extract result type {self.result.type} must be {element_type(t)}")

    @classmethod
    def parse(cls, parser: Parser) -> ExtractOp:
        vector = parser.parse_unresolved_operand()
        with parser.in_square_brackets():
            lane = parser.parse_integer(allow_boolean=False)
        t, attributes = _parse_vector_type(parser, "uop.extract reads")
        return cls.create(
            operands=[parser.resolve_operand(vector, t)],
            properties={"lane": IntegerAttr(lane, 64)},
            result_types=[t.get_element_type()],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string(f"[{self.lane.value.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


REDUCED_LANE_KINDS = ("add", "mul", "max", "min")
"""The ALU kinds ``uop.reduce_lanes`` combines a vector's lanes with."""

T = TypeVar("T")


def pairwise_lanes(lanes: Sequence[T], combine: Callable[[T, T], T]) -> T:
    """A vector's ``lanes`` combined in ``uop.reduce_lanes``' order: lane k with lane k + N/2, then the same on
    the lower half, until one is left. The interpreter and the lane-by-lane lowerings all reduce through it."""
    values = list(lanes)
    while len(values) > 1:
        half = len(values) // 2
        values = [combine(x, y) for x, y in zip(values[:half], values[half:])]
    return values[0]


@irdl_op_definition
class ReduceLanesOp(IRDLOperation):
    """``%s = uop.reduce_lanes add %v : vector<16xf32>``: the lanes of a vector combined into one scalar by an ALU
    kind (add, mul, max or min) pairwise, the upper half onto the lower half until one lane is left: for 4 lanes
    ``(v0 + v2) + (v1 + v3)``. One op where a chain of ``uop.extract``s and ALU ops made every later pass walk
    each lane (a vector accumulator's sum after its loop); a CPU target reduces the vector in a few shuffle
    steps, ``uop-decompose`` writes the lanes out for the others. N is a power of two, at least 2."""

    name = "uop.reduce_lanes"

    kind = prop_def(StringAttr)
    vector = operand_def(VectorType)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def __init__(self, kind: str, vector: SSAValue | Operation):
        t = SSAValue.get(vector).type
        super().__init__(operands=[vector], properties={"kind": StringAttr(kind)}, result_types=[element_type(t)])

    @property
    def reduce_kind(self) -> str:
        return self.kind.data

    def verify_(self) -> None:
        kind, t = self.kind.data, self.vector.type
        if kind not in REDUCED_LANE_KINDS:
            raise VerifyException(f"uop.reduce_lanes combines lanes with {', '.join(REDUCED_LANE_KINDS)}, got {kind}")
        check_value_type(t, True, "uop.reduce_lanes operand")
        n = lanes(t)
        if n < 2 or n & (n - 1):
            raise VerifyException(f"uop.reduce_lanes needs a vector of a power of two lanes (at least 2), got {t}")
        scalar = element_type(t)
        if dtype_class(scalar) not in ALU_OPS[kind].dtypes:
            raise VerifyException(f"uop.reduce_lanes {kind} does not accept {t}")
        if self.result.type != scalar:
            raise VerifyException(f"uop.reduce_lanes result type {self.result.type} must be {scalar}")

    @classmethod
    def parse(cls, parser: Parser) -> ReduceLanesOp:
        pos = parser.pos
        kind = parser.parse_identifier(context_msg=": the kind of uop.reduce_lanes (add, mul, max or min)")
        if kind not in REDUCED_LANE_KINDS:
            kinds = ", ".join(REDUCED_LANE_KINDS)
            parser.raise_error(f"uop.reduce_lanes combines lanes with {kinds}, got {kind}", pos, parser.pos)
        vector = parser.parse_unresolved_operand()
        t, attributes = _parse_vector_type(parser, "uop.reduce_lanes reads")
        return cls.create(
            operands=[parser.resolve_operand(vector, t)],
            properties={"kind": StringAttr(kind)},
            result_types=[t.get_element_type()],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.vector)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.vector.type)


@irdl_op_definition
class WmmaOp(IRDLOperation):
    """``%d = uop.wmma %a, %b, %c {m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64} :
    vector<8xf16>, vector<4xf16> -> vector<4xf32>``: a tensor-core D = A·B + C (A is m×k, B k×n, C and D
    m×n) computed together by ``threads`` threads (a warp), each holding a fragment: m·k/threads elements
    of A, k·n/threads of B, m·n/threads of C and D. Which matrix element sits in which lane of which
    thread is the layout of the target's instruction for that shape and dtype (PTX: ``mma.sync.aligned``
    ``.row.col``); every thread of the group must execute the op."""

    name = "uop.wmma"

    C: ClassVar = VarConstraint("C", AnyAttr())
    a = operand_def(AnyAttr())
    b = operand_def(AnyAttr())
    c = operand_def(C)
    m = prop_def(IntegerAttr[I64])
    n = prop_def(IntegerAttr[I64])
    k = prop_def(IntegerAttr[I64])
    threads = prop_def(IntegerAttr[I64])
    result = result_def(C)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)"

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        m: int,
        n: int,
        k: int,
        threads: int = 32,
    ):
        props = {name: IntegerAttr(v, 64) for name, v in (("m", m), ("n", n), ("k", k), ("threads", threads))}
        super().__init__(operands=[a, b, c], properties=props, result_types=[SSAValue.get(c).type])

    def verify_(self) -> None:
        m, n, k, threads = (p.value.data for p in (self.m, self.n, self.k, self.threads))
        if min(m, n, k, threads) <= 0:
            raise VerifyException(f"uop.wmma m, n, k and threads must be positive, got {m}, {n}, {k}, {threads}")
        for operand, rows, cols, what in ((self.a, m, k, "a"), (self.b, k, n, "b"), (self.c, m, n, "c")):
            t = operand.type
            check_value_type(t, True, f"uop.wmma operand {what}")
            if (rows * cols) % threads:
                raise VerifyException(f"uop.wmma: a {rows}x{cols} matrix does not split evenly over {threads} threads")
            if lanes(t) != rows * cols // threads:
                raise VerifyException(
                    f"uop.wmma operand {what} holds {lanes(t)} elements per thread; a {rows}x{cols} matrix over "
                    f"{threads} threads needs {rows * cols // threads}"
                )
        ta, tb, tc = (element_type(v.type) for v in (self.a, self.b, self.c))
        if ta != tb:
            raise VerifyException(f"uop.wmma a and b must have the same element type, got {ta} and {tb}")
        if dtype_class(ta) not in (FLOAT, INT) or dtype_class(tc) != dtype_class(ta):
            raise VerifyException(
                f"uop.wmma multiplies floats into floats or integers into integers, got {ta} x {tb} + {tc}"
            )


# ---------------------------------------------------------------------------------------------
# ALU, casts, constants and the dialect

ALU = make_alu_ops("uop", vectors=True)
"""``uop.<kind>`` op classes by ALU kind: ``ALU["add"](a, b)``."""
CastOp, BitcastOp = make_conversion_ops("uop", vectors=True)
ConstOp = make_const_op("uop", vectors=True)

UOp = Dialect(
    "uop",
    [
        UopKernelOp, ParamOp, SpecialOp, RangeOp, EndOp, IfOp, EndIfOp, BarrierOp, LoadOp, StoreOp, PrefetchOp,
        DefineLocalOp, DefineAccOp, AccGetOp, AccSetOp, VectorizeOp, ExtractOp, ReduceLanesOp, WmmaOp,
        CastOp, BitcastOp, ConstOp, *ALU.values(),
    ],
    [PtrType, AccType],
)  # fmt: skip
