"""Reading ``KILN_*`` environment variables: a value that does not parse is one clear error, never ignored.

``KILN_DEBUG=yes`` used to mean level 0 and ``KILN_THREADS=four`` a ValueError traceback; both now raise
`EnvError` naming the variable, the value and what it accepts. Every reader goes through here so the
messages agree. The environment is read on each call (tests and tools change it while a process runs).
"""

from __future__ import annotations

import os
import re

from kiln.support.errors import KilnError

_BYTES = re.compile(r"(\d+)\s*([KMG]?)(?:i?B)?", re.IGNORECASE)
_FLAGS = {"": False, "0": False, "false": False, "no": False, "off": False,
          "1": True, "true": True, "yes": True, "on": True}


class EnvError(KilnError):
    """A ``KILN_*`` variable holds a value kiln cannot use."""


def _bad(name: str, value: str, wanted: str) -> EnvError:
    return EnvError(f"{name}='{value}' is not valid: expected {wanted}")


def env_int(name: str, default: int, lo: int, hi: int | None = None) -> int:
    """An integer in [lo, hi] (``default`` when unset or empty)."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    wanted = f"an integer from {lo} to {hi}" if hi is not None else f"an integer >= {lo}"
    if not re.fullmatch(r"-?\d+", value):
        raise _bad(name, value, wanted)
    n = int(value)
    if n < lo or (hi is not None and n > hi):
        raise _bad(name, value, wanted)
    return n


def env_flag(name: str) -> bool:
    """On/off: 1/0, true/false, yes/no, on/off (any case); unset or empty is off."""
    value = os.environ.get(name, "").strip()
    if value.lower() not in _FLAGS:
        raise _bad(name, value, "1 or 0 (or true/false, yes/no, on/off)")
    return _FLAGS[value.lower()]


def env_bytes(name: str) -> int | None:
    """A size in bytes, with an optional K, M or G suffix (powers of 1024); None when unset or empty."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    match = _BYTES.fullmatch(value)
    if match is None:
        raise _bad(name, value, "a size in bytes such as 500000000, 512M or 2G")
    return int(match[1]) * 1024 ** "_KMG".index(match[2].upper() or "_")
