"""What a toolchain hands the runtime: the entry addresses of loaded kernels and what keeps their code mapped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class LoadedKernels:
    """Entry addresses of loaded kernels, and the handle (JIT library, CDLL) that keeps their code mapped."""

    addresses: Mapping[str, int]
    handle: object


ENTRY_SUFFIX = "__entry"


def entry_name(kernel: str) -> str:
    """The name of a CPU kernel's uniform entry, ``void entry(void **args, int64_t lo, int64_t hi)``, which both
    CPU emitters add next to every kernel: it loads the kernel's arguments from ``args`` (a buffer as its pointer,
    a symbol as an int64 in a pointer-sized slot) and calls it on ``[lo, hi)``, so the native runner
    (runtime/runner.c) calls every kernel the same way (docs/internals.md, "CPU calling convention")."""
    return kernel + ENTRY_SUFFIX
