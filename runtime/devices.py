"""Devices: where a compiled function runs. ``get_device(name)`` for "interp", "cpu-llvm" (default), "cpu-c",
"webgpu" and "cuda".

A device turns a module and a function name into a callable, ``device.compile(module, "f")(*arrays) ->
list[np.ndarray]``. Each device lives in its own module, imported on first use, so asking for the interpreter
never imports llvmlite, wgpu or cuda. A device module exposes its class under the name given in ``_DEVICES``;
the class subclasses ``Device`` and is constructed as ``cls(name)``.

``get_device`` raises ``DeviceUnavailable`` with the reason when the device cannot run here (no GPU, no
driver); ``device_available(name)`` answers the same question without raising, for tests that skip.

What every compiling device shares, ``Device.compile_spec(module, "f") -> ProgramSpec``:
1. look the compile up in the disk cache (namespace ``program``), keyed on the module text, the function name,
   the device, the pipeline text and a fingerprint of kiln's code. A hit holds the ``ProgramSpec`` JSON with the
   kernel source inside: no IR is parsed, no pass runs;
2. on a miss, parse and verify the module and run the device's named pipeline (``LOWERINGS``). Just before the
   ``convert-uop-to-*`` pass, read the ``ProgramSpec`` off the uop-level module (``read_schedule``): the
   schedule ``func.func`` (``kernel.symbol``, ``kernel.alloc``, ``kernel.launch``, ``func.return``) and the
   launch attributes of each ``uop.kernel`` (``core_extent``/``core_work`` on CPUs, ``global_size``/
   ``local_size`` on GPUs; docs/internals.md). After the pipeline the registered emitter turns the module into
   the kernels' source text, stored in the spec.
The device then loads the kernels from the spec (with its toolchain's own cache) and returns the callable.
"""

from __future__ import annotations

import importlib
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from kiln.runtime import cache
from kiln.runtime.errors import CompileError, DeviceUnavailable, KilnError
from kiln.runtime.program import BufferSpec, KernelsArtifact, LaunchArg, LaunchSpec, ProgramSpec, TensorSpec

DEFAULT_DEVICE = "cpu-llvm"

_DEVICES: dict[str, str] = {
    "interp": "kiln.runtime.devices:InterpDevice",
    "cpu-llvm": "kiln.runtime.device_cpu:CPUDevice",
    "cpu-c": "kiln.runtime.device_cpu:CPUDevice",
    "webgpu": "kiln.runtime.device_webgpu:WebGPUDevice",
    "cuda": "kiln.runtime.device_cuda:CUDADevice",
}
"""Device name -> ``module:class``; the class is constructed as ``cls(name)``."""

LOWERINGS: dict[str, tuple[str, str]] = {
    "cpu-llvm": ("lower-to-llvm", "llvm"),
    "cpu-c": ("lower-to-c", "c"),
    "webgpu": ("lower-to-wgsl", "wgsl"),
    "cuda": ("lower-to-ptx", "ptx"),
}
"""Device -> (named pipeline of ``kiln.registry.PIPELINES``, emitter of ``kiln.registry.get_all_targets()``)."""

PROGRAM_NAMESPACE = "program"
CONVERT_PREFIX = "convert-uop-to-"
LAUNCH_ATTRIBUTES = ("core_extent", "core_work", "global_size", "local_size")
"""``uop.kernel`` attributes copied into the ``LaunchSpec`` fields of the same names."""

Compiled = Callable[..., list[np.ndarray]]
"""What ``Device.compile`` returns: call it with input arrays, get the output arrays."""


class Device(ABC):
    """A place to run compiled functions."""

    def __init__(self, name: str):
        self.name = name

    @abstractmethod
    def compile(self, module: Any, function_name: str) -> Compiled:
        """Compile ``function_name`` of ``module`` (a ``ModuleOp`` or its text) for this device."""

    def unavailable_reason(self) -> str | None:
        """None if the device can run here, else why not (one line, for people). Called by every
        ``get_device``, so a device that probes hardware caches the answer."""
        return None

    def available(self) -> bool:
        return self.unavailable_reason() is None

    @property
    def pipeline(self) -> str:
        """The pass-pipeline text that lowers a graph module for this device; ``KILN_BEAM=N`` makes
        kernel-optimize search (beam width N, results in the tuning database) instead of using the heuristic."""
        from kiln.registry import PIPELINES

        if self.name not in LOWERINGS:
            raise KilnError(f"device '{self.name}' does not compile through a pipeline")
        text = PIPELINES[LOWERINGS[self.name][0]]
        beam = os.environ.get("KILN_BEAM", "")
        if beam:
            if not beam.isdigit() or int(beam) < 1:
                raise KilnError(f"KILN_BEAM must be a positive beam width, got '{beam}'")
            plain = f"kernel-optimize{{target={self.name}}}"
            text = text.replace(plain, f"kernel-optimize{{target={self.name} search=beam beam-width={beam}}}")
        return text

    def cache_key(self, module_text: str, function_name: str) -> tuple[str, ...]:
        """Everything that changes the compiled program of ``function_name`` in ``module_text``."""
        return (module_text, function_name, self.name, self.pipeline, cache.code_fingerprint())

    def compile_spec(self, module: Any, function_name: str) -> ProgramSpec:
        """The program for ``function_name``: from the compile cache, else lowered and stored there."""
        text = module if isinstance(module, str) else str(module)
        key = self.cache_key(text, function_name)
        if (hit := cache.get(PROGRAM_NAMESPACE, key)) is not None:
            return ProgramSpec.from_json(hit.decode())
        spec = lower_program(parse_module(module), function_name, self.name, self.pipeline)
        cache.put(PROGRAM_NAMESPACE, key, spec.to_json().encode())
        return spec

    def __repr__(self) -> str:
        return f"<kiln device {self.name}>"


class InterpDevice(Device):
    """The numpy reference interpreter of the graph dialect: 'compiling' only finds the function."""

    def compile(self, module: Any, function_name: str) -> Compiled:
        from kiln.runtime.interpreter import run_function

        func_op = find_function(parse_module(module), function_name)

        def run(*arrays: np.ndarray) -> list[np.ndarray]:
            return run_function(func_op, list(arrays))

        return run


def parse_module(module: Any) -> Any:
    """A verified ``ModuleOp`` from a ``ModuleOp`` or IR text; bad IR raises ``KilnError`` (parse errors are located)."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    from kiln.registry import make_context

    try:
        if not isinstance(module, ModuleOp):
            module = Parser(make_context(), str(module)).parse_module()
        module.verify()
    except (ParseError, VerifyException) as e:
        raise KilnError(str(e)) from None
    return module


def find_function(module: Any, function_name: str) -> Any:
    """The ``func.func`` called ``function_name`` at the top level of ``module``."""
    from xdsl.dialects.func import FuncOp

    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == function_name:
            return op
    names = [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]
    raise KilnError(f"no function @{function_name} in the module (functions: {', '.join(names) or 'none'})")


def lower_program(module: Any, function_name: str, device: str, pipeline_text: str | None = None) -> ProgramSpec:
    """Run the device's pipeline (default: its named pipeline) on a copy of ``module`` and emit its kernels;
    returns the whole program."""
    from xdsl.passes import ModulePass, PassPipeline
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException, VerifyException

    from kiln.registry import PIPELINES, get_all_passes, get_all_targets, make_context

    module = module.clone()
    find_function(module, function_name)
    found: list[ProgramSpec] = []

    def before_conversion(_: ModulePass | None, op: Any, upcoming: ModulePass | None) -> None:
        if upcoming is not None and upcoming.name.startswith(CONVERT_PREFIX):
            found.append(read_schedule(op, function_name, device))

    pipeline_name, emitter = LOWERINGS[device]
    pipeline_text = pipeline_text or PIPELINES[pipeline_name]
    try:
        pipeline = PassPipeline.parse_spec(get_all_passes(), pipeline_text, before_conversion)
    except ImportError as e:
        raise CompileError(f"the {pipeline_name} pipeline needs a pass that is not available: {e}") from None
    try:
        pipeline.apply(make_context(), module)
    except (DiagnosticException, PassFailedException, VerifyException) as e:
        raise CompileError(f"lowering @{function_name} for {device} failed: {e}") from None
    if not found:
        raise CompileError(f"pipeline '{pipeline_text}' has no {CONVERT_PREFIX}* pass to read the schedule before")
    source = get_all_targets()[emitter]()(module)
    return replace(found[-1], kernels=KernelsArtifact(device, source))


def read_schedule(module: Any, function_name: str, target: str) -> ProgramSpec:
    """The ``ProgramSpec`` (with an empty kernel source) of a uop-level module's schedule ``func.func``."""
    from xdsl.dialects.func import ReturnOp

    from kiln.dialects.kernel import AllocOp, LaunchOp, SymbolOp
    from kiln.dialects.types import DIMS_KEY, BufferType, DimsAttr, dtype_name

    func_op = find_function(module, function_name)
    where = f"the schedule @{function_name}"
    kernels = {op.sym_name.data: op for op in module.ops if op.name == "uop.kernel"}
    dims = func_op.attributes.get(DIMS_KEY)
    symbols = tuple(dims.data) if isinstance(dims, DimsAttr) else ()

    def buffer_type(value: Any, what: str) -> BufferType:
        if not isinstance(value.type, BufferType):
            raise CompileError(f"{what} of {where} is a {value.type}, expected a !kernel.buffer")
        return value.type

    buffer_ids: dict[Any, int] = {}
    symbol_names: dict[Any, str] = {}
    buffers: list[BufferSpec] = []
    inputs: list[TensorSpec] = []
    for i, arg in enumerate(func_op.body.block.args):
        t = buffer_type(arg, f"argument {i}")
        inputs.append(TensorSpec(t.shape, dtype_name(t.element_type)))
        buffer_ids[arg] = len(buffers)
        buffers.append(BufferSpec(len(buffers), t.shape, dtype_name(t.element_type), input=i))

    ops = list(func_op.body.block.ops)
    planned = [op.slot.value.data for op in ops if isinstance(op, AllocOp) and op.slot is not None]
    next_free_slot = max(planned, default=-1) + 1  # allocs the memory planner did not place get a slot each
    launches: list[LaunchSpec] = []
    outputs: tuple[int, ...] | None = None
    for op in ops:
        if isinstance(op, SymbolOp):
            symbol_names[op.result] = op.symbol.data
        elif isinstance(op, AllocOp):
            t = buffer_type(op.result, "a kernel.alloc")
            if op.slot is not None:
                slot = op.slot.value.data
            else:
                slot, next_free_slot = next_free_slot, next_free_slot + 1
            buffer_ids[op.result] = len(buffers)
            buffers.append(BufferSpec(len(buffers), t.shape, dtype_name(t.element_type), slot=slot))
        elif isinstance(op, LaunchOp):
            name = op.callee.string_value()
            args: list[LaunchArg] = []
            for i, v in enumerate(op.args):
                if v in buffer_ids:
                    args.append(("buf", buffer_ids[v]))
                elif v in symbol_names:
                    args.append(("sym", symbol_names[v]))
                else:
                    raise CompileError(f"argument {i} of kernel.launch @{name} in {where} is neither a buffer nor a kernel.symbol")
            attributes = kernels[name].attributes if name in kernels else {}
            launch = {key: _plain(attributes.get(key)) for key in LAUNCH_ATTRIBUTES}
            if launch["core_extent"] is not None:
                launch["core_extent"] = str(launch["core_extent"])
            launches.append(LaunchSpec(name, tuple(args), **launch))
        elif isinstance(op, ReturnOp):
            if any(v not in buffer_ids for v in op.arguments):
                raise CompileError(f"{where} returns a value that is not a buffer")
            outputs = tuple(buffer_ids[v] for v in op.arguments)
        else:
            raise CompileError(f"unexpected {op.name} in {where} (expected kernel.symbol/alloc/launch, func.return)")
    if outputs is None:
        raise CompileError(f"{where} has no func.return")
    spec = ProgramSpec(
        function_name, tuple(inputs), symbols, tuple(buffers), outputs, tuple(launches), KernelsArtifact(target, "")
    )
    spec.validate()
    return spec


def _plain(attr: Any) -> Any:
    """The Python value of a launch attribute: str, int, or a tuple of them (None when absent or unknown)."""
    from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr

    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, ArrayAttr):
        return tuple(_plain(a) for a in attr.data)
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    return None


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
