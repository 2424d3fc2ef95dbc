"""``KILN_DEBUG``'s level and kiln's stderr log line, for every floor: the jit's reports (`kiln.jit.debug`), the
driver's cache explanations and kiln-run's ``--explain`` all print the same way."""

from __future__ import annotations

import os
import sys

from kiln.support.env import env_int

_parsed: tuple[str | None, int] = (None, 0)
"""The last ``KILN_DEBUG`` text read and its level (every compiled call asks, so it is parsed once per change)."""


def level() -> int:
    """The ``KILN_DEBUG`` level: 0 when unset; anything but 0-4 is an error (`EnvError`), not silence."""
    global _parsed
    text = os.environ.get("KILN_DEBUG")
    if text != _parsed[0]:
        _parsed = (text, env_int("KILN_DEBUG", 0, 0, 4))
    return _parsed[1]


def log(message: str) -> None:
    print(f"kiln: {message}", file=sys.stderr, flush=True)
