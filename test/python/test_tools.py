"""kiln-opt and kiln-run in-process: pipelines, diagnostics, --verify-diagnostics, input syntax, symbol binding.

The CLI behaviour users see end to end is tested by lit (test/tools/); these tests cover the pieces, and the
paths lit cannot reach without fake passes, targets or devices.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, f32, i32
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ParseError

from kiln.compiler import registry
from kiln.dialects.types import TensorType
from kiln.support.errors import CompileError, InputError
from kiln.tools import kiln_opt, kiln_run
from kiln.dialects.verify import verify_module
from kiln.support.diagnostics import Diagnostic, SourceLoc, error_at, location_of
from kiln.support.cli import UserError
from kiln.tools.expected import check_diagnostics, parse_expectations
from kiln.tools.inputs import Param, bind_symbols, format_literal, parse_input
from kiln.compiler.pipeline import build_pipeline, expand_pipeline
from kiln.support.source import Chunk, parse_chunk, split_input

ADD = """\
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  %t = arith.addi %a, %c : i32
  %u = arith.addi %s, %t : i32
  func.return %u : i32
}
"""

BAD_RETURN = """\
func.func @f() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}
"""


# ---------------------------------------------------------------------------------------------
# passes, targets and devices made up for the tests


class Breaks(ModulePass):
    """Leaves IR that does not verify: a func.func that loses its terminator."""

    name = "test-breaks-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in op.walk():
            if o.name == "func.return":
                o.detach()
                o.erase()
                return


class FailsAtConstant(ModulePass):
    """Fails the way a pass should: located at the op it cannot handle."""

    name = "test-fails"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in op.walk():
            if isinstance(o, arith.ConstantOp):
                raise error_at(o, "constants are not supported here")


class Crashes(ModulePass):
    """A bug: an exception that is not a diagnostic."""

    name = "test-crashes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise RuntimeError("boom")


@pytest.fixture
def test_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    upstream = registry.get_all_passes

    def with_test_passes() -> dict:
        return {**upstream(), **{p.name: (lambda p=p: p) for p in (Breaks, FailsAtConstant, Crashes)}}

    monkeypatch.setattr(registry, "get_all_passes", with_test_passes)
    monkeypatch.setitem(registry.PIPELINES, "test-cleanup", "cse,dce")
    monkeypatch.setitem(registry.PIPELINES, "test-nested", "test-cleanup,canonicalize")
    monkeypatch.setitem(registry.PIPELINES, "test-loop", "cse,test-loop")


@pytest.fixture
def mlir_file(tmp_path):
    def write(text: str, name: str = "in.mlir") -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


# ---------------------------------------------------------------------------------------------
# pipelines


def test_named_pipelines_expand_inline_and_recursively(test_passes):
    assert [s.name for s in expand_pipeline("canonicalize,test-nested")] == ["canonicalize", "cse", "dce", "canonicalize"]
    assert [type(p).name for p in build_pipeline("test-cleanup")] == ["cse", "dce"]


def test_pipeline_errors_are_user_errors(test_passes):
    with pytest.raises(UserError, match="unknown pass 'cs'; did you mean 'cse'"):
        build_pipeline("cs")
    with pytest.raises(UserError, match=r"invalid options for pass 'cse'.*bogus"):
        build_pipeline("cse{bogus=1}")
    with pytest.raises(UserError, match="takes no options"):
        build_pipeline("test-cleanup{x=1}")
    with pytest.raises(UserError, match="refers to itself"):
        build_pipeline("test-loop")
    with pytest.raises(UserError, match="invalid pass pipeline"):
        build_pipeline("cse,,dce")


def test_registered_pipelines_only_name_registered_passes():
    passes = registry.get_all_passes()
    for name in registry.PIPELINES:
        assert {s.name for s in expand_pipeline(name)} <= set(passes), name


# ---------------------------------------------------------------------------------------------
# parsing with locations


def test_every_parsed_op_gets_its_source_location():
    module = parse_chunk(registry.make_context(), Chunk(ADD), "in.mlir")
    where = {o.name: location_of(o) for o in module.walk() if o is not module}
    assert where["func.func"] == SourceLoc("in.mlir", 1, 1)
    assert where["arith.constant"] == SourceLoc("in.mlir", 2, 3)
    assert where["func.return"] == SourceLoc("in.mlir", 6, 3)


def test_an_explicit_loc_is_kept():
    text = 'func.func @f() {\n  func.return loc("model.py":7:9)\n}\n'
    module = parse_chunk(registry.make_context(), Chunk(text), "in.mlir")
    ret = next(o for o in module.walk() if o.name == "func.return")
    assert location_of(ret) == SourceLoc("model.py", 7, 9)


def test_attribute_verifier_errors_are_located_at_the_attribute():
    text = 'func.func @f() {\n  "test.op"() {a = 1000 : i8} : () -> ()\n  func.return\n}\n'
    with pytest.raises(ParseError) as e:
        parse_chunk(registry.make_context(), Chunk(text), "in.mlir")
    loc = e.value.span.get_location()
    assert (loc.line, loc.col) == (2, 20)
    assert "out of range for type i8" in e.value.msg


def test_an_undefined_value_is_reported_at_its_first_use():
    text = "func.func @f() -> i32 {\n  func.return %nope : i32\n}\n"
    with pytest.raises(ParseError) as e:
        parse_chunk(registry.make_context(), Chunk(text), "in.mlir")
    assert e.value.msg == "use of undefined value '%nope'"
    assert e.value.span.get_location().line == 2


def test_verify_failure_is_located_at_the_innermost_failing_op():
    module = parse_chunk(registry.make_context(), Chunk(BAD_RETURN), "in.mlir")
    problem = verify_module(module)
    assert problem is not None
    assert problem.loc == SourceLoc("in.mlir", 3, 3)
    assert problem.message.startswith("'func.return' op Expected arguments to have the same types")


def test_split_chunks_keep_absolute_line_numbers():
    chunks = split_input("a\n// -----\n\n// comment only\n// ----- trailing words\nb\n", split=True)
    assert [c.text.splitlines()[-1] for c in chunks] == ["a", "// comment only", "b"]
    assert [len(c.text.splitlines()) for c in chunks] == [1, 4, 6]
    assert [c.has_ops() for c in chunks] == [True, False, True]


# ---------------------------------------------------------------------------------------------
# --verify-diagnostics


def test_annotation_anchors_follow_mlir():
    text = (
        "op1\n"  # 1
        "// expected-error@below {{b1}}\n"  # 2: the next line without an annotation
        "// expected-note@below {{b2}}\n"  # 3
        "op4\n"  # 4
        "// expected-error@above {{a}}\n"  # 5: the last line without an annotation
        "op6  // expected-warning {{same}}\n"  # 6
        "// expected-remark@+2 {{p}}\n"  # 7
        "// expected-error@-7 {{m}} and {{braces}} inside\n"  # 8: the text runs to the last '}}'
    )
    got = [(e.severity, e.text, e.line) for e in parse_expectations(text, "f")]
    assert got == [
        ("error", "b1", 4),
        ("note", "b2", 4),
        ("error", "a", 4),
        ("warning", "same", 6),
        ("remark", "p", 9),
        ("error", "m}} and {{braces", 1),
    ]
    with pytest.raises(UserError, match="@below has no line below it"):
        parse_expectations("op\n// expected-error@below {{x}}\n", "f")


def test_malformed_annotation_is_an_error():
    with pytest.raises(UserError, match="malformed diagnostic annotation") as e:
        parse_expectations("x\n// expected-error {oops}\n", "f.mlir")
    assert e.value.where == "f.mlir:2:4"


def test_matching_is_by_line_severity_and_substring():
    annotated = "op // expected-error {{wrong type}}\n"
    emitted = [Diagnostic("error", "'x' op has the wrong type here", SourceLoc("f", 1, 1))]
    assert check_diagnostics(emitted, parse_expectations(annotated, "f"), "f") == []

    for diag in (
        Diagnostic("warning", "wrong type", SourceLoc("f", 1, 1)),  # severity differs
        Diagnostic("error", "wrong type", SourceLoc("f", 2, 1)),  # line differs
        Diagnostic("error", "wrong shape", SourceLoc("f", 1, 1)),  # text differs
        Diagnostic("error", "wrong type"),  # no location
    ):
        problems = check_diagnostics([diag], parse_expectations(annotated, "f"), "f")
        assert problems[0].endswith(f"unexpected {diag.severity}: {diag.message}")
        assert problems[1] == 'f:1:7: error: expected error "wrong type" was not produced'


def test_verify_diagnostics_accepts_expected_errors(cli, mlir_file):
    annotated = BAD_RETURN.replace("func.return %c : i64", "func.return %c : i64  // expected-error {{same types}}")
    path = mlir_file(annotated + "// -----\n// comment only\n// -----\n" + ADD)
    r = cli(kiln_opt.run, [path, "--split-input-file", "--verify-diagnostics", "-p", "cse"])
    assert (r.code, r.err) == (0, "")
    assert r.out.count("func.func @f") == 1 and "// -----" not in r.out


def test_verify_diagnostics_reports_every_mismatch(cli, mlir_file):
    path = mlir_file(BAD_RETURN + "// -----\n" + ADD.replace("  %u = ", "  // expected-error@+1 {{never}}\n  %u = "))
    r = cli(kiln_opt.run, [path, "--split-input-file", "--verify-diagnostics"])
    assert r.code == 1
    assert r.err.splitlines() == [
        f"{path}:3:3: error: unexpected error: 'func.return' op Expected arguments to have the same types "
        "as the function output types: expected [i32], got [i64]",
        f'{path}:10:6: error: expected error "never" was not produced',
    ]


# ---------------------------------------------------------------------------------------------
# kiln-opt end to end (in-process)


def test_passes_run_and_print(cli):
    r = cli(kiln_opt.run, ["-p", "cse"], stdin=ADD)
    assert r.code == 0 and r.err == ""
    assert r.out.count("arith.addi") == 2 and r.out.startswith("builtin.module {")


def test_errors_are_one_located_message_and_exit_1(cli, mlir_file):
    path = mlir_file(BAD_RETURN)
    r = cli(kiln_opt.run, [path])
    assert r.code == 1 and r.out == ""
    assert r.err.splitlines()[0].startswith(f"{path}:3:3: error: 'func.return' op Expected arguments")
    assert r.err.splitlines()[1:] == ["  func.return %c : i64", "  ^"]


def test_split_input_file_reports_each_broken_chunk_and_prints_the_rest(cli, mlir_file):
    path = mlir_file(BAD_RETURN + "// -----\n" + ADD + "// -----\n" + BAD_RETURN)
    r = cli(kiln_opt.run, [path, "--split-input-file"])
    assert r.code == 1
    located = [line.split(": error")[0] for line in r.err.splitlines() if ": error" in line]
    assert located == [f"{path}:3:3", f"{path}:16:3"]
    assert r.out.count("func.func") == 1


def test_a_pass_failure_is_located_at_the_op_it_names(cli, mlir_file, test_passes):
    r = cli(kiln_opt.run, [mlir_file(ADD), "-p", "test-fails"])
    assert r.code == 1
    assert r.err.splitlines()[0].endswith("in.mlir:2:3: error: 'arith.constant' op constants are not supported here")


def test_ir_is_verified_after_every_pass(cli, mlir_file, test_passes):
    r = cli(kiln_opt.run, [mlir_file(ADD), "-p", "test-breaks-ir,cse"])
    assert r.code == 1
    first_line = r.err.splitlines()[0]
    assert first_line.endswith("in.mlir:5:3: error: 'arith.addi' op Operation arith.addi terminates block in "
                               "single-block region but is not a terminator (in the IR after pass 'test-breaks-ir')")


def test_a_crash_is_an_internal_error_without_traceback(cli, mlir_file, test_passes, monkeypatch):
    monkeypatch.delenv("KILN_TRACEBACK", raising=False)
    r = cli(kiln_opt.run, [mlir_file(ADD), "-p", "test-crashes"])
    assert r.code == 2
    assert r.err.splitlines() == [
        "tool: internal error: RuntimeError: boom",
        "tool: this is a bug in kiln; rerun with KILN_TRACEBACK=1 to see the traceback",
    ]
    monkeypatch.setenv("KILN_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli(kiln_opt.run, [mlir_file(ADD), "-p", "test-crashes"])


def test_output_file_is_written_only_on_success(cli, mlir_file, tmp_path):
    out = tmp_path / "out.mlir"
    out.write_text("old")
    assert cli(kiln_opt.run, [mlir_file(BAD_RETURN), "-o", str(out)]).code == 1
    assert out.read_text() == "old"
    assert cli(kiln_opt.run, [mlir_file(ADD), "-o", str(out)]).code == 0
    assert out.read_text().startswith("builtin.module {")
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~_umask()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir", "out.mlir"]  # no temporary file left
    r = cli(kiln_opt.run, [mlir_file(ADD), "-o", str(tmp_path / "missing" / "out.mlir")])
    assert r.code == 1 and "cannot write output file" in r.err


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_print_ir_around_passes_and_timing_go_to_stderr(cli, mlir_file):
    flags = ["--mlir-print-ir-before-all", "--mlir-print-ir-after-all", "--mlir-timing"]
    r = cli(kiln_opt.run, [mlir_file(ADD), "-p", "cse,dce", *flags])
    assert r.code == 0
    headers = [line for line in r.err.splitlines() if line.startswith("// -----// IR Dump")]
    classes = {"cse": "CommonSubexpressionElimination", "dce": "DeadCodeElimination"}
    assert headers == [
        f"// -----// IR Dump {w} {classes[p]} ({p}) //----- //" for p in ("cse", "dce") for w in ("Before", "After")
    ]
    timing = r.err[r.err.index("Execution time report") :]
    names = [line.split()[-1] for line in timing.splitlines() if "%)" in line]
    assert names == ["Parser", "Verifier", "cse", "dce", "Output", "Rest", "Total"]


def test_generic_printing(cli):
    r = cli(kiln_opt.run, ["--print-op-generic"], stdin=ADD)
    assert '"arith.addi"(%a, %c)' in r.out


def test_a_target_emitter_gives_the_output(cli, monkeypatch):
    count_ops = lambda module: f"{len(list(module.walk()))} ops"  # noqa: E731
    monkeypatch.setattr(registry, "get_all_targets", lambda: {"count": lambda: count_ops})
    assert cli(kiln_opt.run, ["-t", "count"], stdin=ADD).out == "7 ops\n"
    r = cli(kiln_opt.run, ["-t", "nope"], stdin=ADD)
    assert r.code == 1 and "unknown target 'nope' (choose from mlir, count)" in r.err


def test_bad_command_lines_exit_1(cli, tmp_path):
    r = cli(kiln_opt.run, ["--bogus"])
    assert r.code == 1 and r.err.startswith("tool: error: unrecognized arguments: --bogus")
    r = cli(kiln_opt.run, [str(tmp_path / "missing.mlir")])
    assert r.code == 1 and "cannot read input file" in r.err and "No such file" in r.err


def test_an_empty_input_is_an_empty_module(cli):
    assert cli(kiln_opt.run, [], stdin="// nothing here\n").out == "builtin.module {\n}\n"


# ---------------------------------------------------------------------------------------------
# kiln-run: inputs


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2x3xf32=1,2,3,4,5,6", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
        ("2x3xf32=[[1 2 3][4 5 6]]", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
        ("2x2xi8=7", np.full((2, 2), 7, np.int8)),
        ("f64=-2.5", np.array(-2.5)),
        ("3xbool=true,FALSE,1", np.array([True, False, True])),
        ("3xf32=inf,-inf,nan", np.array([np.inf, -np.inf, np.nan], np.float32)),
        ("0x3xui8=", np.zeros((0, 3), np.uint8)),
        ("2xui64=18446744073709551615,0", np.array([2**64 - 1, 0], np.uint64)),
    ],
)
def test_literals(text, expected):
    got = parse_input(text)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "text, message",
    [
        ("2x3xf32=1,2", r"has 2 values; its shape \[2, 3\] needs 6"),
        ("2xq32=1,2", "unknown dtype 'q32'"),
        ("Nx2xf32=1", "bad shape"),
        ("2xf32=[1 2", "unclosed '\\['"),
        ("2xf32=1 2]", "unbalanced '\\]'"),
        ("2xi8=1,300", "value 300 .* out of range for i8"),
        ("2xi32=1,1.5", "'1.5' in input .* is not a valid i32 value"),
        ("2", "bare value '2' given for no argument"),
    ],
)
def test_malformed_literals(text, message):
    with pytest.raises(InputError, match=message):
        parse_input(text)


def test_bare_values_take_the_dtype_of_a_rank_0_argument():
    assert parse_input("5", Param((), "i16")).dtype == np.int16
    with pytest.raises(InputError, match="bare value '5' given for argument 2x3xf32"):
        parse_input("5", Param((2, 3), "f32"))


def test_npy_inputs(tmp_path):
    np.save(tmp_path / "a.npy", np.eye(2, dtype=np.float32))
    np.testing.assert_array_equal(parse_input(f"@{tmp_path / 'a.npy'}"), np.eye(2))
    np.savez(tmp_path / "b.npz", x=np.eye(2))
    with pytest.raises(InputError, match="several arrays"):
        parse_input(f"@{tmp_path / 'b.npz'}")
    (tmp_path / "c.npy").write_text("not numpy")
    with pytest.raises(InputError, match="cannot read input array"):
        parse_input(f"@{tmp_path / 'c.npy'}")


@pytest.mark.parametrize(
    "array, text",
    [
        (np.arange(1, 7, dtype=np.float32).reshape(2, 3), "2x3xf32=[[1 2 3][4 5 6]]"),
        (np.array([0.1, 1e30, -0.0, np.nan], np.float32), "4xf32=[0.1 1e+30 -0 nan]"),
        (np.array(7, np.int64), "i64=7"),
        (np.array([[True], [False]]), "2x1xi1=[[true][false]]"),
        (np.zeros((2, 0), np.int32), "2x0xi32=[[][]]"),
    ],
)
def test_results_print_in_input_syntax_and_read_back(array, text):
    assert format_literal(array) == text
    back = parse_input(text)
    assert back.dtype == array.dtype
    np.testing.assert_array_equal(back, array)


def test_printed_floats_read_back_exactly():
    values = np.random.default_rng(0).standard_normal(200).astype(np.float32) * np.float32(1e3)
    np.testing.assert_array_equal(parse_input(format_literal(values)), values)


# ---------------------------------------------------------------------------------------------
# kiln-run: checking inputs against the signature

SIG = [TensorType(("N", 4), f32), TensorType((4, "M"), f32), i32]
BOUNDS = {"N": (1, 8), "M": (2, 2)}
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def test_symbols_are_bound_from_shapes():
    arrays = [np.zeros((3, 4), np.float32), np.zeros((4, 2), np.float32), np.array(1, np.int32)]
    assert bind_symbols(SIG, BOUNDS, arrays) == {"N": 3, "M": 2}


@pytest.mark.parametrize(
    "inputs, message",
    [
        ([((3, 4), "f32"), ((4, 2), "f32")], r"expected 3 inputs \(Nx4xf32, 4xMxf32, i32\), got 2"),
        ([((3, 4), "f32"), ((4, 2), "f64"), ((), "i32")], "input 1: expected 4xMxf32, got 4x2xf64"),
        ([((3, 5), "f32"), ((4, 2), "f32"), ((), "i32")], r"input 0: expected Nx4xf32, got 3x5xf32 \(dim 1 is 5"),
        ([((3, 4), "f32"), ((4, 2), "f32"), ((1,), "i32")], "input 2: expected i32, got 1xi32"),
        ([((9, 4), "f32"), ((4, 2), "f32"), ((), "i32")], r"input 0 \(dim 0\) gives N = 9, outside .* \[1, 8\]"),
        ([((3, 4), "f32"), ((4, 3), "f32"), ((), "i32")], r"gives M = 3, outside its declared bounds \[2, 2\]"),
    ],
)
def test_inputs_that_do_not_fit_the_signature(inputs, message):
    arrays = [np.zeros(shape, NP[dtype]) for shape, dtype in inputs]
    with pytest.raises(InputError, match=message):
        bind_symbols(SIG, BOUNDS, arrays)


def test_a_symbol_must_have_one_value():
    sig = [TensorType(("N",), f32), TensorType(("N", "N"), f32)]
    with pytest.raises(InputError, match=r"input 1 \(dim 1\) gives N = 4, but input 0 \(dim 0\) gave N = 3"):
        bind_symbols(sig, {"N": (1, 8)}, [np.zeros(3, np.float32), np.zeros((3, 4), np.float32)])
    with pytest.raises(InputError, match="symbol K is not declared"):
        bind_symbols([TensorType(("K",), f32)], {}, [np.zeros(3, np.float32)])


# ---------------------------------------------------------------------------------------------
# kiln-run end to end, on a device made up for the test

RUN = """\
func.func @scale(%x: !graph.tensor<Nx2xf32>, %k: !graph.tensor<f32>) -> (!graph.tensor<Nx2xf32>, !graph.tensor<i32>)
    attributes {graph.dims = #graph.dims<N = [1, 4]>} {
  %y = graph.mul %x, %k : (!graph.tensor<Nx2xf32>, !graph.tensor<f32>) -> !graph.tensor<Nx2xf32>
  %n = graph.constant 2 : i32 : !graph.tensor<i32>
  func.return %y, %n : !graph.tensor<Nx2xf32>, !graph.tensor<i32>
}
func.func private @helper() {
  func.return
}
"""


@dataclass
class FakeDevice:
    """Stands in for `kiln.compiler.driver.compile` (kiln-run's way to a device); runs @scale with numpy."""

    compiled: list[str]

    def compile(self, module: ModuleOp, function: str):
        self.compiled.append(function)
        if function != "scale":
            raise CompileError(f"cannot compile @{function}")
        return lambda x, k: [x * k, np.array(len(x), np.int32)]


@pytest.fixture
def fake_device(monkeypatch) -> FakeDevice:
    device = FakeDevice([])
    monkeypatch.setattr(kiln_run, "compile", lambda module, function, name, explain: device.compile(module, function))
    monkeypatch.setenv("KILN_NO_CACHE", "0")  # recorded, so the "1" that --no-cache sets is undone afterwards
    return device


def test_kiln_run_prints_results(cli, mlir_file, fake_device):
    r = cli(kiln_run.run, [mlir_file(RUN), "--input", "2x2xf32=1,2,3,4", "--input", "0.5", "--no-cache"])
    assert (r.code, r.err) == (0, "")
    assert r.out == "2x2xf32=[[0.5 1][1.5 2]]\ni32=2\n"
    assert fake_device.compiled == ["scale"] and os.environ["KILN_NO_CACHE"] == "1"


def test_kiln_run_saves_results(cli, mlir_file, fake_device, tmp_path):
    np.save(tmp_path / "x.npy", np.ones((3, 2), np.float32))
    y, n = tmp_path / "y.npy", tmp_path / "n.npy"
    argv = [mlir_file(RUN), "--input", f"@{tmp_path / 'x.npy'}", "--input", "f32=2", "--output", f"@{y}", "--output", f"@{n}"]
    r = cli(kiln_run.run, argv)
    assert (r.code, r.out, r.err) == (0, "", "")
    np.testing.assert_array_equal(np.load(y), np.full((3, 2), 2, np.float32))
    assert np.load(n) == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--input", "2x2xf32=1"], r"@scale takes 2 inputs \(Nx2xf32, f32\); got 1 --input"),
        (["--input", "5x2xf32=1", "--input", "1"], r"gives N = 5, outside its declared bounds \[1, 4\]"),
        (["--input", "2x2xf64=1", "--input", "1"], "input 0: expected Nx2xf32, got 2x2xf64"),
        (["--input", "2x2xf32=1", "--input", "x"], "input 1: 'x' is not a valid f32 value"),
        (["--input", "2x2xf32=1", "--input", "1", "--output", "@a.npy"], "the function has 2 results; got 1 --output"),
        (["--function", "nope"], r"no function @nope in the module \(public functions: scale\)"),
        (["--function", "helper"], "cannot compile @helper"),
    ],
)
def test_kiln_run_rejects_bad_input(cli, mlir_file, fake_device, argv, message):
    r = cli(kiln_run.run, [mlir_file(RUN), *argv])
    assert r.code == 1 and r.out == ""
    assert len(r.err.splitlines()) == 1
    assert r.err.startswith("tool: error: ")
    assert re.search(message, r.err), r.err


def test_kiln_run_reports_ir_errors_with_their_location(cli, mlir_file, fake_device):
    path = mlir_file(BAD_RETURN)
    r = cli(kiln_run.run, [path])
    assert r.code == 1 and r.err.startswith(f"{path}:3:3: error: 'func.return' op")


def test_kiln_run_on_the_reference_interpreter(cli, mlir_file, tmp_path):
    out = tmp_path / "y.npy"
    argv = [mlir_file(RUN), "--device", "interp", "--input", "3x2xf32=[[1 2][3 4][5 6]]", "--input", "-1"]
    r = cli(kiln_run.run, [*argv, "--output", f"@{out}", "--output", f"@{tmp_path / 'n.npy'}"])
    assert (r.code, r.err) == (0, "")
    np.testing.assert_array_equal(np.load(out), -np.arange(1, 7, dtype=np.float32).reshape(3, 2))
    r = cli(kiln_run.run, [*argv[:-2], "--input", "0.5", "--device", "no-such-device"])
    assert r.code == 1 and "unknown device 'no-such-device'" in r.err
