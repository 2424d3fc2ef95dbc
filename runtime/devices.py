"""Devices: where a compiled program runs. ``get_device(name)`` for "interp", "cpu-llvm" (default), "cpu-c",
"webgpu" and "cuda".

A device loads a program description (``ProgramSpec``, made by ``kiln.compiler``) and returns a callable,
``device.load(spec)(*arrays) -> list[np.ndarray]``; the runtime never compiles. Each device lives in its own
module, imported on first use, so asking for the interpreter never imports llvmlite, wgpu or cuda. A device
module exposes its class under the name given in ``_DEVICES``; the class subclasses ``Device`` and is
constructed as ``cls(name)``.

``get_device`` raises ``DeviceUnavailable`` with the reason when the device cannot run here (no GPU, no
driver); ``device_available(name)`` answers the same question without raising, for tests that skip.
"""

from __future__ import annotations

import importlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.runtime.program import ProgramSpec
from kiln.support.errors import DeviceUnavailable, KilnError

DEFAULT_DEVICE = "cpu-llvm"

_DEVICES: dict[str, str] = {
    "interp": "kiln.runtime.devices:InterpDevice",
    "cpu-llvm": "kiln.runtime.device_cpu:CPUDevice",
    "cpu-c": "kiln.runtime.device_cpu:CPUDevice",
    "webgpu": "kiln.runtime.device_webgpu:WebGPUDevice",
    "cuda": "kiln.runtime.device_cuda:CUDADevice",
}
"""Device name -> ``module:class``; the class is constructed as ``cls(name)``."""

Loaded = Callable[..., list[np.ndarray]]
"""What a device returns for a program: call it with input arrays, get the output arrays."""


class Device(ABC):
    """A place to run compiled programs."""

    def __init__(self, name: str):
        self.name = name

    @abstractmethod
    def load(self, spec: ProgramSpec) -> Loaded:
        """Load a program compiled for this device."""

    def unavailable_reason(self) -> str | None:
        """None if the device can run here, else why not (one line, for people). Called by every
        ``get_device``, so a device that probes hardware caches the answer."""
        return None

    def available(self) -> bool:
        return self.unavailable_reason() is None

    def __repr__(self) -> str:
        return f"<kiln device {self.name}>"


class InterpDevice(Device):
    """The numpy reference interpreter of the graph dialect: it runs the graph function itself."""

    def load(self, spec: ProgramSpec) -> Loaded:
        raise KilnError("the interp device runs graph functions, not compiled programs")

    def load_function(self, func_op: Any) -> Loaded:
        """A callable that interprets ``func_op`` (a graph-level ``func.func``) on numpy inputs."""
        from kiln.interpreters.graph import run_function

        def run(*arrays: np.ndarray) -> list[np.ndarray]:
            return run_function(func_op, list(arrays))

        return run


_instances: dict[str, Device] = {}
_lock = threading.Lock()


def device_names() -> list[str]:
    return list(_DEVICES)


def _instance(name: str) -> Device:
    if name not in _DEVICES:
        raise KilnError(f"unknown device '{name}' (expected one of {', '.join(_DEVICES)})")
    with _lock:
        if name not in _instances:
            module, _, cls = _DEVICES[name].partition(":")
            try:
                device_class = getattr(importlib.import_module(module), cls)
            except (ImportError, AttributeError) as e:
                raise DeviceUnavailable(f"device '{name}' is not available: {e}") from None
            _instances[name] = device_class(name)
    return _instances[name]


def get_device(name: str = DEFAULT_DEVICE) -> Device:
    """The device called ``name`` (one instance per process); ``DeviceUnavailable`` if it cannot run here."""
    device = _instance(name)
    if (reason := device.unavailable_reason()) is not None:
        raise DeviceUnavailable(f"device '{name}' is not available: {reason}")
    return device


def device_available(name: str) -> bool:
    """Whether ``get_device(name)`` would succeed."""
    try:
        get_device(name)
    except DeviceUnavailable:
        return False
    return True


def available_devices(names: Sequence[str] | None = None) -> list[str]:
    """The devices (of ``names``, default all) that can run here."""
    return [n for n in (names or device_names()) if device_available(n)]
