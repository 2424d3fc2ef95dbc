"""A static cost estimate of a kernel, from its structure alone: how the search ranks candidates before it
spends time compiling and timing them.

The estimate counts the executions of every load, store and ALU op (the product of the sizes of the ranges it
depends on; a reduce removes the ranges it combines over, so loop-invariant loads count once per tile), divides
the ones that vary along an upcast or unrolled range by the vector lanes they can fill, divides everything by
the threads that run in parallel, and doubles it when the accumulators would not fit the vector registers.
It is a ranking, not a prediction: a candidate's real time always comes from the device.
"""

from __future__ import annotations

import math

from xdsl.ir import Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.types import declared_dims, dtype_name, is_dtype
from kiln.passes.optimize.space import (
    EXPANDED_KINDS,
    AxisKind,
    Strides,
    const_size,
    dependencies,
    kind,
    ranges,
    size_bound,
    symbol_names,
)
from kiln.capabilities.description import TargetDescription

def estimate(kernel: K.KernelOp, target: TargetDescription) -> float:
    """Relative cost of running ``kernel`` on ``target`` (lower is faster)."""
    bounds = declared_dims(kernel)
    symbols = symbol_names(kernel)
    sizes = {r.result: size_bound(r, bounds, symbols) for r in ranges(kernel)}
    deps = dependencies(kernel)
    strides = Strides(kernel)
    total = 0.0
    for op in kernel.body.block.ops:
        if isinstance(op, K.ConstOp | K.RangeOp) or not (op.results or isinstance(op, K.StoreOp)):
            continue
        found = deps[op]
        count = math.prod(sizes[r] for r in found)
        total += count / _lanes(op, found, strides, target)
    return total / _parallel(kernel, target, sizes) * _spill_factor(kernel, target)


def _lanes(op: Operation, found: frozenset[SSAValue], strides: Strides, target: TargetDescription) -> int:
    """The vector lanes an op fills: the contiguous upcast/unroll range it varies along, up to the width."""
    t = op.value.type if isinstance(op, K.StoreOp) else op.results[0].type
    width = target.vector_width(dtype_name(t)) if is_dtype(t) else 1  # index math stays scalar
    best = 1
    for v in found:
        r = v.owner
        assert isinstance(r, K.RangeOp)
        if kind(r) not in EXPANDED_KINDS:
            continue
        if isinstance(op, K.LoadOp | K.StoreOp) and strides.stride(op, r) != 1:
            continue
        best = max(best, min(width, const_size(r) or 1))
    return best


def _parallel(kernel: K.KernelOp, target: TargetDescription, sizes: dict[SSAValue, int]) -> float:
    """Threads running at once: CPU cores the core range can be split over, or GPU threads (capped)."""
    outer = [r for r in ranges(kernel) if kind(r) in (AxisKind.THREAD, AxisKind.GLOBAL, AxisKind.LOCAL)]
    if target.cpu_cores is not None:
        threads = [r for r in outer if kind(r) == AxisKind.THREAD] or [r for r in outer if kind(r) == AxisKind.GLOBAL]
        return min(target.cpu_cores, sizes[threads[0].result]) if threads else 1
    return min(1 << 16, math.prod(sizes[r.result] for r in outer)) if outer else 1


def _spill_factor(kernel: K.KernelOp, target: TargetDescription) -> float:
    """2 when the accumulators of the reduces need more vector registers than a CPU has."""
    if target.cpu_cores is None:
        return 1.0
    expanded = math.prod(const_size(r) or 1 for r in ranges(kernel) if kind(r) == AxisKind.UPCAST)
    width = max(1, target.vector_bytes // 4)
    return 2.0 if expanded / width > target.vector_registers - 4 else 1.0
