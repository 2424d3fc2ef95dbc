"""The cpu-c target: C11 compiled by the system C compiler (``$CC``) into a shared library.

Native ALU ops are those with a C operator or a ``<math.h>`` function (``expf``, ``tanhf``, ``erff``,
``fmaf``, ...); ``rsqrt`` and ``sign`` are decomposed. f32 ``expf``/``logf`` stay libm calls: gcc runs with its
loop vectorizer off and its SLP vectorizer leaves ``uop-decompose``'s software exp (which LLVM vectorizes)
scalar, slower than glibc's (``LIBM_F64_ONLY``). Note for the emitter: gcc 12
computes with ``_Float16`` but has ``__bf16`` only as a storage type, so bf16 goes through float.
"""

from __future__ import annotations

from kiln.targets.description import TargetDescription, host_cpu_description

DECOMPOSED = frozenset({"rsqrt", "sign"})


def describe() -> TargetDescription:
    return host_cpu_description("cpu-c", DECOMPOSED)
