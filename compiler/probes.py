"""Does the linearizer implement a feature for a target? Linearize a tiny kernel that needs it and look.

The heuristic only chooses opts the next pass can lower, and reads that from the target description
(``kiln.passes.optimize.heuristic.linearizer_supports``). The tests ask the linearizer itself, through these
probes, for every target, so the declared answer cannot drift from what the linearizer does.
"""

from __future__ import annotations

from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import uop as U
from kiln.dialects.kernel import KernelOp
from kiln.capabilities.description import TargetDescription
from kiln.compiler.registry import make_context
from kiln.lowering.kernel_to_uop import linearize
from kiln.support.errors import KilnError

_PROBES = {
    "group_reduce": """
kernel.kernel @probe(%x: !kernel.buffer<64xf32>, %out: !kernel.buffer<1xf32>) attributes {symbols = []} {
  %c0 = kernel.const 0 : index
  %c4 = kernel.const 4 : index
  %c16 = kernel.const 16 : index
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %k16 = kernel.mul %k, %c16 : index
  %i = kernel.add %k16, %g : index
  %v = kernel.load %x[%i] : f32
  %s = kernel.reduce add %v over %k, %g : f32
  kernel.store %out[%c0], %s
}""",
    "tensor_core": """
kernel.kernel @probe(%a: !kernel.buffer<16x16xf16>, %b: !kernel.buffer<16x8xf16>, %out: !kernel.buffer<16x8xf32>)
    attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %i = kernel.range %c16 upcast
  %j = kernel.range %c8 upcast
  %k = kernel.range %c16 unroll
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  %s = kernel.reduce add %p over %k {tensor_core = "m16n8k16"} : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %s
}""",
}


def probe_linearizer(target: TargetDescription, feature: str) -> bool:
    """True when a kernel using ``feature`` linearizes for ``target`` (for tensor cores: into ``uop.wmma``)."""

    module = Parser(make_context(), _PROBES[feature]).parse_module()
    kernel = next(op for op in module.ops if isinstance(op, KernelOp))
    try:
        result = linearize(kernel, target)
    except (DiagnosticException, KilnError):  # the linearizer refused the feature for this target
        return False
    return feature != "tensor_core" or any(isinstance(op, U.WmmaOp) for op in result.body.block.ops)
