"""`kernel-plan-memory`: intermediate buffers whose lifetimes do not overlap share storage.

A buffer lives from the launch that first uses it to the launch that last uses it (inclusive: a kernel
never reads and writes the same storage). Buffers are assigned greedily, in order of first use, to a
free slot (best fit by size at the symbols' upper bounds), else to a new slot. Function results get
slots of their own, so a result is never overwritten by a later kernel. The function records
`kernel.peak_bytes` (the slots' sizes at the symbols' upper bounds) and `kernel.unplanned_bytes`
(what one buffer per value would take), so the saving shows in the IR. The GPU devices allocate these slots;
the CPU runtime packs the same buffers into one arena per binding of the symbols (``kiln.runtime.arena``), which
needs no more than the slots and often less (a slot is as large as its largest buffer for every later one).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from kiln.dialects import kernel as K
from kiln.dialects.types import DIMS_KEY, BufferType, DimsAttr, itemsize


def _bytes_upper(t: BufferType, bounds: dict[str, tuple[int, int]]) -> int:
    n = itemsize(t.element_type)
    for d in t.shape:
        n *= bounds[d][1] if isinstance(d, str) else d
    return n


def plan(fn: func.FuncOp) -> tuple[int, int]:
    """Assign slots to the allocs of a schedule function; returns (peak bytes, unplanned bytes)."""
    dims = fn.attributes.get(DIMS_KEY)
    bounds = dims.bounds if isinstance(dims, DimsAttr) else {}
    body = fn.body.blocks.first
    assert body is not None
    allocs = [op for op in body.ops if isinstance(op, K.AllocOp)]
    launches = [op for op in body.ops if isinstance(op, K.LaunchOp)]
    ret = body.last_op
    results = set(ret.operands) if isinstance(ret, func.ReturnOp) else set()
    first: dict[K.AllocOp, int] = {}
    last: dict[K.AllocOp, int] = {}
    for i, launch in enumerate(launches):
        for a in launch.args:
            if isinstance(a.owner, K.AllocOp):
                first.setdefault(a.owner, i)
                last[a.owner] = i
    slot_size: list[int] = []
    slot_free_after: list[int | None] = []  # None: held to the end (a function result)
    unplanned = 0
    for alloc in sorted(allocs, key=lambda a: first.get(a, len(launches))):
        size = _bytes_upper(alloc.result.type, bounds)  # type: ignore[arg-type]
        unplanned += size
        start = first.get(alloc, len(launches))
        is_result = alloc.result in results
        free = [
            s for s, end in enumerate(slot_free_after) if end is not None and end < start and not is_result
        ]
        if free:
            slot = min(free, key=lambda s: (slot_size[s] < size, abs(slot_size[s] - size)))
            slot_size[slot] = max(slot_size[slot], size)
        else:
            slot = len(slot_size)
            slot_size.append(size)
            slot_free_after.append(None)
        slot_free_after[slot] = None if is_result else last.get(alloc, start)
        alloc.properties["slot"] = IntegerAttr(slot, i64)
    return sum(slot_size), unplanned


class KernelPlanMemory(ModulePass):
    """Assign storage slots to the intermediate buffers of every schedule and record the peak memory."""

    name = "kernel-plan-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and any(isinstance(o, K.AllocOp) for o in fn.walk()):
                peak, unplanned = plan(fn)
                fn.attributes["kernel.peak_bytes"] = IntegerAttr(peak, i64)
                fn.attributes["kernel.unplanned_bytes"] = IntegerAttr(unplanned, i64)
