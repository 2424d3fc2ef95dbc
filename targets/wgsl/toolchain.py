"""WGSL -> validated shader module, with naga inside wgpu-native; and the one wgpu device of the process.

naga only runs behind a wgpu device, so the device lives here: ``gpu()`` requests an adapter and a device once
per process (about 0.5-1 s on lavapipe), asking for the adapter's own compute limits and ``shader-f16`` where
offered, and caches the outcome (a failure too: ``DeviceUnavailable`` with the reason, every time).
``compile_shader`` turns naga's rejection into ``CompileError`` with naga's codespan report (file:line:col and
the offending source line); ``validate`` also builds a pipeline for an entry point, which checks that the entry
point exists and that its ``@workgroup_size`` fits the device.
"""

from __future__ import annotations

import functools
import os
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kiln.support.errors import CompileError, DeviceUnavailable
from kiln.capabilities.description import TargetDescription
from kiln.capabilities.wgsl import DEFAULT_LIMITS, OPTIONAL_FEATURES, describe_limits

if TYPE_CHECKING:
    import wgpu

@dataclass(frozen=True)
class GPU:
    """The process's wgpu adapter and device, the target they give, and what setting them up cost."""

    adapter: wgpu.GPUAdapter
    device: wgpu.GPUDevice
    target: TargetDescription
    init_seconds: float

    @property
    def name(self) -> str:
        info = self.adapter.info
        return f"{info['device']} ({info['adapter_type']}) via {info['backend_type']}"


_lock = threading.Lock()


def gpu() -> GPU:
    """The process-wide adapter + device, created on first use; ``DeviceUnavailable`` when there is none."""
    with _lock:
        result = _open_gpu()
    if isinstance(result, str):
        raise DeviceUnavailable(result)
    return result


def available() -> tuple[bool, str]:
    """(True, adapter name) when a WebGPU device can be opened, else (False, why)."""
    try:
        return True, gpu().name
    except DeviceUnavailable as e:
        return False, str(e)


def _private_runtime_dir() -> None:
    """Mesa's Vulkan loader prints "error: XDG_RUNTIME_DIR is invalid or not set" (twice) when the variable is
    unset, although the software device works without it; give it a private directory (mode 0700, as the XDG
    spec asks) so a successful run prints nothing."""
    if not os.environ.get("XDG_RUNTIME_DIR"):
        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="kiln-xdg-")


@functools.cache
def _open_gpu() -> GPU | str:
    start = time.perf_counter()
    _private_runtime_dir()
    try:
        import wgpu

        adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception as e:  # ImportError, or wgpu-native failing to load or to enumerate adapters
        return f"WebGPU is not available ({type(e).__name__}: {e}); pip install wgpu"
    if adapter is None:
        return "no WebGPU adapter found (on a machine without a GPU: apt-get install mesa-vulkan-drivers)"
    limits = {key: max(default, adapter.limits[key]) for key, default in DEFAULT_LIMITS.items()}
    features = [f for f in OPTIONAL_FEATURES if f in adapter.features]
    try:
        device = adapter.request_device_sync(required_limits=limits, required_features=features)
    except Exception as e:
        return f"the WebGPU adapter refused a device ({type(e).__name__}: {e})"
    target = describe_limits(device.limits, device.features)
    return GPU(adapter, device, target, time.perf_counter() - start)


def compile_shader(wgsl: str, label: str = "") -> wgpu.GPUShaderModule:
    """A shader module for ``wgsl``; ``CompileError`` with naga's report when naga rejects it."""
    import wgpu

    try:
        return gpu().device.create_shader_module(code=wgsl, label=label)
    except wgpu.GPUValidationError as e:
        raise CompileError(f"WGSL{_labelled(label)} rejected by naga: {naga_report(e)}") from None


def compile_pipeline(
    module: wgpu.GPUShaderModule, entry_point: str, layout: wgpu.GPUPipelineLayout | str = "auto"
) -> wgpu.GPUComputePipeline:
    """A compute pipeline; ``CompileError`` when the entry point is missing, its workgroup size exceeds the
    device's limits, or its bindings do not match ``layout``."""
    import wgpu

    try:
        return gpu().device.create_compute_pipeline(
            layout=layout, compute={"module": module, "entry_point": entry_point}, label=entry_point
        )
    except wgpu.GPUValidationError as e:
        raise CompileError(f"WGSL entry point '{entry_point}' cannot be used: {naga_report(e)}") from None


def validate(wgsl: str, entry_point: str | None = None) -> None:
    """Check ``wgsl`` with naga; with ``entry_point``, also build its compute pipeline."""
    module = compile_shader(wgsl, label=entry_point or "")
    if entry_point is not None:
        compile_pipeline(module, entry_point)


def naga_report(error: Exception) -> str:
    """wgpu's error text without its 'Validation Error / Caused by / In wgpuDevice...' preamble."""
    lines = str(error).splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith("In wgpu")]
    body = lines[starts[0] + 1 :] if starts else lines
    return textwrap.dedent("\n".join(line.rstrip() for line in body)).strip()


def _labelled(label: str) -> str:
    return f" '{label}'" if label else ""
