"""`kernel-dedupe`: kernels that are structurally identical become one kernel, launched wherever any of them was.

A network repeats its layers (ResNet-50's 16 bottleneck blocks make 90 kernels of which 61 differ), and every
stage after scheduling (`kernel-optimize`, the linearizer, the target conversion, the emitter and the target's
compiler) costs time per kernel. Two kernels are identical when their argument types, attributes other than
the name, and bodies are: the same ops in the same order with the same properties, attributes and result
types, reading values defined at the same positions. Value names and locations do not count. The first kernel
of each class stays; the launches of the others call it, and the others are erased. Running it before
`kernel-optimize` means the optimizer, too, decides each class once; its decisions depend only on the kernel
and the target, so every launch gets the kernel it would have had.
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from kiln.dialects import kernel as K
from kiln.support.statistics import Statistic

KERNELS_DEDUPED = Statistic("kernels-deduped", "Number of kernel.kernel ops replaced by an identical kernel")


def structure(kernel: K.KernelOp) -> Hashable | None:
    """What makes ``kernel`` the kernel it is, as a hashable value equal for identical kernels; None when its
    body holds nested regions (kernels have none today; such a kernel is left alone rather than compared)."""
    position: dict[SSAValue, int] = {arg: i for i, arg in enumerate(kernel.args)}
    ops: list[Hashable] = []
    for op in kernel.body.block.ops:
        if op.regions:
            return None
        ops.append((
            op.name,
            tuple(position[v] for v in op.operands),
            tuple(r.type for r in op.results),
            tuple(sorted(op.properties.items())),
            tuple(sorted(op.attributes.items())),
        ))
        for r in op.results:
            position[r] = len(position)
    return (kernel.arg_types, tuple(sorted(kernel.attributes.items())), tuple(ops))


def dedupe(module: ModuleOp) -> int:
    """Merge the identical kernels of ``module``; returns how many were erased."""
    first: dict[Hashable, str] = {}
    replaced: dict[str, str] = {}
    for op in list(module.ops):
        if not isinstance(op, K.KernelOp) or (key := structure(op)) is None:
            continue
        name = op.sym_name.data
        if key in first:
            replaced[name] = first[key]
            module.body.block.erase_op(op)
        else:
            first[key] = name
    if replaced:
        for launch in _launches(module):
            if (to := replaced.get(launch.callee.string_value())) is not None:
                launch.properties["callee"] = SymbolRefAttr(to)
    return len(replaced)


def _launches(module: ModuleOp) -> list[K.LaunchOp]:
    """The launches of the module's schedule functions (they sit in the functions' top-level blocks)."""
    return [op for fn in module.ops if isinstance(fn, func.FuncOp) for block in fn.body.blocks for op in block.ops
            if isinstance(op, K.LaunchOp)]


class KernelDedupe(ModulePass):
    """Merge structurally identical kernel.kernel ops: one kernel per class, launched by every launch of the
    class."""

    name = "kernel-dedupe"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        KERNELS_DEDUPED.bump(dedupe(op))
