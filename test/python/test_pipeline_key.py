"""The compile cache's key holds the device pipeline as its passes print it, without building them on a hit."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from kiln.compiler import driver, pipeline
from kiln.support import cache

RELU = """func.func @relu(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %0 = graph.relu %x : !graph.tensor<4x8xf32>
  func.return %0 : !graph.tensor<4x8xf32>
}
"""

SETTINGS = [{}, {"KILN_BEAM": "3"}, {"KILN_WEBGPU_F64": "f32"}]


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    driver._configured_pipeline.cache_clear()


def _no_pass_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str) -> None:
        raise AssertionError(f"built the passes of '{text[:40]}...'")

    monkeypatch.setattr(pipeline, "build_pipeline", refuse)
    driver._configured_pipeline.cache_clear()


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s) or "default")
@pytest.mark.parametrize("device", sorted(driver.LOWERINGS))
def test_the_kept_text_is_what_the_built_pipeline_prints(device: str, settings: dict[str, str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    if device == "webgpu":
        pytest.importorskip("wgpu")
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # webgpu's KILN_WEBGPU_F64=f32 warns
        printed = pipeline.pipeline_text(driver.device_pipeline(device))
    assert driver.device_pipeline_text(device) == printed  # a miss: built and printed
    _no_pass_built(monkeypatch)
    assert driver.device_pipeline_text(device) == printed  # a later process: read back


def test_a_setting_or_a_named_pipeline_changes_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = driver.device_pipeline_text("cpu-c")
    monkeypatch.setenv("KILN_BEAM", "2")
    searched = driver.device_pipeline_text("cpu-c")
    assert searched != plain and 'search="beam"' in searched
    monkeypatch.delenv("KILN_BEAM")
    monkeypatch.setitem(driver.registry.PIPELINES, "lower-to-c", driver.registry.PIPELINES["lower-to-c"] + ",cse")
    assert driver.device_pipeline_text("cpu-c") == plain + ",cse"


def test_a_warm_hit_builds_no_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    first = driver.compile_program(RELU, "relu", "cpu-llvm")
    _no_pass_built(monkeypatch)
    lines: list[str] = []
    run = driver.compile(RELU, "relu", "cpu-llvm", lines.append)
    assert lines == ["@relu for cpu-llvm: disk cache hit"] and run.spec == first
    with pytest.raises(AssertionError, match="built the passes"):
        driver.compile_program(RELU + "\n", "relu", "cpu-llvm")  # another program is compiled


def test_the_cache_off_still_prints_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    assert cache.cache_dir() is None
    assert driver.device_pipeline_text("cpu-llvm") == pipeline.pipeline_text(driver.device_pipeline("cpu-llvm"))

