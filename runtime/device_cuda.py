"""The cuda device: runs a ``ProgramSpec`` whose kernels are PTX on an NVIDIA GPU, through the CUDA driver API
(cuda-python's ``cuda.bindings.driver``).

Calling convention (the PTX emitter produces it): ``.visible .entry <kernel>(.param .u64 b0, ..., .param .u32 N,
...)`` -- the buffers as 64-bit global addresses, then the symbol scalars as i32, in launch-argument order;
launched over ``global_size`` blocks of ``local_size`` threads, no dynamic shared memory, on the null stream.
Buffers hold their elements as numpy does (an ``i1`` is one byte, 0 or 1). One PTX module holds all of a
program's kernels.

Loading: the PTX is assembled by nvJitLink for the GPU's own sm (``kiln.targets.ptx.toolchain``; a PTX
``.target`` of sm_80 runs on any newer GPU), then ``cuModuleLoadData``; modules and their functions are cached
per process by (PTX, sm). The context is the device's primary context, made current on every call (cheap), so
kiln shares it with other CUDA libraries in the process. Device memory: one ``cuMemAlloc`` per program and
storage slot/input, grown on demand; the packed kernel params of a symbol binding are kept and rebuilt only when
a buffer moved. A call copies the inputs in (``cuMemcpyHtoD``), launches every kernel, and copies the outputs out
(``cuMemcpyDtoH``, which waits for the launches and reports their errors).

Without a driver (``cuInit`` raises cuda.pathfinder's ``DynamicLibNotFoundError``) or without a GPU of sm_80 or
newer, ``unavailable_reason()`` says so and ``get_device("cuda")`` raises ``DeviceUnavailable``.
"""

from __future__ import annotations

import ctypes
import functools
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.runtime.device_webgpu import I32_MAX, GPUOutput, GPUPlan, GPUSchedule, StorageKey
from kiln.runtime.devices import Device
from kiln.support.errors import CompileError, DeviceUnavailable, KilnError
from kiln.runtime.program import ProgramSpec
from kiln.capabilities.description import TargetDescription

MIN_SM = 80
ALLOCATION_GRANULE = 256
"""Device allocations are rounded up to this many bytes (cuMemAlloc rejects 0 bytes)."""


def check(call: str, result: Any) -> Any:
    """Unwrap a cuda-python driver result ``(CUresult, *values)``: the value(s), or ``KilnError`` naming the call
    and the CUDA error."""
    from cuda.bindings import driver

    status, *values = result if isinstance(result, tuple) else (result,)
    if status != driver.CUresult.CUDA_SUCCESS:
        name = getattr(status, "name", str(status))
        try:
            described, text = driver.cuGetErrorString(status)
            detail = f": {text.decode()}" if described == driver.CUresult.CUDA_SUCCESS else ""
        except Exception:  # the driver library itself is missing
            detail = ""
        raise KilnError(f"CUDA {call} failed with {name}{detail}")
    return values[0] if len(values) == 1 else tuple(values) if values else None


class KernelParams:
    """``cuLaunchKernel``'s ``kernelParams``: one C value per param (u64 device pointers, then i32 scalars) and
    the array of pointers to them, which the driver reads at launch. Kept alive while launches use it."""

    def __init__(self, pointers: Sequence[int], scalars: Sequence[int]):
        for s in scalars:
            if not -I32_MAX - 1 <= s <= I32_MAX:
                raise KilnError(f"kernel scalar {s} does not fit the i32 parameter it is passed as")
        self.values: list[ctypes.c_uint64 | ctypes.c_int32] = [ctypes.c_uint64(p) for p in pointers]
        self.values += [ctypes.c_int32(s) for s in scalars]
        self.array = (ctypes.c_void_p * len(self.values))(*(ctypes.addressof(v) for v in self.values))

    @property
    def address(self) -> int:
        """The ``void**`` to pass (0 when the kernel has no params)."""
        return ctypes.addressof(self.array) if self.values else 0


@dataclass(frozen=True)
class CUDAContext:
    """The GPU kiln uses (device 0), its primary context and what it is."""

    device: Any
    context: Any
    arch: str
    name: str
    target: TargetDescription

    def make_current(self) -> None:
        from cuda.bindings import driver

        check("cuCtxSetCurrent", driver.cuCtxSetCurrent(self.context))


def context() -> CUDAContext:
    """The process's CUDA context, opened on first use; ``DeviceUnavailable`` with the reason if there is none."""
    opened = _open()
    if isinstance(opened, str):
        raise DeviceUnavailable(opened)
    return opened


@functools.cache
def _open() -> CUDAContext | str:
    try:
        from cuda.bindings import driver

        (status,) = driver.cuInit(0)
    except Exception as e:  # ImportError, or cuda.pathfinder's DynamicLibNotFoundError when libcuda is absent
        return f"no CUDA driver ({type(e).__name__}: {e})"
    try:
        check("cuInit", (status,))
        if check("cuDeviceGetCount", driver.cuDeviceGetCount()) == 0:
            return "the CUDA driver sees no GPU"
        device = check("cuDeviceGet", driver.cuDeviceGet(0))
        attribute = driver.CUdevice_attribute
        major = check("cuDeviceGetAttribute", driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
        minor = check("cuDeviceGetAttribute", driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
        name = check("cuDeviceGetName", driver.cuDeviceGetName(256, device)).split(b"\0", 1)[0].decode()
        if major * 10 + minor < MIN_SM:
            return f"{name} is sm_{major}{minor}; kiln's PTX needs sm_{MIN_SM} or newer"
        ctx = check("cuDevicePrimaryCtxRetain", driver.cuDevicePrimaryCtxRetain(device))
    except KilnError as e:
        return str(e)
    from kiln.capabilities.ptx import describe

    return CUDAContext(device, ctx, f"sm_{major}{minor}", name, describe())


_modules: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {}
_modules_lock = threading.Lock()


def load_functions(ctx: CUDAContext, ptx: str, names: Sequence[str]) -> dict[str, Any]:
    """The ``CUfunction`` of each kernel in ``names`` from ``ptx``, assembled for the context's sm; the module
    and functions are cached per process by (PTX, sm)."""
    from cuda.bindings import driver

    from kiln.targets.ptx.toolchain import assemble

    with _modules_lock:
        ctx.make_current()
        key = (ptx, ctx.arch)
        if key not in _modules:
            cubin = assemble(ptx, ctx.arch)
            _modules[key] = (check("cuModuleLoadData", driver.cuModuleLoadData(cubin)), {})
        module, functions = _modules[key]
        for name in names:
            if name not in functions:
                status, function = driver.cuModuleGetFunction(module, name.encode())
                if status == driver.CUresult.CUDA_ERROR_NOT_FOUND:
                    raise CompileError(f"the PTX has no .entry {name}")
                functions[name] = check("cuModuleGetFunction", (status, function))
        return {name: functions[name] for name in names}


class _DeviceMemory:
    """A program's device buffers, one per storage key, grown on demand and freed with the program."""

    def __init__(self) -> None:
        self.buffers: dict[StorageKey, tuple[int, int]] = {}  # key -> (device pointer, capacity)
        self.generation = 0  # bumped whenever a buffer moves, which invalidates packed params

    def reserve(self, sizes: dict[StorageKey, int]) -> None:
        from cuda.bindings import driver

        for key, nbytes in sizes.items():
            held = self.buffers.get(key)
            if held is None or held[1] < nbytes:
                if held is not None:
                    check("cuMemFree", driver.cuMemFree(held[0]))
                capacity = max(ALLOCATION_GRANULE, -(-nbytes // ALLOCATION_GRANULE) * ALLOCATION_GRANULE)
                self.buffers[key] = (int(check("cuMemAlloc", driver.cuMemAlloc(capacity))), capacity)
                self.generation += 1

    def pointer(self, key: StorageKey) -> int:
        return self.buffers[key][0]

    @staticmethod
    def free(buffers: dict[StorageKey, tuple[int, int]], ctx: CUDAContext) -> None:
        from cuda.bindings import driver

        ctx.make_current()
        for pointer, _ in buffers.values():
            driver.cuMemFree(pointer)
        buffers.clear()


class CUDAProgram:
    """A ``ProgramSpec`` loaded on the GPU: ``program(*arrays) -> list[np.ndarray]``."""

    def __init__(self, spec: ProgramSpec, ctx: CUDAContext):
        if spec.kernels.target != "cuda":
            raise CompileError(f"{spec.name}: kernels were emitted for '{spec.kernels.target}', not cuda")
        self._ctx = ctx
        self.spec = spec
        self.schedule = GPUSchedule(spec, ctx.target, to_numpy)
        self._functions = load_functions(ctx, spec.kernels.source, spec.kernel_names())
        self._memory = _DeviceMemory()
        self._lock = threading.Lock()
        weakref.finalize(self, _DeviceMemory.free, self._memory.buffers, ctx)

    def __call__(self, *arrays: Any) -> list[np.ndarray]:
        from cuda.bindings import driver

        args, plan = self.schedule.bind(arrays)
        with self._lock:
            self._ctx.make_current()
            self._memory.reserve(plan.storage_bytes)
            for i, a in enumerate(args):
                if a.nbytes and ("input", i) in plan.storage_bytes:
                    check("cuMemcpyHtoD", driver.cuMemcpyHtoD(self._memory.pointer(("input", i)), a.ctypes.data, a.nbytes))
            self._launch(plan)
            outputs = [self._output(o, args) for o in plan.outputs]
            check("cuCtxSynchronize", driver.cuCtxSynchronize())
            return outputs

    def time_launches(self, *arrays: Any, repeat: int = 10) -> list[float]:
        """Seconds the GPU spends on the program's launches alone, ``repeat`` times (CUDA events around each
        round, inputs copied in once by a first call): the kernels' time without the copies a call adds, which
        is what the benchmarks compare with other GPU libraries."""
        from cuda.bindings import driver

        self(*arrays)
        _, plan = self.schedule.bind(arrays)
        with self._lock:
            self._ctx.make_current()
            start, end = (check("cuEventCreate", driver.cuEventCreate(0)) for _ in range(2))
            try:
                seconds = []
                for _ in range(repeat):
                    check("cuEventRecord", driver.cuEventRecord(start, 0))
                    self._launch(plan)
                    check("cuEventRecord", driver.cuEventRecord(end, 0))
                    check("cuEventSynchronize", driver.cuEventSynchronize(end))
                    seconds.append(check("cuEventElapsedTime", driver.cuEventElapsedTime(start, end)) / 1e3)
                return seconds
            finally:
                driver.cuEventDestroy(start)
                driver.cuEventDestroy(end)

    def _launch(self, plan: GPUPlan) -> None:
        """Enqueue every non-empty launch of ``plan`` on the null stream (the caller holds the lock)."""
        from cuda.bindings import driver

        for launch, params in zip(plan.launches, self._params(plan)):
            if launch.empty:
                continue
            check(
                f"cuLaunchKernel(@{launch.call.kernel})",
                driver.cuLaunchKernel(
                    self._functions[launch.call.kernel], *launch.grid, *launch.call.local_size, 0, 0, params.address, 0
                ),
            )

    def _params(self, plan: GPUPlan) -> list[KernelParams]:
        """The plan's packed params (one per launch), rebuilt when a device buffer moved."""
        if plan.device_state is None or plan.device_state[0] != self._memory.generation:
            packed = [
                KernelParams([self._memory.pointer(k) for k in launch.call.storages], launch.scalars)
                for launch in plan.launches
            ]
            plan.device_state = (self._memory.generation, packed)
        return plan.device_state[1]

    def _output(self, out: GPUOutput, args: list[np.ndarray]) -> np.ndarray:
        from cuda.bindings import driver

        if out.input is not None:
            return args[out.input].copy()
        result = np.empty(out.shape, to_numpy(out.dtype))
        if result.nbytes:
            pointer = self._memory.pointer(out.storage)  # type: ignore[arg-type]
            check("cuMemcpyDtoH", driver.cuMemcpyDtoH(result.ctypes.data, pointer, result.nbytes))
        return result


class CUDADevice(Device):
    """``get_device("cuda")``: PTX kernels on GPU 0 through the CUDA driver."""

    def unavailable_reason(self) -> str | None:
        opened = _open()
        return opened if isinstance(opened, str) else None

    def load(self, spec: ProgramSpec) -> CUDAProgram:
        """Load a program whose kernels are PTX (assembled and loaded here, once per PTX text)."""
        return CUDAProgram(spec, context())
