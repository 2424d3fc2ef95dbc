"""The cuda target: PTX for NVIDIA GPUs (sm_80 Ampere, sm_90 Hopper), assembled by nvJitLink.

Capabilities as data for the passes (``describe()``) plus the PTX facts the emitter and toolchain share:
which sm versions kiln emits for, the PTX ISA ``.version`` each needs, and the tensor-core shapes.

Native ALU ops are the ones with one PTX instruction of IEEE-or-documented accuracy on f32: ``div.rn``,
``sqrt.rn``, ``rcp.rn``, ``rsqrt.approx`` (2^-22.9 relative), ``ex2.approx``/``lg2.approx`` (2 ulp / 2^-22),
``sin.approx``/``cos.approx`` (2^-20.5 absolute on |x| <= 100*pi), ``cvt.rzi/rmi/rpi`` for trunc/floor/ceil,
``max.NaN``/``min.NaN`` (sm_80+; propagate NaN as the graph level requires), ``div.s``/``rem.s`` (C semantics),
``shl``/``shr`` (amounts >= width clamp to width: 0, or -1 for a negative signed ``shr``, as the graph level
requires), ``selp``, ``fma.rn``. Decomposed: ``exp``/``log`` (through exp2/log2), ``tanh``
(``tanh.approx`` is only 2^-11 accurate), ``erf``, ``sign``, ``pow``. The transcendental instructions
(``F32_ONLY``) exist for f32 only: they are native for f32 and for f16/bf16 (which the conversion computes in
f32 through ``cvt``); on f64 ``uop-decompose`` builds them in software from f64/i64 arithmetic.
"""

from __future__ import annotations

from kiln.support.dtypes import DTYPE_FACTS, dtype_itemsize
from kiln.capabilities.description import TargetDescription
from kiln.dialects.ops.table import natively_rendered

NATIVE, NATIVE_DTYPES = natively_rendered("ptx")
"""The ALU ops the op declarations (``kiln.dialects.ops``) render for PTX, and the dtypes of those restricted."""
F32_ONLY = frozenset(NATIVE_DTYPES)
"""ALU ops whose PTX instruction (``ex2``/``lg2``/``sin``/``cos`` ``.approx.f32``) has no f64 form."""

PTX_ISA_VERSION: dict[str, str] = {"sm_80": "7.0", "sm_90": "7.8"}
"""The lowest PTX ISA ``.version`` that allows ``.target sm_XX`` (checked with nvJitLink 13.5; 7.0 is also the
first with ``mma.m16n8k16`` for f16/bf16). Lower is kinder to older drivers that JIT the PTX themselves."""

SM_VERSIONS: tuple[str, ...] = tuple(PTX_ISA_VERSION)
"""The sm architectures kiln emits PTX for and validates against."""

WARP_SIZE = 32
STATIC_SHARED_MEMORY_BYTES = 48 * 1024
"""Statically declared ``.shared`` memory per block; more needs the dynamic opt-in, which kiln does not use."""

TENSOR_CORE_SHAPES: dict[str, tuple[tuple[int, int, int], tuple[str, ...], str]] = {
    "sm_80": ((16, 8, 16), ("f16", "bf16"), "f32"),
    "sm_90": ((16, 8, 16), ("f16", "bf16"), "f32"),
}
"""``mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32`` per sm: (M, N, K), input dtypes, accumulator."""


def ptx_header(arch: str) -> str:
    """The three directives every kiln PTX module starts with, for ``arch`` ("sm_80" or "sm_90")."""
    if arch not in PTX_ISA_VERSION:
        raise ValueError(f"unsupported CUDA architecture '{arch}' (expected one of {', '.join(SM_VERSIONS)})")
    return f".version {PTX_ISA_VERSION[arch]}\n.target {arch}\n.address_size 64\n"


def describe() -> TargetDescription:
    """Every kiln dtype (f16/bf16 and sub-32-bit ints compute through ``cvt``), 32-bit index, CUDA limits."""
    return TargetDescription(
        name="cuda",
        dtypes=frozenset(DTYPE_FACTS),
        alu_ops=NATIVE,
        native_dtypes=NATIVE_DTYPES,
        index_bits=32,
        vector_bytes=16,
        # PTX vector loads/stores are .v2/.v4 of one element type, 16 bytes at most.
        vector_widths={d: min(4, 16 // dtype_itemsize(d)) for d in sorted(DTYPE_FACTS)},
        has_local=True,
        local_memory_bytes=STATIC_SHARED_MEMORY_BYTES,
        max_workgroup_size=1024,
        max_workgroup_dims=(1024, 1024, 64),
        max_grid_dims=(2**31 - 1, 65535, 65535),
    )
