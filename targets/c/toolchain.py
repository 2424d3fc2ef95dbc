"""C source -> shared library (system C compiler) -> callable kernels, with the ``.so`` kept in the disk cache.

The compiler is ``$CC`` (default ``cc``). Optimization flags default to ``GCC_FLAGS``, or ``CLANG_FLAGS`` when
``$CC --version`` names clang (clang rejects gcc's ``-ftree-*``, ``-fsched-pressure`` and ``-fira-*`` spellings); ``KILN_CFLAGS``
or the ``flags`` argument replace them. ``-fPIC -shared`` and ``-lm`` are always added, since the result must be a
shared library that may call ``<math.h>``. The default is -O3, not -O2: gcc 12's -O2 uses the "very cheap"
vectorizer cost model, which leaves loops with a run-time trip count scalar (a 1M-float add kernel: 286 us at
-O2, 111 us at -O3, measured here). ``-fno-tree-loop-vectorize``: kernel-optimize already writes the vector
lanes out (upcast), which gcc's SLP vectorizer packs back into vectors; its loop vectorizer instead vectorized
the reduce loop of register-tiled matmuls with gathers and spilled the accumulators (256x256 matmul: 2 GFLOP/s
and 7-15 s compiles; 135 GFLOP/s and 1.4-2 s without it, memory-bound kernels unchanged; docs/performance.md).
``-ftree-loop-if-convert``: without the loop vectorizer gcc no longer if-converts loop bodies, so each select
(``relu``'s NaN-propagating max) stays a branch and SLP packs nothing across it; with it the 16 upcast lanes of
``relu(a*b+c)`` become one zmm FMA, compare and masked move (16M elements, 2 cores under load: 51 -> 37 ms;
matmuls and compile times unchanged). ``-fno-trapping-math``: kiln promises no floating-point exception flags,
and with trapping math gcc refuses to if-convert a float ``?:`` (a comparison may raise "invalid"), so the
clamps of the software ``exp`` stayed branches that jump threading then multiplied: softmax over 4096x4096 ran
scalar (474 ms against 136 ms with the flag, 2 cores under load). It changes no result: NaNs, infinities, signed
zeros and rounding are kept (that is ``-ffinite-math-only``, ``-fno-signed-zeros``, ``-frounding-math``).
``-fschedule-insns -fsched-pressure`` (gcc only): without the scheduling pass before register allocation, gcc 12 folds a
register tile's vector loads into every FMA that uses them (a 4x16 f32 tile: 12 loads per 8 FMAs instead of 6,
so the loop is load-bound on znver3's two 256-bit load ports); with it each load is one register, as LLVM's code
has (ResNet-50's 1x1 64->256 layer: 1.8 -> 1.25 ms at best, cpu-llvm 1.24 ms; docs/performance.md "cpu-c,
session 7"). The pressure-aware variant keeps the schedule from spilling. ``-fira-region=one`` (gcc only): gcc's
default regional allocator decides a loop's registers apart from the code around it, and a register tile's
reduce loop with values live across it but unused in it (a conv's 8 broadcast biases, which gcc's invariant
motion places before the loop nest; 16 accumulators besides) then spilled its own FMA operands inside the loop
on a 32-register AVX-512 host while 4 zmm registers stayed unused; one region for the whole function spills the
values the loop does not touch, outside it (ShuffleNet's 1x1 conv + bias + residual + relu: 192 -> 85 us,
SqueezeNet's 3x3 16->64 conv 684 -> 559 us, one core; docs/performance.md "gcc's register allocation regions,
session 11"). clang gets the same choices in its own
spellings: ``-fno-vectorize`` turns off its loop vectorizer and keeps the SLP one; its if-conversion and
pre-allocation scheduling need no flag.

Cache: the ``.so`` lives in the disk cache (namespace ``c-so``) under a key of the source, the compiler's path
and the first line of its ``--version``, the flags, and the host CPU (``-march=native`` code is only valid on the
CPU it was built on). It is built in a temporary folder and moved into place atomically. A cached library that
no longer loads (truncated, corrupt) is deleted and rebuilt once. With the cache off, the library is built in a
temporary folder that is removed once the library is loaded.

``check_c`` is the validator for generated C: ``cc -std=c11 -Wall -Werror -fsyntax-only``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from kiln.support import cache
from kiln.support.errors import CompileError, KilnError
from kiln.targets.loaded import LoadedKernels
from kiln.capabilities.description import host_cpu, usable_cores

GCC_FLAGS = ("-O3", "-march=native", "-ffp-contract=fast", "-fno-trapping-math", "-fno-tree-loop-vectorize",
             "-ftree-loop-if-convert", "-fschedule-insns", "-fsched-pressure", "-fira-region=one", "-std=c11")
CLANG_FLAGS = ("-O3", "-march=native", "-ffp-contract=fast", "-fno-trapping-math", "-fno-vectorize", "-std=c11")
SHARED_LIBRARY_FLAGS = ("-fPIC", "-shared")
CHECK_FLAGS = ("-std=c11", "-Wall", "-Werror", "-fsyntax-only")
LIBRARY_NAMESPACE = "c-so"
SOURCE_NAME = "kernels.c"  # the file name compiler messages refer to


def compiler() -> str:
    """Absolute path of the C compiler (``$CC`` or ``cc``)."""
    name = os.environ.get("CC") or "cc"
    path = shutil.which(name)
    if path is None:
        raise KilnError(f"C compiler '{name}' not found (set $CC to a C compiler)")
    return path


@functools.cache
def compiler_version(path: str) -> str:
    """First line of ``<compiler> --version`` (which compiler and release it is)."""
    result = subprocess.run([path, "--version"], capture_output=True, text=True, check=False, env=_c_locale())
    return result.stdout.splitlines()[0] if result.stdout else ""


def default_flags(path: str) -> tuple[str, ...]:
    """The optimization flags for the compiler at ``path``: ``CLANG_FLAGS`` for clang, else ``GCC_FLAGS``."""
    return CLANG_FLAGS if "clang" in compiler_version(path) else GCC_FLAGS


def resolve_flags(flags: str | Sequence[str] | None = None) -> list[str]:
    """The optimization flags to use: the argument, else ``$KILN_CFLAGS``, else the compiler's ``default_flags``."""
    if flags is None:
        flags = os.environ.get("KILN_CFLAGS")
    if flags is None:
        return list(default_flags(compiler()))
    return shlex.split(flags) if isinstance(flags, str) else list(flags)


def check_c(source: str) -> None:
    """Raise ``CompileError`` with the compiler's messages unless ``source`` compiles cleanly with -Wall -Werror."""
    with tempfile.TemporaryDirectory(prefix="kiln-c-") as folder:
        _run([compiler(), *CHECK_FLAGS, SOURCE_NAME], source, Path(folder), "C source failed the compiler check")


def compile_c(source: str, flags: str | Sequence[str] | None = None) -> Path:
    """A shared library built from ``source``: the cached one if it exists, else freshly compiled into the cache.

    With the cache off, the library is in a temporary folder the caller owns (``load_c`` removes it).
    """
    cc, opt = compiler(), resolve_flags(flags)
    key = (source, cc, compiler_version(cc), shlex.join(opt), *host_cpu())
    target = cache.path_for(LIBRARY_NAMESPACE, key, ".so")
    if target is not None and target.exists():
        return target
    # build next to the cache entry (same file system, so the final os.replace is atomic)
    try:
        folder = Path(tempfile.mkdtemp(prefix=".tmp-", dir=None if target is None else target.parent))
    except OSError:  # a cache folder we may not write to: build outside the cache
        folder, target = Path(tempfile.mkdtemp(prefix="kiln-c-")), None
    built = folder / "kernels.so"
    try:
        _run([cc, *opt, *SHARED_LIBRARY_FLAGS, SOURCE_NAME, "-o", built.name, "-lm"], source, folder, "C compilation failed")
        if target is not None:
            os.replace(built, target)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if target is None:
        return built
    shutil.rmtree(folder, ignore_errors=True)
    return target


def load_c(source: str, names: Iterable[str], flags: str | Sequence[str] | None = None) -> LoadedKernels:
    """Compile (or fetch from the cache) ``source`` and return the addresses of the functions ``names``."""
    return load_c_units([source], names, flags)


def load_c_units(sources: Sequence[str], names: Iterable[str], flags: str | Sequence[str] | None = None) -> LoadedKernels:
    """Compile (or fetch from the cache) each translation unit of ``sources`` into a shared library of its own,
    side by side (one C compiler per usable core: gcc uses one), and return the addresses of the functions
    ``names`` across them. The handle keeps every library loaded."""
    sources = list(sources)
    paths = _compile_all(sources, flags)
    libraries = [_open(source, path, flags) for source, path in zip(sources, paths)]
    addresses = {}
    for name in dict.fromkeys(names):
        found = [lib for lib in libraries if hasattr(lib, name)]
        if not found:
            raise CompileError(f"the compiled C library has no function '{name}'")
        addresses[name] = ctypes.cast(getattr(found[0], name), ctypes.c_void_p).value
    return LoadedKernels(addresses, libraries[0] if len(libraries) == 1 else tuple(libraries))


def _compile_all(sources: list[str], flags: str | Sequence[str] | None) -> list[Path]:
    """``compile_c`` of every source, in parallel threads when there are several and cores to spare (each
    thread waits on its compiler process). Every unit is built even when one fails; the first error is raised."""
    parallel = min(len(sources), usable_cores())
    if parallel <= 1:
        return [compile_c(source, flags) for source in sources]
    with ThreadPoolExecutor(parallel, thread_name_prefix="kiln-cc") as pool:
        # largest first, so that a long unit does not start last
        order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
        futures = {i: pool.submit(compile_c, sources[i], flags) for i in order}
        wait(futures.values())
    for future in futures.values():
        if (error := future.exception()) is not None:
            raise error
    return [futures[i].result() for i in range(len(sources))]


def _open(source: str, path: Path, flags: str | Sequence[str] | None) -> ctypes.CDLL:
    """The loaded library at ``path``, built from ``source``: a damaged cache entry is rebuilt once; a library
    built outside the cache has its folder removed once loaded."""
    try:
        return ctypes.CDLL(str(path))
    except OSError:
        if not _is_cached(path):
            raise
        cache.remove(path)  # a damaged cache entry: rebuild it once
        path = compile_c(source, flags)
        return ctypes.CDLL(str(path))
    finally:
        if not _is_cached(path):
            shutil.rmtree(path.parent, ignore_errors=True)


def _is_cached(path: Path) -> bool:
    root = cache.cache_dir()
    return root is not None and path.parent == root / LIBRARY_NAMESPACE


def _run(command: list[str], source: str, folder: Path, what: str) -> None:
    (folder / SOURCE_NAME).write_text(source)
    result = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False, env=_c_locale())
    if result.returncode != 0:
        raise CompileError(f"{what} ({shlex.join(command)}):\n{result.stderr.strip()}")


def _c_locale() -> dict[str, str]:
    """The environment with ``LC_ALL=C``: plain ASCII quotes in compiler messages, whatever the user's locale."""
    return {**os.environ, "LC_ALL": "C"}
