"""`graph-autodiff{function=f wrt=0,2}`: add the reverse-mode derivative of a `graph` function to the module.

For ``func.func @f(x0, ..., xn) -> (y0, ..., ym)`` the pass adds

    func.func @f_grad(x0, ..., xn, dy0, ..., dym) -> (y0, ..., ym, dx_i, dx_j, ...)

where ``dyk`` is the cotangent of result ``k`` (same type as ``yk``) and ``dx_i`` is the vector-Jacobian product
``sum_k dyk^T * d yk / d xi`` for each argument ``i`` listed in ``wrt`` (same type as ``xi``; default: every
floating-point argument). For a scalar loss, ``dy0 = 1`` gives the gradient. ``@f`` itself is left as it was;
symbolic dims carry over. The body of ``@f_grad`` is the primal computation followed by the adjoint ops the
rules in ``passes/autodiff/rules.py`` build, so graph-decompose and the scheduler see one function and may fuse
the forward and backward computations. An op on the path whose derivative does not exist (``graph.bitcast``)
is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import graph
from kiln.dialects.types import DTYPES, Shape, TensorType, dtype_name, is_float
from kiln.passes.autodiff import GradBuilder, NotDifferentiable, Primal, vjp


class IRBuilder(GradBuilder[SSAValue]):
    """Builds graph ops into ``block`` in front of ``before`` (the function's return)."""

    def __init__(self, block: Block, before: Operation):
        self.block = block
        self.before = before

    def shape(self, v: SSAValue) -> Shape:
        return v.type.shape  # type: ignore[attr-defined]

    def dtype(self, v: SSAValue) -> str:
        return dtype_name(v.type.element_type)  # type: ignore[attr-defined]

    def _insert(self, new: Operation) -> SSAValue:
        self.block.insert_op_before(new, self.before)
        return new.results[0]

    def op(self, name: str, *operands: SSAValue, result: tuple[Shape, str] | None = None, **props: Any) -> SSAValue:
        rtype = TensorType(result[0], DTYPES[result[1]]) if result is not None else None
        return self._insert(graph.op(name).build_op(list(operands), rtype, **props))

    def const(self, value: float | int, dtype: str, shape: Shape = ()) -> SSAValue:
        return self._insert(graph.ConstantOp.splat(value, TensorType(shape, DTYPES[dtype])))  # type: ignore[attr-defined]


def _primal(op: Operation) -> Primal:
    return Primal(op.name.removeprefix("graph."), list(op.operands), op.results[0], dict(op.properties))


@dataclass(frozen=True)
class GraphAutodiff(ModulePass):
    """Add ``@<function>_grad`` returning the results and the vector-Jacobian product (module docstring)."""

    name = "graph-autodiff"

    function: str = ""
    """The function to differentiate (required)."""
    wrt: tuple[int, ...] = ()
    """Argument positions to differentiate with respect to; empty: every floating-point argument."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        primal = next((f for f in op.ops if isinstance(f, func.FuncOp) and f.sym_name.data == self.function), None)
        if primal is None:
            raise PassFailedException(f"graph-autodiff: no function @{self.function} in the module (function=NAME)")
        grad_name = f"{self.function}_grad"
        if any(isinstance(f, func.FuncOp) and f.sym_name.data == grad_name for f in op.ops):
            raise PassFailedException(f"graph-autodiff: the module already has a function @{grad_name}")
        fn = primal.clone()
        fn.sym_name = StringAttr(grad_name)
        block = fn.body.block
        args = list(block.args)
        wrt = self._wrt(args)
        ret = block.last_op
        assert isinstance(ret, func.ReturnOp)
        results = list(ret.operands)
        cotangents = [block.insert_arg(r.type, len(block.args)) for r in results]
        for k, ct in enumerate(cotangents):
            ct.name_hint = f"d_result{k}"
        ops = [_primal(o) for o in block.ops if o is not ret]
        try:
            grads = vjp(IRBuilder(block, ret), ops, results, cotangents, [args[i] for i in wrt])
        except NotDifferentiable as e:
            raise PassFailedException(f"graph-autodiff of @{self.function}: {e}") from None
        block.insert_op_before(func.ReturnOp(*results, *grads), ret)
        block.erase_op(ret)
        fn.function_type = FunctionType.from_lists([a.type for a in block.args], [v.type for v in (*results, *grads)])
        region_dce(fn.body)
        op.body.block.insert_op_after(fn, primal)

    def _wrt(self, args: list[SSAValue]) -> list[int]:
        if not self.wrt:
            return [i for i, a in enumerate(args) if is_float(a.type.element_type)]  # type: ignore[attr-defined]
        for i in self.wrt:
            if not 0 <= i < len(args):
                raise PassFailedException(f"graph-autodiff: wrt={i} but @{self.function} has {len(args)} arguments")
            if not is_float(args[i].type.element_type):  # type: ignore[attr-defined]
                raise PassFailedException(
                    f"graph-autodiff: argument {i} of @{self.function} is {args[i].type}; only floating-point "
                    "arguments have gradients"
                )
        return list(self.wrt)
