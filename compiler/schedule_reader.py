"""Read the program description (``ProgramSpec``) off a uop-level module: its schedule ``func.func`` and the
launch attributes of each ``uop.kernel`` (``core_extent``/``core_work`` on CPUs, ``global_size``/``local_size``
on GPUs; docs/internals.md). The kernels' source is filled in by the driver after emission."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr
from xdsl.dialects.func import ReturnOp

from kiln.dialects.kernel import AllocOp, LaunchOp, SymbolOp
from kiln.dialects.types import DIMS_KEY, BufferType, DimsAttr, dtype_name
from kiln.compiler.module import find_function
from kiln.passes.join_launches import CHUNK_SPAN, JOINED
from kiln.runtime.program import BufferSpec, KernelsArtifact, LaunchArg, LaunchSpec, ProgramSpec, TensorSpec
from kiln.support.errors import CompileError

LAUNCH_ATTRIBUTES = ("core_extent", "core_work", "global_size", "local_size")
"""``uop.kernel`` attributes copied into the ``LaunchSpec`` fields of the same names."""


def read_schedule(module: Any, function_name: str, target: str) -> ProgramSpec:
    """The ``ProgramSpec`` (with an empty kernel source) of a uop-level module's schedule ``func.func``."""
    func_op = find_function(module, function_name)
    where = f"the schedule @{function_name}"
    kernels = {op.sym_name.data: op for op in module.ops if op.name == "uop.kernel"}
    dims = func_op.attributes.get(DIMS_KEY)
    symbols = tuple(dims.data) if isinstance(dims, DimsAttr) else ()

    def buffer_type(value: Any, what: str) -> BufferType:
        if not isinstance(value.type, BufferType):
            raise CompileError(f"{what} of {where} is a {value.type}, expected a !kernel.buffer")
        return value.type

    buffer_ids: dict[Any, int] = {}
    symbol_names: dict[Any, str] = {}
    buffers: list[BufferSpec] = []
    inputs: list[TensorSpec] = []
    for i, arg in enumerate(func_op.body.block.args):
        t = buffer_type(arg, f"argument {i}")
        inputs.append(TensorSpec(t.shape, dtype_name(t.element_type)))
        buffer_ids[arg] = len(buffers)
        buffers.append(BufferSpec(len(buffers), t.shape, dtype_name(t.element_type), input=i))

    ops = list(func_op.body.block.ops)
    planned = [op.slot.value.data for op in ops if isinstance(op, AllocOp) and op.slot is not None]
    next_free_slot = max(planned, default=-1) + 1  # allocs the memory planner did not place get a slot each
    launches: list[LaunchSpec] = []
    outputs: tuple[int, ...] | None = None
    for op in ops:
        if isinstance(op, SymbolOp):
            symbol_names[op.result] = op.symbol.data
        elif isinstance(op, AllocOp):
            t = buffer_type(op.result, "a kernel.alloc")
            if op.slot is not None:
                slot = op.slot.value.data
            else:
                slot, next_free_slot = next_free_slot, next_free_slot + 1
            buffer_ids[op.result] = len(buffers)
            span = _plain(op.attributes.get(CHUNK_SPAN))
            buffers.append(BufferSpec(len(buffers), t.shape, dtype_name(t.element_type), slot=slot, chunk_span=span))
        elif isinstance(op, LaunchOp):
            name = op.callee.string_value()
            args: list[LaunchArg] = []
            for i, v in enumerate(op.args):
                if v in buffer_ids:
                    args.append(("buf", buffer_ids[v]))
                elif v in symbol_names:
                    args.append(("sym", symbol_names[v]))
                else:
                    raise CompileError(f"argument {i} of kernel.launch @{name} in {where} is neither a buffer nor a kernel.symbol")
            attributes = kernels[name].attributes if name in kernels else {}
            launch = {key: _plain(attributes.get(key)) for key in LAUNCH_ATTRIBUTES}
            if launch["core_extent"] is not None:
                launch["core_extent"] = str(launch["core_extent"])
            launches.append(LaunchSpec(name, tuple(args), **launch, joined=JOINED in op.attributes))
        elif isinstance(op, ReturnOp):
            if any(v not in buffer_ids for v in op.arguments):
                raise CompileError(f"{where} returns a value that is not a buffer")
            outputs = tuple(buffer_ids[v] for v in op.arguments)
        else:
            raise CompileError(f"unexpected {op.name} in {where} (expected kernel.symbol/alloc/launch, func.return)")
    if outputs is None:
        raise CompileError(f"{where} has no func.return")
    spec = ProgramSpec(
        function_name, tuple(inputs), symbols, tuple(buffers), outputs, tuple(launches), KernelsArtifact(target, "")
    )
    spec.validate()
    return spec


def _plain(attr: Any) -> Any:
    """The Python value of a launch attribute: str, int, or a tuple of them (None when absent or unknown)."""
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, ArrayAttr):
        return tuple(_plain(a) for a in attr.data)
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    return None
