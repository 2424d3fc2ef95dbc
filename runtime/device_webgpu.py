"""The webgpu device: runs a ``ProgramSpec`` whose kernels are WGSL, through wgpu (Mesa's lavapipe without a GPU).

WGSL calling convention (the WGSL emitter produces exactly this; kernel params in launch-argument order are the
buffers, then the symbol scalars):

- buffer param ``i`` is ``@group(0) @binding(i) var<storage, read_write> <name>: array<T>;`` -- always
  ``read_write``: the host binds every buffer as a writable storage buffer (wgpu requires the shader's access
  mode to equal the layout's, and the same buffer may be passed twice). ``T`` is ``f32``/``i32``/``u32``/``f16``
  (``f16`` needs ``enable f16;``); an ``i1`` buffer is ``array<u32>`` holding 0 or 1 per element.
- the scalar params, when the kernel has any, are ONE uniform binding right after the buffers, a struct with one
  ``i32`` field per scalar in param order (field names are free)::

      struct Params { N: i32, M: i32 }
      @group(0) @binding(<number of buffer params>) var<uniform> params: Params;

  A kernel without scalar params has no such binding (WGSL has no empty structs).
- the entry point is ``@compute @workgroup_size(lx, ly, lz) fn <kernel name>(...)`` with the launch's
  ``local_size``; the host calls ``dispatch_workgroups(*global_size)``.
- a binding covers the buffer's logical size rounded up to 4 bytes; index bounds come from the scalar params,
  not from ``arrayLength``.
- one WGSL module (``ProgramSpec.kernels.source``) holds all of a program's kernels; globals of different
  kernels may reuse binding numbers, but module-scope names must be unique (prefix them with the kernel name).
- each launch carries ``global_size`` (3 ``kiln.support.symbolic`` size texts) and ``local_size`` (3 ints), from
  the ``uop.kernel`` attributes of the same names.

Objects live as long as they can: the adapter and device once per process (``kiln.targets.wgsl.toolchain``),
per program the shader module and one compute pipeline per kernel (explicit bind-group layouts, shared by all
kernels with the same number of buffers), per program and storage slot/input one GPU buffer grown on demand,
and per symbol binding the bind groups and uniform buffers (rebuilt only when a buffer was grown). A call writes
the inputs, encodes every launch into one compute pass of one command encoder, submits once, and reads the
outputs back with ``queue.read_buffer``.

Measured on lavapipe (the 2-core CPU box, under load; ``-s`` on test/python/test_gpu_toolchains.py prints a
line of these): adapter + device 0.55-0.9 s once per process. The process's first program pays lavapipe's
one-time setup: naga ~23 ms, pipeline ~100 ms, first call ~200 ms; later programs load in ~2 ms and their first
call takes 3-5 ms. Steady calls: vadd on 4096 f32 (2 uploads, 1 dispatch, 1 readback) 0.25-0.6 ms; a 256x1024
row reduction 0.8-1.3 ms. Eight chained launches cost 0.70 ms per call with one encoder and one compute pass per
call, against 1.16 ms with an encoder and a submit per launch (best of 5 rounds of 200 calls each).

The device-neutral part of running a ``ProgramSpec`` on a GPU (input checks, symbol binding, storage sizes,
launch-grid evaluation against the target's limits) is ``GPUSchedule`` below; ``device_cuda`` uses it too.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kiln.dialects.types import Shape, to_numpy
from kiln.runtime.devices import Device
from kiln.support.errors import CompileError, InputError, KilnError
from kiln.runtime.program import MAX_PLANS, ProgramSpec
from kiln.support.symbolic import compile_size
from kiln.capabilities.description import TargetDescription
from kiln.capabilities.wgsl import max_storage_buffers

if TYPE_CHECKING:
    import wgpu

I32_MAX = 2**31 - 1

StorageKey = tuple[str, int]
"""Where a buffer lives on the device: ``("input", i)`` for function input i, ``("slot", s)`` for storage slot s."""

# ------------------------------------------------------------------------------------------------------------
# the device-neutral GPU schedule


@dataclass(frozen=True)
class GPUKernelCall:
    """One launch in GPU terms: its buffer params (as storage keys, in param order), its scalar params (symbol
    names, in param order), the grid (workgroups per dim, as compiled expressions) and the workgroup size."""

    kernel: str
    storages: tuple[StorageKey, ...]
    scalars: tuple[str, ...]
    global_size: tuple[Callable[[dict[str, int]], int], ...]
    local_size: tuple[int, int, int]


@dataclass(frozen=True)
class GPULaunch:
    """A kernel call with this binding's numbers: grid dims and scalar values."""

    call: GPUKernelCall
    grid: tuple[int, int, int]
    scalars: tuple[int, ...]

    @property
    def empty(self) -> bool:
        return 0 in self.grid


@dataclass(frozen=True)
class GPUOutput:
    """How to produce one output: a copy of input ``input``, or ``storage`` read back as ``dtype`` of ``shape``."""

    input: int | None
    storage: StorageKey | None
    dtype: str
    shape: tuple[int, ...]


class GPUPlan:
    """Everything about a call that depends only on the symbol values. ``device_state`` is the device's own
    per-binding cache (bind groups, packed kernel params), which it rebuilds when its buffers change."""

    __slots__ = ("symbols", "storage_bytes", "launches", "outputs", "device_state")

    def __init__(
        self,
        symbols: dict[str, int],
        storage_bytes: dict[StorageKey, int],
        launches: list[GPULaunch],
        outputs: list[GPUOutput],
    ):
        self.symbols = symbols
        self.storage_bytes = storage_bytes
        self.launches = launches
        self.outputs = outputs
        self.device_state: Any = None


class GPUSchedule:
    """A ``ProgramSpec`` prepared for a GPU device: checked once against the target, then bound per call.

    ``storage_dtype(dtype name) -> numpy dtype`` says how the device stores a dtype (webgpu widens i1 to u32).
    """

    def __init__(self, spec: ProgramSpec, target: TargetDescription, storage_dtype: Callable[[str], np.dtype]):
        spec.validate()
        self.spec = spec
        self.target = target
        self.storage_dtype = storage_dtype
        self._bounds = spec.symbol_bounds
        self._buffers = {b.id: b for b in spec.buffers}
        self._input_dtypes = [to_numpy(t.dtype) for t in spec.inputs]
        self._check_target()
        self.calls = [self._call(k) for k in range(len(spec.launches))]
        self._plans: dict[tuple[tuple[int, ...], ...], GPUPlan] = {}

    # -------------------------------------------------------------------------------------------- load time

    def _check_target(self) -> None:
        spec, target = self.spec, self.target
        for b in spec.buffers:
            if not target.supports_dtype(b.dtype):
                raise CompileError(f"{spec.name}: buffer {b.id} has dtype {b.dtype}, which {target.name} cannot store")
        for name, _, hi in spec.symbols:
            if hi > I32_MAX:
                raise CompileError(f"{spec.name}: symbol {name} may reach {hi}, but GPU kernels take symbols as i32")

    def _storage_key(self, buffer_id: int) -> StorageKey:
        b = self._buffers[buffer_id]
        return ("input", b.input) if b.input is not None else ("slot", b.slot)  # type: ignore[return-value]

    def _call(self, k: int) -> GPUKernelCall:
        launch, target = self.spec.launches[k], self.target
        where = f"{self.spec.name}: launch {k} (@{launch.kernel})"
        kinds = [kind for kind, _ in launch.args]
        if kinds != sorted(kinds):  # "buf" < "sym"
            raise CompileError(f"{where}: GPU kernels take their buffers first, then their symbols; got {kinds}")
        if launch.global_size is None or launch.local_size is None:
            raise CompileError(f"{where}: a GPU launch needs global_size and local_size")
        if len(launch.global_size) != 3 or len(launch.local_size) != 3:
            raise CompileError(f"{where}: global_size and local_size must have 3 entries")
        try:
            grid = tuple(compile_size(str(e)) for e in launch.global_size)
            local = tuple(compile_size(str(n))({}) for n in launch.local_size)
        except (SyntaxError, ValueError, KeyError) as e:
            raise CompileError(
                f"{where}: bad launch sizes {list(launch.global_size)} x {list(launch.local_size)} "
                f"(the workgroup size must be constant): {type(e).__name__}: {e}"
            ) from None
        limits = target.max_workgroup_dims or (I32_MAX,) * 3
        if any(n < 1 or n > m for n, m in zip(local, limits)) or np.prod(local) > (target.max_workgroup_size or I32_MAX):
            raise CompileError(
                f"{where}: workgroup size {list(local)} exceeds {target.name}'s limits "
                f"({list(limits)} per dim, {target.max_workgroup_size} in all)"
            )
        return GPUKernelCall(
            kernel=launch.kernel,
            storages=tuple(self._storage_key(v) for kind, v in launch.args if kind == "buf"),  # type: ignore[arg-type]
            scalars=tuple(str(v) for kind, v in launch.args if kind == "sym"),
            global_size=grid,
            local_size=local,  # type: ignore[arg-type]
        )

    # -------------------------------------------------------------------------------------------- call time

    def bind(self, arrays: Sequence[Any]) -> tuple[list[np.ndarray], GPUPlan]:
        """Check the inputs (count, dtype, shape, symbol bounds); returns them C-contiguous, and the plan."""
        name = self.spec.name
        if len(arrays) != len(self._input_dtypes):
            raise InputError(f"{name} takes {len(self._input_dtypes)} inputs, got {len(arrays)}")
        args = []
        for i, (a, dtype) in enumerate(zip(arrays, self._input_dtypes)):
            a = np.asarray(a, order="C")  # not ascontiguousarray: it makes a 0-d array 1-d
            if a.dtype != dtype:
                raise InputError(f"{name}: input {i} must have dtype {self.spec.inputs[i].dtype} ({dtype}), got {a.dtype}")
            args.append(a)
        shapes = tuple(a.shape for a in args)
        plan = self._plans.get(shapes)
        if plan is None:
            plan = self._plan(self._bind_symbols(shapes))
            if len(self._plans) >= MAX_PLANS:
                del self._plans[next(iter(self._plans))]
            self._plans[shapes] = plan
        return args, plan

    def _bind_symbols(self, shapes: tuple[tuple[int, ...], ...]) -> dict[str, int]:
        env: dict[str, int] = {}
        for i, (shape, t) in enumerate(zip(shapes, self.spec.inputs)):
            ok = len(shape) == len(t.shape)
            for d, n in zip(t.shape, shape):
                if isinstance(d, str):
                    if env.setdefault(d, n) != n:
                        raise InputError(
                            f"{self.spec.name}: input {i} has shape {list(shape)}, which sets {d} = {n}, "
                            f"but an earlier input set {d} = {env[d]}"
                        )
                elif d != n:
                    ok = False
            if not ok:
                expected = ", ".join(map(str, t.shape))
                raise InputError(f"{self.spec.name}: input {i} must have shape [{expected}], got {list(shape)}")
        for d, n in env.items():
            lo, hi = self._bounds[d]
            if not lo <= n <= hi:
                raise InputError(f"{self.spec.name}: {d} = {n} is outside its declared bounds [{lo}, {hi}]")
        return env

    def _plan(self, env: dict[str, int]) -> GPUPlan:
        def concrete(shape: Shape) -> tuple[int, ...]:
            return tuple(env[d] if isinstance(d, str) else d for d in shape)

        storage_bytes: dict[StorageKey, int] = {}
        for b in self.spec.buffers:
            key = self._storage_key(b.id)
            nbytes = int(np.prod(concrete(b.shape), dtype=np.int64)) * self.storage_dtype(b.dtype).itemsize
            storage_bytes[key] = max(storage_bytes.get(key, 0), nbytes)
        launches = [
            GPULaunch(call, self._grid(call, env), tuple(env[s] for s in call.scalars)) for call in self.calls
        ]
        outputs = []
        for o in self.spec.outputs:
            b = self._buffers[o]
            key = self._storage_key(o)
            outputs.append(
                GPUOutput(b.input, key if b.input is None else None, b.dtype, concrete(b.shape))
            )
        return GPUPlan(env, storage_bytes, launches, outputs)

    def _grid(self, call: GPUKernelCall, env: dict[str, int]) -> tuple[int, int, int]:
        grid = tuple(max(0, f(env)) for f in call.global_size)
        limits = self.target.max_grid_dims or (I32_MAX,) * 3
        for axis, n, limit in zip("xyz", grid, limits):
            if n > limit:
                raise KilnError(
                    f"{self.spec.name}: @{call.kernel} needs {n} workgroups along {axis} for "
                    f"{', '.join(f'{k} = {v}' for k, v in env.items())}, but {self.target.name} allows {limit}"
                )
        return grid  # type: ignore[return-value]


# ------------------------------------------------------------------------------------------------------------
# the wgpu device


def storage_dtype(dtype: str) -> np.dtype:
    """How WebGPU storage holds a dtype: bool as u32 (WGSL's bool is not host-shareable), others as themselves."""
    return np.dtype(np.uint32) if dtype == "i1" else to_numpy(dtype)


def _round4(n: int) -> int:
    return max(4, -(-n // 4) * 4)


class WebGPUProgram:
    """A ``ProgramSpec`` loaded on the process's wgpu device: ``program(*arrays) -> list[np.ndarray]``."""

    def __init__(self, spec: ProgramSpec):
        from kiln.targets.wgsl.toolchain import compile_pipeline, compile_shader, gpu

        if spec.kernels.target != "webgpu":
            raise CompileError(f"{spec.name}: kernels were emitted for '{spec.kernels.target}', not webgpu")
        self._gpu = gpu()
        self.spec = spec
        self.schedule = GPUSchedule(spec, self._gpu.target, storage_dtype)
        limits = self._gpu.device.limits
        self._max_binding_bytes = limits["max-storage-buffer-binding-size"]
        for call in self.schedule.calls:
            if len(call.storages) > max_storage_buffers(limits):
                raise CompileError(
                    f"{spec.name}: @{call.kernel} takes {len(call.storages)} buffers, but this device binds at most "
                    f"{max_storage_buffers(limits)} storage buffers per kernel"
                )
        module = compile_shader(spec.kernels.source, label=spec.name)
        self._layouts: dict[str, Any] = {}
        self._pipelines: dict[str, Any] = {}
        for call in self.schedule.calls:
            if call.kernel not in self._pipelines:
                layout = _layout(len(call.storages), bool(call.scalars))
                self._layouts[call.kernel] = layout
                self._pipelines[call.kernel] = compile_pipeline(module, call.kernel, layout[1])
        self._buffers: dict[StorageKey, wgpu.GPUBuffer] = {}
        self._generation = 0  # bumped whenever a buffer is (re)allocated, which invalidates bind groups
        self._lock = threading.Lock()

    def __call__(self, *arrays: Any) -> list[np.ndarray]:
        args, plan = self.schedule.bind(arrays)
        device = self._gpu.device
        with self._lock:
            self._reserve(plan)
            for i, a in enumerate(args):
                if ("input", i) in plan.storage_bytes:  # an input without a buffer in the spec is not uploaded
                    self._upload(self._buffers[("input", i)], a, self.schedule.spec.inputs[i].dtype)
            bind_groups = self._bind_groups(plan)
            encoder = device.create_command_encoder()
            compute = encoder.begin_compute_pass()
            for launch, bind_group in zip(plan.launches, bind_groups):
                if launch.empty:
                    continue
                compute.set_pipeline(self._pipelines[launch.call.kernel])
                compute.set_bind_group(0, bind_group)
                compute.dispatch_workgroups(*launch.grid)
            compute.end()
            device.queue.submit([encoder.finish()])
            return [self._output(o, args) for o in plan.outputs]

    def _reserve(self, plan: GPUPlan) -> None:
        import wgpu

        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_DST | wgpu.BufferUsage.COPY_SRC
        for key, nbytes in plan.storage_bytes.items():
            if nbytes > self._max_binding_bytes:
                raise KilnError(
                    f"{self.schedule.spec.name}: {key[0]} {key[1]} needs {nbytes} bytes for "
                    f"{', '.join(f'{k} = {v}' for k, v in plan.symbols.items())}, but this device binds at most "
                    f"{self._max_binding_bytes} bytes per storage buffer"
                )
            held = self._buffers.get(key)
            if held is None or held.size < _round4(nbytes):
                if held is not None:
                    held.destroy()
                self._buffers[key] = self._gpu.device.create_buffer(size=_round4(nbytes), usage=usage, label=str(key))
                self._generation += 1

    def _upload(self, buffer: wgpu.GPUBuffer, a: np.ndarray, dtype: str) -> None:
        data = a.astype(storage_dtype(dtype), copy=False).reshape(-1).view(np.uint8)
        if data.size % 4:
            data = np.concatenate([data, np.zeros(4 - data.size % 4, np.uint8)])
        if data.size:
            self._gpu.device.queue.write_buffer(buffer, 0, data)

    def _bind_groups(self, plan: GPUPlan) -> list[wgpu.GPUBindGroup]:
        """The plan's bind groups (one per launch) and their uniform buffers, made when the plan or a buffer is new."""
        if plan.device_state is not None and plan.device_state[0] == self._generation:
            return plan.device_state[1]
        import wgpu

        device = self._gpu.device
        groups = []
        for launch in plan.launches:
            entries = [
                {"binding": i, "resource": {"buffer": self._buffers[key], "offset": 0, "size": _round4(plan.storage_bytes[key])}}
                for i, key in enumerate(launch.call.storages)
            ]
            if launch.scalars:
                values = np.zeros(-(-len(launch.scalars) // 4) * 4, np.int32)
                values[: len(launch.scalars)] = launch.scalars
                uniform = device.create_buffer_with_data(data=values, usage=wgpu.BufferUsage.UNIFORM)
                entries.append({"binding": len(entries), "resource": {"buffer": uniform, "offset": 0, "size": uniform.size}})
            groups.append(device.create_bind_group(layout=self._layouts[launch.call.kernel][0], entries=entries))
        plan.device_state = (self._generation, groups)
        return groups

    def _output(self, out: GPUOutput, args: list[np.ndarray]) -> np.ndarray:
        if out.input is not None:
            return args[out.input].copy()
        stored = storage_dtype(out.dtype)
        count = int(np.prod(out.shape, dtype=np.int64))
        if count == 0:
            return np.empty(out.shape, to_numpy(out.dtype))
        raw = self._gpu.device.queue.read_buffer(self._buffers[out.storage], 0, _round4(count * stored.itemsize))  # type: ignore[index]
        values = np.frombuffer(raw, stored, count)
        return values.astype(to_numpy(out.dtype)).reshape(out.shape)


@functools.cache
def _layout(n_buffers: int, has_scalars: bool) -> tuple[Any, Any]:
    """(bind-group layout, pipeline layout) for ``n_buffers`` read-write storage buffers [+ the params uniform]."""
    import wgpu

    from kiln.targets.wgsl.toolchain import gpu

    device = gpu().device
    stage = wgpu.ShaderStage.COMPUTE
    entries = [
        {"binding": i, "visibility": stage, "buffer": {"type": wgpu.BufferBindingType.storage}}
        for i in range(n_buffers)
    ]
    if has_scalars:
        entries.append({"binding": n_buffers, "visibility": stage, "buffer": {"type": wgpu.BufferBindingType.uniform}})
    group = device.create_bind_group_layout(entries=entries)
    return group, device.create_pipeline_layout(bind_group_layouts=[group])


class WebGPUDevice(Device):
    """``get_device("webgpu")``: WGSL kernels on the process's wgpu device."""

    def unavailable_reason(self) -> str | None:
        from kiln.targets.wgsl.toolchain import available

        ok, why = available()
        return None if ok else why


    def load(self, spec: ProgramSpec) -> WebGPUProgram:
        """Load a program whose kernels are WGSL (shader module and pipelines are built here, once)."""
        return WebGPUProgram(spec)
