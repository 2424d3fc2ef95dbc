"""kiln-reduce: a planted bug in a 200-op program reduces to a handful of ops; every reduced file is valid IR that
the interestingness command still accepts; bad input and a command that never says yes are clear errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kiln.compiler import registry
from kiln.dialects.verify import verify_module
from kiln.support.source import Chunk, parse_chunk
from kiln.tools import kiln_reduce
from kiln.tools.reducer import count_ops

BIN = Path(sys.executable).parent
T = "!graph.tensor<16x32xf32>"


def planted_program(n_ops: int = 200) -> str:
    """A chain of ``n_ops`` graph ops (and a dense constant) with one graph.sqrt and, much later, one
    graph.reduce_max that its value reaches: the two ops the planted bug needs."""
    lines = [f"func.func @big(%x: {T}, %y: !graph.tensor<32xf32>, %z: {T}) -> ({T}, !graph.tensor<16x1xf32>) {{",
             "  %c = graph.constant dense<[" + ", ".join(f"{i}.5" for i in range(32))
             + "]> : tensor<32xf32> : !graph.tensor<32xf32>",
             f"  %two = graph.constant 2.000000e+00 : f32 : {T}"]
    chain = [f"graph.add {{v}}, %z : ({T}, {T}) -> {T}", f"graph.exp {{v}} : {T}",
             f"graph.mul {{v}}, %two : ({T}, {T}) -> {T}", f"graph.neg {{v}} : {T}", f"graph.tanh {{v}} : {T}",
             f"graph.add {{v}}, %c : ({T}, !graph.tensor<32xf32>) -> {T}", f"graph.relu {{v}} : {T}"]
    body = [chain[i % len(chain)] for i in range(n_ops - 6)]  # + 2 constants + the 4 planted below
    body[n_ops // 3:n_ops // 3] = [f"graph.abs {{v}} : {T}", f"graph.sqrt {{v}} : {T}"]
    body[3 * n_ops // 4:3 * n_ops // 4] = [
        f"graph.reduce_max {{v}} {{{{axes = array<i64: 1>, keepdims = true}}}} : ({T}) -> !graph.tensor<16x1xf32>",
        f"graph.add %z, {{v}} : ({T}, !graph.tensor<16x1xf32>) -> {T}"]
    v = "%x"
    for i, op in enumerate(body):
        lines.append(f"  %v{i} = {op.format(v=v)}")
        v = f"%v{i}"
    reduced_max = next(f"%v{i}" for i, op in enumerate(body) if "reduce_max" in op)
    lines += [f"  func.return {v}, {reduced_max} : {T}, !graph.tensor<16x1xf32>", "}", ""]
    return "\n".join(lines)


def ops_in(path: Path) -> int:
    """The ops of a reduced file, after checking that it parses and verifies."""
    module = parse_chunk(registry.make_context(), Chunk(path.read_text()), str(path))
    assert verify_module(module) is None
    return count_ops(module)


def reduce(tmp_path: Path, text: str, test: str, *extra: str, name: str = "bug.mlir") -> subprocess.CompletedProcess[str]:
    source = tmp_path / name
    source.write_text(text)
    return subprocess.run([str(BIN / "kiln-reduce"), str(source), "--test", test, *extra],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"})


def test_planted_program_has_200_ops(tmp_path):
    (tmp_path / "p.mlir").write_text(planted_program())
    assert ops_in(tmp_path / "p.mlir") == 200 + 2  # the chain, the function and its return


def test_reduces_a_planted_bug_to_a_few_ops(tmp_path):
    """The cheap command (the two ops still present) keeps CI fast; every step of the reducer is exercised."""
    result = reduce(tmp_path, planted_program(), "grep -q graph.sqrt {} && grep -q graph.reduce_max {}",
                    "-o", "small.mlir")
    assert result.returncode == 0, result.stderr
    small = tmp_path / "small.mlir"
    assert ops_in(small) <= 5
    text = small.read_text()
    assert "graph.sqrt" in text and "graph.reduce_max" in text
    assert "dense<" not in text and "16x32" not in text  # constants splatted, dims shrunk
    assert "202 -> " in result.stderr and "test runs" in result.stderr
    assert result.stdout == ""


@pytest.mark.skipif(not os.environ.get("KILN_SLOW"),
                    reason="runs kiln-opt ~50 times (about a minute): KILN_SLOW=1 runs it")
def test_reduces_a_pipeline_bug_to_a_few_ops(tmp_path):
    """The bug as a user meets it: lower-to-kernel emits a kernel with both kernel.sqrt and kernel.reduce max."""
    script = tmp_path / "interesting.sh"
    script.write_text('#!/bin/sh\nout=$(kiln-opt "$1" -p lower-to-kernel) || exit 1\n'
                      'echo "$out" | grep -q kernel.sqrt && echo "$out" | grep -q "kernel.reduce max"\n')
    script.chmod(0o755)
    result = reduce(tmp_path, planted_program(), "./interesting.sh", "-o", "small.mlir")
    assert result.returncode == 0, result.stderr
    assert ops_in(tmp_path / "small.mlir") <= 5
    assert subprocess.run([str(script), str(tmp_path / "small.mlir")], cwd=tmp_path,
                          env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}).returncode == 0


SMALL = """\
func.func @f(%x: !graph.tensor<4x8xf32>, %y: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %a = graph.exp %x : !graph.tensor<4x8xf32>
  %b = graph.add %a, %y : (!graph.tensor<4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32>
  func.return %b : !graph.tensor<4x8xf32>
}
"""


def test_path_is_appended_without_placeholder_and_result_goes_to_stdout(tmp_path):
    result = reduce(tmp_path, SMALL, "grep -q graph.exp")
    assert result.returncode == 0, result.stderr
    assert "graph.exp" in result.stdout and "graph.add" not in result.stdout
    assert "4x8" not in result.stdout


def test_reproducer_trailer_is_kept(tmp_path):
    trailer = '{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: "builtin.module(cse)"\n    }\n  }\n#-}\n'
    result = reduce(tmp_path, SMALL + trailer, "grep -q 'builtin.module(cse)' {} && grep -q graph.exp {}")
    assert result.returncode == 0, result.stderr
    assert "graph.add" not in result.stdout
    assert 'pipeline: "builtin.module(cse)"' in result.stdout


def test_a_command_that_is_not_interesting_on_the_input_is_an_error(tmp_path, cli):
    (tmp_path / "f.mlir").write_text(SMALL)
    result = cli(kiln_reduce.run, [str(tmp_path / "f.mlir"), "--test", "grep -q graph.sin"])
    assert result.code == 1
    assert "the test command is not interesting on the input" in result.err
    assert "grep -q graph.sin" in result.err


def test_a_command_that_looks_at_comments_is_an_error(tmp_path, cli):
    (tmp_path / "f.mlir").write_text("// note\n" + SMALL)
    result = cli(kiln_reduce.run, [str(tmp_path / "f.mlir"), "--test", "grep -q note"])
    assert result.code == 1
    assert "not as kiln prints it" in result.err


@pytest.mark.parametrize("text, message", [
    ("func.func @f() {\n  %a = graph.bogus\n}\n", "graph.bogus is not registered"),
    ("func.func @f(%x: !graph.tensor<4xf32>) -> !graph.tensor<4xf32> {\n"
     "  %a = graph.add %x, %x : (!graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<5xf32>\n"
     "  func.return %x : !graph.tensor<4xf32>\n}\n", ":2:3: error:"),
])
def test_bad_input_is_a_located_error(tmp_path, cli, text, message):
    (tmp_path / "f.mlir").write_text(text)
    result = cli(kiln_reduce.run, [str(tmp_path / "f.mlir"), "--test", "true"])
    assert result.code == 1
    assert message in result.err and "Traceback" not in result.err


def test_missing_file_and_bad_options_are_errors(tmp_path, cli):
    result = cli(kiln_reduce.run, [str(tmp_path / "missing.mlir"), "--test", "true"])
    assert result.code == 1 and "cannot read input file" in result.err
    (tmp_path / "f.mlir").write_text(SMALL)
    result = cli(kiln_reduce.run, [str(tmp_path / "f.mlir"), "--test", "true", "--timeout", "0"])
    assert result.code == 1 and "--timeout must be positive" in result.err
    result = cli(kiln_reduce.run, [str(tmp_path / "f.mlir")])
    assert result.code == 1 and "--test" in result.err


def test_a_test_run_past_the_timeout_is_not_interesting(tmp_path):
    test = "grep -q graph.add {} || exec sleep 30; grep -q graph.exp {}"
    result = reduce(tmp_path, SMALL, test, "--timeout", "0.5")
    assert result.returncode == 0, result.stderr
    assert "graph.add" in result.stdout and "timed out" in result.stderr


def test_placeholder_paths_are_quoted(tmp_path):
    result = reduce(tmp_path, SMALL, "test -f {} && grep -q graph.exp {}", name="my bug's.mlir")
    assert result.returncode == 0, result.stderr
    assert "graph.add" not in result.stdout
