"""Errors of the Python front end, for people: each message says what went wrong and what to do instead."""

from __future__ import annotations

from kiln.support.errors import KilnError


class TraceError(KilnError):
    """A jitted function did something tracing cannot capture: it read the value of a traced tensor (``bool()``,
    ``.item()``, ``.numpy()``: data-dependent Python control flow), or a traced tensor escaped its trace."""


class JitError(KilnError):
    """A ``@kiln.jit`` function was declared or called in a way the JIT cannot compile (bad ``dims``, an argument
    that is neither a tensor nor hashable, a result that is not a tensor)."""
