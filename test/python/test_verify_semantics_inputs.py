"""``kiln-opt --verify-semantics`` runs clean over every example and every lit input that lowers: no pass of
the CPU pipelines changes what a function computes on its input sets.

The inputs are ``examples/*.mlir`` and each ``// -----`` piece of the lit tests (``test/**/*.mlir``) that
parses, verifies, holds a function (a graph function or a schedule) and expects no diagnostic. Each is lowered
from its own level to C, as ``lower-to-c`` does (``CPU_C_FROM``); a piece the pipeline cannot lower (a GPU-only
kernel, say) is skipped, since there is nothing to check. The uop interpreter runs one micro-op at a time, so the
default run checks each input on one input set and the larger examples only with ``KILN_SLOW=1`` (all inputs
on three sets).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from xdsl.dialects import func

from kiln.compiler import registry
from kiln.dialects.verify import verify_module
from kiln.interpreters.run import executable_level
from kiln.support.cli import run_tool
from kiln.support.source import parse_chunk, split_input
from kiln.tools import kiln_opt

ROOT = Path(__file__).resolve().parents[2]
SLOW = bool(os.environ.get("KILN_SLOW"))
SETS = "3" if SLOW else "1"
LARGE_EXAMPLES = {"mlp.mlir", "convnet.mlir"}
"""Examples whose uop-level runs take minutes: checked with ``KILN_SLOW=1`` only."""

CPU_C_FROM = {
    "graph": "lower-to-c",
    "kernel": "kernel-optimize{target=cpu-c},convert-kernel-to-uop{target=cpu-c},uop-simplify,"
              "uop-decompose{target=cpu-c},convert-uop-to-cstyle",
    "uop": "uop-simplify,uop-decompose{target=cpu-c},convert-uop-to-cstyle",
}
"""The rest of ``lower-to-c`` from each executable level."""


def _inputs() -> list[tuple[str, str, str]]:
    """(test id, IR text, level) of every checkable input."""
    found = [(f"examples/{p.name}", p.read_text(), "graph") for p in sorted((ROOT / "examples").glob("*.mlir"))]
    for path in sorted((ROOT / "test").rglob("*.mlir")):
        text = path.read_text()
        for n, chunk in enumerate(split_input(text, True)):
            if not chunk.has_ops() or "expected-" in chunk.text:
                continue
            try:
                module = parse_chunk(registry.make_context(), chunk, str(path))
            except Exception:  # noqa: BLE001 - a piece that is not a module on its own (parser tests)
                continue
            if verify_module(module) is not None:
                continue
            functions = [op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
            levels = {executable_level(module, f) for f in functions}
            if len(levels) == 1 and None not in levels:
                found.append((f"{path.relative_to(ROOT)}:{n}", chunk.text, levels.pop()))
    return found


INPUTS = _inputs()


@pytest.mark.parametrize(("text", "level"), [(t, lv) for _, t, lv in INPUTS], ids=[i for i, _, _ in INPUTS])
def test_verify_semantics_runs_clean(text: str, level: str, request: pytest.FixtureRequest, tmp_path: Path, capsys) -> None:
    if Path(request.node.callspec.id.split(":")[0]).name in LARGE_EXAMPLES and not SLOW:
        pytest.skip("a large example: the uop interpreter takes minutes on it; KILN_SLOW=1 runs it")
    source = tmp_path / "in.mlir"
    source.write_text(text)
    status = run_tool("kiln-opt", kiln_opt.run, [str(source), "-p", CPU_C_FROM[level], f"--verify-semantics={SETS}",
                                                 "-o", str(tmp_path / "out.c")])
    err = capsys.readouterr().err
    assert "changed what" not in err, err
    if status != 0:
        pytest.skip(f"does not lower to C: {err.splitlines()[0]}")
    assert "input sets agree after every pass" in err, err


def test_the_inputs_cover_every_level() -> None:
    assert {level for _, _, level in INPUTS} == {"graph", "kernel", "uop"}
    assert sum(i.startswith("examples/") for i, _, _ in INPUTS) == len(list((ROOT / "examples").glob("*.mlir")))
