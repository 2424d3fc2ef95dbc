"""``--verify-semantics``: planted miscompiles at every level are caught and pinned to their pass (or backend),
with a reproducer that replays them; correct pipelines pass; the pieces (input sets, tolerances) behave.

The broken passes are defined and registered here only: kiln never ships them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from kiln.compiler import driver, registry
from kiln.compiler.agreement import compare
from kiln.compiler.semantic_check import SemanticChecker, SemanticMismatch
from kiln.dialects import kernel as K
from kiln.interpreters.graph import find_function
from kiln.interpreters.sample_inputs import DIM_SPAN, random_inputs, special_values
from kiln.tools import kiln_opt, kiln_run

SHIFT = """\
func.func @shift(%x: !graph.tensor<Nx6xi32>) -> (!graph.tensor<Nx5xi32>, !graph.tensor<6xi32>, !graph.tensor<Nx6xi32>)
    attributes {graph.dims = #graph.dims<N = [1, 16]>} {
  %s = graph.shrink %x {start = array<i64: 0, 1>, limit = array<i64: -1, 6>, step = array<i64: 1, 1>} : (!graph.tensor<Nx6xi32>) -> !graph.tensor<Nx5xi32>
  %r = graph.reduce_sum %x {axes = array<i64: 0>, keepdims = false} : (!graph.tensor<Nx6xi32>) -> !graph.tensor<6xi32>
  %one = graph.constant 1 : i32 : !graph.tensor<Nx6xi32>
  %p = graph.add %x, %one : (!graph.tensor<Nx6xi32>, !graph.tensor<Nx6xi32>) -> !graph.tensor<Nx6xi32>
  func.return %s, %r, %p : !graph.tensor<Nx5xi32>, !graph.tensor<6xi32>, !graph.tensor<Nx6xi32>
}
"""
"""One function, three planted targets: a +1 in the graph, a +1 in the index arithmetic of a shifted load,
an integer reduction."""

PLUS_ONE_F32 = """\
func.func @inc(%x: !graph.tensor<Nx3xf32>) -> !graph.tensor<Nx3xf32> attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %e = graph.exp %x : !graph.tensor<Nx3xf32>
  %one = graph.constant 1.0 : f32 : !graph.tensor<Nx3xf32>
  %y = graph.add %e, %one : (!graph.tensor<Nx3xf32>, !graph.tensor<Nx3xf32>) -> !graph.tensor<Nx3xf32>
  func.return %y : !graph.tensor<Nx3xf32>
}
"""


# ---------------------------------------------------------------------------------------------
# the planted miscompiles


def _is_one(op: Operation | Block) -> bool:
    value = getattr(op, "value", None) if isinstance(op, Operation) and op.name.endswith((".constant", ".const")) else None
    return isinstance(value, IntegerAttr | FloatAttr) and value.value.data == 1


def _drop_plus_one(module: ModuleOp, add: str) -> None:
    """Replace the first ``add(x, 1)`` by ``x``: an off-by-one."""
    for op in module.walk():
        if op.name == add:
            for i, operand in enumerate(op.operands):
                if _is_one(operand.owner):  # type: ignore[arg-type]
                    op.results[0].replace_all_uses_with(op.operands[1 - i])
                    op.detach()
                    op.erase()
                    return


class DropGraphPlusOne(ModulePass):
    """Graph level: ``x + 1`` becomes ``x``."""

    name = "test-drop-graph-plus-one"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _drop_plus_one(op, "graph.add")


class DropIndexPlusOne(ModulePass):
    """Uop level: a load's index ``i + 1`` becomes ``i`` (a shifted slice reads one element early)."""

    name = "test-drop-index-plus-one"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _drop_plus_one(op, "uop.add")


class InterchangeReduction(ModulePass):
    """Kernel level: a reduction runs over the kernel's other loop, the one it should keep (a loop-order bug in
    a reduction over integers, where any correct order gives exactly the same sum)."""

    name = "test-interchange-reduction"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for reduce in op.walk():
            if isinstance(reduce, K.ReduceOp):
                reduced = reduce.ranges[0].owner
                kept = next(r for r in reduce.parent_op().walk() if isinstance(r, K.RangeOp) and r is not reduced)  # type: ignore[union-attr]
                reduced.kind, kept.kind = kept.kind, reduced.kind  # type: ignore[union-attr]
                reduce.operands = [reduce.value, kept.result]
                return


PLANTED = (DropGraphPlusOne, DropIndexPlusOne, InterchangeReduction)


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    upstream = registry.get_all_passes
    monkeypatch.setattr(registry, "get_all_passes", lambda: {**upstream(), **{p.name: (lambda p=p: p) for p in PLANTED}})


def _kiln_opt(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    status = kiln_opt.run_tool("kiln-opt", kiln_opt.run, list(argv))
    return status, capsys.readouterr().err


# A pipeline of correct passes with the broken one at its level.
CASES = {
    "test-drop-graph-plus-one": "graph-decompose,test-drop-graph-plus-one,graph-canonicalize",
    "test-interchange-reduction": "lower-to-kernel,test-interchange-reduction,kernel-optimize{target=cpu-c}",
    "test-drop-index-plus-one": "lower-to-uop,test-drop-index-plus-one,uop-decompose{target=cpu-llvm}",
}


@pytest.mark.parametrize("broken", CASES)
def test_a_planted_miscompile_is_pinned_to_its_pass(broken, planted, tmp_path, capsys) -> None:
    source = tmp_path / "shift.mlir"
    source.write_text(SHIFT)
    repro = tmp_path / "repro.mlir"
    status, err = _kiln_opt(capsys, str(source), "-p", CASES[broken], "--verify-semantics=2",
                            f"--mlir-pass-pipeline-crash-reproducer={repro}")
    assert status == 1
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert f"--verify-semantics: pass '{broken}' changed what @shift computes: input seed 0 (N = 1), result" in first
    assert re.search(r"result \d at \[[\d, ]*\]: -?\d+ where -?\d+ was expected \(exact \(i32\)\); \d+ of \d+ elements differ", first)
    assert f"reproducer: '{repro}'" in err

    # The reproducer is the IR the broken pass was given and the pass alone: replaying it fails the same way.
    assert f"pipeline: \"builtin.module({broken})\"" in repro.read_text()
    status, replayed = _kiln_opt(capsys, str(repro), "--run-reproducer", "--verify-semantics=1", "--verify-semantics-seed=0",
                                 f"--mlir-pass-pipeline-crash-reproducer={tmp_path / 'again.mlir'}")
    assert status == 1
    assert f"pass '{broken}' changed what @shift computes: input seed 0" in replayed


def test_the_default_reproducer_is_named_after_the_input(planted, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("shift.mlir").write_text(SHIFT)
    status, err = _kiln_opt(capsys, "shift.mlir", "-p", "test-drop-graph-plus-one", "--verify-semantics")
    assert status == 1
    assert "reproducer: 'shift.verify-repro.mlir'" in err
    assert "--verify-semantics-seed=0" in err
    assert Path("shift.verify-repro.mlir").exists()


def test_a_float_off_by_one_is_caught_beside_correct_float_passes(planted, tmp_path, capsys) -> None:
    source = tmp_path / "inc.mlir"
    source.write_text(PLUS_ONE_F32)
    status, err = _kiln_opt(capsys, str(source), "-p", "lower-to-kernel", "--verify-semantics")
    assert (status, err) == (0, "kiln-opt: note: --verify-semantics: 3 input sets agree after every pass up to the kernel level\n")
    status, err = _kiln_opt(capsys, str(source), "-p", "graph-canonicalize,test-drop-graph-plus-one", "--verify-semantics",
                            f"--mlir-pass-pipeline-crash-reproducer={tmp_path / 'r.mlir'}")
    assert status == 1
    assert "pass 'test-drop-graph-plus-one' changed what @inc computes: input seed 0 (N = 1), result 0 at [0, " in err
    assert "(f32)" in err


@pytest.mark.parametrize("pipeline", ["lower-to-c", "lower-to-wgsl"])
def test_correct_pipelines_pass_through_every_interpreted_level(pipeline, tmp_path, capsys) -> None:
    source = tmp_path / "shift.mlir"
    source.write_text(SHIFT)
    status, err = _kiln_opt(capsys, str(source), "-p", pipeline, "--verify-semantics=4", "-o", str(tmp_path / "out"))
    assert (status, err) == (0, "kiln-opt: note: --verify-semantics: 4 input sets agree after every pass up to the uop level\n")


def test_an_input_no_interpreter_runs_is_a_clear_error(tmp_path, capsys) -> None:
    lowered = tmp_path / "c.mlir"
    assert _kiln_opt(capsys, str(_write(tmp_path, SHIFT)), "-p", "lower-to-c", "-o", str(lowered))[0] == 0
    status, err = _kiln_opt(capsys, str(lowered), "-p", "cse", "--verify-semantics")
    assert status == 1
    assert err.startswith(f"{lowered}: error: --verify-semantics: no interpreter runs @shift at the level of the input")


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------
# the device check: the end of the pipeline against the compiled code


@pytest.fixture
def broken_c_emitter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C backend emits ``+ 2.0f`` for the ``+ 1.0f`` it was given: a miscompile below the uop level."""
    upstream = registry.get_all_targets

    def targets() -> dict:
        out = dict(upstream())
        emit_c = out["c"]()
        out["c"] = lambda: lambda module: emit_c(module).replace("1.0f", "2.0f").replace("1.000000e+00f", "2.0f")
        return out

    monkeypatch.setattr(registry, "get_all_targets", targets)


def test_the_device_check_pins_a_miscompile_to_the_backend(broken_c_emitter, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SemanticMismatch) as caught:
        driver.compile(PLUS_ONE_F32, "inc", "cpu-c", verify_sets=2)
    report = str(caught.value)
    assert report.startswith("--verify-semantics: the cpu-c backend (the code compiled from the uop-level IR) changed "
                             "what @inc computes: input seed 0 (N = 1), result 0 at [0, ")
    assert caught.value.disagreement.pipeline == "builtin.module(convert-uop-to-cstyle)"
    assert "uop.kernel @inc" in (tmp_path / "inc.verify-repro.mlir").read_text()


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_the_device_check_passes_a_correct_backend(device) -> None:
    run = driver.compile(SHIFT, "shift", device, verify_sets=3)
    x = np.arange(12, dtype=np.int32).reshape(2, 6)
    assert [a.tolist() for a in run(x)] == [x[:, 1:].tolist(), x.sum(0).tolist(), (x + 1).tolist()]


def test_kiln_run_verify_semantics_reports_a_backend_miscompile(broken_c_emitter, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KILN_VERIFY_SEMANTICS", "0")  # recorded: the flag sets it, and it is undone afterwards
    source = _write(tmp_path, PLUS_ONE_F32)
    status = kiln_run.run_tool("kiln-run", kiln_run.run, [str(source), "--device", "cpu-c", "--input", "2x3xf32=0",
                                                           "--verify-semantics=1"])
    out = capsys.readouterr()
    assert status == 1
    assert out.err.startswith("kiln-run: error: --verify-semantics: the cpu-c backend (the code compiled from the "
                              "uop-level IR) changed what @inc computes: input seed 0")
    assert "reproducer: 'inc.verify-repro.mlir'" in out.err
    assert Path("inc.verify-repro.mlir").exists()


def test_kiln_run_verify_semantics_runs_clean(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("KILN_VERIFY_SEMANTICS", "0")
    source = _write(tmp_path, PLUS_ONE_F32)
    status = kiln_run.run_tool("kiln-run", kiln_run.run, [str(source), "--device", "cpu-llvm", "--input", "1x3xf32=0",
                                                           "--verify-semantics"])
    assert status == 0
    assert capsys.readouterr().out == "1x3xf32=[[2 2 2]]\n"
    assert os.environ["KILN_VERIFY_SEMANTICS"] == "3"


# ---------------------------------------------------------------------------------------------
# the pieces


def _function(text: str, name: str):
    return find_function(Parser(registry.make_context(), text).parse_module(), name)


def test_input_sets_are_a_function_of_the_seed_and_respect_the_bounds() -> None:
    f = _function(SHIFT, "shift")
    a, dims_a = random_inputs(f, 5)
    b, dims_b = random_inputs(f, 5)
    assert dims_a == dims_b and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert random_inputs(f, 0)[1] == {"N": 1}  # every fourth seed: the lower bounds
    for seed in range(1, 40):
        inputs, dims = random_inputs(f, seed)
        assert 1 <= dims["N"] <= 1 + DIM_SPAN and inputs[0].shape == (dims["N"], 6) and inputs[0].dtype == np.int32
    # Odd seeds add special values (NaN and infinities among them); even seeds keep every value ordinary.
    g = _function(PLUS_ONE_F32, "inc")
    nonfinite = {seed: int((~np.isfinite(random_inputs(g, seed)[0][0])).sum()) for seed in range(40)}
    assert all(n == 0 for seed, n in nonfinite.items() if seed % 2 == 0)
    assert sum(n for seed, n in nonfinite.items() if seed % 2 == 1) > 10


def test_special_values_cover_the_ieee_edges() -> None:
    f32 = special_values(np.dtype(np.float32))
    assert np.isnan(f32).any() and np.isposinf(f32).any() and np.isneginf(f32).any()
    assert np.signbit(f32[(f32 == 0)]).tolist() == [False, True]


def test_tolerances_depend_on_the_dtype() -> None:
    assert compare(np.float32([1.00001]), np.float32([1.0])) is None  # a reordered sum's rounding
    assert compare(np.float16([1.004]), np.float16([1.0])) is None
    assert compare(np.float64([1.00001]), np.float64([1.0])) is not None
    assert compare(np.int64([5]), np.int32([5])) is None  # a narrowed dtype, the same value
    assert compare(np.float32([np.nan, np.inf]), np.float32([np.nan, np.inf])) is None
    assert str(compare(np.float32([1.0, np.nan]), np.float32([1.0, 2.0]))).startswith("at [1]: nan where 2.0 was expected")
    assert str(compare(np.float32([-np.inf]), np.float32([np.inf]))).startswith("at [0]: -inf where inf was expected")
    assert str(compare(np.int8([1, 5]), np.int8([1, 2]))) == "at [1]: 5 where 2 was expected (exact (i8)); 1 of 2 elements differ"
    assert compare(np.zeros((2, 1)), np.zeros(2)) == "shape [2, 1] where [2] was expected"


def test_inputs_the_function_rejects_are_left_out() -> None:
    gather = """\
func.func @g(%x: !graph.tensor<4xf32>, %i: !graph.tensor<3xi32>) -> !graph.tensor<3xf32> {
  %y = graph.gather %x, %i {axis = 0 : i64} : (!graph.tensor<4xf32>, !graph.tensor<3xi32>) -> !graph.tensor<3xf32>
  func.return %y : !graph.tensor<3xf32>
}
"""
    module = Parser(registry.make_context(), gather).parse_module()
    checker = SemanticChecker(module, sets=6)
    assert checker.ran + checker.skipped == 6 and checker.skipped > 0
