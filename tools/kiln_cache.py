"""kiln-cache: look into kiln's disk cache and empty it.

    kiln-cache info            # where it is, its size, entries and bytes per kind, the size limit
    kiln-cache list [KIND]     # every entry: kind, size, last used, file name
    kiln-cache clear [KIND]    # delete every entry (or one kind's)

Kinds are the cache's namespaces: ``program`` (compiled programs), ``llvm-obj`` (object code), ``c-so``
(shared libraries), ``tuning`` (beam-search results), ``*-index`` (the last key parts per function, which
``KILN_DEBUG=1`` diffs against to say why a function was recompiled). ``KILN_CACHE_MAX_BYTES`` bounds the
cache; the least recently used entries go first (see `kiln.support.cache`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from kiln.support import cache
from kiln.support.cli import ArgumentParser, UserError, run_tool

TOOL = "kiln-cache"


def build_arg_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(prog=TOOL, description="Inspect and clear kiln's disk cache.")
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("info", help="location, size, entries per kind, size limit")
    for name, text in (("list", "list entries"), ("clear", "delete entries")):
        sub = commands.add_parser(name, help=f"{text} (all, or of one KIND)")
        sub.add_argument("kind", nargs="?", help="a namespace such as program, llvm-obj, c-so, tuning")
    return p


def run(argv: Sequence[str] | None = None) -> int:
    """kiln-cache's logic: returns the exit status, raises UserError for a bad command line."""
    args = build_arg_parser().parse_args(argv)
    root = cache.cache_dir()
    if root is None:
        raise UserError("the cache is off (KILN_NO_CACHE is set)")
    entries = list(cache.entries())
    if args.command == "info":
        _info(str(root), entries)
        return 0
    if args.kind is not None:
        kinds = sorted({e.namespace for e in entries})
        if args.kind not in kinds:
            raise UserError(f"no entries of kind '{args.kind}' in {root} (kinds: {', '.join(kinds) or 'none'})")
        entries = [e for e in entries if e.namespace == args.kind]
    if args.command == "list":
        for e in entries:
            used = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.last_used))
            print(f"{e.namespace:<16} {_size(e.size):>10}  {used}  {e.path.name}")
    else:
        for e in entries:
            cache.remove(e.path)
        print(f"deleted {len(entries)} entries ({_size(sum(e.size for e in entries))}) from {root}")
    return 0


def _info(root: str, entries: list[cache.Entry]) -> None:
    limit = cache.max_bytes()
    print(f"location: {root}")
    print(f"size:     {_size(sum(e.size for e in entries))} in {len(entries)} entries")
    shown = f"{_size(limit)} (KILN_CACHE_MAX_BYTES)" if limit is not None else "none (KILN_CACHE_MAX_BYTES unset)"
    print(f"limit:    {shown}")
    kinds: dict[str, list[int]] = {}
    for e in entries:
        kinds.setdefault(e.namespace, []).append(e.size)
    for kind, sizes in sorted(kinds.items()):
        print(f"  {kind:<16} {len(sizes):>6} entries {_size(sum(sizes)):>10}")


def _size(n: int) -> str:
    """Bytes for people: ``512 B``, ``3.4 KiB``, ``1.2 GiB``."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            break
        value /= 1024
    return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"


def main(argv: Sequence[str] | None = None) -> NoReturn:
    sys.exit(run_tool(TOOL, run, argv))


if __name__ == "__main__":
    main()
