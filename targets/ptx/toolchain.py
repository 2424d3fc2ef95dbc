"""PTX text -> cubin with NVIDIA's nvJitLink, in-process and without a GPU (cuda-python's ``cuda.bindings``).

nvJitLink runs ptxas on the PTX; with ``-Xptxas=-Werror`` every ptxas warning is an error, so kiln never ships
PTX that the assembler complains about. Any failure (an unsupported architecture, a bad option, bad PTX) raises
``CompileError`` carrying nvJitLink's whole error log; where the log names PTX lines
(``ptxas application ptx input, line 36; error : Unknown symbol '%f9'``) the message quotes those lines too.
``-arch=sm_XX`` must be at least the PTX's ``.target``; a lower ``.target`` assembles for a newer sm.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kiln.support.errors import CompileError
from kiln.capabilities.ptx import SM_VERSIONS

PTXAS_OPTIONS: tuple[str, ...] = ("-Xptxas=-Werror",)

_LOG_LINE = re.compile(r"\bline (\d+)[;:]")


def available() -> tuple[bool, str]:
    """(True, "") when libnvJitLink can be loaded, else (False, why) — e.g. the wheel is not installed."""
    try:
        from cuda.bindings import nvjitlink

        major, minor = nvjitlink.version()
    except Exception as e:  # ImportError, or cuda.pathfinder's DynamicLibNotFoundError
        return False, f"nvJitLink is not available ({type(e).__name__}: {e}); pip install cuda-python nvidia-nvjitlink"
    return True, f"nvJitLink {major}.{minor}"


def assemble(ptx: str | bytes, arch: str = "sm_80", *, name: str = "kernel.ptx") -> bytes:
    """Assemble PTX for ``arch`` ("sm_80", "sm_90", ...) into a cubin (ELF bytes); ``CompileError`` on any
    error or ptxas warning. ``name`` labels the input in nvJitLink's messages."""
    from cuda.bindings import nvjitlink

    data = ptx.encode() if isinstance(ptx, str) else ptx
    options = [f"-arch={arch}", *PTXAS_OPTIONS]
    try:
        handle = nvjitlink.create(len(options), options)
    except nvjitlink.nvJitLinkError as e:
        raise CompileError(f"nvJitLink rejected the options {' '.join(options)}: {e}") from None
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as e:
            raise CompileError(_failure_message(arch, str(e), _error_log(handle), data)) from None
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


def validate(ptx: str | bytes, archs: Iterable[str] = SM_VERSIONS) -> None:
    """Check that ``ptx`` assembles cleanly for every arch in ``archs``; raise ``CompileError`` on the first failure."""
    for arch in archs:
        assemble(ptx, arch)


def _error_log(handle: int) -> str:
    from cuda.bindings import nvjitlink

    size = nvjitlink.get_error_log_size(handle)
    if size == 0:
        return ""
    log = bytearray(size)
    nvjitlink.get_error_log(handle, log)
    return bytes(log).rstrip(b"\x00").decode(errors="replace").strip()


def _failure_message(arch: str, status: str, log: str, ptx: bytes) -> str:
    """The nvJitLink log, then the PTX lines it refers to, numbered as ptxas counts them (from 1)."""
    message = f"PTX assembly for {arch} failed ({status}):\n{log}"
    lines = ptx.decode(errors="replace").splitlines()
    cited = sorted({int(m.group(1)) for m in _LOG_LINE.finditer(log)})
    quoted = [f"{n:5d} | {lines[n - 1].strip()}" for n in cited if 1 <= n <= len(lines)]
    if quoted:
        message += "\nat:\n" + "\n".join(quoted)
    return message
