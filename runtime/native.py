"""The native program runner (``runner.c`` beside this file): a C worker pool that spins and then sleeps,
and ``kiln_run``, which runs a program's whole launch list in one ctypes call (the GIL released for all of it).

The library is built by the C toolchain (``kiln.targets.c.toolchain.load_c``, with ``RUNNER_FLAGS`` rather than
the kernels' flags) and cached by its source like any kernel library, so a process builds it at most once per
cache. Where it cannot be built (no C compiler) ``runner()`` gives None once with a ``RuntimeWarning``, and
programs run through the Python launch loop (``kiln.runtime.program``).

A program is one int64 array (``program_words``, layout in ``runner.c``): per launch its kernel's uniform entry
(``kiln.targets.loaded.entry_name``), where its arguments start in the argument index list, its chunks,
whether it runs joined with the launches after it (``LaunchSpec.joined``), and its chunk-local buffer arguments
(``BufferSpec.chunk_span``: each thread's chunk gets a pointer into that thread's slot of the buffer). A
call passes the values the indices refer to: the input addresses, the arena and output addresses, the symbol
values (``Executable._run``).
"""

from __future__ import annotations

import ctypes
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kiln.support.errors import KilnError
from kiln.targets.c.toolchain import load_c

RUNNER_SOURCE = Path(__file__).with_name("runner.c")
RUNNER_FLAGS = ("-O2", "-std=c11", "-pthread")
"""No ``-march=native``: the runner's loops are tiny, and one library then serves every CPU of a shared cache."""

Range = tuple[int, int]


class Runner:
    """The loaded runner library's functions."""

    def __init__(self, library: ctypes.CDLL):
        self.library = library
        self.pool_create = library.kiln_pool_create
        self.pool_create.argtypes = (ctypes.c_int32, ctypes.c_int64, ctypes.c_int64)
        self.pool_create.restype = ctypes.c_void_p
        self.pool_destroy = library.kiln_pool_destroy
        self.pool_destroy.argtypes = (ctypes.c_void_p,)
        self.pool_destroy.restype = None
        self.pool_size = library.kiln_pool_size
        self.pool_size.argtypes = (ctypes.c_void_p,)
        self.pool_size.restype = ctypes.c_int32
        self.pool_idle_spin = library.kiln_pool_idle_spin
        self.pool_idle_spin.argtypes = (ctypes.c_void_p,)
        self.pool_idle_spin.restype = ctypes.c_int64
        self.pool_busy = library.kiln_pool_busy
        self.pool_busy.argtypes = (ctypes.c_void_p,)
        self.pool_busy.restype = ctypes.c_int32
        self.pool_lost_core = library.kiln_pool_lost_core
        self.pool_lost_core.argtypes = (ctypes.c_void_p,)
        self.pool_lost_core.restype = ctypes.c_int32
        self.run = library.kiln_run
        self.run.argtypes = (ctypes.c_void_p,) * 5
        self.run.restype = None


_runner: Runner | None = None
_tried = False
_lock = threading.Lock()


def runner() -> Runner | None:
    """The runner library, built on first use; None (warned once) when this machine cannot build it."""
    global _runner, _tried
    if not _tried:
        with _lock:
            if not _tried:
                try:
                    loaded = load_c(RUNNER_SOURCE.read_text(), [], RUNNER_FLAGS)
                    _runner = Runner(loaded.handle)  # type: ignore[arg-type]
                except KilnError as e:
                    message = f"kiln: the native CPU runner is unavailable, launches run from Python: {e}"
                    warnings.warn(message, RuntimeWarning, stacklevel=2)
                _tried = True
    return _runner


Slice = tuple[int, int, int]
"""A chunk-local buffer argument of a launch (``BufferSpec.chunk_span``): its position among the launch's
arguments, the bytes of it per index of the launch's core range, and the bytes of each thread's slot."""


def program_words(launches: Sequence[tuple[int, Sequence[int], Sequence[Range], int, Sequence[Slice]]]) -> np.ndarray:
    """The ``kiln_program`` of ``launches``, each (entry address, positions of its arguments among the call's
    values, chunks, stages: 1 for a launch run alone, n on the first of n joined launches, 0 on the others,
    its chunk-local buffer arguments)."""
    n_slices = sum(len(slices) for *_, slices in launches)
    header = [len(launches), sum(len(args) for _, args, _, _, _ in launches), n_slices]
    table: list[int] = []
    arg_index: list[int] = []
    slice_words: list[int] = []
    bounds: list[int] = []
    for entry, args, chunks, stages, slices in launches:
        table += [entry, len(arg_index), len(args), len(bounds) // 2, len(chunks), stages, len(slice_words) // 3,
                  len(slices)]
        arg_index += args
        for words in slices:
            slice_words += words
        for lo, hi in chunks:
            bounds += [lo, hi]
    return np.array(header + table + arg_index + slice_words + bounds, dtype=np.int64)
