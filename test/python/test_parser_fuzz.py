"""Mutated IR gets one answer from kiln-opt, quickly: exit 0 or 1, never a traceback or an internal error.

Every lit input and example is mutated (tokens deleted, duplicated, swapped; unmatched quotes and brackets;
long string literals, terminated or not; truncation; invalid UTF-8) and each mutant is run through kiln-opt's
``run_tool`` in this process, under a SIGALRM guard of ``DEADLINE_S`` seconds. The default run takes
``DEFAULT_MUTANTS`` mutants; ``KILN_FUZZ_MUTANTS=2000 pytest test/python/test_parser_fuzz.py -s`` is the full
run (it prints the count and the slowest answer).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kiln.tools import kiln_opt
from kiln.support.cli import run_tool

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MUTANTS = 300
MUTANTS = int(os.environ.get("KILN_FUZZ_MUTANTS", DEFAULT_MUTANTS))
DEADLINE_S = 5
TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|[%@^#!]?[A-Za-z_][\w.$-]*|[%@^#]\d+|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|//[^\n]*|\s+|.')
"""Roughly MLIR's tokens (strings, identifiers with sigils, numbers, comments, whitespace, punctuation)."""


class Timeout(BaseException):
    """Raised by the alarm: a BaseException, so kiln's own ``except Exception`` cannot swallow it."""


def sources() -> list[Path]:
    """Every lit input and example (``.mlir``)."""
    return sorted(p for d in ("test", "examples") for p in (ROOT / d).rglob("*.mlir"))


def _tokens(data: bytes) -> list[bytes]:
    return TOKEN.findall(data)


def _delete(r: random.Random, t: list[bytes]) -> list[bytes]:
    i = r.randrange(len(t))
    return t[:i] + t[i + 1 :]


def _duplicate(r: random.Random, t: list[bytes]) -> list[bytes]:
    i = r.randrange(len(t))
    return t[: i + 1] + t[i:]


def _swap(r: random.Random, t: list[bytes]) -> list[bytes]:
    i = r.randrange(max(1, len(t) - 1))
    j = min(len(t) - 1, i + 1 + r.randrange(3))
    t = list(t)
    t[i], t[j] = t[j], t[i]
    return t


def _insert(piece: Callable[[random.Random], bytes]) -> Callable[[random.Random, list[bytes]], list[bytes]]:
    def mutate(r: random.Random, t: list[bytes]) -> list[bytes]:
        i = r.randrange(len(t) + 1)
        return t[:i] + [piece(r)] + t[i:]

    return mutate


def _truncate(r: random.Random, t: list[bytes]) -> list[bytes]:
    data = b"".join(t)
    return [data[: r.randrange(len(data) + 1)]]


MUTATIONS: dict[str, Callable[[random.Random, list[bytes]], list[bytes]]] = {
    "delete": _delete,
    "duplicate": _duplicate,
    "swap": _swap,
    "quote": _insert(lambda r: b'"'),
    "bracket": _insert(lambda r: r.choice([b"(", b")", b"[", b"]", b"{", b"}", b"<", b">", b'"{'])),
    "long-string": _insert(lambda r: b'"' + b"a" * r.randrange(20, 400) + r.choice([b"", b'"', b"\\", b"\\q"])),
    "truncate": _truncate,
    "invalid-utf8": _insert(lambda r: r.choice([b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x80abc"])),
}


def mutants(count: int, seed: int = 16) -> Iterator[tuple[str, bytes]]:
    """``count`` (name, text) mutants, the sources and mutations taken in turn (deterministic for a seed)."""
    r = random.Random(seed)
    files = sources()
    kinds = sorted(MUTATIONS)
    for n in range(count):
        path = files[n % len(files)]
        kind = kinds[(n // len(files)) % len(kinds)] if count >= len(files) * len(kinds) else r.choice(kinds)
        tokens = _tokens(path.read_bytes()) or [b""]
        yield f"{path.relative_to(ROOT)}:{kind}:{n}", b"".join(MUTATIONS[kind](r, tokens))


def kiln_opt_in_process(path: Path) -> tuple[int, str, float]:
    """(exit status, stdout + stderr, seconds) of ``kiln-opt --split-input-file path``, or Timeout."""
    out = io.StringIO()

    def expire(signum, frame):  # noqa: ANN001
        raise Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(DEADLINE_S)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = run_tool("kiln-opt", kiln_opt.run, [str(path), "--split-input-file"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return status, out.getvalue(), time.perf_counter() - start


def test_mutations_cover_every_source_and_change_it() -> None:
    files = sources()
    assert len(files) > 50
    changed = [name for name, text in mutants(len(files) * len(MUTATIONS)) if text != (ROOT / name.split(":")[0]).read_bytes()]
    assert len(changed) > 0.9 * len(files) * len(MUTATIONS)


def test_unterminated_string_is_a_located_error_in_time(tmp_path: Path) -> None:
    """The reproducer: xDSL 0.75's string pattern backtracked 2**n times on this line."""
    path = tmp_path / "hang.mlir"
    path.write_text('func.func @f() "' + "a" * 60 + "\n")
    status, out, seconds = kiln_opt_in_process(path)
    assert status == 1 and re.search(r"hang\.mlir:1:16: error: ", out) and seconds < 2, (out, seconds)


def test_every_mutant_gets_one_answer_in_time(tmp_path: Path) -> None:
    slowest = (0.0, "")
    path = tmp_path / "mutant.mlir"
    failures: list[str] = []
    for name, text in mutants(MUTANTS):
        path.write_bytes(text)
        try:
            status, out, seconds = kiln_opt_in_process(path)
        except Timeout:
            failures.append(f"{name}: no answer within {DEADLINE_S} s")
            continue
        slowest = max(slowest, (seconds, name))
        if status not in (0, 1) or "internal error" in out or "Traceback" in out:
            failures.append(f"{name}: exit {status}\n{out[-600:]}")
    print(f"\n{MUTANTS} mutants, slowest answer {slowest[0]:.2f} s ({slowest[1]})")
    assert not failures, f"{len(failures)} of {MUTANTS} mutants:\n" + "\n".join(failures[:10])


@pytest.fixture(autouse=True)
def _no_traceback_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KILN_TRACEBACK", raising=False)
