"""``convert-kernel-to-uop{target=...}``: the linearizer. Every ``kernel.kernel`` becomes a ``uop.kernel`` of the
same name (the schedule ``func.func`` and its ``kernel.launch`` ops are left as they are).

The steps live in ``kiln.lowering.linearize``: ``instantiate`` places each kernel value in a tree of scopes
(loops, accumulators for reduces, copies for upcast/unroll ranges), ``launch`` maps the outer ranges to the
target (CPU thread slice and loops, or GPU ids with guards), ``group`` combines the partials of reduces over
``group_reduce`` ranges across a GPU workgroup (local memory and barriers; its docstring states the kernel-level
contract), ``rows`` makes a register tile's rows vector values from the start, ``vectorize`` merges consecutive
lanes that remain (the lane path) into vector loads/stores, ``vector_alu`` their ALU and accumulators into vector
ops, and ``emit`` writes the ops in
dependency order. See docs/internals.md for the contract.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from kiln.dialects.kernel import KernelOp
from kiln.dialects.types import DIMS_KEY
from kiln.dialects.uop import UopKernelOp
from kiln.lowering.linearize.emit import emit
from kiln.lowering.linearize.instantiate import Instantiator
from kiln.lowering.linearize.vector_alu import GATHERED_STEP_KINDS, AluVectorizer
from kiln.lowering.linearize.vectorize import Vectorizer, lane_groups
from kiln.capabilities.description import TargetDescription, target_for_pass
from kiln.support.locations import inherit_locations

COPIED_ATTRIBUTES = ("symbols", DIMS_KEY, "opts")
"""``kernel.kernel`` attributes the ``uop.kernel`` keeps."""


def linearize(kernel: KernelOp, target: TargetDescription, vector_alu: bool = True) -> UopKernelOp:
    """The ``uop.kernel`` for ``kernel`` on ``target`` (upcast lanes left scalar but for their loads and stores
    without ``vector_alu``)."""
    inst = Instantiator(kernel, target, rows=vector_alu)
    program = inst.run()
    Vectorizer(program, inst.ranges, target).run(inst.accesses, inst.fragment_pairs)
    if vector_alu:
        stores = [a.node for a in inst.accesses if a.node.op == "store"]
        c_like = target.cpu_cores is not None and not target.vectorizes_loops  # a CPU whose compiler packs no loops
        gathered = GATHERED_STEP_KINDS if c_like else frozenset()
        AluVectorizer(program, target.vector_width, gathered).run(lane_groups(inst.accumulators, inst.ranges), stores)
    attributes = {k: v for k, v in kernel.attributes.items() if k in COPIED_ATTRIBUTES}
    result = UopKernelOp(kernel.sym_name.data, attributes=attributes | inst.launch.attributes())
    emit(program, result.body.block)
    result.location = kernel.location  # the graph ops' lines: the kernel's ops, and what targets make of them
    inherit_locations(result)
    return result


@dataclass(frozen=True)
class ConvertKernelToUop(ModulePass):
    """Linearize every kernel.kernel into a uop.kernel for the target (cpu-llvm, cpu-c, cuda, webgpu)."""

    name = "convert-kernel-to-uop"

    target: str = "cpu-llvm"
    vector_alu: bool = True
    """Pack the upcast lanes' ALU ops and accumulators into vector uops (``linearize/vector_alu.py``); false
    leaves them scalar, as before issue 12 (for comparisons)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target)
        for kernel in [k for k in op.ops if isinstance(k, KernelOp)]:
            op.body.block.insert_op_before(linearize(kernel, target, self.vector_alu), kernel)
            kernel.detach()
            kernel.erase()
