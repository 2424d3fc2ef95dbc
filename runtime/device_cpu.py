"""The CPU devices, "cpu-llvm" and "cpu-c": lower a graph module, emit LLVM IR or C, load it, run the schedule.

``CPUDevice.compile(module, "f")``:
1. looks the compile up in the disk cache (namespace ``program``), keyed on the module text, the function name,
   the device, the pipeline text and a fingerprint of kiln's code. A hit holds the ``ProgramSpec`` JSON with the
   kernel source inside: no IR is parsed, no pass runs;
2. on a miss, parses and verifies the module, runs the named pipeline (``lower-to-llvm`` / ``lower-to-c``). Just
   before the ``convert-uop-to-*`` pass, it reads the ``ProgramSpec`` off the uop-level module: the schedule
   ``func.func`` (``kernel.symbol``, ``kernel.alloc``, ``kernel.launch``, ``func.return``) and the
   ``core_extent``/``core_work`` attributes of each ``uop.kernel`` (docs/internals.md). After the pipeline the
   registered emitter turns the module into LLVM IR or C, stored in the spec;
3. loads the kernels through the target's toolchain (which has its own object / ``.so`` cache) and returns an
   ``Executable``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kiln.runtime import cache
from kiln.runtime.devices import Device, find_function, parse_module
from kiln.runtime.errors import CompileError, KilnError
from kiln.runtime.program import (
    BufferSpec,
    Executable,
    KernelsArtifact,
    LaunchArg,
    LaunchSpec,
    LoadedKernels,
    ProgramSpec,
    TensorSpec,
)

PIPELINES = {"cpu-llvm": "lower-to-llvm", "cpu-c": "lower-to-c"}
"""Device -> named pipeline of ``kiln.registry.PIPELINES``."""
EMITTERS = {"cpu-llvm": "llvm", "cpu-c": "c"}
"""Device -> emitter of ``kiln.registry.get_all_targets()``."""
PROGRAM_NAMESPACE = "program"
CONVERT_PREFIX = "convert-uop-to-"


class CPUDevice(Device):
    def __init__(self, name: str):
        if name not in PIPELINES:
            raise KilnError(f"'{name}' is not a CPU device (expected one of {', '.join(PIPELINES)})")
        super().__init__(name)

    @property
    def pipeline(self) -> str:
        from kiln.registry import PIPELINES as NAMED

        return NAMED[PIPELINES[self.name]]

    def compile(self, module: Any, function_name: str) -> Executable:
        spec = self.compile_spec(module, function_name)
        return Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))

    def cache_key(self, module_text: str, function_name: str) -> tuple[str, ...]:
        """Everything that changes the compiled program of ``function_name`` in ``module_text``."""
        return (module_text, function_name, self.name, self.pipeline, cache.code_fingerprint())

    def compile_spec(self, module: Any, function_name: str) -> ProgramSpec:
        """The program for ``function_name``: from the compile cache, else lowered and stored there."""
        text = module if isinstance(module, str) else str(module)
        key = self.cache_key(text, function_name)
        if (hit := cache.get(PROGRAM_NAMESPACE, key)) is not None:
            return ProgramSpec.from_json(hit.decode())
        spec = lower_program(parse_module(module), function_name, self.name)
        cache.put(PROGRAM_NAMESPACE, key, spec.to_json().encode())
        return spec


def load_kernels(artifact: KernelsArtifact, names: list[str]) -> LoadedKernels:
    """Load emitted kernels through their target's toolchain."""
    if artifact.target == "cpu-llvm":
        from kiln.targets.llvm.toolchain import load_kernels as load_llvm

        return load_llvm(artifact.source, names)
    if artifact.target == "cpu-c":
        from kiln.targets.c.toolchain import load_c

        return load_c(artifact.source, names)
    raise KilnError(f"the CPU devices cannot load kernels for target '{artifact.target}'")


def lower_program(module: Any, function_name: str, device: str) -> ProgramSpec:
    """Run the device's pipeline on a copy of ``module`` and emit its kernels; returns the whole program."""
    from xdsl.passes import ModulePass, PassPipeline
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException, VerifyException

    from kiln.registry import PIPELINES as NAMED, get_all_passes, get_all_targets, make_context

    module = module.clone()
    find_function(module, function_name)
    found: list[ProgramSpec] = []

    def before_conversion(_: ModulePass | None, op: Any, upcoming: ModulePass | None) -> None:
        if upcoming is not None and upcoming.name.startswith(CONVERT_PREFIX):
            found.append(read_schedule(op, function_name, device))

    pipeline_text = NAMED[PIPELINES[device]]
    try:
        pipeline = PassPipeline.parse_spec(get_all_passes(), pipeline_text, before_conversion)
    except ImportError as e:
        raise CompileError(f"the {PIPELINES[device]} pipeline needs a pass that is not available: {e}") from None
    try:
        pipeline.apply(make_context(), module)
    except (DiagnosticException, PassFailedException, VerifyException) as e:
        raise CompileError(f"lowering @{function_name} for {device} failed: {e}") from None
    if not found:
        raise CompileError(f"pipeline '{pipeline_text}' has no {CONVERT_PREFIX}* pass to read the schedule before")
    source = get_all_targets()[EMITTERS[device]]()(module)
    return replace(found[-1], kernels=KernelsArtifact(device, source))


def read_schedule(module: Any, function_name: str, target: str) -> ProgramSpec:
    """The ``ProgramSpec`` (with an empty kernel source) of a uop-level module's schedule ``func.func``."""
    from xdsl.dialects.builtin import IntegerAttr, StringAttr
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
            kernel = kernels.get(name)
            extent = kernel.attributes.get("core_extent") if kernel else None
            work = kernel.attributes.get("core_work") if kernel else None
            launches.append(
                LaunchSpec(
                    name,
                    tuple(args),
                    extent.data if isinstance(extent, StringAttr) else None,
                    work.value.data if isinstance(work, IntegerAttr) else None,
                )
            )
        elif isinstance(op, ReturnOp):
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
