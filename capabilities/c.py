"""The cpu-c target: C11 compiled by the system C compiler (``$CC``) into a shared library.

Native ALU ops are those with a C operator or a ``<math.h>`` function (``expf``, ``tanhf``, ``erff``,
``fmaf``, ...), as the op declarations (``kiln.dialects.ops``) render them for "c"; the others (``rsqrt``,
``sign``, ...) are decomposed. f32 ``expf``/``logf`` stay libm calls but in loops
without inner loops, where ``uop-decompose`` computes them in software and marks the kernel ``LOOP_VECTORIZE``:
gcc runs with its loop vectorizer off, the C emitter turns it on for those functions, and it vectorizes that
code (softmax over 4096x4096 on one thread: 28 ms against 83-99 ms with ``expf``; gcc's SLP vectorizer alone
left the code scalar, 141-174 ms). Note for the emitter: gcc 12
computes with ``_Float16`` but has ``__bf16`` only as a storage type, so bf16 goes through float.
"""

from __future__ import annotations

from kiln.capabilities.description import TargetDescription, host_cpu_description



def describe() -> TargetDescription:
    return host_cpu_description("cpu-c", "c")
