"""The compiler driver: a graph module and a function name in, a program description (``ProgramSpec``) out.

``compile_program(module, "f", device)``:
1. looks the compile up in the disk cache (namespace ``program``), keyed on the function name, the device and
   the named parts of `kiln.compiler.cache_explain` (module text, pipeline as its pass objects print it,
   target description, toolchain version, a fingerprint of kiln's code). A hit holds the ``ProgramSpec`` JSON
   with the kernel source inside: no IR is parsed, no pass is built or run (``device_pipeline_text`` keeps the
   printed pipeline on disk). On request it says which, and why it missed;
2. on a miss, parses and verifies the module and runs the device's pipeline (``device_pipeline``). Just before
   the pass that leaves the uop level (a ``ConvertUopToTarget``), it reads the ``ProgramSpec`` off the
   uop-level module (``read_schedule``): the schedule ``func.func`` (``kernel.symbol``, ``kernel.alloc``,
   ``kernel.launch``, ``func.return``) and the launch attributes of each ``uop.kernel``. After the pipeline
   the target's emitter turns the module into the kernels' source text, stored in the spec.

``compile(module, "f", device)`` then hands the spec to the runtime's device, which loads and runs it; the
runtime never compiles. The "interp" device runs the graph module itself through the reference interpreter.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from kiln.compiler import registry
from kiln.compiler.cache_explain import PROGRAM_NAMESPACE, key_parts, remember, why_compiled
from kiln.runtime.devices import DEFAULT_DEVICE, Device, InterpDevice, get_device
from kiln.runtime.program import KernelsArtifact, ProgramSpec
from kiln.support import cache
from kiln.support.env import env_int
from kiln.support.errors import CompileError, KilnError, UserError
from kiln.support.versions import package_version

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from kiln.compiler.semantic_check import SemanticChecker

LOWERINGS: dict[str, tuple[str, str]] = {
    "cpu-llvm": ("lower-to-llvm", "llvm"),
    "cpu-c": ("lower-to-c", "c"),
    "webgpu": ("lower-to-wgsl", "wgsl"),
    "cuda": ("lower-to-ptx", "ptx"),
}
"""Device -> (named pipeline of ``registry.PIPELINES``, emitter of ``registry.get_all_targets()``)."""

Compiled = Callable[..., list[np.ndarray]]
"""What ``compile`` returns: call it with input arrays, get the output arrays."""

Explain = Callable[[str], None]
"""Where the driver says whether a compile was a cache hit and, if not, why (a line for people)."""


PIPELINE_NAMESPACE = "pipeline"
"""The disk cache of printed device pipelines (``device_pipeline_text``)."""


def device_pipeline(device: str) -> list[ModulePass]:
    """The passes that lower a graph module for ``device``, as configured pass objects.

    ``KILN_BEAM=N`` makes every ``kernel-optimize`` search (beam width N, results in the tuning database)
    instead of using the heuristic; on webgpu the WGSL conversion gets the device's shader features, and
    ``KILN_WEBGPU_F64=f32`` lets ``graph-legalize-dtypes`` compute f64 values in f32. Built once per device
    and setting (a compile-cache hit should cost ~1 ms, and building costs several); passes are frozen, so
    the copies share them.
    """
    return list(_configured_pipeline(device, _named_pipeline(device), *_settings()))


def device_pipeline_text(device: str) -> str:
    """``pipeline_text(device_pipeline(device))`` without building a pass after the first time: the printed
    text is kept in the disk cache, keyed on what it is printed from (the named pipeline's text, the settings,
    on webgpu the GPU's f16 support, xDSL's version and kiln's code, which holds every pass's defaults). The
    program cache's key is made with it, so a hit imports no pass and builds none (2.7 s for ResNet-50's
    process at load 14)."""
    named = _named_pipeline(device)
    key = (device, named, *_settings(), _gpu_f16(device), package_version("xdsl"), cache.code_fingerprint())
    if (hit := cache.get(PIPELINE_NAMESPACE, key)) is not None:
        return hit.decode()
    from kiln.compiler.pipeline import pipeline_text

    text = pipeline_text(device_pipeline(device))
    cache.put(PIPELINE_NAMESPACE, key, text.encode())
    return text


def _named_pipeline(device: str) -> str:
    if device not in LOWERINGS:
        raise KilnError(f"device '{device}' does not compile through a pipeline")
    return registry.PIPELINES[LOWERINGS[device][0]]


def _settings() -> tuple[str, str]:
    """The environment settings that configure a device's passes (``device_pipeline``), as set."""
    return os.environ.get("KILN_BEAM", ""), os.environ.get("KILN_WEBGPU_F64", "")


def _gpu_f16(device: str) -> bool:
    """Whether ``device``'s WGSL conversion gets the shader-f16 feature (webgpu on a GPU with f16)."""
    if device != "webgpu":
        return False
    from kiln.targets.wgsl.toolchain import gpu

    return "f16" in gpu().target.dtypes


@functools.cache
def _configured_pipeline(device: str, named: str, beam_setting: str, f64_setting: str) -> tuple[ModulePass, ...]:
    """``device_pipeline`` for one named pipeline text and one value of its environment settings (read by the
    caller: they are the cache's key)."""
    from kiln.compiler.pipeline import build_pipeline

    try:
        passes = build_pipeline(named)
    except UserError as e:
        raise CompileError(str(e)) from None
    if beam := env_int("KILN_BEAM", 0, 1):
        passes = [_with_fields(p, "kernel-optimize", search="beam", beam_width=beam) for p in passes]
    if device == "webgpu":
        if f64_setting == "f32":
            warnings.warn("KILN_WEBGPU_F64=f32: webgpu computes f64 values in f32 (WGSL has no f64)", stacklevel=3)
            passes = [_with_fields(p, "graph-legalize-dtypes", f64_to_f32=True) for p in passes]
        if _gpu_f16(device):
            passes = [_with_fields(p, "convert-uop-to-wgsl", features=("shader-f16",)) for p in passes]
    return tuple(passes)


def _with_fields(p: ModulePass, name: str, **fields: Any) -> ModulePass:
    return dataclasses.replace(p, **fields) if p.name == name else p  # type: ignore[type-var]


def lower_program(
    module: ModuleOp,
    function_name: str,
    device: str,
    passes: list[ModulePass] | str | None = None,
    checker: SemanticChecker | None = None,
) -> ProgramSpec:
    """Run ``passes`` (pass objects or ``-p`` text; default: the device's pipeline) on a copy of ``module`` and
    emit its kernels. A ``checker`` checks the module after every pass (raises ``SemanticMismatch``)."""
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException, VerifyException

    from kiln.compiler.module import find_function
    from kiln.compiler.pipeline import build_pipeline, pipeline_text
    from kiln.compiler.schedule_reader import read_schedule
    from kiln.compiler.semantic_check import SemanticMismatch
    from kiln.lowering.uop_to_target import ConvertUopToTarget

    module = module.clone()
    find_function(module, function_name)
    found: list[ProgramSpec] = []

    def before_conversion(ran: ModulePass | None, op: ModuleOp, upcoming: ModulePass | None) -> None:
        if checker is not None and ran is not None and (disagreement := checker.check(ran, op)) is not None:
            raise SemanticMismatch(disagreement)
        if isinstance(upcoming, ConvertUopToTarget):
            found.append(read_schedule(op, function_name, device))

    if isinstance(passes, str):
        passes = build_pipeline(passes)
    elif passes is None:
        passes = device_pipeline(device)
    try:
        PassPipeline(tuple(passes), before_conversion).apply(registry.make_context(), module)
    except (DiagnosticException, PassFailedException, VerifyException) as e:
        raise CompileError(f"lowering @{function_name} for {device} failed: {e}") from None
    if not found:
        raise CompileError(f"pipeline '{pipeline_text(passes)}' has no uop-to-target conversion to read the schedule before")
    source = registry.get_all_targets()[LOWERINGS[device][1]]()(module)
    return replace(found[-1], kernels=KernelsArtifact(device, source))


def cache_key(function_name: str, device: str, parts: dict[str, str]) -> tuple[str, ...]:
    """Everything that changes the compiled program of ``function_name``: the named ``parts`` (`key_parts`)."""
    return (function_name, device, *parts.values())


def program_key(text: str, function_name: str, device: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """The compile cache's key of ``function_name`` in ``text`` on ``device``, and its named parts."""
    parts = key_parts(text, device, device_pipeline_text(device))
    return cache_key(function_name, device, parts), parts


def compile_program(module: Any, function_name: str, device: str, explain: Explain | None = None) -> ProgramSpec:
    """The program for ``function_name`` on ``device``: from the compile cache, else lowered and stored there.

    ``explain`` (``KILN_DEBUG``, ``kiln-run --explain``) is told which: a disk hit, or a compile and why.
    """
    text = module if isinstance(module, str) else str(module)
    key, parts = program_key(text, function_name, device)
    index = f"{device}:{function_name}"
    if (hit := cache.get(PROGRAM_NAMESPACE, key)) is not None:
        remember(index, parts)
        if explain is not None:
            explain(f"@{function_name} for {device}: disk cache hit")
        return ProgramSpec.from_json(hit.decode())
    reason = why_compiled(index, parts) if explain is not None else ""
    from kiln.compiler.module import parse_module

    spec = lower_program(parse_module(module), function_name, device)
    cache.put(PROGRAM_NAMESPACE, key, spec.to_json().encode())
    remember(index, parts)
    if explain is not None:
        explain(f"@{function_name} for {device}: compiled ({reason})")
    return spec


def compile_entry(module: Any, function_name: str, device: str) -> tuple[str, bytes]:
    """Compile like ``compile_program`` and return its compile-cache entry, integrity header included, with the
    key's digest: what a cluster node sends back to the machine that asked (``cache.put_entry`` checks it)."""
    text = module if isinstance(module, str) else str(module)
    key, _ = program_key(text, function_name, device)
    spec = compile_program(text, function_name, device)
    return cache.cache_key(key), cache.wrap(spec.to_json().encode())


def compile(  # noqa: A001
    module: Any,
    function_name: str,
    device: str = DEFAULT_DEVICE,
    explain: Explain | None = None,
    verify_sets: int | None = None,
) -> Compiled:
    """``function_name`` of ``module`` (a ``ModuleOp`` or its text) compiled and loaded on ``device``.

    ``verify_sets`` (default: ``KILN_VERIFY_SEMANTICS``; 0 is off) checks the compile on that many random input
    sets: after every pass with the interpreters, then the loaded program against the last interpreted level
    (``verified_compile``)."""
    dev: Device = get_device(device)
    if isinstance(dev, InterpDevice):
        from kiln.compiler.module import find_function, parse_module

        if explain is not None:
            explain(f"@{function_name} for interp: interpreted, nothing to compile or cache")
        return dev.load_function(find_function(parse_module(module), function_name))
    if verify_sets is None:
        verify_sets = env_int("KILN_VERIFY_SEMANTICS", 0, 0)
    if verify_sets:
        return verified_compile(module, function_name, device, verify_sets)
    spec = compile_program(module, function_name, device, explain)
    return _load(dev, spec, module, function_name)


def _load(dev: Device, spec: ProgramSpec, module: Any, function_name: str) -> Compiled:
    if "graph-legalize-dtypes" not in _named_pipeline(dev.name):
        return dev.load(spec)  # dtypes as declared: nothing to convert, and a cache hit parses no IR
    from kiln.compiler import dtype_boundary

    return dtype_boundary.wrap(dev.load(spec), module, function_name, spec)


def verified_compile(module: Any, function_name: str, device: str, sets: int) -> Compiled:
    """``compile`` under ``--verify-semantics``: the pipeline always runs (the compile cache is neither read nor
    written), checked after every pass, and the loaded program is run on the same input sets. A disagreement
    raises ``SemanticMismatch`` after writing its reproducer to ``<function>.verify-repro.mlir`` (in the current
    folder), the IR the culprit was given with the pipeline that replays it."""
    from kiln.compiler.module import parse_module
    from kiln.compiler.pipeline import pipeline_text
    from kiln.compiler.semantic_check import SemanticChecker, SemanticMismatch
    from kiln.lowering.uop_to_target import ConvertUopToTarget
    from kiln.support.reproducer import reproducer_text

    parsed = parse_module(module)
    checker = SemanticChecker(parsed, sets, functions=[function_name])
    passes = device_pipeline(device)
    try:
        spec = lower_program(parsed, function_name, device, passes, checker)
        run = _load(get_device(device), spec, parsed, function_name)
        conversion = next(i for i, p in enumerate(passes) if isinstance(p, ConvertUopToTarget))
        found = checker.check_device(run, device, function_name, pipeline_text(passes[conversion:]))
        if found is not None:
            raise SemanticMismatch(found)
    except SemanticMismatch as e:
        path = f"{function_name}.verify-repro.mlir"
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(reproducer_text(e.disagreement.given_ir, e.disagreement.pipeline))
            note = f"reproducer: '{path}' (the IR it was given, and the passes that replay it)"
        except OSError as problem:
            note = f"no reproducer: cannot write '{path}': {problem.strerror}"
        raise SemanticMismatch(e.disagreement, note) from None
    return run

