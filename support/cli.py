"""How kiln's command-line tools end: a user error is one message and exit 1, a bug is exit 2.

Tools raise `UserError` for anything wrong with their input (files, flags, IR, pass options); a `KilnError`
from the library (a bad ``KILN_*`` value, say) is reported the same way. `run_tool` turns those into their
message and every other exception into a one-line "internal error" report, so no user ever sees a Python
traceback unless they ask for it with ``KILN_TRACEBACK=1``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from kiln.support.errors import KilnError, UserError

EXIT_USER_ERROR = 1
EXIT_INTERNAL_ERROR = 2




def run_tool(tool: str, main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run ``main(argv)`` and return its exit status, reporting errors the way the docstring above says."""
    try:
        return main(argv)
    except UserError as e:
        print(f"{e.where or tool}: error: {str(e).rstrip()}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KilnError as e:  # kiln's own user-facing failures (a bad KILN_* value, a device that is missing)
        print(f"{tool}: error: {str(e).rstrip()}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if os.environ.get("KILN_TRACEBACK"):
            raise
        first_line = (str(e).strip().splitlines() or [""])[0]
        print(
            f"{tool}: internal error: {type(e).__name__}: {first_line}\n"
            f"{tool}: this is a bug in kiln; rerun with KILN_TRACEBACK=1 to see the traceback",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a bad command line is a UserError (exit 1, like every other input error), not exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message}\n{self.format_usage().rstrip()}")


def positive_int(text: str) -> int:
    """An argparse ``type`` for a count that must be at least 1 (``--verify-semantics=N``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value
