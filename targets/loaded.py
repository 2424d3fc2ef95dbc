"""What a toolchain hands the runtime: the entry addresses of loaded kernels and what keeps their code mapped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

@dataclass(frozen=True)
class LoadedKernels:
    """Entry addresses of loaded kernels, and the handle (JIT library, CDLL) that keeps their code mapped."""

    addresses: Mapping[str, int]
    handle: object
