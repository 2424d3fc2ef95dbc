"""``KILN_DEBUG``'s level and kiln's stderr log line, for every floor: the jit's reports (`kiln.jit.debug`), the
driver's cache explanations and kiln-run's ``--explain`` all print the same way."""

from __future__ import annotations

import sys

from kiln.support.env import env_int


def level() -> int:
    """The ``KILN_DEBUG`` level: 0 when unset; anything but 0-4 is an error (`EnvError`), not silence."""
    return env_int("KILN_DEBUG", 0, 0, 4)


def log(message: str) -> None:
    print(f"kiln: {message}", file=sys.stderr, flush=True)
