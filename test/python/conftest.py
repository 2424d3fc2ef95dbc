"""Fixtures shared by the pytest tests."""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from kiln.tools.errors import run_tool

# Compiled kernels and tuning results go to a cache private to this test session (not ~/.cache/kiln), unless
# the caller chose a cache directory.
os.environ.setdefault("KILN_CACHE_DIR", tempfile.mkdtemp(prefix="kiln-test-cache-"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cluster_slow: a slow Ray-cluster test, run only with KILN_CLUSTER_TESTS=all (docs/distributed.md)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("KILN_CLUSTER_TESTS") == "all":
        return
    skip = pytest.mark.skip(reason="a slow cluster test: KILN_CLUSTER_TESTS=all runs it")
    for item in items:
        if "cluster_slow" in item.keywords:
            item.add_marker(skip)


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
