"""The cpu-c target: C11 compiled by the system C compiler (``$CC``) into a shared library.

Native ALU ops are those with a C operator or a ``<math.h>`` function (``expf``, ``tanhf``, ``erff``,
``fmaf``, ...); ``rsqrt`` and ``sign`` are decomposed, and so are f32 exp, exp2, log and log2 (``LIBM_F64_ONLY``):
gcc runs with its loop vectorizer off, but turns it on for the functions holding that code (``LOOP_VECTORIZE``),
which it then vectorizes (softmax over 4096x4096 on one thread: 28 ms against 83-99 ms with ``expf``; its SLP
vectorizer alone left the code scalar, 141-174 ms). Note for the emitter: gcc 12
computes with ``_Float16`` but has ``__bf16`` only as a storage type, so bf16 goes through float.
"""

from __future__ import annotations

from kiln.targets.description import TargetDescription, host_cpu_description

DECOMPOSED = frozenset({"rsqrt", "sign"})


def describe() -> TargetDescription:
    return host_cpu_description("cpu-c", DECOMPOSED)
