"""``kiln-opt --verify-semantics`` runs clean over every example and every lit input that lowers: no pass of
the CPU pipelines changes what a function computes on its input sets.

The inputs are ``examples/*.mlir`` and each ``// -----`` piece of the lit tests (``test/**/*.mlir``) that
parses, verifies, holds a function (a graph function or a schedule) and expects no diagnostic. Each is lowered
from its own level to C, as ``lower-to-c`` does (``CPU_C_FROM``); a piece the pipeline cannot lower (a GPU-only
kernel, say) is skipped, since there is nothing to check. The uop interpreter runs one micro-op at a time, so the
default run checks each input on one input set, and only the graph functions whose work on their first set
(``estimated_work``) is at most ``DEFAULT_WORK``; ``KILN_SLOW=1`` runs every input on three sets (about an hour
on a loaded 2-core machine: mlp and convnet take minutes each, the large matmuls of pack_matmul.mlir longer).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from xdsl.dialects import func

from kiln.compiler import registry
from kiln.dialects.verify import verify_module
from kiln.interpreters.run import executable_level, on_arrays
from kiln.support.cli import run_tool
from kiln.interpreters.graph import estimated_work
from kiln.interpreters.sample_inputs import random_inputs
from kiln.support.source import Chunk, parse_chunk, split_input
from kiln.tools import kiln_opt

ROOT = Path(__file__).resolve().parents[2]
SLOW = bool(os.environ.get("KILN_SLOW"))
SETS = "3" if SLOW else "1"
DEFAULT_WORK = 20_000
"""The most work (``kiln.interpreters.graph.estimated_work`` on the first input set) an input may take in the
default run."""

CPU_C_FROM = {
    "graph": "lower-to-c",
    "kernel": "kernel-optimize{target=cpu-c},convert-kernel-to-uop{target=cpu-c},uop-simplify,"
              "uop-decompose{target=cpu-c},convert-uop-to-cstyle",
    "uop": "uop-simplify,uop-decompose{target=cpu-c},convert-uop-to-cstyle",
}
"""The rest of ``lower-to-c`` from each executable level."""


def _inputs() -> list[tuple[str, str, str, int]]:
    """(test id, IR text, level, work on the first input set) of every checkable input."""
    pieces = [(f"examples/{p.name}", Chunk(p.read_text())) for p in sorted((ROOT / "examples").glob("*.mlir"))]
    for path in sorted((ROOT / "test").rglob("*.mlir")):
        if "Output" in path.relative_to(ROOT).parts:  # what lit's runs left behind, not inputs
            continue
        pieces += [(f"{path.relative_to(ROOT)}:{n}", c) for n, c in enumerate(split_input(path.read_text(), True))]
    found = []
    for name, chunk in pieces:
        if not chunk.has_ops() or "expected-" in chunk.text:
            continue
        try:
            module = parse_chunk(registry.make_context(), chunk, name)
        except Exception:  # noqa: BLE001 - a piece that is not a module on its own (parser tests)
            continue
        if verify_module(module) is not None:
            continue
        functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks and on_arrays(op)]
        levels = {executable_level(module, f.sym_name.data) for f in functions}
        if len(levels) == 1 and None not in levels:
            level = levels.pop()
            work = sum(estimated_work(f, random_inputs(f, 0)[1]) for f in functions) if level == "graph" else 0
            found.append((name, chunk.text, level, work))
    return found


INPUTS = _inputs()


@pytest.mark.parametrize(("text", "level", "work"), [i[1:] for i in INPUTS], ids=[i[0] for i in INPUTS])
def test_verify_semantics_runs_clean(text: str, level: str, work: int, tmp_path: Path, capsys) -> None:
    if work > DEFAULT_WORK and not SLOW:
        pytest.skip(f"~{work} operations per input set: KILN_SLOW=1 checks it")
    source = tmp_path / "in.mlir"
    source.write_text(text)
    lower = [str(source), "-p", CPU_C_FROM[level], "-o", str(tmp_path / "out.c")]
    status = run_tool("kiln-opt", kiln_opt.run, [*lower, f"--verify-semantics={SETS}"])
    err = capsys.readouterr().err
    assert "changed what" not in err, err
    if status != 0:
        assert run_tool("kiln-opt", kiln_opt.run, lower) != 0, f"lowers, but not under --verify-semantics: {err}"
        pytest.skip(f"does not lower to C: {err.splitlines()[0]}")
    assert "input sets agree after every pass" in err, err


def test_the_inputs_cover_every_level() -> None:
    assert {i[2] for i in INPUTS} == {"graph", "kernel", "uop"}
    assert sum(i[0].startswith("examples/") for i in INPUTS) == len(list((ROOT / "examples").glob("*.mlir")))
