"""The compile cache explains itself: a hit, or a compile and which key part changed (KILN_DEBUG=1, --explain)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kiln.compiler import cache_explain, driver, registry
from kiln.support import cache

RELU = """func.func @relu(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %0 = graph.relu %x : !graph.tensor<4x8xf32>
  func.return %0 : !graph.tensor<4x8xf32>
}
"""


@pytest.fixture
def explained(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``explained(text)`` compiles @relu for cpu-llvm in a fresh cache and returns what the driver said."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))

    def run(text: str = RELU) -> str:
        lines: list[str] = []
        driver.compile_program(text, "relu", "cpu-llvm", lines.append)
        assert len(lines) == 1
        return lines[0]

    return run


def test_first_compile_then_disk_hit(explained) -> None:
    assert explained() == "@relu for cpu-llvm: compiled (no earlier entry for this function)"
    assert explained() == "@relu for cpu-llvm: disk cache hit"


@pytest.mark.parametrize("part", ["input IR", "pipeline or pass options", "target description",
                                  "toolchain version", "kiln's code"])
def test_a_recompile_names_the_part_that_changed(explained, monkeypatch: pytest.MonkeyPatch, part: str) -> None:
    explained()
    text = RELU
    if part == "input IR":
        text = RELU.replace("%0 = graph.relu %x", "%0 = graph.relu %x {note}")
    elif part == "pipeline or pass options":
        monkeypatch.setitem(registry.PIPELINES, "lower-to-llvm", registry.PIPELINES["lower-to-llvm"] + ",cse")
    elif part == "target description":
        monkeypatch.setattr(cache_explain, "target_description", lambda device: "a wider vector unit")
    elif part == "toolchain version":
        monkeypatch.setattr(cache_explain, "toolchain_version", lambda device: "LLVM 99")
    else:
        monkeypatch.setattr(cache, "code_fingerprint", lambda: "edited")
    assert explained(text) == f"@relu for cpu-llvm: compiled ({part} changed since the last compile)"
    assert explained(text) == "@relu for cpu-llvm: disk cache hit"


def test_two_parts_changed_are_both_named(explained, monkeypatch: pytest.MonkeyPatch) -> None:
    explained()
    monkeypatch.setattr(cache_explain, "toolchain_version", lambda device: "LLVM 99")
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "edited")
    assert "(toolchain version and kiln's code changed since the last compile)" in explained()


def test_an_evicted_entry_and_a_disabled_cache(explained, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    explained()
    shutil.rmtree(tmp_path / "cache" / "program")
    assert explained().endswith("(same key as the last compile, but its entry is gone (evicted or cleared))")
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    assert explained().endswith("(the cache is off (KILN_NO_CACHE))")
