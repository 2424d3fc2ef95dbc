"""Devices: lookup, the interpreter device, schedule extraction, and the CPU device's compile path and cache.

The lowering passes are other engineers' work; the CPU compile path is tested here with a stand-in pipeline
(a pass that turns each kernel.kernel into a uop.kernel carrying launch attributes, then a no-op
convert-uop-to-* pass) and a stand-in emitter returning hand-written LLVM IR for the kernels it finds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from kiln.compiler import driver, registry
from kiln.compiler.pipeline import build_pipeline, pipeline_text
from kiln.dialects.kernel import KernelOp
from kiln.dialects.uop import UopKernelOp
from kiln.lowering.uop_to_target import ConvertUopToTarget
from kiln.runtime.device_cpu import CPUDevice
from kiln.runtime.devices import device_available, device_names, get_device
from kiln.compiler.schedule_reader import read_schedule
from kiln.support.errors import CompileError, DeviceUnavailable, KilnError
from kiln.runtime.program import BufferSpec, LaunchSpec, TensorSpec
from kiln.compiler.driver import compile

from cpu_kernels import kernels_source

DIMS = "graph.dims = #graph.dims<N = [1, 4096]>"
BUF = "!kernel.buffer<Nxf32>"
KERNEL_MODULE = f"""
kernel.kernel @k0(%x: {BUF}, %y: {BUF}, %out: {BUF}, %N: index)
    attributes {{{DIMS}, inputs = ["arg", "arg", "output"], opts = [], symbols = ["N"]}} {{
}}
kernel.kernel @k1(%x: {BUF}, %y: {BUF}, %out: {BUF}, %N: index)
    attributes {{{DIMS}, inputs = ["arg", "arg", "output"], opts = [], symbols = ["N"]}} {{
}}
func.func @fma(%a: {BUF}, %b: {BUF}, %c: {BUF}) -> {BUF} attributes {{{DIMS}}} {{
  %N = kernel.symbol "N" : index
  %t0 = kernel.alloc {{slot = 0 : i64}} : {BUF}
  %t1 = kernel.alloc {{slot = 1 : i64}} : {BUF}
  kernel.launch @k0(%a, %b, %t0, %N) : {BUF}, {BUF}, {BUF}, index
  kernel.launch @k1(%t0, %c, %t1, %N) : {BUF}, {BUF}, {BUF}, index
  func.return %t1 : {BUF}
}}
"""
KERNEL_OPS = {"k0": "mul", "k1": "add"}


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    return tmp_path


def parse(text: str) -> ModuleOp:
    return Parser(registry.make_context(), text).parse_module()


# --------------------------------------------------------------------------------------------- lookup


def test_unknown_device() -> None:
    with pytest.raises(KilnError, match="unknown device 'tpu' .expected one of interp, cpu-llvm, cpu-c, webgpu, cuda"):
        get_device("tpu")
    with pytest.raises(KilnError, match="not a CPU device"):
        CPUDevice("cuda")


def test_cpu_devices_are_shared_instances() -> None:
    assert get_device() is get_device("cpu-llvm")
    assert get_device("cpu-c").name == "cpu-c" and isinstance(get_device("cpu-c"), CPUDevice)
    assert get_device("cpu-c").available()


@pytest.mark.parametrize("name", ["webgpu", "cuda"])
def test_gpu_availability_is_a_question_not_a_crash(name: str) -> None:
    assert name in device_names()
    if not device_available(name):
        with pytest.raises(DeviceUnavailable, match=f"device '{name}' is not available: "):
            get_device(name)


def test_interp_device_runs_graph_ir() -> None:
    text = """
func.func @f(%a: !graph.tensor<Nx3xf32>, %b: !graph.tensor<3xf32>) -> !graph.tensor<Nx3xf32>
    attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  %s = graph.add %a, %b : (!graph.tensor<Nx3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<Nx3xf32>
  func.return %s : !graph.tensor<Nx3xf32>
}
"""
    run = compile(text, "f", "interp")
    a, b = np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(run(a, b)[0], a + b)
    with pytest.raises(KilnError, match="no function @g in the module .functions: f."):
        compile(text, "g", "interp")
    with pytest.raises(KilnError, match=r"values used but not defined: \[%zz\]"):
        compile(text.replace("%s = graph.add %a", "%s = graph.add %zz"), "f", "interp")
    with pytest.raises(KilnError, match="does not match the inferred type"):  # modules are verified
        wrong = text.replace("-> !graph.tensor<Nx3xf32>", "-> !graph.tensor<Nx4xf32>")
        compile(wrong.replace("%s : !graph.tensor<Nx3xf32>", "%s : !graph.tensor<Nx4xf32>"), "f", "interp")


# --------------------------------------------------------------------------------------------- schedule extraction


def uop_level(text: str) -> ModuleOp:
    """The module after a kernel -> uop conversion: kernels replaced by attribute-carrying uop.kernels."""
    module = parse(text)
    ToUop().apply(registry.make_context(), module)
    return module


def test_read_schedule() -> None:
    text = KERNEL_MODULE.replace("%t1 = kernel.alloc {slot = 1 : i64}", "%t1 = kernel.alloc")
    spec = read_schedule(uop_level(text), "fma", "cpu-llvm")
    n = ("N",)
    assert spec.inputs == (TensorSpec(n, "f32"),) * 3
    assert spec.symbols == (("N", 1, 4096),)
    assert spec.buffers[:3] == tuple(BufferSpec(i, n, "f32", input=i) for i in range(3))
    assert spec.buffers[3:] == (BufferSpec(3, n, "f32", slot=0), BufferSpec(4, n, "f32", slot=1))  # unplanned: next free
    assert spec.outputs == (4,)
    assert spec.launches == (
        LaunchSpec("k0", (("buf", 0), ("buf", 1), ("buf", 3), ("sym", "N")), "N", 2),
        LaunchSpec("k1", (("buf", 3), ("buf", 2), ("buf", 4), ("sym", "N")), "N", 2),
    )


def test_read_schedule_gpu_launch_attributes() -> None:
    module = uop_level(KERNEL_MODULE)
    for op in module.ops:
        if isinstance(op, UopKernelOp):
            op.attributes = {
                "global_size": ArrayAttr([StringAttr("ceildiv(N, 64)"), IntegerAttr(1, 64), IntegerAttr(1, 64)]),
                "local_size": DenseArrayBase.from_list(i64, [64, 1, 1]),
            }
    launch = read_schedule(module, "fma", "webgpu").launches[1]
    assert (launch.core_extent, launch.core_work) == (None, None)
    assert launch.global_size == ("ceildiv(N, 64)", 1, 1) and launch.local_size == (64, 1, 1)


def test_read_schedule_rejects_foreign_ops() -> None:
    text = KERNEL_MODULE.replace('%N = kernel.symbol "N" : index', '%N = kernel.symbol "N" : index\n  %one = kernel.const 1 : index')
    with pytest.raises(CompileError, match="unexpected kernel.const in the schedule @fma"):
        read_schedule(uop_level(text), "fma", "cpu-llvm")


# --------------------------------------------------------------------------------------------- the CPU compile path


@dataclass(frozen=True)
class ToUop(ModulePass):
    """Stand-in for the kernel -> uop lowering: only the launch attributes matter here."""

    name = "test-kernel-to-uop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in list(op.ops):
            if isinstance(kernel, KernelOp):
                attributes = {"core_extent": StringAttr("N"), "core_work": IntegerAttr(2, 64)}
                Rewriter.replace_op(kernel, UopKernelOp(kernel.sym_name.data, attributes=attributes))


@dataclass(frozen=True)
class Convert(ConvertUopToTarget):
    name = "convert-uop-to-test"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def emit(module: ModuleOp) -> str:
    names = [op.sym_name.data for op in module.ops if isinstance(op, UopKernelOp)]
    assert not [op for op in module.ops if isinstance(op, KernelOp)], "the emitter sees the lowered module"
    return kernels_source("cpu-llvm", {name: KERNEL_OPS[name] for name in names})


@pytest.fixture
def stand_in_pipeline(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Replace lower-to-llvm by the stand-ins; yields the list of modules the pipeline lowered (as text)."""
    lowered: list[str] = []
    upstream = registry.get_all_passes

    def passes() -> dict:
        return {**upstream(), "test-kernel-to-uop": lambda: ToUop, "convert-uop-to-test": lambda: Convert}

    def record(module: ModuleOp) -> str:
        lowered.append(str(module))
        return emit(module)

    monkeypatch.setitem(registry.PIPELINES, "lower-to-llvm", "test-kernel-to-uop,convert-uop-to-test")
    monkeypatch.setattr(registry, "get_all_passes", passes)
    monkeypatch.setattr(registry, "get_all_targets", lambda: {"llvm": lambda: record})
    yield lowered


def test_compile_and_run(stand_in_pipeline: list[str]) -> None:
    exe = compile(KERNEL_MODULE, "fma", "cpu-llvm")
    assert exe.spec.kernels.target == "cpu-llvm" and "define void @k1" in exe.spec.kernels.source
    assert [launch.core_work for launch in exe.spec.launches] == [2, 2]
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(50).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
    assert len(stand_in_pipeline) == 1


def test_cache_hit_parses_nothing(stand_in_pipeline: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    first = compile(KERNEL_MODULE, "fma", "cpu-llvm")

    def no_parsing(module: object) -> None:
        raise AssertionError("a compile-cache hit must not parse the module")

    monkeypatch.setattr("kiln.compiler.module.parse_module", no_parsing)
    again = compile(KERNEL_MODULE, "fma", "cpu-llvm")
    assert again.spec == first.spec and len(stand_in_pipeline) == 1
    with pytest.raises(AssertionError):
        compile(KERNEL_MODULE + "\n", "fma", "cpu-llvm")  # another text is another program


def test_the_callers_module_is_not_changed(stand_in_pipeline: list[str]) -> None:
    module = parse(KERNEL_MODULE)
    before = str(module)
    compile(module, "fma", "cpu-llvm")
    assert str(module) == before and len(stand_in_pipeline) == 1


def test_key_covers_function_device_pipeline_and_code() -> None:
    from kiln.compiler.cache_explain import key_parts

    def key(function: str, device: str) -> tuple[str, ...]:
        parts = key_parts("module", device, driver.device_pipeline_text(device))
        return driver.cache_key(function, device, parts)

    llvm_key = key("f", "cpu-llvm")
    assert llvm_key != key("g", "cpu-llvm")
    assert llvm_key != key("f", "cpu-c")
    assert pipeline_text(build_pipeline(registry.PIPELINES["lower-to-llvm"])) in llvm_key
    from kiln.support.cache import code_fingerprint

    assert code_fingerprint() in llvm_key


def test_errors_are_kiln_errors(stand_in_pipeline: list[str]) -> None:
    with pytest.raises(KilnError, match="no function @nope in the module"):
        compile(KERNEL_MODULE, "nope", "cpu-llvm")
    with pytest.raises(KilnError, match="Expected argument or type"):
        compile("func.func @f(", "f", "cpu-llvm")
