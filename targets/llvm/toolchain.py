"""LLVM IR text -> verified, O3-optimized host object code -> callable kernels, with an on-disk object cache.

The pipeline (llvmlite 0.50, LLVM 22; see the project notes, backends.md section 1):
parse, verify (failures raise ``CompileError`` carrying LLVM's line:col message), set the host triple and data
layout, run the new pass manager's default O3 pipeline with loop and SLP vectorization tuned for the host CPU,
then ``emit_object``. Loading always goes through the object file, linked by JITLink into one process-wide ORC
LLJIT (one JITDylib per loaded library, resolving libm calls such as ``expf`` from the process).

A module whose functions include one longer than ``LOOP_VECTORIZE_MAX_LINES`` lines of IR is compiled as several
objects (``split_units``): the functions up to that size together, each longer one alone, without LLVM's loop
vectorizer, whose time grows with the square of a loop body's length (a 6,000-op elementwise chain spent 6.5 of
its 7 s compiling there; 0.04 s without it). A longer kernel loses only LLVM's SIMD loop; the SLP vectorizer
still runs on it.

Object caching: each object is stored in the disk cache (namespace ``llvm-obj``) under a key of the IR text, the
target triple, CPU name and features, the opt level and the llvmlite/LLVM versions. A hit loads the object into
the JIT without parsing the IR. LLJIT's ``add_object_img`` was measured faster than MCJIT's ``add_object_file``
(about 0.7 ms vs 1.8 ms per small object here; MCJIT also needs a fresh TargetMachine and an empty module per
engine, since the engine takes ownership of the TargetMachine).

Every LLVM call holds one lock: llvmlite shares one LLVMContext per process, which is not thread-safe.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm

from kiln.support import cache
from kiln.support.errors import CompileError
from kiln.targets.grouping import consecutive_groups
from kiln.targets.llvm import workers
from kiln.targets.loaded import ENTRY_SUFFIX, LoadedKernels
from kiln.capabilities.description import host_cpu

OBJECT_NAMESPACE = "llvm-obj"

_lock = threading.RLock()
_library_ids = itertools.count()


@functools.cache
def _init_native() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def _target_machine(opt_level: int) -> llvm.TargetMachine:
    _init_native()
    triple, cpu, features = host_cpu()
    return llvm.Target.from_triple(triple).create_target_machine(
        cpu=cpu, features=features, opt=opt_level, reloc="pic", codemodel="default"
    )


def parse_ir(ir: str) -> llvm.ModuleRef:
    """Parse and verify LLVM IR text; errors become ``CompileError`` with LLVM's message."""
    _init_native()
    with _lock:
        try:
            module = llvm.parse_assembly(ir)
        except RuntimeError as e:
            raise CompileError(f"invalid LLVM IR: {str(e).removeprefix('LLVM IR parsing error').strip()}") from None
        try:
            module.verify()
        except RuntimeError as e:
            raise CompileError(f"LLVM IR failed verification: {str(e).strip()}") from None
    return module


def optimize(module: llvm.ModuleRef, opt_level: int = 3, loop_vectorize: bool = True) -> llvm.TargetMachine:
    """Retarget ``module`` to the host and run the default O<opt_level> pipeline with vectorization on it (the
    loop vectorizer only when ``loop_vectorize``).

    Returns the target machine used, ready for ``emit_object``.
    """
    tm = _target_machine(opt_level)
    with _lock:
        module.triple = tm.triple
        module.data_layout = str(tm.target_data)
        tuning = llvm.create_pipeline_tuning_options(speed_level=opt_level)
        tuning.loop_vectorization = opt_level >= 2 and loop_vectorize
        tuning.slp_vectorization = opt_level >= 2
        passes = llvm.create_pass_builder(tm, tuning)
        passes.getModulePassManager().run(module, passes)
    return tm


def optimize_ir(ir: str, opt_level: int = 3) -> str:
    """The optimized IR text (for inspection and FileCheck tests)."""
    module = parse_ir(ir)
    optimize(module, opt_level)
    return str(module)


def object_key(ir: str, opt_level: int, loop_vectorize: bool = True) -> tuple[str, ...]:
    """Everything that changes the object code compiled from ``ir``."""
    triple, cpu, features = host_cpu()
    versions = f"llvmlite {llvmlite.__version__} LLVM {'.'.join(map(str, llvm.llvm_version_info))}"
    return (ir, triple, cpu, features, str(opt_level), f"loop-vectorize={loop_vectorize}", versions)


LOOP_VECTORIZE_MAX_LINES = 2000
"""The longest function (lines of IR) compiled with LLVM's loop vectorizer. ResNet-50's longest kernel has 545."""


@dataclass(frozen=True)
class Unit:
    """Part of a module, compiled to one object."""

    ir: str
    loop_vectorize: bool


def split_units(ir: str, parallel: int = 1) -> list[Unit]:
    """``ir`` as the modules it is compiled as, with ``parallel`` compilers at a time (the caller and its
    workers). A function longer than ``LOOP_VECTORIZE_MAX_LINES`` is a unit of its own, without the loop
    vectorizer; the shorter external functions are one unit, or, when they come to more than ``2 * UNIT_LINES``
    lines, consecutive groups of about ``UNIT_LINES`` (units compile in parallel, ``workers``), and at least two
    groups when ``parallel`` > 1 and they come to ``SPLIT_MIN_LINES`` (a matmul-bearing program's kernels: each
    unit costs LLVM ~6 ms of its own, a 600-line kernel ~30 ms). Every unit keeps the module's other top-level
    lines (triple, declarations) and its internal functions (helpers a kernel may call). Function definitions
    are the lines from ``define`` to ``}`` as llvmlite prints them. Beyond one compiler or several, the split
    depends on the IR alone, so a program's objects are the same for any core count above one. A kernel's
    uniform entry (``entry_name``) stays in its kernel's unit."""
    shared: list[str] = []
    functions: list[list[str]] = []
    body: list[str] = []
    for line in ir.splitlines():
        if not body and not line.startswith("define "):
            shared.append(line)
            continue
        body.append(line)
        if line != "}":
            continue
        if _INTERNAL.match(body[0]):
            shared.append("\n".join(body))
        elif _ENTRY.match(body[0]) and functions:
            functions[-1].extend(body)  # a kernel's entry (emitted right after it) calls it: same unit
        else:
            functions.append(body)
        body = []
    short = [f for f in functions if len(f) <= LOOP_VECTORIZE_MAX_LINES]
    long = ["\n".join(f) for f in functions if len(f) > LOOP_VECTORIZE_MAX_LINES]
    groups = _groups(short, parallel)
    if not long and len(groups) <= 1:
        return [Unit(ir, True)]
    head = "\n".join(shared) + "\n"
    units = [Unit(head + "\n".join("\n".join(f) for f in group) + "\n", True) for group in groups]
    return units + [Unit(head + f + "\n", False) for f in long]


UNIT_LINES = 4000
"""Lines of IR per unit when a module's short functions are split into several (``split_units``)."""


SPLIT_MIN_LINES = 600
"""Lines of IR of a module's short functions from which they are at least two units when compilers run side by
side (``split_units``)."""


def _groups(functions: list[list[str]], parallel: int) -> list[list[list[str]]]:
    """``functions`` in order, cut into groups of about equal length, each about ``UNIT_LINES`` lines; one group
    when they have at most ``2 * UNIT_LINES``, but two when ``parallel`` > 1 and they have ``SPLIT_MIN_LINES``."""
    total = sum(len(f) for f in functions)
    count = round(total / UNIT_LINES) if total > 2 * UNIT_LINES else 1
    if parallel > 1 and total >= SPLIT_MIN_LINES and len(functions) > 1:
        count = max(count, 2)
    if count <= 1:
        return [functions] if functions else []
    groups = consecutive_groups([len(f) for f in functions], count)
    return [[functions[i] for i in group] for group in groups]


_INTERNAL = re.compile(r"define\s+(internal|private)\b")
_ENTRY = re.compile(rf'define [^@]*@"?[^"(]*{re.escape(ENTRY_SUFFIX)}"?\(')


TRUNCSFBF2 = """
define weak hidden bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %top = lshr i32 %bits, 16
  %tie = and i32 %top, 1
  %half = add i32 %bits, 32767
  %biased = add i32 %half, %tie
  %rounded = lshr i32 %biased, 16
  %quiet = or i32 %top, 64
  %nan = fcmp uno float %x, %x
  %chosen = select i1 %nan, i32 %quiet, i32 %rounded
  %short = trunc i32 %chosen to i16
  %result = bitcast i16 %short to bfloat
  ret bfloat %result
}
"""
"""compiler-rt's f32 -> bf16 (to nearest even, NaN made quiet), which LLVM calls to legalize bfloat values on a host
without AVX512-BF16 (even a bf16 copy loop once vectorized) and which the JIT process does not have."""


def with_runtime_library(ir: str) -> str:
    """``ir`` plus the runtime-library functions its code may call (today: `TRUNCSFBF2` where bfloat appears)."""
    return ir + TRUNCSFBF2 if "bfloat" in ir and "@__truncsfbf2" not in ir else ir


def compile_objects(ir: str, opt_level: int = 3) -> list[bytes]:
    """Host object code for ``ir``, one object per unit (``split_units``), each from the disk cache when it was
    compiled before; the others compile in parallel (``workers``)."""
    units = split_units(ir, workers.worker_count() + 1)
    keys = [object_key(with_runtime_library(u.ir), opt_level, u.loop_vectorize) for u in units]
    objects: dict[int, bytes] = {}
    for i, key in enumerate(keys):
        if (obj := cache.get(OBJECT_NAMESPACE, key)) is not None:
            objects[i] = obj
    missing = [i for i in range(len(units)) if i not in objects]
    requests = [(units[i].ir, opt_level, units[i].loop_vectorize) for i in missing]
    # Stored here, not in the workers: a worker keeps the cache settings of its start (KILN_CACHE_DIR may change).
    for i, obj in zip(missing, workers.compile_all(requests, build_object)):
        cache.put(OBJECT_NAMESPACE, keys[i], obj)
        objects[i] = obj
    return [objects[i] for i in range(len(units))]


def compile_object(ir: str, opt_level: int = 3, loop_vectorize: bool = True) -> bytes:
    """Host object code for the module ``ir``, from the disk cache when it was compiled before."""
    key = object_key(with_runtime_library(ir), opt_level, loop_vectorize)
    obj = cache.get(OBJECT_NAMESPACE, key)
    if obj is None:
        obj = build_object(ir, opt_level, loop_vectorize)
        cache.put(OBJECT_NAMESPACE, key, obj)
    return obj


def build_object(ir: str, opt_level: int = 3, loop_vectorize: bool = True) -> bytes:
    """Host object code for the module ``ir``, compiled now (what a compile worker runs)."""
    module = parse_ir(with_runtime_library(ir))
    tm = optimize(module, opt_level, loop_vectorize)
    with _lock:
        return tm.emit_object(module)


@functools.cache
def _jit() -> tuple[llvm.LLJIT, llvm.TargetMachine]:
    """The process's JIT and the target machine it was made from (called under ``_lock``: created once).

    It links with JITLink, not RuntimeDyld: RuntimeDyld maps an object's code and its read-only data (the
    constant pools) separately, and once a long-lived process's address space was fragmented (many programs
    loaded and dropped, large arrays) the two could land more than 2 GiB apart, where a RIP-relative reference
    cannot reach: an assertion in LLVM (``isInt<32>(RealOffset)``, RuntimeDyldELF.cpp) aborted the test suite
    at varying points (three CI runs). JITLink puts all of an object's sections in one allocation and reaches
    other libraries (libm) through stubs; loading is as fast (ResNet-50's four objects: 2.3 ms against 2.6)."""
    tm = _target_machine(3)
    return llvm.create_lljit_compiler(tm, use_jit_link=True), tm


def load_objects(objects: list[bytes], names: Iterable[str]) -> LoadedKernels:
    """Link object files into the JIT, as one library, and return the addresses of the functions ``names``."""
    names = list(dict.fromkeys(names))
    builder = llvm.JITLibraryBuilder()
    for obj in objects:
        builder.add_object_img(obj)
    builder.add_current_process()
    for name in names:
        builder.export_symbol(name)
    with _lock:
        jit = _jit()
        try:
            tracker = builder.link(jit[0], f"kiln{next(_library_ids)}")
        except RuntimeError as e:
            raise CompileError(f"cannot load the compiled kernels: {e}") from None
    # the handle keeps the JIT (and its target machine) alive as long as the library; a tuple drops its
    # items last-first, so the library is removed before its JIT could be
    return LoadedKernels({name: tracker[name] for name in names}, (jit, tracker))


def load_kernels(ir: str, names: Iterable[str], opt_level: int = 3) -> LoadedKernels:
    """Compile (or fetch from the cache) and load the kernels ``names`` defined in ``ir``."""
    return load_objects(compile_objects(ir, opt_level), names)
