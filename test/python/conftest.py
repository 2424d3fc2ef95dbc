"""Fixtures shared by the pytest tests."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from kiln.support.cli import run_tool

# Compiled kernels and tuning results go to a cache private to this test session (not ~/.cache/kiln), unless
# the caller chose a cache directory; the session's own folder is deleted when the session ends.
_SESSION_CACHE = None if "KILN_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="kiln-test-cache-")
if _SESSION_CACHE is not None:
    os.environ["KILN_CACHE_DIR"] = _SESSION_CACHE


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SESSION_CACHE is not None:
        shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run a tool's ``run(argv)`` in-process, as its console script would: ``cli(kiln_opt.run, [...], stdin=...)``."""

    def invoke(run: Callable[[Sequence[str] | None], int], argv: Sequence[str], stdin: str = "") -> CliResult:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        capsys.readouterr()
        code = run_tool("tool", run, list(argv))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return invoke


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the programs eager realization compiles during the test."""
    import kiln.jit.realize as realize_module

    seen: list[str] = []
    original = realize_module.compile_graph

    def counting(sub, name, args, device, dims=None):
        seen.append(name)
        return original(sub, name, args, device, dims)

    monkeypatch.setattr(realize_module, "compile_graph", counting)
    realize_module._programs.clear()
    return seen
