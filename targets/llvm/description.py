"""The cpu-llvm target: LLVM IR JIT-compiled by llvmlite for the host CPU.

Native ALU ops are the ones with a single LLVM instruction or intrinsic (``llvm.exp``, ``llvm.tanh``,
``llvm.fma``, ``llvm.pow``, ...). ``rsqrt`` and ``sign`` are decomposed into other ALU ops, ``erf`` into a
polynomial: LLVM has no intrinsic for them.
"""

from __future__ import annotations

from kiln.targets.description import TargetDescription, host_cpu_description

DECOMPOSED = frozenset({"rsqrt", "sign", "erf"})


def describe() -> TargetDescription:
    return host_cpu_description("cpu-llvm", DECOMPOSED, vectorizes_loops=True)
