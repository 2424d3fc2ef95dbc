"""`graph-legalize-dtypes{target=webgpu f64_to_f32=false}`: retype the dtypes a target lacks before scheduling.

WGSL has no 64-bit integers, no f64, no 8- or 16-bit integers and no bf16. Python ints are i64 in the front end
(numpy's default), so without this pass ``Tensor([1, 2, 3])``, ``arange`` and ``argmax`` could not run on webgpu
at all, and neither could ONNX's uint8 images or its float8/int4 values (carried as ``ui8`` bytes). The pass retypes
every graph value (function arguments and results included) of a dtype the target lacks to a partner it has:

- narrowed: ``i64 -> i32`` and ``ui64 -> ui32`` always, ``f64 -> f32`` only with ``f64_to_f32=true`` (it loses
  precision, so it is the user's call: ``KILN_WEBGPU_F64=f32``). A constant that does not fit the narrow type
  is an error naming it; the values passed in at run time are range-checked by the driver
  (``compiler/dtype_boundary.py``), which also widens the results back to the dtypes the function declared. An
  f64 value without the opt-in is an error that says how to opt in.
- widened: ``i8, i16 -> i32`` and ``ui8, ui16 -> ui32``, exactly: every value stays in its declared type's
  range. Each op whose 32-bit result can leave that range (``add``, ``mul``, ``neg``, ``abs``, ``shl``, a
  ``reduce_sum``, a cast or bitcast, ...) is followed by a wrap back into it (``x & 0xff`` for ui8,
  ``((x & 0xff) ^ 0x80) - 0x80`` for i8), so the program computes what two's-complement 8/16-bit arithmetic
  gives; ops that stay in range (movement, ``max``, ``where``, ``and``, ``shr``, ``mod``, ...) get none.
  ``bf16 -> f32`` likewise: each op whose f32 result may not be a bf16 value is followed by its rounding to bf16
  (half to even on the bits, NaN kept), which is what the interpreter computes (bf16 math in f32, rounded once
  per op). The driver converts the arguments and results at the host boundary, as for the narrowed types. A
  bitcast between a widened dtype and another (f16 <-> i16, bf16 <-> i16) has no 32-bit form: an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    TensorType as BuiltinTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from kiln.capabilities.description import get_target
from kiln.dialects import graph
from kiln.dialects.types import DTYPES, TensorType, bitwidth, dtype_name, is_float, to_numpy

NARROWER = {"i64": "i32", "ui64": "ui32", "f64": "f32"}
"""A dtype a target may lack -> the narrower dtype that stands in for it."""

WIDER = {"i8": "i32", "i16": "i32", "ui8": "ui32", "ui16": "ui32", "bf16": "f32"}
"""A dtype a target may lack -> the wider dtype that holds its values exactly (wrapped or rounded after each op)."""

EXACT_IN_BF16 = frozenset({
    "constant", "reshape", "permute", "expand", "pad", "shrink", "flip", "concat", "contiguous", "gather",
    "where", "max", "min", "relu", "neg", "abs", "sign", "floor", "ceil", "trunc", "round", "reduce_max",
    "reduce_min", "max_pool2d",
})
"""Graph ops whose result is a bf16 value whenever their operands are (selection, sign changes, rounding to an
integer), so a widened bf16 result needs no rounding."""

KEEPS_RANGE = frozenset({
    "constant", "reshape", "permute", "expand", "pad", "shrink", "flip", "concat", "contiguous", "gather",
    "where", "max", "min", "relu", "and", "or", "xor", "shr", "mod", "sign", "reduce_max", "reduce_min", "max_pool2d",
})
"""Graph ops whose result lies in the range of their operands' dtype whenever the operands do, so a widened
result needs no wrap (``mod``: |r| < |divisor|; ``shr`` of a sign-extended value; bitwise ops of sign- or
zero-extended values). ``not`` keeps a signed range only (``_keeps_range``)."""

F64_HINT = (
    "WGSL has no f64: cast to f32 (.cast('f32')), move the data with Tensor.to('webgpu', allow_downcast=True), "
    "or set KILN_WEBGPU_F64=f32 to compute every f64 value in f32"
)


def replacements(target: str, f64_to_f32: bool) -> dict[str, str]:
    """The dtype replacements ``target`` needs (f64 only when allowed)."""
    have = get_target(target).dtypes
    return {
        old: new for old, new in (NARROWER | WIDER).items()
        if old not in have and new in have and (old != "f64" or f64_to_f32)
    }


@dataclass(frozen=True)
class GraphLegalizeDtypes(ModulePass):
    """Retype values of dtypes the target lacks (module docstring)."""

    name = "graph-legalize-dtypes"

    target: str = "webgpu"
    f64_to_f32: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        table = replacements(self.target, self.f64_to_f32)
        have = get_target(self.target).dtypes
        for fn in op.ops:
            if isinstance(fn, func.FuncOp):
                _Retyper(table, self.target, have).function(fn)


class _Retyper:
    def __init__(self, table: dict[str, str], target: str, have: frozenset[str]):
        self.table = table
        self.target = target
        self.have = have

    def dtype(self, name: str, where: str) -> str:
        if name == "f64" and "f64" not in self.have and name not in self.table:
            raise PassFailedException(f"graph-legalize-dtypes: {where} is f64 on {self.target}. {F64_HINT}")
        return self.table.get(name, name)

    def type(self, t: Attribute, where: str) -> Attribute:
        if not isinstance(t, TensorType):
            return t
        new = self.dtype(dtype_name(t.element_type), where)
        return t if new == dtype_name(t.element_type) else TensorType(t.shape, DTYPES[new])

    def value(self, v: SSAValue, where: str) -> None:
        new = self.type(v.type, where)
        if new is not v.type:
            Rewriter.replace_value_with_new_type(v, new)

    def function(self, fn: func.FuncOp) -> None:
        block = fn.body.block
        declared = {op: [_dtype_of(v) for v in (*op.operands, *op.results)] for op in block.ops}  # before retyping
        for arg in list(block.args):
            self.value(arg, f"argument {arg.index} of @{fn.sym_name.data}")
        for op in list(block.ops):
            for r in list(op.results):
                old = _dtype_of(r)
                self.value(r, f"the result of {op.name}")
                if old in WIDER and old in self.table and not _keeps_range(op, declared[op], old):
                    _wrap(op.results[r.index], old)
            if "value" in op.properties:  # the typed value of a constant or pad (axes and such stay i64)
                op.properties["value"] = self.attribute(op.properties["value"], op)
            if isinstance(op, graph.BitcastOp):
                self._check_bitcast(op, declared[op])
        ret = block.last_op
        fn.function_type = FunctionType.from_lists(
            [a.type for a in block.args], [v.type for v in ret.operands] if ret is not None else []
        )

    def _check_bitcast(self, op: Operation, declared: list[str | None]) -> None:
        """A bitcast keeps its meaning when neither side is widened, or both are integers (i8 <-> ui8 in 32 bits,
        then wrapped); a widened side against another dtype (f16 <-> i16, bf16 <-> i16) has no 32-bit form."""
        widened = [d in WIDER and d in self.table for d in declared]
        if any(widened) and not (all(widened) and all(d is not None and d != "bf16" for d in declared)):
            raise PassFailedException(
                f"graph-legalize-dtypes: graph.bitcast {declared[0]} -> {declared[1]} cannot run on {self.target}, "
                f"which computes 8- and 16-bit integers in 32 bits and bf16 in f32"
            )

    def attribute(self, attr: Attribute, op: Operation) -> Attribute:
        """A typed scalar or dense property retyped; its values must fit the narrow dtype."""
        if isinstance(attr, IntegerAttr | FloatAttr):
            old = dtype_name(attr.type)
            new = self.table.get(old, old)
            if new == old:
                return attr
            value = attr.value.data
            self._check_fits(np.asarray([value]), new, op)
            return IntegerAttr(int(value), DTYPES[new]) if isinstance(attr, IntegerAttr) else FloatAttr(float(value), DTYPES[new])  # type: ignore[arg-type]
        if isinstance(attr, DenseIntOrFPElementsAttr):
            t = attr.type
            assert isinstance(t, BuiltinTensorType)
            old = dtype_name(t.element_type)
            new = self.table.get(old, old)
            if new == old:
                return attr
            values = list(attr.get_values())
            self._check_fits(np.asarray(values), new, op)
            return DenseIntOrFPElementsAttr.from_list(BuiltinTensorType(DTYPES[new], t.get_shape()), values)  # type: ignore[arg-type]
        return attr

    def _check_fits(self, values: np.ndarray, dtype: str, op: Operation) -> None:
        np_type = to_numpy(dtype)
        if np.issubdtype(np_type, np.integer) and values.size:
            info = np.iinfo(np_type)
            if values.min() < info.min or values.max() > info.max:
                raise PassFailedException(
                    f"graph-legalize-dtypes: a constant of {op.name} ({values.min()}..{values.max()}) does not fit "
                    f"{dtype}, which stands in for 64-bit integers on {self.target}"
                )


def _dtype_of(v: SSAValue) -> str | None:
    return dtype_name(v.type.element_type) if isinstance(v.type, TensorType) else None


def _keeps_range(op: Operation, operands: list[str | None], dtype: str) -> bool:
    """Whether ``op``'s result stays in ``dtype``'s range (a bf16 value, for bf16) whenever its operands
    (``operands``: their declared dtypes) are in theirs."""
    name = op.name.removeprefix("graph.")
    if dtype == "bf16":
        return name in EXACT_IN_BF16 or (name == "cast" and operands[0] in ("i1", "bf16"))
    if name in KEEPS_RANGE:
        return True
    if name == "not":
        return dtype.startswith("i")
    source = operands[0]
    if name == "cast" and source in DTYPES and not is_float(DTYPES[source]):
        if source == "i1":
            return True
        have, want = np.iinfo(to_numpy(source)), np.iinfo(to_numpy(dtype))
        return want.min <= have.min and have.max <= want.max
    return False


def _wrap(v: SSAValue, dtype: str) -> None:
    """Follow ``v`` (a widened value) by its wrap into ``dtype``'s range (for bf16: its rounding to bf16, half
    to even, NaN kept); every other use reads the wrapped value."""
    wide = v.type
    assert isinstance(wide, TensorType)
    bits = bitwidth(DTYPES[dtype])
    point = InsertPoint.after(v.owner)  # type: ignore[arg-type]
    ops: list[Operation] = []

    def add(new: Operation) -> SSAValue:
        new.location = v.owner.location  # type: ignore[union-attr]
        ops.append(new)
        return new.results[0]

    def const(value: int) -> SSAValue:
        return add(graph.ConstantOp.splat(value, TensorType((), wide.element_type)))  # type: ignore[attr-defined]

    if dtype == "bf16":
        bits_type = TensorType(wide.shape, DTYPES["ui32"])
        u = add(graph.op("bitcast").build_op([v], bits_type))

        def ucon(value: int) -> SSAValue:
            return add(graph.ConstantOp.splat(value, TensorType((), DTYPES["ui32"])))  # type: ignore[attr-defined]

        def alu(name: str, a: SSAValue, b: SSAValue) -> SSAValue:
            return add(graph.op(name).build_op([a, b], bits_type))

        odd = alu("and", alu("shr", u, ucon(16)), ucon(1))  # round half to even: ties go to the even upper half
        upper = alu("and", alu("add", alu("add", u, ucon(0x7FFF)), odd), ucon(0xFFFF0000))
        rounded = add(graph.op("bitcast").build_op([upper], wide))
        nan = add(graph.op("isnan").build_op([v], TensorType(wide.shape, DTYPES["i1"])))
        wrapped = add(graph.op("where").build_op([nan, v, rounded], wide))
    else:
        wrapped = add(graph.op("and").build_op([v, const((1 << bits) - 1)], wide))
        if dtype.startswith("i"):
            sign = const(1 << (bits - 1))
            wrapped = add(graph.op("sub").build_op([add(graph.op("xor").build_op([wrapped, sign], wide)), sign], wide))
    v.replace_uses_with_if(wrapped, lambda use: use.operation not in ops)
    Rewriter.insert_op(ops, point)
