"""The webgpu target: WGSL compute shaders run through wgpu (naga validates, Vulkan/Metal/D3D/GL run).

``describe()`` gives WebGPU's guaranteed default limits, so generated code runs on any WebGPU device and the
compile cache does not depend on the machine. ``describe_limits(limits, features)`` gives the same target
with an actual device's limits (``kiln.runtime.device_webgpu`` requests the adapter's maxima and checks
launches against them), for callers that prefer the real numbers.

dtypes: f32, i32, u32 and bool (storage buffers hold bool as one u32 per element: WGSL's ``bool`` is not
host-shareable, so the runtime widens i1 data on upload and narrows it on readback); f16 only when the device
has the ``shader-f16`` feature. No f64, no 64-bit ints, no 8/16-bit storage.

Native ALU ops map to one WGSL operator or builtin (as the op declarations, ``kiln.dialects.ops``, render them
for "wgsl"). Not native: ``pow`` (WGSL leaves x < 0 undefined),
``erf`` (no builtin), ``tanh`` (WGSL inherits sinh/cosh's absolute error: lavapipe gives 3e-8 for tanh(1e-30),
+0 for -0 and -1 for NaN), ``shl``/``shr`` (WGSL takes the shift amount modulo the bit width; kiln shifts by >=
width give 0 or -1). ``max``/``min`` are native although WGSL leaves their NaN result implementation-defined
(Vulkan/lavapipe returns the non-NaN operand).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kiln.capabilities.description import TargetDescription
from kiln.dialects.ops.table import natively_rendered

OPTIONAL_FEATURES = ("shader-f16",)
"""WebGPU device features kiln uses when the adapter has them (``convert-uop-to-wgsl{features=...}``)."""

BASE_DTYPES = frozenset({"f32", "i32", "ui32", "i1"})

DEFAULT_LIMITS: dict[str, int] = {
    "max-compute-invocations-per-workgroup": 256,
    "max-compute-workgroup-size-x": 256,
    "max-compute-workgroup-size-y": 256,
    "max-compute-workgroup-size-z": 64,
    "max-compute-workgroups-per-dimension": 65535,
    "max-compute-workgroup-storage-size": 16384,
    "max-storage-buffers-per-shader-stage": 8,
    "max-storage-buffer-binding-size": 128 << 20,
    "max-buffer-size": 256 << 20,
}
"""The WebGPU spec's guaranteed limits for compute, under wgpu's names; the device requests these keys."""

MAX_LOOP_ITERATIONS = 65535
"""Loop iterations per invocation, all loops together: Mesa's lavapipe (Vulkan on the CPU) silently ends a
shader's loops after 65535 iterations in total (a sum over 70001 ones gave 65535). WebGPU states no such limit
and wgpu reports none, so it is a constant here, the smallest one seen, for every webgpu device."""


def describe() -> TargetDescription:
    """The portable WebGPU target: default limits, no optional features."""
    return describe_limits(DEFAULT_LIMITS, ())


def describe_limits(limits: Mapping[str, int], features: Iterable[str]) -> TargetDescription:
    """The webgpu target for a device with these limits (wgpu's ``device.limits``) and features."""
    dtypes = BASE_DTYPES | ({"f16"} if "shader-f16" in set(features) else set())
    return TargetDescription(
        name="webgpu",
        dtypes=frozenset(dtypes),
        alu_ops=natively_rendered("wgsl")[0],
        index_bits=32,
        vector_bytes=16,
        vector_widths={d: 4 for d in sorted(dtypes)},  # vec4<T> for every scalar T
        has_local=True,
        local_memory_bytes=limits["max-compute-workgroup-storage-size"],
        max_workgroup_size=limits["max-compute-invocations-per-workgroup"],
        max_workgroup_dims=(
            limits["max-compute-workgroup-size-x"],
            limits["max-compute-workgroup-size-y"],
            limits["max-compute-workgroup-size-z"],
        ),
        max_grid_dims=(limits["max-compute-workgroups-per-dimension"],) * 3,
        max_loop_iterations=MAX_LOOP_ITERATIONS,
    )


def max_storage_buffers(limits: Mapping[str, int] = DEFAULT_LIMITS) -> int:
    """How many buffer params one kernel may have (each is a storage binding; scalars use a uniform)."""
    return limits["max-storage-buffers-per-shader-stage"]
