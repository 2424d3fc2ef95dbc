"""GPU toolchains and devices: PTX through nvJitLink, WGSL through naga, programs run on wgpu (lavapipe here) and,
where a GPU is present, on CUDA. Kernels are hand-written, programs are hand-built ``ProgramSpec``s, results are
compared with numpy. Run with ``-s`` to see the WebGPU timings."""

from __future__ import annotations

import ctypes
import os
import tempfile
import time
from dataclasses import replace

import numpy as np
import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())  # silences wgpu-native's startup warning

from kiln.runtime.device_cuda import CUDADevice, KernelParams, check  # noqa: E402
from kiln.runtime.device_webgpu import GPUSchedule, WebGPUDevice, storage_dtype  # noqa: E402
from kiln.support.errors import CompileError, InputError, KilnError  # noqa: E402
from kiln.runtime.program import BufferSpec, KernelsArtifact, LaunchSpec, ProgramSpec, TensorSpec  # noqa: E402
from kiln.capabilities.description import get_target  # noqa: E402
from kiln.targets.ptx import toolchain as ptx  # noqa: E402
from kiln.capabilities.ptx import SM_VERSIONS, ptx_header  # noqa: E402
from kiln.targets.wgsl import toolchain as wgsl  # noqa: E402
from kiln.capabilities.wgsl import DEFAULT_LIMITS, describe_limits  # noqa: E402

needs_nvjitlink = pytest.mark.skipif(not ptx.available()[0], reason=ptx.available()[1])
needs_cuda = pytest.mark.skipif(not CUDADevice("cuda").available(), reason=str(CUDADevice("cuda").unavailable_reason()))

# ----------------------------------------------------------------------------------------------------------- PTX

PTX_KERNELS = """
.visible .entry vadd(
\t.param .u64 a,
\t.param .u64 b,
\t.param .u64 c,
\t.param .u32 n
)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<6>;
\t.reg .f32 %f<4>;
\t.reg .b64 %rd<11>;

\tld.param.u64 %rd1, [a];
\tld.param.u64 %rd2, [b];
\tld.param.u64 %rd3, [c];
\tld.param.u32 %r1, [n];
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmov.u32 %r4, %tid.x;
\tmad.lo.s32 %r5, %r2, %r3, %r4;
\tsetp.ge.s32 %p1, %r5, %r1;
\t@%p1 bra DONE;
\tcvta.to.global.u64 %rd4, %rd1;
\tcvta.to.global.u64 %rd5, %rd2;
\tcvta.to.global.u64 %rd6, %rd3;
\tmul.wide.s32 %rd7, %r5, 4;
\tadd.s64 %rd8, %rd4, %rd7;
\tadd.s64 %rd9, %rd5, %rd7;
\tadd.s64 %rd10, %rd6, %rd7;
\tld.global.f32 %f1, [%rd8];
\tld.global.f32 %f2, [%rd9];
\tadd.f32 %f3, %f1, %f2;
\tst.global.f32 [%rd10], %f3;
DONE:
\tret;
}

.visible .entry row_sum(
\t.param .u64 x,
\t.param .u64 out,
\t.param .u32 M,
\t.param .u32 K
)
{
\t.reg .pred %p<3>;
\t.reg .b32 %r<10>;
\t.reg .f32 %f<3>;
\t.reg .b64 %rd<8>;

\tld.param.u64 %rd1, [x];
\tld.param.u64 %rd2, [out];
\tld.param.u32 %r1, [M];
\tld.param.u32 %r2, [K];
\tmov.u32 %r3, %ctaid.x;
\tmov.u32 %r4, %ntid.x;
\tmov.u32 %r5, %tid.x;
\tmad.lo.s32 %r6, %r3, %r4, %r5;
\tsetp.ge.s32 %p1, %r6, %r1;
\t@%p1 bra END;
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tmul.lo.s32 %r7, %r6, %r2;
\tmov.f32 %f1, 0f00000000;
\tmov.u32 %r8, 0;
LOOP:
\tsetp.ge.s32 %p2, %r8, %r2;
\t@%p2 bra STORE;
\tadd.s32 %r9, %r7, %r8;
\tmul.wide.s32 %rd5, %r9, 4;
\tadd.s64 %rd6, %rd3, %rd5;
\tld.global.f32 %f2, [%rd6];
\tadd.f32 %f1, %f1, %f2;
\tadd.s32 %r8, %r8, 1;
\tbra.uni LOOP;
STORE:
\tmul.wide.s32 %rd7, %r6, 4;
\tadd.s64 %rd7, %rd4, %rd7;
\tst.global.f32 [%rd7], %f1;
END:
\tret;
}
"""


def ptx_module(arch: str, body: str = PTX_KERNELS) -> str:
    return ptx_header(arch) + body


def test_ptx_header_names_the_isa_version_each_sm_needs() -> None:
    assert ptx_header("sm_80").splitlines() == [".version 7.0", ".target sm_80", ".address_size 64"]
    assert ptx_header("sm_90").splitlines()[:2] == [".version 7.8", ".target sm_90"]
    with pytest.raises(ValueError, match="sm_70"):
        ptx_header("sm_70")


@needs_nvjitlink
@pytest.mark.parametrize("arch", SM_VERSIONS)
def test_ptx_kernels_assemble_for_each_sm(arch: str) -> None:
    cubin = ptx.assemble(ptx_module(arch), arch)
    assert cubin.startswith(b"\x7fELF")
    ptx.validate(ptx_module(arch), [arch])


@needs_nvjitlink
def test_sm80_ptx_also_assembles_for_sm90() -> None:
    ptx.validate(ptx_module("sm_80"))


@needs_nvjitlink
def test_broken_ptx_fails_with_the_log_and_the_line() -> None:
    source = ptx_module("sm_80").replace("add.f32 %f3, %f1, %f2;", "add.f32 %f9, %f1, %f2;")
    line = source.splitlines().index("\tadd.f32 %f9, %f1, %f2;") + 1
    with pytest.raises(CompileError) as e:
        ptx.assemble(source, "sm_80")
    message = str(e.value)
    assert f"line {line}; error" in message and "Unknown symbol '%f9'" in message
    assert f"{line:5d} | add.f32 %f9, %f1, %f2;" in message


@needs_nvjitlink
def test_ptxas_warnings_are_errors() -> None:
    source = ptx_module("sm_80").replace("{\n\t.reg .pred %p<2>;", ".minnctapersm 4\n{\n\t.reg .pred %p<2>;", 1)
    with pytest.raises(CompileError, match=r"line \d+; error +: \.minnctapersm is ignored"):
        ptx.assemble(source, "sm_80")


@needs_nvjitlink
def test_ptx_target_newer_than_arch_fails() -> None:
    with pytest.raises(CompileError, match="sm_80 failed"):
        ptx.validate(ptx_module("sm_90"), ["sm_80"])


@needs_nvjitlink
def test_unsupported_arch_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match="-arch=sm_70"):
        ptx.assemble(ptx_module("sm_80"), "sm_70")


def test_cuda_target_description() -> None:
    cuda = get_target("cuda")
    assert cuda.index_bits == 32 and cuda.has_local and cuda.max_workgroup_size == 1024
    assert cuda.max_grid_dims == (2**31 - 1, 65535, 65535) and cuda.max_workgroup_dims == (1024, 1024, 64)
    assert {"f16", "bf16", "f64", "i64"} <= cuda.dtypes
    assert cuda.is_native("exp2") and not cuda.is_native("exp")
    assert cuda.vector_width("f32") == 4 and cuda.vector_width("f64") == 2


# ----------------------------------------------------------------------------------------------------------- WGSL


@pytest.fixture(scope="module")
def gpu() -> wgsl.GPU:
    """The process's wgpu device (opened on first use, not at collection), or a skip saying why there is none."""
    ok, why = wgsl.available()
    if not ok:
        pytest.skip(why)
    return wgsl.gpu()


@pytest.fixture(scope="module")
def webgpu(gpu: wgsl.GPU) -> WebGPUDevice:
    return WebGPUDevice("webgpu")



def test_webgpu_target_description_is_the_portable_one() -> None:
    webgpu = get_target("webgpu")
    assert webgpu.dtypes == {"f32", "i32", "ui32", "i1"}
    assert (webgpu.max_workgroup_size, webgpu.max_workgroup_dims, webgpu.local_memory_bytes) == (256, (256, 256, 64), 16384)
    assert webgpu.max_grid_dims == (65535,) * 3 and webgpu.index_bits == 32
    assert not webgpu.is_native("shl") and webgpu.is_native("exp")
    bigger = describe_limits({**DEFAULT_LIMITS, "max-compute-invocations-per-workgroup": 1024}, ["shader-f16"])
    assert bigger.max_workgroup_size == 1024 and "f16" in bigger.dtypes


def test_device_limits_are_at_least_the_portable_ones(gpu: wgsl.GPU) -> None:
    device = gpu.target
    assert device.max_workgroup_size >= 256 and device.local_memory_bytes >= 16384


def test_naga_rejection_is_a_compile_error_with_the_location(gpu: wgsl.GPU) -> None:
    with pytest.raises(CompileError) as e:
        wgsl.validate("@compute @workgroup_size(1)\nfn k() { let a: f32 = 1u; }")
    assert "wgsl:2:14" in str(e.value) and "expected to be `f32`, but got `u32`" in str(e.value)
    with pytest.raises(CompileError, match="writing to this location is not permitted"):
        wgsl.validate("@group(0) @binding(0) var<storage, read> a: array<f32>;\n@compute @workgroup_size(1) fn k() { a[0] = 1.0; }")


def test_entry_point_is_checked_against_the_device(gpu: wgsl.GPU) -> None:
    wgsl.validate("@compute @workgroup_size(64) fn k() { }", "k")
    with pytest.raises(CompileError, match="Unable to find entry point 'main'"):
        wgsl.validate("@compute @workgroup_size(64) fn k() { }", "main")
    with pytest.raises(CompileError, match="workgroup size"):
        wgsl.validate("@compute @workgroup_size(4096) fn k() { }", "k")


WGSL_KERNELS = """
struct vadd_params { n: i32 }
@group(0) @binding(0) var<storage, read_write> vadd_a: array<f32>;
@group(0) @binding(1) var<storage, read_write> vadd_b: array<f32>;
@group(0) @binding(2) var<storage, read_write> vadd_c: array<f32>;
@group(0) @binding(3) var<uniform> vadd_p: vadd_params;

@compute @workgroup_size(64)
fn vadd(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let i = i32(gid.x) * 64 + i32(lid.x);
  if (i < vadd_p.n) { vadd_c[i] = vadd_a[i] + vadd_b[i]; }
}

struct row_sum_params { M: i32, K: i32 }
@group(0) @binding(0) var<storage, read_write> row_sum_x: array<f32>;
@group(0) @binding(1) var<storage, read_write> row_sum_out: array<f32>;
@group(0) @binding(2) var<uniform> row_sum_p: row_sum_params;
var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(64)
fn row_sum(@builtin(workgroup_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let row = i32(gid.x);
  let t = i32(lid.x);
  var acc = 0.0;
  for (var k = t; k < row_sum_p.K; k += 64) { acc += row_sum_x[row * row_sum_p.K + k]; }
  partial[t] = acc;
  workgroupBarrier();
  for (var s = 32; s > 0; s = s / 2) {
    if (t < s) { partial[t] += partial[t + s]; }
    workgroupBarrier();
  }
  if (t == 0) { row_sum_out[row] = partial[0]; }
}

struct greater_params { n: i32 }
@group(0) @binding(0) var<storage, read_write> greater_x: array<f32>;
@group(0) @binding(1) var<storage, read_write> greater_y: array<f32>;
@group(0) @binding(2) var<storage, read_write> greater_out: array<u32>;
@group(0) @binding(3) var<uniform> greater_p: greater_params;

@compute @workgroup_size(64)
fn greater(@builtin(global_invocation_id) g: vec3<u32>) {
  let i = i32(g.x);
  if (i < greater_p.n) { greater_out[i] = select(0u, 1u, greater_x[i] > greater_y[i]); }
}
"""


def launch(kernel: str, args: tuple, global_size: tuple, local_size: tuple = (64, 1, 1)) -> LaunchSpec:
    return LaunchSpec(kernel, args, global_size=global_size, local_size=local_size)


def vadd_spec(target: str = "webgpu", source: str = WGSL_KERNELS, local: int = 64) -> ProgramSpec:
    """c = a + b over a symbolic N."""
    return ProgramSpec(
        name="vadd",
        inputs=(TensorSpec(("N",), "f32"), TensorSpec(("N",), "f32")),
        symbols=(("N", 1, 1 << 22),),
        buffers=(
            BufferSpec(0, ("N",), "f32", input=0),
            BufferSpec(1, ("N",), "f32", input=1),
            BufferSpec(2, ("N",), "f32", slot=0),
        ),
        outputs=(2,),
        launches=(
            launch("vadd", (("buf", 0), ("buf", 1), ("buf", 2), ("sym", "N")), (f"ceildiv(N, {local})", "1", "1"), (local, 1, 1)),
        ),
        kernels=KernelsArtifact(target, source),
    )


def row_sum_spec(target: str = "webgpu", source: str = WGSL_KERNELS, global_size: tuple = ("M", "1", "1")) -> ProgramSpec:
    """out[m] = sum_k x[m, k]: on webgpu one workgroup per row (tree reduction in workgroup memory)."""
    return ProgramSpec(
        name="row_sum",
        inputs=(TensorSpec(("M", "K"), "f32"),),
        symbols=(("M", 1, 100000), ("K", 1, 4096)),
        buffers=(BufferSpec(0, ("M", "K"), "f32", input=0), BufferSpec(1, ("M",), "f32", slot=0)),
        outputs=(1,),
        launches=(launch("row_sum", (("buf", 0), ("buf", 1), ("sym", "M"), ("sym", "K")), global_size),),
        kernels=KernelsArtifact(target, source),
    )


def compare_spec() -> ProgramSpec:
    """(a + b > c, a + b): two launches, the sum in a slot read by the second launch, a bool output."""
    return ProgramSpec(
        name="compare",
        inputs=(TensorSpec(("N",), "f32"),) * 3,
        symbols=(("N", 1, 1 << 20),),
        buffers=(
            *(BufferSpec(i, ("N",), "f32", input=i) for i in range(3)),
            BufferSpec(3, ("N",), "f32", slot=0),
            BufferSpec(4, ("N",), "i1", slot=1),
        ),
        outputs=(4, 3),
        launches=(
            launch("vadd", (("buf", 0), ("buf", 1), ("buf", 3), ("sym", "N")), ("ceildiv(N, 64)", "1", "1")),
            launch("greater", (("buf", 3), ("buf", 2), ("buf", 4), ("sym", "N")), ("ceildiv(N, 64)", "1", "1")),
        ),
        kernels=KernelsArtifact("webgpu", WGSL_KERNELS),
    )


rng = np.random.default_rng(0)


def test_vadd_with_a_symbolic_n(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(vadd_spec())
    for n in (1, 63, 64, 1000, 4096, 3):
        a, b = rng.random(n, np.float32), rng.random(n, np.float32)
        (c,) = program(a, b)
        assert c.shape == (n,) and c.dtype == np.float32
        np.testing.assert_array_equal(c, a + b)


def test_workgroup_tree_reduction(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(row_sum_spec())
    for m, k in ((1, 1), (5, 63), (300, 1000)):
        x = rng.standard_normal((m, k), np.float32)
        (out,) = program(x)
        np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-5, atol=1e-4)


def test_two_launches_through_a_slot_and_a_bool_output(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(compare_spec())
    a, b, c = (rng.standard_normal(777, np.float32) for _ in range(3))
    greater, total = program(a, b, c)
    assert greater.dtype == np.bool_
    np.testing.assert_array_equal(total, a + b)
    np.testing.assert_array_equal(greater, (a + b) > c)


def test_buffers_and_bind_groups_are_reused_until_a_buffer_grows(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(vadd_spec())
    small = [np.ones(100, np.float32)] * 2
    program(*small)
    buffers, generation = dict(program._buffers), program._generation
    _, plan = program.schedule.bind(small)
    groups = plan.device_state[1]
    program(*small)
    assert program._buffers == buffers and program._generation == generation and plan.device_state[1] is groups
    program(np.ones(10, np.float32), np.ones(10, np.float32))  # smaller: still fits
    assert program._generation == generation
    (c,) = program(np.ones(5000, np.float32), np.full(5000, 2, np.float32))
    assert program._generation > generation and (c == 3).all()
    (c,) = program(*small)  # the old plan rebinds to the grown buffers
    assert plan.device_state[1] is not groups and (c == 2).all()


def test_bad_inputs_are_input_errors(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(vadd_spec())
    with pytest.raises(InputError, match="takes 2 inputs"):
        program(np.ones(3, np.float32))
    with pytest.raises(InputError, match="input 1 must have dtype f32"):
        program(np.ones(3, np.float32), np.ones(3, np.float64))
    with pytest.raises(InputError, match="sets N = 4, but an earlier input set N = 3"):
        program(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(InputError, match=r"N = 0 is outside its declared bounds \[1, 4194304\]"):
        program(np.ones(0, np.float32), np.ones(0, np.float32))


def test_too_many_workgroups_is_reported_before_launching(webgpu: WebGPUDevice) -> None:
    program = webgpu.load(row_sum_spec())
    limit = webgpu.load(vadd_spec()).schedule.target.max_grid_dims[0]  # type: ignore[index]
    with pytest.raises(KilnError, match=f"needs {limit + 1} workgroups along x .* allows {limit}"):
        program(np.ones((limit + 1, 1), np.float32))


def test_programs_the_device_cannot_run_are_compile_errors(webgpu: WebGPUDevice) -> None:
    with pytest.raises(CompileError, match="workgroup size \\[2048, 1, 1\\] exceeds"):
        webgpu.load(vadd_spec(local=2048))
    with pytest.raises(CompileError, match="emitted for 'cuda'"):
        webgpu.load(vadd_spec(target="cuda"))
    with pytest.raises(CompileError, match="no definition in scope"):
        webgpu.load(vadd_spec(source=WGSL_KERNELS.replace("vadd_a[i] + vadd_b[i]", "vadd_a[i] + zz")))
    base = vadd_spec()
    f64 = replace(
        base,
        inputs=tuple(replace(t, dtype="f64") for t in base.inputs),
        buffers=tuple(replace(b, dtype="f64") for b in base.buffers),
    )
    with pytest.raises(CompileError, match="dtype f64, which webgpu cannot store"):
        webgpu.load(f64)
    swapped = replace(base, launches=(replace(base.launches[0], args=(("sym", "N"), ("buf", 0), ("buf", 1), ("buf", 2))),))
    with pytest.raises(CompileError, match="buffers first"):
        webgpu.load(swapped)
    symbolic = replace(base, launches=(replace(base.launches[0], local_size=("N", 1, 1)),))
    with pytest.raises(CompileError, match="the workgroup size must be constant"):
        webgpu.load(symbolic)


def test_device_binding_limits_are_checked(gpu: wgsl.GPU, webgpu: WebGPUDevice) -> None:
    base = vadd_spec()
    limit = gpu.device.limits["max-storage-buffers-per-shader-stage"]
    too_many = replace(base, launches=(replace(base.launches[0], args=(("buf", 0),) * (limit + 1) + (("sym", "N"),)),))
    with pytest.raises(CompileError, match=f"@vadd takes {limit + 1} buffers, .* at most {limit} storage buffers"):
        webgpu.load(too_many)
    max_bytes = gpu.device.limits["max-storage-buffer-binding-size"]
    n = max_bytes // 4 + 1
    one_group = (replace(base.launches[0], global_size=("1", "1", "1")),)  # the grid stays within its limits
    program = webgpu.load(replace(base, symbols=(("N", 1, n),), launches=one_group))
    big = np.empty(n, np.float32)  # never touched: the check comes before any upload
    with pytest.raises(KilnError, match=f"input 0 needs {n * 4} bytes for N = {n}, .* at most {max_bytes} bytes"):
        program(big, big)


def test_webgpu_timings(gpu: wgsl.GPU, webgpu: WebGPUDevice) -> None:
    """Prints (with -s) adapter init, program load, first and steady call times; asserts only the results."""
    start = time.perf_counter()
    program = webgpu.load(vadd_spec())
    loaded = time.perf_counter()
    a, b = rng.random(4096, np.float32), rng.random(4096, np.float32)
    (c,) = program(a, b)
    first = time.perf_counter()
    for _ in range(50):
        (c,) = program(a, b)
    steady = (time.perf_counter() - first) / 50
    np.testing.assert_array_equal(c, a + b)
    print(
        f"\nwebgpu on {gpu.name}: adapter+device {gpu.init_seconds * 1e3:.0f} ms, "
        f"load {(loaded - start) * 1e3:.1f} ms, first call {(first - loaded) * 1e3:.1f} ms, "
        f"steady call (1 kernel, 4096 f32) {steady * 1e3:.2f} ms"
    )


def test_storage_dtypes() -> None:
    assert storage_dtype("i1") == np.uint32 and storage_dtype("f32") == np.float32


# ----------------------------------------------------------------------------------------------------------- CUDA


def test_kernel_params_point_at_the_packed_values() -> None:
    params = KernelParams([0x1000, 0xDEAD_BEEF_00], [7, -3])
    pointers = ctypes.cast(params.address, ctypes.POINTER(ctypes.c_void_p))
    assert ctypes.cast(pointers[0], ctypes.POINTER(ctypes.c_uint64)).contents.value == 0x1000
    assert ctypes.cast(pointers[1], ctypes.POINTER(ctypes.c_uint64)).contents.value == 0xDEAD_BEEF_00
    assert ctypes.cast(pointers[2], ctypes.POINTER(ctypes.c_int32)).contents.value == 7
    assert ctypes.cast(pointers[3], ctypes.POINTER(ctypes.c_int32)).contents.value == -3
    assert KernelParams([], []).address == 0
    with pytest.raises(KilnError, match="does not fit the i32"):
        KernelParams([0], [2**31])


def test_driver_errors_name_the_call_and_the_error() -> None:
    from cuda.bindings import driver

    assert check("cuMemAlloc", (driver.CUresult.CUDA_SUCCESS, 42)) == 42
    with pytest.raises(KilnError, match="CUDA cuMemAlloc failed with CUDA_ERROR_OUT_OF_MEMORY"):
        check("cuMemAlloc", (driver.CUresult.CUDA_ERROR_OUT_OF_MEMORY, None))


def test_launch_sizes_are_evaluated_and_checked_against_cuda_limits() -> None:
    schedule = GPUSchedule(row_sum_spec("cuda", global_size=("ceildiv(M, 128)", "K", "1")), get_target("cuda"), storage_dtype)
    _, plan = schedule.bind([np.ones((1000, 7), np.float32)])
    (row_sum,) = plan.launches
    assert row_sum.grid == (8, 7, 1) and row_sum.scalars == (1000, 7) and row_sum.call.local_size == (64, 1, 1)
    assert plan.storage_bytes == {("input", 0): 1000 * 7 * 4, ("slot", 0): 1000 * 4}
    with pytest.raises(KilnError, match="needs 65536 workgroups along y .* cuda allows 65535"):
        GPUSchedule(row_sum_spec("cuda", global_size=("1", "M", "1")), get_target("cuda"), storage_dtype).bind(
            [np.ones((65536, 1), np.float32)]
        )
    with pytest.raises(CompileError, match="exceeds cuda's limits"):
        GPUSchedule(vadd_spec("cuda", local=2048), get_target("cuda"), storage_dtype)


def test_cuda_reports_why_it_is_unavailable() -> None:
    device = CUDADevice("cuda")
    if device.available():
        pytest.skip("a CUDA GPU is present")
    assert "CUDA" in str(device.unavailable_reason())


@needs_cuda
def test_ptx_programs_run_on_the_gpu() -> None:
    device = CUDADevice("cuda")
    source = ptx_module("sm_80")
    vadd = device.load(vadd_spec("cuda", source, local=128))
    a, b = rng.random(100_003, np.float32), rng.random(100_003, np.float32)
    np.testing.assert_array_equal(vadd(a, b)[0], a + b)
    row_sum = device.load(row_sum_spec("cuda", source, global_size=("ceildiv(M, 64)", "1", "1")))
    x = rng.standard_normal((1000, 37), np.float32)
    np.testing.assert_allclose(row_sum(x)[0], x.sum(axis=1), rtol=1e-5, atol=1e-4)
