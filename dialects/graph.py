"""The `graph` dialect: whole-tensor operations, what users write (see docs/dialects/graph.md).

Every op class knows how to infer its result type from its operand types and properties (`infer`). The
verifier compares the declared result type with the inferred one, and builders (`build`) use the same
function, so the rules live in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType as BuiltinTensorType,
    i1,
    i64,
    f64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from kiln.dialects.ops.table import OPS as ELEMENTWISE
from kiln.dialects.types import (
    DIMS_KEY,
    DimsAttr,
    Dim,
    Shape,
    TensorType,
    broadcast_shapes,
    check_declared,
    dtype_name,
    format_shaped,
    is_bool,
    is_float,
    is_int,
)

# ---------------------------------------------------------------------------------------------
# helpers


def _err(op_name: str, msg: str) -> VerifyException:
    return VerifyException(f"'{op_name}' {msg}")


def _dtype_class(t: Attribute) -> str:
    if is_float(t):
        return "float"
    if is_bool(t):
        return "bool"
    if is_int(t):
        return "int"
    return "other"


def _ty(shape: Sequence[Dim], dtype: Attribute) -> TensorType:
    return TensorType(tuple(shape), dtype)


def _norm_axis(op: str, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise _err(op, f"axis {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def _static(op: str, d: Dim, what: str) -> int:
    if isinstance(d, str):
        raise _err(op, f"cannot {what} along symbolic dim '{d}'")
    return d


def _ints(attr: Attribute | None) -> tuple[int, ...]:
    if attr is None:
        return ()
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    raise VerifyException(f"expected an array<i64: ...> attribute, got {attr}")


def _int(attr: Attribute | None, default: int = 0) -> int:
    return default if attr is None else int(attr.value.data)  # type: ignore[attr-defined]


def _bool(attr: Attribute | None) -> bool:
    return bool(attr is not None and attr.value.data)  # type: ignore[attr-defined]


def to_attr(value: Any) -> Attribute:
    """Python value -> property attribute: tuples become array<i64>, bools i1, ints i64, floats f64."""
    if isinstance(value, Attribute):
        return value
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, (tuple, list)):
        return DenseArrayBase.from_list(i64, [int(v) for v in value])
    raise TypeError(f"cannot turn {value!r} into an attribute")


class GraphOp(IRDLOperation):
    """Common verification: tensor operands, declared symbols, declared result type == inferred one."""

    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def infer(cls, operands: Sequence[TensorType], props: dict[str, Attribute]) -> TensorType | None:
        """The result type, or None when the result type is an input of the op (reshape, expand, constants)."""
        return None

    def verify_(self) -> None:
        types = [o.type for o in self.operands]
        for i, t in enumerate(types):
            if not isinstance(t, TensorType):
                raise _err(self.name, f"operand {i} must be a !graph.tensor, got {t}")
        check_declared(self, [*types, *(r.type for r in self.results)])
        props = dict(self.properties)
        expected = type(self).infer(types, props)  # type: ignore[arg-type]
        if expected is not None and self.results and self.results[0].type != expected:
            raise _err(self.name, f"result type {self.results[0].type} does not match the inferred type {expected}")

    @classmethod
    def build_op(cls, operands: Sequence[SSAValue | Operation], result_type: Attribute | None = None, **props: Any):
        """Build with result-type inference; ``props`` are Python values or attributes."""
        vals = [SSAValue.get(o) for o in operands]
        attrs = {k: to_attr(v) for k, v in props.items() if v is not None}
        if result_type is None:
            result_type = cls.infer([v.type for v in vals], attrs)  # type: ignore[misc]
            if result_type is None:
                raise ValueError(f"{cls.name} needs an explicit result type")
        return cls.build(operands=cls._operand_groups(vals), properties=attrs, result_types=[result_type])

    @classmethod
    def _operand_groups(cls, vals: list[SSAValue]) -> list[Any]:
        return vals  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------
# elementwise


COMPOSITE_UNARY: dict[str, tuple[frozenset[str], str]] = {
    "relu": (frozenset({"float", "int"}), "max(x, 0)"),
    "sigmoid": (frozenset({"float"}), "1 / (1 + e**-x)"),
    "gelu": (frozenset({"float"}), "0.5 * x * (1 + erf(x / sqrt(2))) (exact form)"),
}
"""Unary elementwise ops that are compositions of ALU ops (``convert-graph-to-kernel`` expands them), not
primitives: their dtype classes and meaning. The primitives come from ``kiln.dialects.ops``."""

UNARY: dict[str, frozenset[str]] = {
    **{op.graph: op.graph_classes for op in ELEMENTWISE if op.graph and op.arity == 1},
    **{name: classes for name, (classes, _) in COMPOSITE_UNARY.items()},
}
"""Unary elementwise ops and the dtype classes each accepts."""

PREDICATES = frozenset(op.graph for op in ELEMENTWISE if op.graph and op.arity == 1 and op.returns_bool)
"""Unary ops whose result is i1 (``isnan``); the others' result type is the operand type."""

BINARY: dict[str, frozenset[str]] = {op.graph: op.graph_classes for op in ELEMENTWISE if op.graph and op.arity == 2}
"""Binary elementwise ops (numpy broadcasting, same dtype) and the dtype classes each accepts."""

_FUNCTIONAL = "attr-dict `:` functional-type(operands, results)"

REALIZE_ATTR = "graph.realize"
"""Set by ``graph-mark-realize`` on an op whose result gets its own buffer; the value says why."""

COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
"""Comparisons: any dtype, numpy broadcasting, result i1."""

MEANING: dict[str, str] = {
    **{op.graph: op.graph_summary or op.summary for op in ELEMENTWISE if op.graph},
    **{name: meaning for name, (_, meaning) in COMPOSITE_UNARY.items()},
    "lt": "a < b", "le": "a <= b", "gt": "a > b", "ge": "a >= b", "eq": "a == b", "ne": "a != b (true with nan)",
}
"""What each elementwise op computes, for the docs."""


def _check_dtype(op: str, t: TensorType, allowed: frozenset[str]) -> None:
    if _dtype_class(t.element_type) not in allowed:
        raise _err(op, f"does not accept {dtype_name(t.element_type)} (accepts {'/'.join(sorted(allowed))} dtypes)")


def _broadcast(op: str, types: Sequence[TensorType]) -> Shape:
    try:
        return broadcast_shapes(*(t.shape for t in types))
    except ValueError as e:
        raise _err(op, str(e)) from None


class UnaryOp(GraphOp):
    ALLOWED: ClassVar[frozenset[str]]
    RESULT_BOOL: ClassVar[bool] = False

    @classmethod
    def infer(cls, operands, props):
        _check_dtype(cls.name, operands[0], cls.ALLOWED)
        return _ty(operands[0].shape, i1) if cls.RESULT_BOOL else operands[0]


class BinaryOp(GraphOp):
    ALLOWED: ClassVar[frozenset[str]]
    RESULT_BOOL: ClassVar[bool] = False

    @classmethod
    def infer(cls, operands, props):
        a, b = operands
        if a.element_type != b.element_type:
            raise _err(
                cls.name,
                f"operand dtypes differ ({dtype_name(a.element_type)} vs {dtype_name(b.element_type)}); "
                "insert a graph.cast",
            )
        _check_dtype(cls.name, a, cls.ALLOWED)
        return _ty(_broadcast(cls.name, operands), i1 if cls.RESULT_BOOL else a.element_type)


def _make_unary(name: str, allowed: frozenset[str], result_bool: bool) -> type[UnaryOp]:
    """``graph.<name>``: the result has the operand's type (``: T``), or its shape with i1 elements
    (``: (T) -> U``)."""
    T = VarConstraint("T", base(TensorType))
    dtype = "f32" if "float" in allowed else "i32"
    example = f"%y = graph.{name} %x : !graph.tensor<4x{dtype}>"
    fields: dict[str, Any] = {
        "input": operand_def(T), "res": result_def(T), "assembly_format": "$input attr-dict `:` type($input)"
    }
    if result_bool:
        example = f"%y = graph.{name} %x : (!graph.tensor<4x{dtype}>) -> !graph.tensor<4xi1>"
        fields = {
            "input": operand_def(TensorType), "res": result_def(TensorType), "assembly_format": "$input " + _FUNCTIONAL
        }
    cls = type(
        f"{name.capitalize()}Op",
        (UnaryOp,),
        {
            "name": f"graph.{name}",
            "__doc__": f"Elementwise {MEANING[name]}; accepts {'/'.join(sorted(allowed))} tensors. Example: `{example}`",
            "ALLOWED": allowed,
            "RESULT_BOOL": result_bool,
            "__annotations__": {"ALLOWED": ClassVar[frozenset[str]], "RESULT_BOOL": ClassVar[bool]},
            **fields,
            "traits": traits_def(Pure()),
        },
    )
    return irdl_op_definition(cls)


def _make_binary(name: str, allowed: frozenset[str], result_bool: bool) -> type[BinaryOp]:
    cls = type(
        f"{name.capitalize()}Op",
        (BinaryOp,),
        {
            "name": f"graph.{name}",
            "__doc__": f"Elementwise {MEANING[name]}, numpy broadcasting, same dtype; accepts "
            f"{'/'.join(sorted(allowed))} tensors" + (", result i1." if result_bool else ".") + " Example: "
            f"`%y = graph.{name} %a, %b : (!graph.tensor<4x1x{'f32' if 'float' in allowed else 'i32'}>, "
            f"!graph.tensor<3x{'f32' if 'float' in allowed else 'i32'}>) -> "
            f"!graph.tensor<4x3x{'i1' if result_bool else ('f32' if 'float' in allowed else 'i32')}>`",
            "ALLOWED": allowed,
            "RESULT_BOOL": result_bool,
            "__annotations__": {"ALLOWED": ClassVar[frozenset[str]], "RESULT_BOOL": ClassVar[bool]},
            "lhs": operand_def(TensorType),
            "rhs": operand_def(TensorType),
            "res": result_def(TensorType),
            "traits": traits_def(Pure()),
            "assembly_format": "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)",
        },
    )
    return irdl_op_definition(cls)


UNARY_OPS: dict[str, type[UnaryOp]] = {n: _make_unary(n, a, n in PREDICATES) for n, a in UNARY.items()}
BINARY_OPS: dict[str, type[BinaryOp]] = {
    **{n: _make_binary(n, a, False) for n, a in BINARY.items()},
    **{n: _make_binary(n, frozenset({"float", "int", "bool"}), True) for n in COMPARISONS},
}

class OneInputOp(GraphOp):
    """An op of one tensor operand and one result, printed `%y = graph.<op> %x {props} : (T) -> T2`."""

    input = operand_def(TensorType)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input " + _FUNCTIONAL


@irdl_op_definition
class WhereOp(GraphOp):
    """`cond ? a : b` elementwise, with numpy broadcasting of all three operands."""

    name = "graph.where"
    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$cond `,` $lhs `,` $rhs " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        c, a, b = operands
        if not is_bool(c.element_type):
            raise _err(cls.name, f"condition must be i1, got {dtype_name(c.element_type)}")
        if a.element_type != b.element_type:
            raise _err(cls.name, "branch dtypes differ; insert a graph.cast")
        return _ty(_broadcast(cls.name, operands), a.element_type)


@irdl_op_definition
class CastOp(OneInputOp):
    """Convert dtype (numpy `astype`: float -> int truncates toward zero)."""

    name = "graph.cast"

    def verify_(self) -> None:
        super().verify_()
        if self.input.type.shape != self.res.type.shape:  # type: ignore[attr-defined]
            raise _err(self.name, "must not change the shape")


@irdl_op_definition
class BitcastOp(OneInputOp):
    """Reinterpret the bits of each element as another dtype of the same width."""

    name = "graph.bitcast"

    def verify_(self) -> None:
        super().verify_()
        from kiln.dialects.types import bitwidth

        a, r = self.input.type, self.res.type
        if a.shape != r.shape:  # type: ignore[attr-defined]
            raise _err(self.name, "must not change the shape")
        if bitwidth(a.element_type) != bitwidth(r.element_type):  # type: ignore[attr-defined]
            raise _err(self.name, "needs dtypes of the same bit width")


# ---------------------------------------------------------------------------------------------
# constants


DENSE_INLINE_LIMIT = 256
"""The most distinct elements a dense `graph.constant` may have and still lower into a kernel: it lowers as a
chain of selects on the flat index, one compare and select per element wherever it is read. Larger data is a
function argument (one load)."""


@irdl_op_definition
class ConstantOp(GraphOp):
    """A constant tensor: a splat scalar (any shape, also symbolic) or dense elements (static shape)."""

    name = "graph.constant"
    value = prop_def(base(FloatAttr) | base(IntegerAttr) | base(DenseIntOrFPElementsAttr))
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($res)"

    def verify_(self) -> None:
        super().verify_()
        t: TensorType = self.res.type  # type: ignore[assignment]
        v = self.value
        if isinstance(v, DenseIntOrFPElementsAttr):
            vt = v.type
            if not isinstance(vt, BuiltinTensorType) or tuple(vt.get_shape()) != t.shape:
                raise _err(self.name, f"dense value shape {vt} does not match result shape {format_shaped(t.shape, t.element_type)}")
            if vt.element_type != t.element_type:
                raise _err(self.name, "dense value element type does not match the result dtype")
        elif v.type != t.element_type:  # type: ignore[attr-defined]
            raise _err(self.name, f"value type {v.type} does not match the result dtype {dtype_name(t.element_type)}")  # type: ignore[attr-defined]

    @staticmethod
    def splat(value: float | int | bool, t: TensorType) -> ConstantOp:
        dt = t.element_type
        attr = FloatAttr(float(value), dt) if is_float(dt) else IntegerAttr(int(value), dt)  # type: ignore[arg-type]
        return ConstantOp.build(properties={"value": attr}, result_types=[t])


@irdl_op_definition
class IotaOp(GraphOp):
    """Each element is its index along `axis` (arange broadcast to the result shape)."""

    name = "graph.iota"
    axis = prop_def(IntegerAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($res)"

    def verify_(self) -> None:
        super().verify_()
        t: TensorType = self.res.type  # type: ignore[assignment]
        _norm_axis(self.name, _int(self.axis), t.rank)
        if _dtype_class(t.element_type) not in ("int", "float"):
            raise _err(self.name, "result must be an int or float tensor")


# ---------------------------------------------------------------------------------------------
# reductions


class ReduceOp(OneInputOp):
    ALLOWED: ClassVar[frozenset[str]] = frozenset({"float", "int"})
    EMPTY_OK: ClassVar[bool] = True
    """Whether a reduction over no elements has a value (sum 0, product 1, mean NaN); max and min have none."""

    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        _check_dtype(cls.name, x, cls.ALLOWED)
        axes = _ints(props.get("axes"))
        if list(axes) != sorted(set(axes)):
            raise _err(cls.name, f"axes {list(axes)} must be sorted and unique")
        for a in axes:
            if not 0 <= a < x.rank:
                raise _err(cls.name, f"axis {a} is out of range for rank {x.rank}")
            if x.shape[a] == 0 and not cls.EMPTY_OK:
                raise _err(cls.name, f"axis {a} has size 0, and a {cls.name} over no elements has no value")
        keep = _bool(props.get("keepdims"))
        shape = [1 if i in axes else d for i, d in enumerate(x.shape) if keep or i not in axes]
        return _ty(shape, x.element_type)


def _make_reduce(name: str, doc: str, allowed: frozenset[str], empty_ok: bool = True) -> type[ReduceOp]:
    cls = type(
        f"{''.join(p.capitalize() for p in name.split('_'))}Op",
        (ReduceOp,),
        {
            "name": f"graph.{name}",
            "__doc__": doc,
            "ALLOWED": allowed,
            "EMPTY_OK": empty_ok,
            "__annotations__": {"ALLOWED": ClassVar[frozenset[str]], "EMPTY_OK": ClassVar[bool]},
            "axes": prop_def(DenseArrayBase),
            "keepdims": prop_def(BoolAttr, default_value=BoolAttr.from_bool(False)),
        },
    )
    return irdl_op_definition(cls)


REDUCE_OPS: dict[str, type[ReduceOp]] = {
    "reduce_sum": _make_reduce("reduce_sum", "Sum over `axes`.", frozenset({"float", "int"})),
    "reduce_prod": _make_reduce("reduce_prod", "Product over `axes`.", frozenset({"float", "int"})),
    "reduce_max": _make_reduce("reduce_max", "Maximum over `axes` (NaN propagates).", frozenset({"float", "int", "bool"}), False),
    "reduce_min": _make_reduce("reduce_min", "Minimum over `axes` (NaN propagates).", frozenset({"float", "int", "bool"}), False),
    "mean": _make_reduce("mean", "Arithmetic mean over `axes` (floats only).", frozenset({"float"})),
}


class ArgReduceOp(OneInputOp):
    @classmethod
    def infer(cls, operands, props):
        return None

    def verify_(self) -> None:
        super().verify_()
        x: TensorType = self.input.type  # type: ignore[attr-defined]
        r: TensorType = self.res.type  # type: ignore[attr-defined]
        axis = _norm_axis(self.name, _int(self.axis), x.rank)  # type: ignore[attr-defined]
        if x.shape[axis] == 0:
            raise _err(self.name, f"axis {axis} has size 0, and an {self.name} over no elements has no value")
        keep = _bool(self.keepdims)  # type: ignore[attr-defined]
        shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape) if keep or i != axis)
        if r.shape != shape:
            raise _err(self.name, f"result shape {list(r.shape)} should be {list(shape)}")
        if dtype_name(r.element_type) not in ("i32", "i64"):
            raise _err(self.name, "result dtype must be i32 or i64")


def _make_argreduce(name: str) -> type[ArgReduceOp]:
    cls = type(
        f"{name.capitalize()}Op",
        (ArgReduceOp,),
        {
            "name": f"graph.{name}",
            "__doc__": f"Index of the first {'maximum' if name == 'argmax' else 'minimum'} along `axis`.",
            "axis": prop_def(IntegerAttr),
            "keepdims": prop_def(BoolAttr, default_value=BoolAttr.from_bool(False)),
        },
    )
    return irdl_op_definition(cls)


ArgmaxOp = _make_argreduce("argmax")
ArgminOp = _make_argreduce("argmin")


# ---------------------------------------------------------------------------------------------
# movement


def _same_numel(a: Shape, b: Shape) -> bool:
    syms_a = sorted(d for d in a if isinstance(d, str))
    syms_b = sorted(d for d in b if isinstance(d, str))
    return syms_a == syms_b and prod(d for d in a if isinstance(d, int)) == prod(d for d in b if isinstance(d, int))


@irdl_op_definition
class ReshapeOp(OneInputOp):
    """Same elements in row-major order, new shape (the result type)."""

    name = "graph.reshape"

    def verify_(self) -> None:
        super().verify_()
        a, r = self.input.type, self.res.type
        if a.element_type != r.element_type:  # type: ignore[attr-defined]
            raise _err(self.name, "must not change the dtype")
        if not _same_numel(a.shape, r.shape):  # type: ignore[attr-defined]
            raise _err(self.name, f"cannot reshape {list(a.shape)} to {list(r.shape)}: element counts differ")  # type: ignore[attr-defined]


@irdl_op_definition
class ExpandOp(OneInputOp):
    """numpy `broadcast_to` the result shape."""

    name = "graph.expand"

    def verify_(self) -> None:
        super().verify_()
        a, r = self.input.type, self.res.type
        if a.element_type != r.element_type:  # type: ignore[attr-defined]
            raise _err(self.name, "must not change the dtype")
        try:
            ok = broadcast_shapes(a.shape, r.shape) == r.shape  # type: ignore[attr-defined]
        except ValueError:
            ok = False
        if not ok or a.rank > r.rank:  # type: ignore[attr-defined]
            raise _err(self.name, f"cannot broadcast {list(a.shape)} to {list(r.shape)}")  # type: ignore[attr-defined]


@irdl_op_definition
class PermuteOp(OneInputOp):
    """Transpose: result dim i is input dim perm[i]."""

    name = "graph.permute"
    perm = prop_def(DenseArrayBase)

    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        perm = _ints(props.get("perm"))
        if sorted(perm) != list(range(x.rank)):
            raise _err(cls.name, f"perm {list(perm)} is not a permutation of 0..{x.rank - 1}")
        return _ty([x.shape[p] for p in perm], x.element_type)


@irdl_op_definition
class PadOp(OneInputOp):
    """Pad each axis with `low`/`high` elements of `value`."""

    name = "graph.pad"
    low = prop_def(DenseArrayBase)
    high = prop_def(DenseArrayBase)
    value = prop_def(base(FloatAttr) | base(IntegerAttr))

    @classmethod
    def build_op(cls, operands, result_type=None, **props):
        """A Python number `value` is taken in the input's dtype."""
        v = props.get("value", 0)
        if not isinstance(v, Attribute):
            dt = SSAValue.get(operands[0]).type.element_type  # type: ignore[attr-defined]
            props["value"] = FloatAttr(float(v), dt) if is_float(dt) else IntegerAttr(int(v), dt)  # type: ignore[arg-type]
        return super().build_op(operands, result_type, **props)

    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        low, high = _ints(props.get("low")), _ints(props.get("high"))
        if len(low) != x.rank or len(high) != x.rank:
            raise _err(cls.name, f"low/high need {x.rank} entries")
        if any(v < 0 for v in low + high):
            raise _err(cls.name, "padding must be non-negative (use graph.shrink to cut)")
        shape = [
            d if lo == hi == 0 else _static(cls.name, d, "pad") + lo + hi for d, lo, hi in zip(x.shape, low, high)
        ]
        value = props.get("value")
        if value is not None and value.type != x.element_type:  # type: ignore[attr-defined]
            raise _err(cls.name, f"pad value type {value.type} does not match {dtype_name(x.element_type)}")  # type: ignore[attr-defined]
        return _ty(shape, x.element_type)


@irdl_op_definition
class ShrinkOp(OneInputOp):
    """Slice `x[start:limit:step]` on every axis (0 <= start <= limit <= dim, step >= 1)."""

    name = "graph.shrink"
    start = prop_def(DenseArrayBase)
    limit = prop_def(DenseArrayBase)
    step = opt_prop_def(DenseArrayBase)

    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        start, limit = _ints(props.get("start")), _ints(props.get("limit"))
        step = _ints(props.get("step")) or (1,) * x.rank
        if not (len(start) == len(limit) == len(step) == x.rank):
            raise _err(cls.name, f"start/limit/step need {x.rank} entries")
        shape: list[Dim] = []
        for d, s, l, st in zip(x.shape, start, limit, step):
            if st < 1:
                raise _err(cls.name, f"step must be >= 1, got {st}")
            if isinstance(d, str) and (s, l, st) == (0, -1, 1):
                shape.append(d)  # whole symbolic axis
                continue
            n = _static(cls.name, d, "slice")
            if not 0 <= s <= l <= n:
                raise _err(cls.name, f"slice [{s}:{l}] is out of bounds for a dim of size {n}")
            shape.append(-(-(l - s) // st))
        return _ty(shape, x.element_type)


@irdl_op_definition
class FlipOp(OneInputOp):
    """Reverse the order of elements along `axes`."""

    name = "graph.flip"
    axes = prop_def(DenseArrayBase)

    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        for a in _ints(props.get("axes")):
            if not 0 <= a < x.rank:
                raise _err(cls.name, f"axis {a} is out of range for rank {x.rank}")
        return x


@irdl_op_definition
class ConcatOp(GraphOp):
    """Join tensors along `axis` (all other dims equal)."""

    name = "graph.concat"
    inputs = var_operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$inputs " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        if not operands:
            raise _err(cls.name, "needs at least one input")
        first = operands[0]
        axis = _norm_axis(cls.name, _int(props.get("axis")), first.rank)
        total = 0
        for t in operands:
            if t.rank != first.rank or t.element_type != first.element_type:
                raise _err(cls.name, "inputs must have the same rank and dtype")
            if any(a != b for i, (a, b) in enumerate(zip(t.shape, first.shape)) if i != axis):
                raise _err(cls.name, "inputs must agree on every dim except the concat axis")
            total += _static(cls.name, t.shape[axis], "concatenate")
        return _ty([total if i == axis else d for i, d in enumerate(first.shape)], first.element_type)

    @classmethod
    def _operand_groups(cls, vals):
        return [vals]


@irdl_op_definition
class ContiguousOp(GraphOp):
    """Realize the value into a buffer here (a scheduling boundary)."""

    name = "graph.contiguous"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    res = result_def(T)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$input attr-dict `:` type($input)"


# ---------------------------------------------------------------------------------------------
# composites (graph-decompose rewrites them into the ops above)


@irdl_op_definition
class MatmulOp(GraphOp):
    """numpy `matmul`: 1-D operands are promoted, batch dims broadcast."""

    name = "graph.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        a, b = operands
        if a.element_type != b.element_type:
            raise _err(cls.name, "operand dtypes differ; insert a graph.cast")
        _check_dtype(cls.name, a, frozenset({"float", "int"}))
        if a.rank == 0 or b.rank == 0:
            raise _err(cls.name, "operands must have rank >= 1")
        sa = (1, *a.shape) if a.rank == 1 else a.shape
        sb = (*b.shape, 1) if b.rank == 1 else b.shape
        if sa[-1] != sb[-2]:
            raise _err(cls.name, f"contraction dims differ: {sa[-1]} vs {sb[-2]}")
        batch = _broadcast(cls.name, [_ty(sa[:-2], a.element_type), _ty(sb[:-2], a.element_type)])
        out = [*batch] + ([sa[-2]] if a.rank > 1 else []) + ([sb[-1]] if b.rank > 1 else [])
        return _ty(out, a.element_type)


class AxisOp(OneInputOp):
    """An op over one `axis` whose result has the input's type."""

    @classmethod
    def infer(cls, operands, props):
        x = operands[0]
        _check_dtype(cls.name, x, cls.ALLOWED)  # type: ignore[attr-defined]
        _norm_axis(cls.name, _int(props.get("axis")), x.rank)
        return x


def _make_axis_op(name: str, doc: str, allowed: frozenset[str]) -> type[AxisOp]:
    cls = type(
        f"{''.join(p.capitalize() for p in name.split('_'))}Op",
        (AxisOp,),
        {
            "name": f"graph.{name}",
            "__doc__": doc,
            "ALLOWED": allowed,
            "__annotations__": {"ALLOWED": ClassVar[frozenset[str]]},
            "axis": prop_def(IntegerAttr),
        },
    )
    return irdl_op_definition(cls)


SoftmaxOp = _make_axis_op("softmax", "exp(x - max) / sum(exp(x - max)) along `axis`.", frozenset({"float"}))
LogSoftmaxOp = _make_axis_op("log_softmax", "x - max - log(sum(exp(x - max))) along `axis`.", frozenset({"float"}))
CumsumOp = _make_axis_op("cumsum", "Inclusive prefix sum along `axis`.", frozenset({"float", "int"}))


@irdl_op_definition
class LayernormOp(GraphOp):
    """(x - mean) / sqrt(var + epsilon) over the trailing `axes`; with `affine` operands (weight, bias) then
    * weight + bias. Variance is biased (divides by the count)."""

    name = "graph.layernorm"
    input = operand_def(TensorType)
    affine = var_operand_def(TensorType)
    axes = prop_def(DenseArrayBase)
    epsilon = prop_def(FloatAttr, default_value=FloatAttr(1e-5, f64))
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input (`affine` `(` $affine^ `)`)? " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        x, affine = operands[0], operands[1:]
        _check_dtype(cls.name, x, frozenset({"float"}))
        axes = _ints(props.get("axes"))
        if not axes or list(axes) != list(range(x.rank - len(axes), x.rank)):
            raise _err(cls.name, f"axes {list(axes)} must be the trailing axes of a rank-{x.rank} tensor")
        if len(affine) not in (0, 2):
            raise _err(cls.name, "takes either no affine operands or two (weight, bias)")
        norm_shape = x.shape[x.rank - len(axes) :]
        for v in affine:
            if v.shape != norm_shape or v.element_type != x.element_type:
                raise _err(cls.name, f"weight and bias must be {format_shaped(norm_shape, x.element_type)}")
        return x

    @classmethod
    def _operand_groups(cls, vals):
        return [vals[0], vals[1:]]


def _window_out(op: str, n: Dim, k: int, stride: int, pad: int, dilation: int = 1) -> int:
    n = _static(op, n, "convolve or pool")
    span = dilation * (k - 1) + 1
    if n + 2 * pad < span:
        raise _err(op, f"window of {span} does not fit an input of {n} with padding {pad}")
    return (n + 2 * pad - span) // stride + 1


def _pair(op: str, props: dict[str, Attribute], key: str, default: int) -> tuple[int, int]:
    v = _ints(props.get(key)) or (default, default)
    if len(v) != 2:
        raise _err(op, f"{key} needs 2 entries")
    return v  # type: ignore[return-value]


@irdl_op_definition
class Conv2dOp(GraphOp):
    """2-D convolution (cross-correlation), x NCHW, w OIHW (I = C / groups), optional bias[O]."""

    name = "graph.conv2d"
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = opt_prop_def(DenseArrayBase)
    padding = opt_prop_def(DenseArrayBase)
    dilation = opt_prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr, default_value=IntegerAttr(1, i64))
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $filter (`bias` $bias^)? " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        x, w = operands[0], operands[1]
        if x.rank != 4 or w.rank != 4:
            raise _err(cls.name, "input and filter must have rank 4 (NCHW, OIHW)")
        if x.element_type != w.element_type:
            raise _err(cls.name, "input and filter dtypes differ")
        _check_dtype(cls.name, x, frozenset({"float"}))
        g = _int(props.get("groups"), 1)
        c, o, i = x.shape[1], _static(cls.name, w.shape[0], "convolve"), _static(cls.name, w.shape[1], "convolve")
        if g < 1 or _static(cls.name, c, "convolve") != i * g or o % g:
            raise _err(cls.name, f"channels do not fit groups={g}: input C={c}, filter O={o}, I={i}")
        if len(operands) == 3 and (operands[2].shape != (o,) or operands[2].element_type != x.element_type):
            raise _err(cls.name, f"bias must be a [{o}] tensor of the input dtype")
        (sh, sw), (ph, pw), (dh, dw) = (_pair(cls.name, props, k, d) for k, d in (("stride", 1), ("padding", 0), ("dilation", 1)))
        kh, kw = _static(cls.name, w.shape[2], "convolve"), _static(cls.name, w.shape[3], "convolve")
        oh, ow = _window_out(cls.name, x.shape[2], kh, sh, ph, dh), _window_out(cls.name, x.shape[3], kw, sw, pw, dw)
        return _ty([x.shape[0], o, oh, ow], x.element_type)

    @classmethod
    def _operand_groups(cls, vals):
        return [vals[0], vals[1], vals[2:]]


class PoolOp(OneInputOp):
    @classmethod
    def infer(cls, operands, props):
        (x,) = operands
        if x.rank != 4:
            raise _err(cls.name, "input must have rank 4 (NCHW)")
        _check_dtype(cls.name, x, frozenset({"float"} if cls.name == "graph.avg_pool2d" else {"float", "int"}))
        kh, kw = _pair(cls.name, props, "kernel", 1)
        sh, sw = _ints(props.get("stride")) or (kh, kw)
        ph, pw = _pair(cls.name, props, "padding", 0)
        return _ty(
            [x.shape[0], x.shape[1], _window_out(cls.name, x.shape[2], kh, sh, ph), _window_out(cls.name, x.shape[3], kw, sw, pw)],
            x.element_type,
        )


def _make_pool(name: str, doc: str) -> type[PoolOp]:
    cls = type(
        f"{''.join(p.capitalize() for p in name.split('_'))}Op",
        (PoolOp,),
        {
            "name": f"graph.{name}",
            "__doc__": doc,
            "kernel": prop_def(DenseArrayBase),
            "stride": opt_prop_def(DenseArrayBase),
            "padding": opt_prop_def(DenseArrayBase),
        },
    )
    return irdl_op_definition(cls)


MaxPool2dOp = _make_pool("max_pool2d", "Max over `kernel` windows (NCHW); padding is -inf. Stride defaults to the kernel.")
AvgPool2dOp = _make_pool(
    "avg_pool2d", "Mean over `kernel` windows (NCHW); padding counts as zeros. Stride defaults to the kernel."
)


@irdl_op_definition
class GatherOp(GraphOp):
    """numpy `take_along_axis`: out[..i..] = x[.. idx[..i..] ..] along `axis` (indices must be in range)."""

    name = "graph.gather"
    input = operand_def(TensorType)
    indices = operand_def(TensorType)
    axis = prop_def(IntegerAttr)
    res = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input `,` $indices " + _FUNCTIONAL

    @classmethod
    def infer(cls, operands, props):
        x, idx = operands
        if _dtype_class(idx.element_type) != "int":
            raise _err(cls.name, "indices must be integers")
        if idx.rank != x.rank:
            raise _err(cls.name, "indices must have the input's rank")
        axis = _norm_axis(cls.name, _int(props.get("axis")), x.rank)
        for i, (a, b) in enumerate(zip(x.shape, idx.shape)):
            if i != axis and a != b:
                raise _err(cls.name, f"indices dim {i} ({b}) must equal the input's ({a})")
        return _ty(idx.shape, x.element_type)


# ---------------------------------------------------------------------------------------------
# the dialect

COMPOSITE_OPS: tuple[type[GraphOp], ...] = (
    MatmulOp, SoftmaxOp, LogSoftmaxOp, LayernormOp, Conv2dOp, MaxPool2dOp, AvgPool2dOp, CumsumOp,
)
"""Ops that graph-decompose rewrites into core ops."""

ALL_OPS: tuple[type[IRDLOperation], ...] = (
    ConstantOp, IotaOp, *UNARY_OPS.values(), *BINARY_OPS.values(), WhereOp, CastOp, BitcastOp,
    *REDUCE_OPS.values(), ArgmaxOp, ArgminOp, ReshapeOp, ExpandOp, PermuteOp, PadOp, ShrinkOp, FlipOp, ConcatOp,
    ContiguousOp, MatmulOp, SoftmaxOp, LogSoftmaxOp, LayernormOp, Conv2dOp, MaxPool2dOp, AvgPool2dOp, GatherOp,
    CumsumOp,
)

OPS_BY_NAME: dict[str, type[IRDLOperation]] = {op.name: op for op in ALL_OPS}

Graph = Dialect("graph", list(ALL_OPS), [TensorType, DimsAttr])


def op(name: str) -> type[GraphOp]:
    """The op class for a short name: ``op("add")`` is the `graph.add` class."""
    return OPS_BY_NAME[f"graph.{name}"]  # type: ignore[return-value]


__all__ = ["Graph", "GraphOp", "OPS_BY_NAME", "ALL_OPS", "COMPOSITE_OPS", "op", "to_attr", "DIMS_KEY"]
