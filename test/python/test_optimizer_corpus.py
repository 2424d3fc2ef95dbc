"""Optimized kernels compute what the reference interpreter computes, on the shared corpus: with the heuristic's
opts, with random legal opt lists, and after a small beam search.

Elementwise-only programs are left out of the optimized runs (test_corpus covers them; the opts that apply to
their kernels are covered by the reduce, movement and composite programs), which keeps this file fast.
"""

from __future__ import annotations

import random

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import parse_pipeline

from kiln.compiler import registry
from kiln.dialects.kernel import KernelOp
from kiln.passes.optimize.apply import apply_opt
from kiln.passes.optimize.opts import Opt, OptError, format_opts
from kiln.compiler.search import actions
from kiln.runtime.devices import device_available
from kiln.compiler.driver import LOWERINGS
from kiln.compiler.module import parse_module
from kiln.passes.optimize.space import applied
from kiln.capabilities.description import get_target
from kiln.compiler.pipeline import build_pipeline
from kiln.compiler.driver import compile

from corpus import Program, all_programs, assert_same

PROGRAMS = [p for p in all_programs() if "elementwise" not in p.tags]
RANDOM_SUBSET = ("reduce_f32", "reduce_ui8", "movement", "matmul_17x33x65", "matmul_batched", "softmax_1",
                 "conv_stride_pad", "max_pool2d", "symbolic", "example_attention")
C_SUBSET = ("reduce_f32", "matmul_17x33x65", "softmax_1", "symbolic", "conv_block", "conv_dilated_grouped")
GPU_SUBSET = ("reduce_f32", "movement", "matmul_1x8x1", "matmul_16x16x16", "matmul_batched", "softmax_0", "cumsum_1",
              "conv_stride_pad", "symbolic", "example_mlp", "example_convnet")
_reference: dict[str, list[list]] = {}


def reference(p: Program) -> list[list]:
    if p.name not in _reference:
        run = compile(p.text, p.function, "interp")
        _reference[p.name] = [run(*inputs) for inputs in p.runs]
    return _reference[p.name]


def kernel_module(p: Program, device: str, optimize: str = "") -> ModuleOp:
    """``p`` lowered to kernels as ``device``'s pipeline schedules them (and optimized by the ``optimize``
    passes, if any)."""
    specs = [str(s) for s in parse_pipeline(registry.PIPELINES[LOWERINGS[device][0]])]
    scheduling = ",".join(specs[: specs.index("kernel-plan-memory") + 1])
    module = parse_module(p.text)
    for lowering in build_pipeline(scheduling + (f",{optimize}" if optimize else "")):
        lowering.apply(registry.make_context(), module)
    return module


def with_optimizer(device: str, optimize: str) -> str:
    """The device's pipeline with ``optimize`` (kernel-optimize passes) after the memory planner, and no other
    kernel-optimize."""
    specs = [s for s in parse_pipeline(registry.PIPELINES[LOWERINGS[device][0]]) if s.name != "kernel-optimize"]
    text = ",".join(str(s) for s in specs)
    return text.replace("kernel-plan-memory", f"kernel-plan-memory,{optimize}")


def check(p: Program, device: str, pipeline: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    if p.dtypes - get_target(device).dtypes:
        pytest.skip(f"{device} does not support {sorted(p.dtypes - get_target(device).dtypes)}")
    monkeypatch.setitem(registry.PIPELINES, LOWERINGS[device][0], pipeline)
    run = compile(p.text, p.function, device)
    for inputs, want in zip(p.runs, reference(p)):
        for i, (g, w) in enumerate(zip(run(*inputs), want)):
            assert_same(g, w, p.rtol, p.atol, f"{p.name} on {device} ({pipeline}), result {i}")


def check_heuristic(p: Program, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    optimize = f"kernel-optimize{{target={device}}}"
    kernels = [op for op in kernel_module(p, device, optimize).ops if isinstance(op, KernelOp)]
    if not any(applied(k) for k in kernels):
        pytest.skip("the heuristic chooses no opts for this program (test_corpus runs it as it is)")
    check(p, device, with_optimizer(device, optimize), monkeypatch)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_heuristic_matches_interpreter(program: Program, monkeypatch: pytest.MonkeyPatch) -> None:
    check_heuristic(program, "cpu-llvm", monkeypatch)


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.name in C_SUBSET], ids=lambda p: p.name)
def test_heuristic_matches_interpreter_on_c(program: Program, monkeypatch: pytest.MonkeyPatch) -> None:
    check_heuristic(program, "cpu-c", monkeypatch)


GPU = [p for p in PROGRAMS if p.name in GPU_SUBSET]


@pytest.mark.parametrize("program", GPU, ids=lambda p: p.name)
def test_heuristic_matches_interpreter_on_webgpu(program: Program, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU rules (workgroups, grouped reductions, reduce unrolling, 4-wide tiles) on a GPU that runs here."""
    check_heuristic(program, "webgpu", monkeypatch)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_heuristic_matches_interpreter_on_cuda(program: Program, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cuda heuristic's kernels (tensor cores, shared-memory reductions) run on an NVIDIA GPU where there is
    one; elsewhere they skip, and the PTX-assembles tests below are what remains."""
    check_heuristic(program, "cuda", monkeypatch)


@pytest.mark.parametrize("program", GPU, ids=lambda p: p.name)
def test_heuristic_lowers_to_ptx_that_assembles(program: Program) -> None:
    """No NVIDIA GPU here: the cuda heuristic's kernels must at least give PTX that nvJitLink assembles."""
    from kiln.targets.ptx.toolchain import available, validate

    ok, why = available()
    if not ok:
        pytest.skip(why)
    module = parse_module(program.text)
    for lowering in build_pipeline(with_optimizer("cuda", "kernel-optimize{target=cuda}")):
        lowering.apply(registry.make_context(), module)
    validate(registry.get_all_targets()["ptx"]()(module))


CONVS = [p for p in PROGRAMS if p.name.startswith("conv_")]


@pytest.mark.parametrize("device", ["webgpu", "cuda"])
@pytest.mark.parametrize("program", CONVS, ids=lambda p: p.name)
def test_convs_as_matmuls_on_gpu(program: Program, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """graph-conv-to-matmul runs in the CPU pipelines only; its rewrite (and the scheduler's merged output ranges
    it leads to) must hold on a GPU target too."""
    optimize = with_optimizer(device, f"kernel-optimize{{target={device}}}")
    check(program, device, "graph-conv-to-matmul," + optimize, monkeypatch)


@pytest.mark.parametrize("program", [p for p in CONVS if p.name in ("conv_block", "conv_stride_pad")], ids=lambda p: p.name)
def test_convs_as_matmuls_lower_to_ptx_that_assembles(program: Program) -> None:
    from kiln.targets.ptx.toolchain import available, validate

    ok, why = available()
    if not ok:
        pytest.skip(why)
    module = parse_module(program.text)
    for lowering in build_pipeline("graph-conv-to-matmul," + with_optimizer("cuda", "kernel-optimize{target=cuda}")):
        lowering.apply(registry.make_context(), module)
    validate(registry.get_all_targets()["ptx"]()(module))


def random_opts(kernel: KernelOp, device: str, rng: random.Random, steps: int = 3) -> list[Opt]:
    """Up to ``steps`` opts drawn at random from the search's action space, each legal where it is applied."""
    target, chosen = get_target(device), []
    work = kernel.clone()
    for _ in range(steps):
        candidates = actions(target)
        rng.shuffle(candidates)
        for opt in candidates:
            try:
                apply_opt(work, opt, target)
            except OptError:
                continue
            chosen.append(opt)
            break
    return chosen


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.name in RANDOM_SUBSET], ids=lambda p: p.name)
def test_random_legal_opts_match_interpreter(program: Program, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(program.name)
    passes = []
    for kernel in (op for op in kernel_module(program, "cpu-llvm").ops if isinstance(op, KernelOp)):
        if opts := random_opts(kernel, "cpu-llvm", rng):
            passes.append(f'kernel-optimize{{kernel={kernel.sym_name.data} opts="{format_opts(opts)}"}}')
    assert passes, "no opt applies to any kernel of the program"
    check(program, "cpu-llvm", with_optimizer("cpu-llvm", ",".join(passes)), monkeypatch)


def test_beam_search_matches_interpreter(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    (program,) = [p for p in PROGRAMS if p.name == "matmul_16x16x16"]
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    search = "kernel-optimize{search=beam beam-width=2 max-candidates=8 time-per-kernel=5.0 workers=1}"
    check(program, "cpu-llvm", with_optimizer("cpu-llvm", search), monkeypatch)
    assert list((tmp_path / "tuning").iterdir()), "the search stored nothing in the tuning database"
