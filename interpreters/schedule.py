"""Runs a schedule: the ``func.func`` over ``!kernel.buffer`` values that ``convert-graph-to-kernel`` leaves
beside its kernels (``kernel.symbol``, ``kernel.alloc``, ``kernel.launch``, ``func.return``).

The kernel and the uop interpreter both run schedules through ``run_schedule`` and differ only in how one
launch executes (``Launcher``). Buffers are flat numpy arrays (row-major, ``numel`` elements). Allocations that
``kernel-plan-memory`` put in one slot share their memory here too, and fresh memory is filled with all-ones
bytes (NaN for floats, -1 for integers), so a wrong memory plan or a read of an element no kernel wrote shows
up in the results instead of passing by luck.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from kiln.dialects import kernel as K
from kiln.dialects.types import BufferType, numel, to_numpy
from kiln.interpreters.graph import InterpretError, bind_inputs, bound_shape, find_function

Launcher = Callable[[Operation, list[object], Mapping[str, int]], None]
"""Executes one launch: (the callee op, its arguments — flat arrays for buffers, ints for index values —, the
bound symbols). Writes its outputs in place."""

_GARBAGE = 0xFF
"""The byte fresh memory is filled with."""


def _layout(op: K.AllocOp, symbols: Mapping[str, int]) -> tuple[np.dtype, int]:
    """(element dtype, size in bytes) of an alloc's buffer with the symbols bound."""
    t = op.result.type
    assert isinstance(t, BufferType)  # the op's constraint
    dtype = to_numpy(t.element_type)
    return dtype, numel(bound_shape(t.shape, symbols, "kernel.alloc")) * dtype.itemsize


def _slot_memory(f: func.FuncOp, symbols: Mapping[str, int]) -> dict[int, np.ndarray]:
    """One byte array per storage slot, as large as the largest alloc that uses it."""
    sizes: dict[int, int] = {}
    for op in f.body.block.ops:
        if isinstance(op, K.AllocOp) and op.slot is not None:
            slot = op.slot.value.data
            sizes[slot] = max(sizes.get(slot, 0), _layout(op, symbols)[1])
    return {slot: np.full(size, _GARBAGE, np.uint8) for slot, size in sizes.items()}


def _allocate(op: K.AllocOp, symbols: Mapping[str, int], slots: dict[int, np.ndarray]) -> np.ndarray:
    """A flat array for ``op``: a view of its slot's memory, or fresh memory when it has no slot."""
    dtype, size = _layout(op, symbols)
    memory = slots[op.slot.value.data] if op.slot is not None else np.full(size, _GARBAGE, np.uint8)
    return memory[:size].view(dtype)


def run_schedule(
    module: ModuleOp,
    function_name: str,
    inputs: Sequence[np.ndarray],
    dims: Mapping[str, int] | None,
    launch: Launcher,
) -> list[np.ndarray]:
    """Run the schedule ``function_name`` of ``module`` on ``inputs`` (arrays of its buffer types); returns one
    fresh array per result, shaped like the result's buffer type."""
    f = find_function(module, function_name)
    arrays, symbols = bind_inputs(f, inputs, dims, BufferType)
    env: dict[SSAValue, object] = {a: np.array(x, order="C", copy=True).reshape(-1) for a, x in zip(f.args, arrays)}
    slots = _slot_memory(f, symbols)
    for op in f.body.block.ops:
        if isinstance(op, K.SymbolOp):
            name = op.symbol.data
            if name not in symbols:
                raise InterpretError(f"@{function_name}: symbolic dim '{name}' is not fixed by the inputs; pass it in dims")
            env[op.result] = symbols[name]
        elif isinstance(op, K.AllocOp):
            env[op.result] = _allocate(op, symbols, slots)
        elif isinstance(op, K.LaunchOp):
            callee = SymbolTable.lookup_symbol(module, op.callee)
            if callee is None:
                raise InterpretError(f"kernel.launch @{op.callee.string_value()}: no such kernel in the module")
            launch(callee, [env[a] for a in op.args], symbols)
        elif isinstance(op, func.ReturnOp):
            return [
                np.array(env[v], copy=True).reshape(bound_shape(v.type.shape, symbols, "func.return"))  # type: ignore[attr-defined]
                for v in op.arguments
            ]
        else:
            raise InterpretError(f"a schedule cannot run '{op.name}'")
    raise InterpretError(f"@{function_name} has no func.return")
