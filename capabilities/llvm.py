"""The cpu-llvm target: LLVM IR JIT-compiled by llvmlite for the host CPU.

Native ALU ops (rendered for "llvm" by the op declarations, ``kiln.dialects.ops``) are the ones with a single
LLVM instruction or intrinsic (``llvm.exp``, ``llvm.tanh``,
``llvm.fma``, ``llvm.pow``, ...). ``rsqrt`` and ``sign`` are decomposed into other ALU ops, ``erf`` into a
polynomial: LLVM has no intrinsic for them. ``exp``, ``exp2``, ``log`` and ``log2`` are native on f64 only
(``LIBM_F64_ONLY``): their intrinsics are libm calls, which keep a loop scalar, where ``uop-decompose``'s code
for f32 (and f16/bf16, computed in f32) vectorizes.
"""

from __future__ import annotations

from kiln.capabilities.description import TargetDescription, host_cpu_description



def describe() -> TargetDescription:
    return host_cpu_description("cpu-llvm", "llvm", vectorizes_loops=True)
