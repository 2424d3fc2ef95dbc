"""Errors kiln shows to people.

A ``KilnError`` carries a complete one-line (or few-line) message meant for the user: tools print it and exit
with code 1 instead of showing a traceback. Subclasses say which kind of thing went wrong so callers and tests
can tell them apart without matching on text.
"""

from __future__ import annotations


class KilnError(Exception):
    """A user-facing failure; ``str(err)`` is the whole message."""


class InputError(KilnError):
    """The arguments of a call do not fit the compiled function (count, dtype, shape, symbol bounds)."""


class CompileError(KilnError):
    """Generated code was rejected by a toolchain (LLVM verifier, C compiler, ...) or the IR cannot be lowered."""


class DeviceUnavailable(KilnError):
    """The requested device cannot be used on this machine; the message says why."""

class UserError(Exception):
    """A problem with what the user gave the tool, printed as ``<where>: error: <message>``.

    ``where`` is a source location (``file:line:col``) or a file name; by default, the tool's name.
    """

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.where = where
