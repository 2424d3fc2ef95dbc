"""The kernel optimizer's parts: opt text, axis numbering, all-or-nothing application, replay, the meaning of
masked and split kernels (run on cpu-llvm against numpy), the cost estimate, the tuning database and the search.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kiln.dialects.kernel import KernelOp
from kiln.compiler import measure, search
from kiln.passes.optimize import cost, tuning_db
from kiln.passes.optimize.apply import apply_opt, apply_opts
from kiln.passes.optimize.heuristic import heuristic_opts
from kiln.compiler.kernel_optimize import KernelOptimize
from kiln.passes.optimize.opts import Opt, OptError, OptOp, format_opts, parse_opts
from kiln.passes.optimize.space import applied, axes, kind, reduce_axes
from kiln.compiler.registry import make_context
from kiln.runtime.devices import device_available
from kiln.capabilities.description import get_target
from kiln.compiler.driver import compile

from kernel_ir import parse_kernel

CPU = get_target("cpu-llvm")

MATMUL = """
kernel.kernel @%s(%%a: !kernel.buffer<%dx32xf32>, %%b: !kernel.buffer<32x64xf32>, %%out: !kernel.buffer<%dx64xf32>) attributes {symbols = []} {
  %%c32 = kernel.const 32 : index
  %%c64 = kernel.const 64 : index
  %%cm = kernel.const %d : index
  %%i = kernel.range %%cm global
  %%j = kernel.range %%c64 global
  %%k = kernel.range %%c32 reduce
  %%i32 = kernel.mul %%i, %%c32 : index
  %%ia = kernel.add %%i32, %%k : index
  %%k64 = kernel.mul %%k, %%c64 : index
  %%ib = kernel.add %%k64, %%j : index
  %%x = kernel.load %%a[%%ia] : f32
  %%y = kernel.load %%b[%%ib] : f32
  %%p = kernel.mul %%x, %%y : f32
  %%s = kernel.reduce add %%p over %%k : f32
  %%i64 = kernel.mul %%i, %%c64 : index
  %%io = kernel.add %%i64, %%j : index
  kernel.store %%out[%%io], %%s
}
"""

ROW_REDUCE = """
kernel.kernel @rows(%x: !kernel.buffer<5x20xf32>, %out: !kernel.buffer<5xf32>) attributes {symbols = []} {
  %c5 = kernel.const 5 : index
  %c20 = kernel.const 20 : index
  %i = kernel.range %c5 global
  %k = kernel.range %c20 reduce
  %i20 = kernel.mul %i, %c20 : index
  %idx = kernel.add %i20, %k : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce REDUCE %v over %k : f32
  kernel.store %out[%i], %m
}
"""


def matmul(m: int = 8, name: str = "mm") -> KernelOp:
    return parse_kernel(MATMUL % (name, m, m, m))


def run(k: KernelOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Compile ``k`` (as one launch) for cpu-llvm and run it."""
    return compile(measure.timing_module(k), measure.FUNCTION, "cpu-llvm")(*inputs)


needs_cpu = pytest.mark.skipif(not device_available("cpu-llvm"), reason="cpu-llvm is not available")

# ---------------------------------------------------------------------------------------------
# opt text


def test_opt_text_round_trips() -> None:
    text = "upcast:1:16,unroll:0:4,nolocals,tc:0:0"
    opts = parse_opts(text)
    assert opts[0] == Opt(OptOp.UPCAST, 1, 16) and opts[2] == Opt(OptOp.NOLOCALS)
    assert format_opts(opts) == text
    assert parse_opts("") == []


@pytest.mark.parametrize(
    "text, message",
    [("upcats:0:4", "unknown opt 'upcats'"), ("upcast:0", "expected upcast:<axis>:<amount>"),
     ("upcast:a:4", "two integers"), ("upcast:-1:4", "must not be negative"), ("nolocals:0:1", "takes no axis")],
)
def test_bad_opt_text_is_rejected(text: str, message: str) -> None:
    with pytest.raises(OptError, match=message):
        parse_opts(text)


# ---------------------------------------------------------------------------------------------
# applying opts


def test_axes_are_numbered_by_kind_then_nesting_order() -> None:
    k = matmul()
    apply_opts(k, parse_opts("upcast:1:16,unroll:0:4"), CPU)
    assert [kind(r).value for r in axes(k)] == ["global", "global", "upcast", "reduce", "unroll"]
    assert [kind(r).value for r in reduce_axes(k)] == ["reduce"]
    assert applied(k) == ["upcast:1:16", "unroll:0:4"]


@pytest.mark.parametrize("opt", ["upcast:0:3", "unroll:0:64", "thread:2:2", "padto:2:16", "local:0:2", "swap:1:0"])
def test_an_illegal_opt_leaves_the_kernel_unchanged(opt: str) -> None:
    k = matmul()
    apply_opt(k, Opt.parse("upcast:1:16"), CPU)
    before = str(k)
    with pytest.raises(OptError):
        apply_opt(k, Opt.parse(opt), CPU)
    assert str(k) == before


def test_recorded_opts_replay_to_the_same_kernel() -> None:
    tuned = matmul()
    heuristic_opts(tuned, CPU)
    replayed = matmul()
    KernelOptimize(opts=",".join(applied(tuned) or [])).apply(make_context(), replayed.parent_op())  # type: ignore[arg-type]
    assert applied(tuned) and str(replayed) == str(tuned)


def test_optimized_kernels_are_left_alone() -> None:
    k = matmul()
    module = k.parent_op()
    KernelOptimize().apply(make_context(), module)  # type: ignore[arg-type]
    once = str(k)
    KernelOptimize().apply(make_context(), module)  # type: ignore[arg-type]
    assert str(k) == once


# ---------------------------------------------------------------------------------------------
# meaning (cpu-llvm against numpy)


@needs_cpu
@pytest.mark.parametrize(
    "reduce, opts, want",
    [
        ("max", "padto:1:16", np.max),  # padded points must combine -inf, not 0: the data is negative
        ("max", "padto:0:4,upcast:0:4", np.max),  # padded rows are not stored
        ("mul", "upcast:1:4", np.prod),  # four partial products
        ("min", "padto:1:8,upcast:1:8", np.min),
    ],
)
def test_masked_and_split_reduces_compute_the_same(reduce: str, opts: str, want) -> None:
    k = parse_kernel(ROW_REDUCE.replace("REDUCE", reduce))
    apply_opts(k, parse_opts(opts), CPU)
    x = -np.random.default_rng(0).uniform(0.5, 1.5, (5, 20)).astype(np.float32)
    (got,) = run(k, [x])
    np.testing.assert_allclose(got, want(x, axis=1), rtol=1e-5)


@needs_cpu
@pytest.mark.parametrize("opts", [
    "upcast:1:16,upcast:0:4,unroll:0:4", "thread:1:2", "swap:0:1,upcast:2:8",
    "padto:0:16,upcast:0:16",  # 12 rows under 16: clamped, stores gated
    "padto:0:8,upcast:0:8",  # 12 rows as blocks [0, 8) and [4, 12): rows 4-7 computed and stored twice
    "padto:0:8,thread:0:2",  # the two blocks on two threads, both storing rows 4-7
])
def test_matmul_opts_compute_the_same(opts: str) -> None:
    k = matmul(m=12)
    apply_opts(k, parse_opts(opts), CPU)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((12, 32)).astype(np.float32), rng.standard_normal((32, 64)).astype(np.float32)
    (got,) = run(k, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("registers, rows", [(32, 8), (16, 4)])
def test_the_cpu_register_tile_fits_the_vector_registers(registers: int, rows: int) -> None:
    """8 rows x 2 vectors of accumulators with AVX-512's 32 registers; with AVX2's 16 they would spill: 4 rows."""
    k = matmul(m=64)
    target = dataclasses.replace(CPU, vector_bytes=32, vector_widths={}, vector_registers=registers)
    assert format_opts(heuristic_opts(k, target)) == f"upcast:1:8,upcast:1:2,upcast:0:{rows}"


def test_a_narrow_register_tile_is_padded_to_vectors() -> None:
    """10 columns: padded to 2 vectors of 8 (37.5% padding) rather than 10 scalar accumulators per row."""
    k = parse_kernel((MATMUL % ("mm", 16, 16, 16)).replace("64", "10"))
    target = dataclasses.replace(CPU, vector_bytes=32, vector_widths={}, vector_registers=16)
    assert format_opts(heuristic_opts(k, target)) == "padto:1:8,upcast:1:8,upcast:1:2,upcast:0:4"


@needs_cpu
def test_the_narrow_tile_on_the_host_computes_the_matmul() -> None:
    k = parse_kernel((MATMUL % ("mm", 12, 12, 12)).replace("64", "10"))
    heuristic_opts(k, CPU)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((12, 32)).astype(np.float32), rng.standard_normal((32, 10)).astype(np.float32)
    (got,) = run(k, [a, b])
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# cost estimate and tuning database


def test_cost_estimate_prefers_register_tiles_and_threads() -> None:
    plain, tiled = matmul(m=64), matmul(m=64)
    apply_opts(tiled, parse_opts("upcast:1:16,upcast:0:4"), CPU)
    assert cost.estimate(tiled, CPU) < cost.estimate(plain, CPU)
    one_row, threaded = matmul(m=1), matmul(m=1)  # the first global range (1 row) cannot be split across cores
    apply_opts(threaded, parse_opts("thread:1:2"), CPU)
    if (CPU.cpu_cores or 1) >= 2:
        assert cost.estimate(threaded, CPU) < cost.estimate(one_row, CPU)


def test_tuning_key_is_the_structure_not_the_names() -> None:
    assert tuning_db.structure(matmul(name="a")) == tuning_db.structure(matmul(name="b"))
    assert tuning_db.structure(matmul(m=8)) != tuning_db.structure(matmul(m=16))
    assert tuning_db.key(matmul(), CPU, "x") != tuning_db.key(matmul(), CPU, "y")


def test_tuning_database_round_trip(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    k = matmul()
    assert tuning_db.lookup(k, CPU, "o") is None
    tuning_db.store(k, CPU, "o", tuning_db.Tuning(parse_opts("upcast:1:16"), 1e-3, 2e-3))
    hit = tuning_db.lookup(matmul(name="other"), CPU, "o")
    assert hit is not None and format_opts(hit.opts) == "upcast:1:16" and hit.baseline == 2e-3


# ---------------------------------------------------------------------------------------------
# search


@needs_cpu
def test_search_stores_its_result_and_a_second_run_reuses_it(tmp_path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    from kiln.compiler.kernel_optimize import KernelOptimize as Searching  # the registered pass, which can time

    first = matmul(m=16)
    optimize = Searching(search="beam", beam_width=2, max_candidates=6, time_per_kernel=120.0, workers=2)
    optimize.apply(make_context(), first.parent_op())  # type: ignore[arg-type]
    assert applied(first) is not None
    lines = capsys.readouterr().err.splitlines()
    assert not any("\r" in line or "\033" in line for line in lines), "terminal codes although stderr is a pipe"
    assert lines[0].startswith("kernel-optimize: @mm round 1: timed ")  # one line per round, time left
    assert lines[0].endswith(" s left") and ", best " in lines[0]
    assert lines[-1].startswith("kernel-optimize: @mm: searched opts [") and "vs the heuristic's" in lines[-1]

    def no_search(self: search.BeamSearch) -> None:
        raise AssertionError("searched again instead of using the tuning database")

    monkeypatch.setattr(search.BeamSearch, "run", no_search)
    second = matmul(m=16, name="again")
    optimize.apply(make_context(), second.parent_op())  # type: ignore[arg-type]
    assert applied(second) == applied(first)
    summary = capsys.readouterr().err
    assert summary.startswith("kernel-optimize: @again: opts [") and "from the tuning database" in summary


@needs_cpu
def test_search_respects_the_candidate_budget(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    counted: list[int] = []
    original = search.BeamSearch.measure

    def measure_and_count(self: search.BeamSearch, candidates, stage: str, deadline: float):
        counted.append(len(candidates))
        return original(self, candidates, stage, deadline)

    monkeypatch.setattr(search.BeamSearch, "measure", measure_and_count)
    budget = search.SearchBudget(beam_width=2, max_candidates=5, workers=1)
    search.beam_search_module([matmul(m=16)], CPU, budget)
    assert sum(counted[1:]) <= budget.max_candidates


@needs_cpu
def test_search_stops_compiling_when_the_time_is_spent() -> None:
    k, kernels = matmul(m=16), [matmul(m=16, name=f"k{n}") for n in range(3)]
    compiler = measure.Compiler("cpu-llvm", 2)
    try:
        texts = [measure.timing_module(x) for x in [k, *kernels]]
        assert compiler.compile_all(texts, deadline=0.0) == [measure.SKIPPED] * len(texts)
        assert compiler.compile_all(texts[:1]) == [None]
    finally:
        compiler.close()


def test_search_rejects_candidates_that_compute_something_else() -> None:
    reference = [np.ones((8, 64), np.float32)]
    assert measure.outputs_agree(reference, reference)
    assert measure.outputs_agree([reference[0] * (1 + 1e-5)], reference)
    assert not measure.outputs_agree([reference[0] * 2], reference)
