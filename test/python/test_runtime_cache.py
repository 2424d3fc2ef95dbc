"""The disk cache: where it lives, keys, atomic entries, and detection of corrupt entries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kiln.support import cache


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("KILN_NO_CACHE", raising=False)
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "c"))
    return tmp_path / "c"


def test_round_trip_and_miss(cache_dir: Path) -> None:
    assert cache.get("ns", ["a", b"b", 3]) is None
    cache.put("ns", ["a", b"b", 3], b"payload")
    assert cache.get("ns", ["a", b"b", 3]) == b"payload"
    assert cache.get("ns", ["a", b"b", 4]) is None
    assert cache.get("other", ["a", b"b", 3]) is None
    assert [p.name for p in (cache_dir / "ns").iterdir()] == [cache.cache_key(["a", b"b", 3]) + ".bin"]


def test_key_parts_are_length_prefixed() -> None:
    assert cache.cache_key(["ab", "c"]) != cache.cache_key(["a", "bc"])
    assert cache.cache_key(["x"]) == cache.cache_key([b"x"])
    assert len(cache.cache_key([])) == 64


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[:-1],  # truncated payload
        lambda raw: raw[:10],  # truncated header
        lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]),  # flipped bit in the payload
        lambda raw: b"X" + raw[1:],  # wrong magic
        lambda raw: b"",
    ],
)
def test_corrupt_entry_is_deleted_and_rebuilt(cache_dir: Path, damage) -> None:
    cache.put("ns", ["k"], b"some object code")
    (entry,) = (cache_dir / "ns").iterdir()
    entry.write_bytes(damage(entry.read_bytes()))
    assert cache.get("ns", ["k"]) is None
    assert not entry.exists()
    cache.put("ns", ["k"], b"some object code")
    assert cache.get("ns", ["k"]) == b"some object code"


def test_no_cache_env(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    cache.put("ns", ["k"], b"data")
    assert cache.get("ns", ["k"]) is None
    assert cache.path_for("ns", ["k"], ".so") is None
    assert not cache_dir.exists()
    monkeypatch.setenv("KILN_NO_CACHE", "0")
    assert cache.cache_dir() == cache_dir


def test_default_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KILN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "kiln"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "kiln"


def test_path_for_and_atomic_write(cache_dir: Path) -> None:
    path = cache.path_for("c-so", ["src"], ".so")
    assert path is not None and path.parent == cache_dir / "c-so" and path.suffix == ".so"
    cache.atomic_write(path, b"first")
    cache.atomic_write(path, b"second")
    assert path.read_bytes() == b"second"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary files left behind


def test_bad_namespace() -> None:
    with pytest.raises(ValueError):
        cache.path_for("../escape", ["k"])


def test_unwritable_cache_is_skipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("KILN_CACHE_DIR", str(blocker))
    cache.put("ns", ["k"], b"data")  # must not raise
    assert cache.get("ns", ["k"]) is None


def test_code_fingerprint_is_stable_hex() -> None:
    fp = cache.code_fingerprint()
    assert fp == cache.code_fingerprint() and len(fp) == 64 and int(fp, 16) >= 0


def test_an_entry_shipped_from_another_machine_is_checked_on_arrival(cache_dir: Path) -> None:
    cache.put("program", ["k"], b"compiled")
    raw = cache.entry("program", ["k"])
    assert raw is not None and raw.endswith(b"compiled")
    digest = cache.cache_key(["k"])
    damaged = raw[:-1] + b"D"
    assert not cache.put_entry("program", cache.cache_key(["other"]), damaged)
    assert cache.get("program", ["other"]) is None
    assert not cache.put_entry("program", "../escape", raw)
    assert cache.put_entry("program", cache.cache_key(["copy"]), raw)
    assert cache.get("program", ["copy"]) == b"compiled"
    assert dict(cache.payloads("program")) == {digest: b"compiled", cache.cache_key(["copy"]): b"compiled"}


def source_tree(root: Path, body: str = "x = 1\n") -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "a.py").write_text("A = 0\n")
    (root / "pkg" / "b.py").write_text(body)
    (root / "test").mkdir()
    (root / "test" / "t.py").write_text("not code\n")
    return root


def test_the_source_fingerprint_is_the_content_under_the_paths(tmp_path: Path) -> None:
    one, two = source_tree(tmp_path / "one"), source_tree(tmp_path / "two")
    assert cache.source_fingerprint(one) == cache.source_fingerprint(two)  # the same code anywhere
    (two / "test" / "t.py").write_text("tests are not kiln's code\n")
    assert cache.source_fingerprint(two) == cache.source_fingerprint(one)
    (two / "pkg" / "b.py").write_text("x = 2\n")
    assert cache.source_fingerprint(two) != cache.source_fingerprint(one)


def test_an_unchanged_stat_reuses_the_kept_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hash is kept under the files' stat stamp: an edit that keeps a file's size, inode and modification
    time (which no editor makes) is not seen while the kept hash lasts; without the cache every file is read."""
    root = source_tree(tmp_path / "code")
    before = cache.source_fingerprint(root)
    b = root / "pkg" / "b.py"
    stat = b.stat()
    with open(b, "r+") as f:
        f.write("x = 3\n")
    os.utime(b, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache.source_fingerprint(root) == before
    monkeypatch.setenv("KILN_NO_CACHE", "1")
    assert cache.source_fingerprint(root) != before
