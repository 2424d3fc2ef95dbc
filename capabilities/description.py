"""What a target can do, as data: the table that decompositions, legality checks and optimizers read.

A pass never asks "am I compiling for CUDA?"; it asks the ``TargetDescription``: is this dtype supported, is
this ALU op native on this dtype (else ``uop-decompose``
rewrites it), how many lanes does a vector of f32 have, are there
workgroup-local memory and barriers, how large may a launch grid be. Each target's module builds its description
in a ``describe()`` function (host features are probed at run time); ``get_target(name)`` imports that module
lazily, so asking for "cpu-c" never imports wgpu or cuda.
"""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass, field

from kiln.dialects.ops.table import OPS, natively_rendered
from kiln.support.dtypes import DTYPE_FACTS, dtype_itemsize
from kiln.support.env import env_int

ALU_OPS = frozenset(op.name for op in OPS)
"""The ALU op names shared by the kernel and uop dialects (``kiln.dialects.alu``'s table is made from the same
op declarations; read from them so that describing a target imports no xDSL)."""

_DESCRIPTION_MODULES: dict[str, str] = {
    "cpu-llvm": "kiln.capabilities.llvm",
    "cpu-c": "kiln.capabilities.c",
    "cuda": "kiln.capabilities.ptx",
    "webgpu": "kiln.capabilities.wgsl",
}
"""Target name -> module exposing ``describe() -> TargetDescription``."""


@dataclass(frozen=True)
class TargetDescription:
    """A target's capabilities. GPU-only limits are None on CPU targets; ``cpu_cores`` is None on GPUs."""

    name: str
    dtypes: frozenset[str]
    """dtype names (keys of ``kiln.support.dtypes.DTYPE_FACTS``) the target can load, store and compute with."""
    alu_ops: frozenset[str]
    """ALU ops the emitter writes directly; ``uop-decompose`` rewrites the others in terms of these."""
    index_bits: int
    """Width of the ``index`` type in generated code (64 on CPUs; 32 on most GPUs)."""
    vector_bytes: int
    """Width of the widest native SIMD register (CPU) or vector load (GPU), in bytes."""
    vector_registers: int = 16
    """CPU: architectural SIMD registers of that width (x86-64: 32 with AVX-512, else 16; AArch64: 32). A
    register tile's accumulators, its loaded vectors and a broadcast must fit, or the compiler spills them in
    the inner loop. GPUs: not used."""
    has_local: bool = False
    """Workgroup-local memory and barriers exist (``local``/``group_reduce`` ranges, ``uop.define_local``)."""
    has_threads: bool = False
    """Launches can be split across CPU cores through ``core_start``/``core_end`` (the ``thread`` range kind)."""
    local_memory_bytes: int | None = None
    max_workgroup_size: int | None = None
    max_workgroup_dims: tuple[int, int, int] | None = None
    max_grid_dims: tuple[int, int, int] | None = None
    cpu_cores: int | None = None
    """Threads a CPU launch may be split into (the cores this process may run on)."""
    max_loop_iterations: int | None = None
    """GPU: loop iterations one invocation may run, summed over all its loops (a nested loop counts each inner
    iteration); None: no limit. Mesa's lavapipe ends an invocation after 65535 and keeps what it computed so
    far, so a longer reduction must be split across threads (``kernel-optimize``) or is refused."""
    vector_widths: dict[str, int] = field(default_factory=dict, hash=False)
    """Lanes of a native vector per dtype; filled from ``vector_bytes`` when left empty."""
    vectorizes_loops: bool = False
    """CPU: the target's compiler vectorizes plain loops itself, float reductions included (LLVM: kiln's float
    ops carry ``reassoc``). When false the heuristic writes the vector lanes as upcasts (gcc runs with its loop
    vectorizer off; its SLP vectorizer packs the lanes)."""
    broadcast_reduce_bytes: int = 0
    """CPU: each thread runs a kernel's output ranges as nested loops and the linearizer computes a reduction
    outside the loops it does not depend on, so a reduction broadcast along inner ranges (softmax's row max)
    costs one computation per outer point and can live in its consumer's kernel. The most bytes such a
    reduction may read per result (its input should stay in cache for the consumer's loops); 0: never (GPU
    threads would each recompute it), the scheduler realizes it."""
    reciprocal_divisors: bool = False
    """``uop-decompose`` turns a float ``a / d`` whose ``d`` is defined outside the loop around the division into
    ``a * (1 / d)``, the reciprocal computed once before the loop (softmax's ``e / sum``: one division per row
    instead of one per element, which a CPU divides several times slower than it multiplies). Costs at most
    1 ulp: 1.5 ulp instead of 0.5, while 1/d is a normal number (|d| within [2^-126, 2^126] in f32)."""
    reduces_lanes: bool = False
    """The conversion takes ``uop.reduce_lanes`` whole, on the dtypes its kind is native for (CPUs: cpu-llvm as
    shuffle steps, cpu-c through the prelude's ``kiln_reduce_*`` helpers). Elsewhere ``uop-decompose`` writes the
    lanes out: extracts and a pairwise tree of ALU ops."""
    native_dtypes: dict[str, frozenset[str]] = field(default_factory=dict, hash=False)
    """ALU op -> the only dtypes (names, or "index") it is native for; an op of ``alu_ops`` that is absent is
    native for every dtype it applies to. On the others ``uop-decompose`` rewrites it (PTX: ``ex2.approx``
    exists for f32, not f64)."""

    def __post_init__(self) -> None:
        restricted = set().union(*self.native_dtypes.values())
        unknown = (
            (self.dtypes - DTYPE_FACTS.keys())
            | (self.alu_ops - ALU_OPS)
            | (self.native_dtypes.keys() - ALU_OPS)
            | (restricted - DTYPE_FACTS.keys() - {"index"})
        )
        if unknown:
            raise ValueError(f"target '{self.name}': unknown dtypes or ALU ops {sorted(unknown)}")
        if not self.vector_widths:
            widths = {d: max(1, self.vector_bytes // dtype_itemsize(d)) for d in sorted(self.dtypes)}
            object.__setattr__(self, "vector_widths", widths)

    def supports_dtype(self, dtype: str) -> bool:
        return dtype in self.dtypes

    def is_native(self, alu_op: str, dtype: str | None = None) -> bool:
        """Whether the emitter writes ``alu_op`` directly on ``dtype`` (a dtype name or "index"); without a
        dtype, whether it does on at least one dtype."""
        if alu_op not in self.alu_ops:
            return False
        only = self.native_dtypes.get(alu_op)
        return dtype is None or only is None or dtype in only

    def vector_width(self, dtype: str) -> int:
        """Lanes of one native vector of ``dtype`` (1 if the target has no vectors of it)."""
        return self.vector_widths.get(dtype, 1)


@functools.cache
def get_target(name: str) -> TargetDescription:
    """The description of a target by name ("cpu-llvm", "cpu-c", "cuda", "webgpu"); computed once per process."""
    from kiln.support.errors import KilnError

    if name not in _DESCRIPTION_MODULES:
        raise KilnError(f"unknown target '{name}' (expected one of {', '.join(_DESCRIPTION_MODULES)})")
    try:
        module = importlib.import_module(_DESCRIPTION_MODULES[name])
    except ModuleNotFoundError as e:
        raise KilnError(f"target '{name}' is not available: {e}") from None
    return module.describe()


def target_for_pass(pass_name: str, name: str) -> TargetDescription:
    """``get_target(name)`` for the ``target`` option of pass ``pass_name``: a target that is unknown or not
    available here fails the pass (xDSL's ``PassFailedException``, which the tools report as one line, prefixed
    with the pass name) rather than escaping as a ``KilnError`` from the middle of a pipeline."""
    from xdsl.utils.exceptions import PassFailedException

    from kiln.support.errors import KilnError

    try:
        return get_target(name)
    except KilnError as e:
        raise PassFailedException(f"{pass_name}: {e}") from None


def target_names() -> list[str]:
    return list(_DESCRIPTION_MODULES)


HOST_FUSED_REDUCE_BYTES = 1 << 17
"""A fused row of up to 128 KiB stays in any host's L2 between the consumer's loops."""


LIBM_F64_ONLY = frozenset({"exp", "exp_nonpositive", "exp2", "log", "log2"})
"""ALU ops the CPU targets leave to libm on f64 only: on f32 (and f16/bf16, computed in f32) ``uop-decompose``
builds them from arithmetic, bit operations and selects, which the compilers vectorize, where a libm call per
element keeps the loop scalar (softmax over 4096x4096: 32M ``expf`` calls). ``uop-decompose`` does so only in
loops without inner loops (the loops a compiler vectorizes): after a matmul's k loop the op has a copy per
register-tile element, and the software code there compiled for seconds and ran 40x slower than the libm calls
(256x256 matmul + exp on cpu-llvm: 4 s and 9 ms against 1.2 s and 0.23 ms without the exp). gcc (cpu-c)
vectorizes the software code only with its loop vectorizer, so those kernels are marked ``LOOP_VECTORIZE``;
docs/targets.md has the figures."""
LIBM_ON_F64 = {op: frozenset({"f64"}) for op in sorted(LIBM_F64_ONLY)}
"""``native_dtypes`` entries for ``LIBM_F64_ONLY`` where ``uop-decompose`` builds them in software."""


LOOP_VECTORIZE = "loop_vectorize"
"""Kernel attribute ``uop-decompose`` sets where it builds ``LIBM_F64_ONLY`` ops in software for a target whose
compiler runs without its loop vectorizer (cpu-c): gcc's SLP vectorizer leaves that code scalar, slower than
libm, so the C emitter turns gcc's loop vectorizer on for that function alone (globally it turns register-tiled
matmuls into gathers)."""


def host_cpu_description(name: str, emitter: str, vectorizes_loops: bool = False) -> TargetDescription:
    """A host-CPU target: every dtype, the ALU ops the op declarations render natively for ``emitter`` ("c",
    "llvm"; ``LIBM_F64_ONLY`` on f32 only in innermost loops, see there), 64-bit index, host SIMD width, threads, reductions fused into their consumers,
    loop-invariant divisors as reciprocals, vectors' lanes reduced whole."""
    return TargetDescription(
        name=name,
        dtypes=frozenset(DTYPE_FACTS),
        alu_ops=natively_rendered(emitter)[0],
        index_bits=64,
        vector_bytes=host_vector_bytes(),
        vector_registers=host_vector_registers(),
        has_threads=True,
        cpu_cores=usable_cores(),
        vectorizes_loops=vectorizes_loops,
        broadcast_reduce_bytes=HOST_FUSED_REDUCE_BYTES,
        reciprocal_divisors=True,
        reduces_lanes=True,
    )


def usable_cores() -> int:
    """CPU cores this process may run on (affinity-aware); ``KILN_THREADS`` overrides it."""
    if threads := env_int("KILN_THREADS", 0, 1):
        return threads
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


HOST_CPU_NAMESPACE = "host-cpu"
"""The disk cache's namespace for ``host_cpu``'s answer, under the machine's CPU identity and llvmlite's version."""


@functools.cache
def host_cpu() -> tuple[str, str, str]:
    """(triple, CPU name, feature string) of this machine as LLVM sees it; part of every host-code cache key.

    Asking LLVM means loading it (~0.15 s of a later process that otherwise would not: cpu-c, or before the
    cache hit), so the answer is kept in the disk cache under what the kernel reports of the CPU
    (``cpu_identity``); without that report, LLVM is asked every time."""
    from kiln.support import cache
    from kiln.support.versions import package_version

    identity = cpu_identity()
    key = (identity, package_version("llvmlite"))
    if identity is not None and (kept := cache.get(HOST_CPU_NAMESPACE, key)) is not None:
        triple, name, features = kept.decode().split("\n")
        return triple, name, features
    import llvmlite.binding as llvm

    probed = llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    if identity is not None:
        cache.put(HOST_CPU_NAMESPACE, key, "\n".join(probed).encode())
    return probed


_CPU_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags",
               "CPU implementer", "CPU architecture", "CPU variant", "CPU part", "CPU revision", "Features")
"""The lines of ``/proc/cpuinfo`` that say which CPU this is and what it can do (x86, then AArch64); not the
ones that change while it runs (``cpu MHz``, ``bogomips``)."""


def cpu_identity() -> str | None:
    """The machine's architecture and the distinct identifying lines of ``/proc/cpuinfo``, sorted; None where
    there is no such file (not Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    fields = {" ".join(line.split()) for line in lines if line.split(":")[0].strip() in _CPU_FIELDS}
    return "\n".join([os.uname().machine, *sorted(fields)])


def host_vector_bytes() -> int:
    """The host's SIMD width: AVX-512 64 bytes, AVX2 32, else 16 (SSE/NEON)."""
    features = set(host_cpu()[2].split(","))
    if "+avx512f" in features:
        return 64
    if "+avx2" in features:
        return 32
    return 16


def host_vector_registers() -> int:
    """The host's SIMD registers: 32 on AArch64 and with AVX-512, else 16 (x86-64's ymm/xmm0-15)."""
    triple = host_cpu()[0]
    if triple.startswith(("aarch64", "arm64")) or "+avx512f" in host_cpu()[2].split(","):
        return 32
    return 16
