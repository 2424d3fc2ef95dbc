"""Why a function was compiled rather than read from the disk cache: the compile cache's key, part by part.

The program cache key is made of named parts (``key_parts``). After each compile or hit, the digests of the
parts are kept per function and device (``support.cache.remember``); on the next miss, ``why_compiled``
compares: no earlier entry, or which parts changed (the input IR, the pipeline or pass options, the target
description, the toolchain's version, kiln's own code), or none (the entry was evicted or cleared).
``KILN_DEBUG=1`` and ``kiln-run --explain`` print the answer.
"""

from __future__ import annotations

import dataclasses
import json

from kiln.support import cache
from kiln.support.errors import KilnError
from kiln.support.versions import package_version

PROGRAM_NAMESPACE = "program"
"""The driver's cache of compiled programs; its index (``program-index``) keeps the parts explained here."""

INPUT, PIPELINE, TARGET, TOOLCHAIN, CODE = (
    "input IR", "pipeline or pass options", "target description", "toolchain version", "kiln's code",
)


def key_parts(module_text: str, device: str, pipeline: str) -> dict[str, str]:
    """The named parts of a program's cache key, besides the function name and device (the index's name)."""
    return {
        INPUT: module_text,
        PIPELINE: pipeline,
        TARGET: target_description(device),
        TOOLCHAIN: toolchain_version(device),
        CODE: cache.code_fingerprint(),
    }


def target_description(device: str) -> str:
    """The device's `TargetDescription` as stable text (sets sorted); the device name when it has none here."""
    from kiln.capabilities.description import get_target

    try:
        description = get_target(device)
    except KilnError:
        return device
    return json.dumps(dataclasses.asdict(description), sort_keys=True, default=sorted)


def toolchain_version(device: str) -> str:
    """The versions of what turns the device's source into machine code (the C compiler's first --version line,
    LLVM's version, the GPU packages)."""
    if device == "cpu-c":
        from kiln.targets.c.toolchain import compiler, compiler_version

        try:
            return compiler_version(compiler())
        except KilnError as e:
            return str(e)
    if device == "cpu-llvm":
        import llvmlite.binding as llvm

        return f"llvmlite {package_version('llvmlite')} LLVM {'.'.join(map(str, llvm.llvm_version_info))}"
    packages = {"cuda": ("cuda-python", "nvidia-nvjitlink"), "webgpu": ("wgpu",)}.get(device, ())
    return " ".join(f"{p} {package_version(p)}" for p in packages)


def why_compiled(index: str, parts: dict[str, str]) -> str:
    """Why the program under ``index`` (function and device) was not in the cache, for people."""
    if cache.cache_dir() is None:
        return "the cache is off (KILN_NO_CACHE)"
    changed = cache.changed(PROGRAM_NAMESPACE, index, parts)
    if changed is None:
        return "no earlier entry for this function"
    if not changed:
        return "same key as the last compile, but its entry is gone (evicted or cleared)"
    return " and ".join(changed) + " changed since the last compile"


def remember(index: str, parts: dict[str, str]) -> None:
    cache.remember(PROGRAM_NAMESPACE, index, parts)
