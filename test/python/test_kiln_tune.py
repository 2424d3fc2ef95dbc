"""kiln-tune without a cluster: tuning is resumable, export/import merges (faster entry wins, another hardware
class is refused), bulk compilation fills the compile cache, errors are one line. The cluster paths are in
test_cluster.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kiln.compiler import tuning
from kiln.runtime.devices import device_available
from kiln.tools import kiln_tune

pytestmark = pytest.mark.skipif(not device_available("cpu-llvm"), reason="needs the cpu-llvm device")

PROGRAM = """
func.func @scale(%x: !graph.tensor<64x64xf32>, %y: !graph.tensor<64x64xf32>) -> !graph.tensor<64x64xf32> {
  %0 = graph.mul %x, %y : (!graph.tensor<64x64xf32>, !graph.tensor<64x64xf32>) -> !graph.tensor<64x64xf32>
  func.return %0 : !graph.tensor<64x64xf32>
}
"""
FAST = ["--beam", "1", "--max-candidates", "3", "--time-per-kernel", "10", "--workers", "1"]


@pytest.fixture
def program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KILN_RAY_ADDRESS", raising=False)
    path = tmp_path / "scale.mlir"
    path.write_text(PROGRAM)
    return path


def test_tuning_prints_a_line_per_kernel_and_a_table_and_resumes(program, cli, monkeypatch) -> None:
    first = cli(kiln_tune.run, [str(program), *FAST])
    assert first.code == 0, first.err
    assert "@scale_e0: tuned:" in first.err and first.out.startswith("program") and "tuned" in first.out

    def no_search(*args, **kwargs):
        raise AssertionError("searched a kernel that the tuning database has")

    monkeypatch.setattr(tuning, "beam_search_module", no_search)
    again = cli(kiln_tune.run, [str(program), *FAST])
    assert again.code == 0 and "@scale_e0: cached:" in again.err


def _entries(path: Path) -> list[dict]:
    return json.loads(path.read_text())["entries"]


def test_export_then_import_merges_keeping_the_faster_entry(program, cli, tmp_path, monkeypatch) -> None:
    assert cli(kiln_tune.run, [str(program), *FAST]).code == 0
    exported = tmp_path / "tunings.json"
    assert cli(kiln_tune.run, ["--export", str(exported)]).code == 0
    (entry,) = _entries(exported)
    slower = {**entry, "seconds": entry["seconds"] * 2, "opts": ["upcast:0:2"]}
    faster = {**entry, "seconds": entry["seconds"] / 2, "opts": ["upcast:0:4"]}
    foreign = {**entry, "key": "0" * 64, "hardware": "kiln-hw-cpu-llvm-000000000000"}
    incoming = tmp_path / "incoming.json"
    incoming.write_text(json.dumps({"format": kiln_tune.EXPORT_FORMAT, "entries": [slower, foreign]}))
    result = cli(kiln_tune.run, ["--import", str(incoming)])
    assert "0 added, 0 replaced by faster ones, 1 kept (ours are as fast), 1 refused" in result.err
    incoming.write_text(json.dumps({"format": kiln_tune.EXPORT_FORMAT, "entries": [faster]}))
    assert "1 replaced by faster ones" in cli(kiln_tune.run, ["--import", str(incoming)]).err
    assert cli(kiln_tune.run, ["--export", str(exported)]).code == 0
    assert [e["opts"] for e in _entries(exported)] == [["upcast:0:4"]]


def test_import_of_a_bad_file_is_one_line(program, cli, tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    result = cli(kiln_tune.run, ["--import", str(bad)])
    assert result.code == 1 and result.err.strip() == f"tool: error: {bad} is not a kiln-tune export (format kiln-tuning/1)"


def test_compile_only_fills_the_compile_cache(program, cli) -> None:
    first = cli(kiln_tune.run, ["--compile-only", str(program)])
    assert first.code == 0 and f"{program}:@scale  compiled  local" in first.out
    again = cli(kiln_tune.run, ["--compile-only", str(program)])
    assert f"{program}:@scale  cached" in again.out


def test_an_unreachable_cluster_is_one_line(program, cli) -> None:
    pytest.importorskip("ray")
    result = cli(kiln_tune.run, ["--compile-only", str(program), "--cluster", "127.0.0.1:1"])
    assert result.code == 1 and result.err.startswith("tool: error: cannot connect to the Ray cluster at '127.0.0.1:1'")
