"""kiln's on-disk cache of compiled artifacts (object code, shared libraries, compiled programs).

Where: ``$KILN_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/kiln``, else ``~/.cache/kiln``; ``KILN_NO_CACHE=1``
turns the cache off (``get`` misses, ``put`` does nothing, ``path_for`` returns None). The environment is read
on every call so tests and tools can redirect it.

A key is the sha256 of its parts (each part length-prefixed, so ``("ab", "c")`` and ``("a", "bc")`` differ);
the caller passes every input that changes the artifact. Entries live at ``<dir>/<namespace>/<key><suffix>``.

Entries written through ``put`` carry a header (magic, sha256 of the payload, payload length), so a truncated
or corrupted file is detected by ``get``, deleted, and reported as a miss: the caller rebuilds and re-stores it.
All writes are atomic (a temporary file in the same folder, then ``os.replace``), so a reader never sees a
half-written entry, and concurrent writers of the same key both leave a valid file. The cache is an
optimization only: a folder that cannot be written is silently skipped.

Size limit: ``KILN_CACHE_MAX_BYTES=N`` (plain bytes or with a K/M/G suffix) bounds the whole folder. A read
bumps an entry's modification time, so after each ``put`` the least recently used entries are deleted until
the folder fits. Entries used in the last ``EVICT_GRACE_SECONDS`` are never deleted: another process may be
between finding a ``.so`` and loading it, and deleting a file another process reads is otherwise harmless
(``get`` then misses and the caller rebuilds).

Explanations: ``remember(namespace, name, parts)`` keeps, per ``name`` (e.g. a function on a device), the
digest of each named key part of its last compile; ``changed(namespace, name, parts)`` says which parts differ
now, so a recompile can say why (``kiln.compiler.explain``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import struct
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kiln.support.env import env_bytes, env_flag

KeyPart = str | bytes | int

_MAGIC = b"KILNC\x01\n\x00"
_HEADER = struct.Struct("<8s32sQ")  # magic, sha256(payload), len(payload)
_NAMESPACE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_NOT_CODE = {"test", "bench", "examples", "docs", "build", "kiln.egg-info"}  # folders skipped by code_fingerprint
_INDEX_SUFFIX = "-index"
EVICT_GRACE_SECONDS = 60.0


def cache_dir() -> Path | None:
    """The cache folder, or None when ``KILN_NO_CACHE`` is on (1, true, yes)."""
    if env_flag("KILN_NO_CACHE"):
        return None
    if explicit := os.environ.get("KILN_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kiln"


def cache_key(key_parts: Iterable[KeyPart]) -> str:
    """sha256 hex digest of the length-prefixed parts."""
    h = hashlib.sha256()
    for part in key_parts:
        if isinstance(part, int):
            part = str(part)
        data = part.encode() if isinstance(part, str) else bytes(part)
        h.update(struct.pack("<Q", len(data)))
        h.update(data)
    return h.hexdigest()


def path_for(namespace: str, key_parts: Iterable[KeyPart], suffix: str = "") -> Path | None:
    """Where the artifact for ``key_parts`` lives (for files other tools write, e.g. ``.so``); None if disabled.

    The parent folder is created. The caller writes it atomically (``atomic_write`` or a temp file + os.replace).
    """
    folder = _folder(namespace)
    return None if folder is None else folder / (cache_key(key_parts) + suffix)


def _folder(namespace: str) -> Path | None:
    """The namespace's folder, created; None when the cache is off or the folder cannot be made."""
    root = cache_dir()
    if root is None:
        return None
    if not _NAMESPACE.fullmatch(namespace):
        raise ValueError(f"bad cache namespace '{namespace}'")
    folder = root / namespace
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def get(namespace: str, key_parts: Iterable[KeyPart]) -> bytes | None:
    """The payload stored under the key, or None (disabled, missing, or corrupt: a corrupt entry is deleted)."""
    path = path_for(namespace, key_parts, ".bin")
    if path is None:
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = _unwrap(raw)
    if payload is None:
        remove(path)
    else:
        touch(path)
    return payload


def put(namespace: str, key_parts: Iterable[KeyPart], data: bytes) -> None:
    """Store ``data`` under the key (atomically); does nothing when the cache is off or not writable."""
    put_entry(namespace, cache_key(key_parts), wrap(data))


def wrap(data: bytes) -> bytes:
    """``data`` as a cache entry: the integrity header, then the payload (what ``put`` writes, what another
    machine's cache can check with ``put_entry``)."""
    return _HEADER.pack(_MAGIC, hashlib.sha256(data).digest(), len(data)) + data


def entry(namespace: str, key_parts: Iterable[KeyPart]) -> bytes | None:
    """The whole entry (header and payload) stored under the key, checked; None when absent or corrupt. For
    shipping an artifact to another machine, which checks it again on arrival (``put_entry``)."""
    payload = get(namespace, key_parts)
    return None if payload is None else wrap(payload)


def put_entry(namespace: str, digest: str, raw: bytes) -> bool:
    """Store a whole entry (``wrap``'s output, e.g. received from another machine) under the key digest
    ``cache_key`` gave; False, storing nothing, when its integrity header does not match its payload."""
    if _unwrap(raw) is None or not _DIGEST.fullmatch(digest):
        return False
    if (folder := _folder(namespace)) is not None:
        try:
            atomic_write(folder / (digest + ".bin"), raw)
        except OSError:
            return True
        evict()
    return True


def payloads(namespace: str) -> Iterator[tuple[str, bytes]]:
    """(key digest, payload) of every valid entry of ``namespace`` (corrupt ones are skipped): for exporting."""
    folder = _folder(namespace)
    if folder is None:
        return
    for path in sorted(folder.glob("*.bin")):
        try:
            payload = _unwrap(path.read_bytes())
        except OSError:
            continue
        if payload is not None:
            yield path.stem, payload


def touch(path: Path) -> None:
    """Mark an entry as just used (its modification time is what eviction orders by)."""
    try:
        os.utime(path)
    except OSError:
        pass


def atomic_write(path: Path, data: bytes | Iterable[bytes | memoryview]) -> None:
    """Write ``data`` (bytes, or pieces written one after another) to ``path`` so that readers see either the old
    file or the complete new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                f.writelines(data)
        os.replace(tmp, path)
    except BaseException:
        remove(Path(tmp))
        raise


def remove(path: Path) -> None:
    """Delete a file if it exists (a bad entry, a leftover temp file)."""
    try:
        path.unlink()
    except OSError:
        pass


def _unwrap(raw: bytes) -> bytes | None:
    if len(raw) < _HEADER.size:
        return None
    magic, digest, length = _HEADER.unpack_from(raw)
    payload = raw[_HEADER.size :]
    if magic != _MAGIC or length != len(payload) or hashlib.sha256(payload).digest() != digest:
        return None
    return payload


@cache
def code_fingerprint() -> str:
    """A hash of kiln's own source code, for keys of artifacts that kiln's code produces.

    Any edit to kiln (a pass, an emitter) changes it, so a stale compiled program is never reused; the package
    version alone would not notice edits made during development. Computed once per process (``source_fingerprint``).
    """
    return source_fingerprint(Path(__file__).resolve().parent.parent)


FINGERPRINT_NAMESPACE = "code-fingerprint"
"""The disk cache's namespace for ``source_fingerprint``'s hashes, under the files' stat stamp."""


def source_fingerprint(root: Path) -> str:
    """The sha256 of every ``.py`` file under ``root`` (less ``_NOT_CODE`` and hidden folders), with its path.

    Hashing reads every file (~25 ms for kiln on an idle machine, several times that under load, in every later
    process), so the hash is kept in the disk cache under the files' paths, sizes, inodes and modification times
    in nanoseconds: what Python itself trusts (with less: seconds and size) to reuse a module's bytecode."""
    files: list[tuple[str, os.DirEntry]] = []

    def walk(folder: str) -> None:  # os.walk's order: a folder's files, then its subfolders, each sorted
        with os.scandir(root / folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        prefix = folder + "/" if folder else ""
        files.extend((prefix + e.name, e) for e in entries if e.name.endswith(".py") and e.is_file())
        for e in entries:
            if e.is_dir(follow_symlinks=False) and not e.name.startswith((".", "__")) and e.name not in _NOT_CODE:
                walk(prefix + e.name)

    walk("")
    stamp = "\n".join(f"{name} {(st := entry.stat()).st_size} {entry.inode()} {st.st_mtime_ns}"
                       for name, entry in files)
    if (kept := get(FINGERPRINT_NAMESPACE, [str(root), stamp])) is not None:
        return kept.decode()
    h = hashlib.sha256()
    for name, entry in files:
        h.update(name.encode() + b"\0" + Path(entry.path).read_bytes() + b"\0")
    put(FINGERPRINT_NAMESPACE, [str(root), stamp], h.hexdigest().encode())
    return h.hexdigest()



# ------------------------------------------------------------------------------------------- explanations


def remember(namespace: str, name: str, parts: Mapping[str, KeyPart]) -> None:
    """Record the digest of each named key part of ``name``'s latest entry in ``namespace``."""
    put(namespace + _INDEX_SUFFIX, [name], json.dumps(_digests(parts), sort_keys=True).encode())


def changed(namespace: str, name: str, parts: Mapping[str, KeyPart]) -> list[str] | None:
    """The names of the parts that differ from ``name``'s last recorded entry; None when there is none."""
    raw = get(namespace + _INDEX_SUFFIX, [name])
    if raw is None:
        return None
    before = json.loads(raw)
    return [part for part, digest in _digests(parts).items() if before.get(part) != digest]


def _digests(parts: Mapping[str, KeyPart]) -> dict[str, str]:
    return {name: cache_key([value]) for name, value in parts.items()}


# ------------------------------------------------------------------------------------------- size and listing


@dataclass(frozen=True)
class Entry:
    namespace: str
    path: Path
    size: int
    last_used: float


def entries() -> Iterator[Entry]:
    """Every file in the cache (leftover temporary files included, so they count and can be cleared)."""
    root = cache_dir()
    if root is None or not root.is_dir():
        return
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            try:
                st = path.stat()
            except OSError:
                continue  # deleted by another process meanwhile
            yield Entry(folder.name, path, st.st_size, st.st_mtime)


def max_bytes() -> int | None:
    """``KILN_CACHE_MAX_BYTES``, or None (no limit)."""
    return env_bytes("KILN_CACHE_MAX_BYTES")


def evict(limit: int | None = None) -> int:
    """Delete least recently used entries until the cache fits ``limit`` (default: ``KILN_CACHE_MAX_BYTES``);
    returns the bytes freed. Entries used within ``EVICT_GRACE_SECONDS`` stay, so it may not get under."""
    limit = max_bytes() if limit is None else limit
    if limit is None:
        return 0
    found = list(entries())
    excess = sum(e.size for e in found) - limit
    freed = 0
    recent = time.time() - EVICT_GRACE_SECONDS
    for e in sorted(found, key=lambda e: e.last_used):
        if freed >= excess or e.last_used > recent:
            break
        remove(e.path)
        freed += e.size
    return freed
