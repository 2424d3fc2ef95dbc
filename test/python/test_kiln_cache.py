"""kiln-cache (info, list, clear) and the cache's size limit (least recently used entries evicted first)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kiln.support import cache
from kiln.tools import kiln_cache


@pytest.fixture
def cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("KILN_CACHE_MAX_BYTES", raising=False)
    monkeypatch.setenv("KILN_NO_CACHE", "0")
    return tmp_path / "c"


def _age(namespace: str, key: str, seconds: float) -> Path:
    """Make an entry look last used ``seconds`` ago."""
    path = cache.path_for(namespace, [key], ".bin")
    assert path is not None and path.exists()
    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


def test_info_list_and_clear(cli, cache_dir: Path) -> None:
    cache.put("program", ["a"], b"x" * 100)
    cache.put("program", ["b"], b"y" * 100)
    cache.put("tuning", ["c"], b"z" * 10)
    info = cli(kiln_cache.run, ["info"])
    assert info.code == 0 and f"location: {cache_dir}" in info.out
    assert "3 entries" in info.out and "limit:    none" in info.out
    assert [line.split()[:2] for line in info.out.splitlines() if line.startswith("  ")] == [
        ["program", "2"], ["tuning", "1"]
    ]
    listed = cli(kiln_cache.run, ["list", "tuning"]).out.splitlines()
    assert len(listed) == 1 and listed[0].startswith("tuning") and listed[0].endswith(".bin")
    assert cli(kiln_cache.run, ["clear", "program"]).out.startswith("deleted 2 entries")
    assert cache.get("program", ["a"]) is None and cache.get("tuning", ["c"]) == b"z" * 10
    r = cli(kiln_cache.run, ["clear", "nope"])
    assert r.code == 1 and "no entries of kind 'nope'" in r.err and "(kinds: tuning)" in r.err
    assert cli(kiln_cache.run, ["clear"]).out.startswith("deleted 1 entries")
    assert list(cache.entries()) == []


def test_a_full_cache_drops_its_least_recently_used_entries(cache_dir: Path, monkeypatch) -> None:
    for key in ("old", "older", "read"):
        cache.put("program", [key], b"." * 1000)
    _age("program", "old", 600)
    _age("program", "older", 900)
    _age("program", "read", 1200)
    assert cache.get("program", ["read"]) is not None  # a read makes it recent again
    monkeypatch.setenv("KILN_CACHE_MAX_BYTES", "3500")
    cache.put("program", ["new"], b"." * 1000)  # 4 entries of 1048 bytes: one must go, the least recently used
    assert cache.get("program", ["older"]) is None
    assert all(cache.get("program", [k]) is not None for k in ("old", "read", "new"))


def test_entries_used_just_now_are_never_evicted(cache_dir: Path, monkeypatch) -> None:
    cache.put("program", ["a"], b"." * 1000)
    monkeypatch.setenv("KILN_CACHE_MAX_BYTES", "10")
    cache.put("program", ["b"], b"." * 1000)  # over the limit, but another process may be loading either
    assert cache.get("program", ["a"]) is not None and cache.get("program", ["b"]) is not None


def test_a_bad_limit_is_an_error(cli, cache_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("KILN_CACHE_MAX_BYTES", "lots")
    r = cli(kiln_cache.run, ["info"])
    assert r.code == 1 and r.err.startswith("tool: error: KILN_CACHE_MAX_BYTES='lots' is not valid")
