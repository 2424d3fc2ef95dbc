"""The edits kiln-reduce tries, each a way to make a module smaller that keeps it well-formed IR.

A `Step` finds its *sites* in a module (ops to remove, function arguments to drop, dims to shrink, ...) and
edits a chosen subset of them in place. The reducer (`kiln.tools.reducer`) applies a step to a copy of the
current module, verifies the copy and keeps it only if the interestingness test still passes; an edit that
cannot be made raises `CannotApply`, and the candidate is skipped like one that does not verify.

Every accepted edit strictly shrinks a measure the other steps never grow (operations, arguments and results,
static dims, non-splat and non-trivial constants), so the reduction ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import ConstantLike, IsTerminator, SymbolOpInterface

from kiln.dialects import graph, kernel, uop
from kiln.dialects.types import TensorType, _ShapedType


class CannotApply(Exception):
    """This edit cannot be made on this module (no value of the right type to stand in, say)."""


@dataclass(frozen=True)
class Step:
    """One kind of edit: ``sites(module)`` lists where it applies, in a deterministic order (so the same index
    names the same site in a copy); ``apply(sites)`` edits the module those sites belong to."""

    name: str
    sites: Callable[[ModuleOp], list[Any]]
    apply: Callable[[Sequence[Any]], None]


# ---------------------------------------------------------------------------------------------
# constants


def is_constant(op: Operation) -> bool:
    """An op that only materializes a value (graph.constant, kernel.const, arith.constant, ...)."""
    return (not op.operands and not op.regions and len(op.results) == 1
            and (op.has_trait(ConstantLike) or isinstance(op, graph.ConstantOp)))


def _zero_constant(t: Attribute, dialect: str) -> Operation:
    """A constant 0 of type ``t``, in the dialect of the op it stands in for; CannotApply if there is none."""
    if isinstance(t, TensorType):
        return graph.ConstantOp.splat(0, t)
    if not isinstance(t, IntegerType | IndexType | AnyFloat):
        raise CannotApply(f"no constant of type {t}")
    if dialect == "kernel":
        return kernel.ConstOp.from_number(0, t)
    if dialect == "uop":
        return uop.ConstOp.from_number(0, t)
    value = FloatAttr(0.0, t) if isinstance(t, AnyFloat) else IntegerAttr(0, t)  # type: ignore[arg-type]
    return arith.ConstantOp(value)


def _stand_in(value: SSAValue, op: Operation) -> SSAValue:
    """What replaces ``value`` (a result of ``op``, which is going away): an operand of ``op`` of the same type,
    else a new constant inserted before ``op``."""
    for operand in op.operands:
        if operand.type == value.type:
            return operand
    const = _zero_constant(value.type, op.dialect_name())
    const.location = op.location
    op.parent_block().insert_op_before(const, op)  # type: ignore[union-attr]
    return const.results[0]


# ---------------------------------------------------------------------------------------------
# removing ops


def _symbol_uses(module: ModuleOp) -> set[str]:
    """The root names of every symbol reference in the module (callees, launched kernels)."""
    used: set[str] = set()

    def visit(attr: Attribute) -> None:
        if isinstance(attr, SymbolRefAttr):
            used.add(attr.root_reference.data)
        elif isinstance(attr, ArrayAttr):
            for a in attr.data:
                visit(a)

    for op in module.walk():
        for attr in (*op.properties.values(), *op.attributes.values()):
            visit(attr)
    return used


def _removable_ops(module: ModuleOp) -> list[Operation]:
    """Ops that can go: not terminators, not constants something still uses (a constant could only be
    replaced by another constant), not symbols something refers to."""
    used = _symbol_uses(module)
    sites = []
    for op in module.walk():
        if op is module or op.has_trait(IsTerminator):
            continue
        if is_constant(op) and op.results[0].uses:
            continue
        if (sym := op.get_trait(SymbolOpInterface)) is not None:
            name = sym.get_sym_attr_name(op)
            if name is None or name.data in used:
                continue
        sites.append(op)
    return sites


def _remove_ops(ops: Sequence[Operation]) -> None:
    for op in reversed(ops):  # later ops first: an earlier op in the chunk may stand in for a later one's result
        if op.parent is None:  # inside an op of this chunk that is already gone
            continue
        for result in op.results:
            if result.uses:
                result.replace_all_uses_with(_stand_in(result, op))
        op.detach()
        op.erase()


# ---------------------------------------------------------------------------------------------
# function signatures


def _function_results(module: ModuleOp) -> list[tuple[func.FuncOp, int]]:
    """(function, result index) of functions nothing calls, last results first (so indices stay valid)."""
    called = _symbol_uses(module)
    return [(f, i) for f in _functions(module) if f.sym_name.data not in called
            for i in reversed(range(len(f.function_type.outputs)))]


def _drop_results(sites: Sequence[tuple[func.FuncOp, int]]) -> None:
    for f, i in sites:
        for ret in _returns(f):
            ret.operands = [*ret.operands[:i], *ret.operands[i + 1:]]
        if f.res_attrs is not None:
            f.res_attrs = ArrayAttr([*f.res_attrs.data[:i], *f.res_attrs.data[i + 1:]])
        f.update_function_type()


def _function_args(module: ModuleOp) -> list[tuple[func.FuncOp, int]]:
    """(function, argument index) of functions nothing calls, last arguments first."""
    called = _symbol_uses(module)
    return [(f, i) for f in _functions(module) if f.sym_name.data not in called and not f.is_declaration
            for i in reversed(range(len(f.args)))]


def _drop_args(sites: Sequence[tuple[func.FuncOp, int]]) -> None:
    """Drop each argument; a used one is replaced by a constant at the top of the function."""
    for f, i in sites:
        block = f.body.blocks.first
        assert block is not None
        arg = block.args[i]
        if arg.uses:
            const = _zero_constant(arg.type, "graph" if isinstance(arg.type, TensorType) else "arith")
            const.location = f.location
            block.insert_op_before(const, block.first_op) if block.first_op else block.add_op(const)
            arg.replace_all_uses_with(const.results[0])
        block.erase_arg(arg)
        if f.arg_attrs is not None:
            f.arg_attrs = ArrayAttr([*f.arg_attrs.data[:i], *f.arg_attrs.data[i + 1:]])
        f.update_function_type()


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp)]


def _returns(f: func.FuncOp) -> list[Operation]:
    return [b.last_op for b in f.body.blocks if b.last_op is not None and b.last_op.has_trait(IsTerminator)]


# ---------------------------------------------------------------------------------------------
# shapes: a dim's size everywhere it appears


def _dims(module: ModuleOp) -> list[tuple[ModuleOp, int | str]]:
    """Each distinct static dim above 1 and each symbolic dim in the module's shaped types, largest first."""
    found: set[int | str] = set()
    for t in _shaped_types(module):
        found.update(d for d in t.shape if d != 1 and d != 0)
    symbolic = sorted(d for d in found if isinstance(d, str))
    static = sorted((d for d in found if isinstance(d, int)), reverse=True)
    return [(module, d) for d in (*symbolic, *static)]


def _shaped_types(module: ModuleOp) -> list[_ShapedType]:
    return [v.type for v in _values(module) if isinstance(v.type, _ShapedType)]


def _values(module: ModuleOp) -> list[SSAValue]:
    values: list[SSAValue] = []
    for op in module.walk():
        values.extend(op.results)
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.args)
    return values


def _resize(new_size: Callable[[int | str], int]) -> Callable[[Sequence[tuple[ModuleOp, int | str]]], None]:
    """An edit that gives every chosen dim (static or symbolic) the size ``new_size(dim)`` in every type."""

    def apply(sites: Sequence[tuple[ModuleOp, int | str]]) -> None:
        if not sites:
            return
        module = sites[0][0]
        sizes = {d: new_size(d) for _, d in sites}

        def resized(t: Attribute) -> Attribute:
            if not isinstance(t, _ShapedType):
                return t
            return type(t)([sizes.get(d, d) for d in t.shape], t.element_type)

        for value in _values(module):
            if (new_type := resized(value.type)) != value.type:
                Rewriter.replace_value_with_new_type(value, new_type)
        for f in _functions(module):  # a splat constant follows its result type; a dense one then fails to verify
            if not f.is_declaration:
                f.update_function_type()

    return apply


# ---------------------------------------------------------------------------------------------
# constants: dense to splat, values to 0 or 1


def _dense_constants(module: ModuleOp) -> list[graph.ConstantOp]:
    return [op for op in module.walk()
            if isinstance(op, graph.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr)]


def _to_splat(ops: Sequence[graph.ConstantOp]) -> None:
    """Each dense constant becomes a splat of its first element."""
    for op in ops:
        values = op.value.get_values()  # type: ignore[union-attr]
        first = values[0] if values else 0
        op.value = graph.ConstantOp.splat(first, op.res.type).value  # type: ignore[arg-type]


def _scalar_constants(keep: tuple[float, ...]) -> Callable[[ModuleOp], list[Operation]]:
    """Splat and scalar constants whose value is not one of ``keep``."""

    def sites(module: ModuleOp) -> list[Operation]:
        return [op for op in module.walk()
                if is_constant(op) and isinstance(v := _value_of(op), FloatAttr | IntegerAttr)
                and v.value.data not in keep]

    return sites


def _set_value(number: int) -> Callable[[Sequence[Operation]], None]:
    def apply(ops: Sequence[Operation]) -> None:
        for op in ops:
            v = _value_of(op)
            if isinstance(v.type, IntegerType) and v.type.width.data == 1:
                new: Attribute = IntegerAttr(min(number, 1), v.type)
            else:
                new = FloatAttr(float(number), v.type) if isinstance(v, FloatAttr) else IntegerAttr(number, v.type)
            _set_value_of(op, new)

    return apply


def _value_of(op: Operation) -> Any:
    return op.properties.get("value", op.attributes.get("value"))


def _set_value_of(op: Operation, value: Attribute) -> None:
    if "value" in op.properties:
        op.properties["value"] = value
    else:
        op.attributes["value"] = value


STEPS: tuple[Step, ...] = (
    Step("remove-ops", _removable_ops, _remove_ops),
    Step("drop-results", _function_results, _drop_results),
    Step("drop-arguments", _function_args, _drop_args),
    Step("splat-constants", _dense_constants, _to_splat),
    Step("dims-to-one", _dims, _resize(lambda d: 1)),
    Step("halve-dims", lambda m: [s for s in _dims(m) if isinstance(s[1], int)], _resize(lambda d: int(d) // 2)),
    Step("constants-to-zero", _scalar_constants((0,)), _set_value(0)),
    Step("constants-to-one", _scalar_constants((0, 1)), _set_value(1)),
)
"""In the order the reducer tries them: removing ops first shrinks everything the later steps look at."""

__all__ = ["STEPS", "CannotApply", "Step", "is_constant"]
