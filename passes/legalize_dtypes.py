"""`graph-legalize-dtypes{target=webgpu f64_to_f32=false}`: narrow the dtypes a target lacks before scheduling.

WGSL has no 64-bit integers and no f64. Python ints are i64 in the front end (numpy's default), so without this
pass ``Tensor([1, 2, 3])``, ``arange`` and ``argmax`` could not run on webgpu at all. The pass retypes every
graph value (function arguments and results included) of a dtype the target lacks to its narrower partner:
``i64 -> i32`` and ``ui64 -> ui32`` always, ``f64 -> f32`` only with ``f64_to_f32=true`` (it loses precision,
so it is the user's call: ``KILN_WEBGPU_F64=f32``). A constant that does not fit the narrow type is an error
naming it; the values passed in at run time are range-checked by the driver (``compiler/dtype_boundary.py``),
which also widens the results back to the dtypes the function declared. An f64 value without the opt-in is an
error that says how to opt in.
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
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from kiln.capabilities.description import get_target
from kiln.dialects.types import DTYPES, TensorType, dtype_name, to_numpy

NARROWER = {"i64": "i32", "ui64": "ui32", "f64": "f32"}
"""A dtype a target may lack -> the dtype that stands in for it."""

F64_HINT = (
    "WGSL has no f64: cast to f32 (.cast('f32')), move the data with Tensor.to('webgpu', allow_downcast=True), "
    "or set KILN_WEBGPU_F64=f32 to compute every f64 value in f32"
)


def narrowing(target: str, f64_to_f32: bool) -> dict[str, str]:
    """The dtype replacements ``target`` needs (f64 only when allowed)."""
    have = get_target(target).dtypes
    return {
        wide: narrow for wide, narrow in NARROWER.items()
        if wide not in have and narrow in have and (wide != "f64" or f64_to_f32)
    }


@dataclass(frozen=True)
class GraphLegalizeDtypes(ModulePass):
    """Retype values of dtypes the target lacks (module docstring)."""

    name = "graph-legalize-dtypes"

    target: str = "webgpu"
    f64_to_f32: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        table = narrowing(self.target, self.f64_to_f32)
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
        for arg in list(block.args):
            self.value(arg, f"argument {arg.index} of @{fn.sym_name.data}")
        for op in list(block.ops):
            for r in list(op.results):
                self.value(r, f"the result of {op.name}")
            if "value" in op.properties:  # the typed value of a constant or pad (axes and such stay i64)
                op.properties["value"] = self.attribute(op.properties["value"], op)
        ret = block.last_op
        fn.function_type = FunctionType.from_lists(
            [a.type for a in block.args], [v.type for v in ret.operands] if ret is not None else []
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
