"""Located diagnostics: what went wrong, where in the source, printed the way MLIR prints it.

Every op parsed by `kiln.support.source.LocatingParser` carries a ``FileLineColLoc``, so an error about an op
(a verifier failure, a pass failure raised with `error_at`) can be reported as ``file:line:col: error: ...``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.dialects.builtin import FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException

from kiln.support.errors import UserError

Severity = Literal["error", "warning", "note", "remark"]


@dataclass(frozen=True)
class SourceLoc:
    """A 1-based line and column in a named source."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    """One message for people, with where it applies (None: nowhere in the source, e.g. an op a pass built)."""

    severity: Severity
    message: str
    loc: SourceLoc | None = None

    def header(self, default_file: str) -> str:
        """``file:line:col: error: message``; without a location, ``file: error: message``."""
        where = str(self.loc) if self.loc is not None else default_file
        return f"{where}: {self.severity}: {self.message}"

    def render(self, default_file: str, source: str | None = None) -> str:
        """The header, then the source line and a caret under the column when the source is at hand."""
        return self.header(default_file) + self.snippet(source)

    def snippet(self, source: str | None) -> str:
        """``"\n<source line>\n<caret>"``, or "" without a location or source."""
        lines = source.splitlines() if source is not None else []
        if self.loc is None or not 1 <= self.loc.line <= len(lines):
            return ""
        return f"\n{lines[self.loc.line - 1].rstrip()}\n{' ' * (self.loc.col - 1)}^"

    def as_user_error(self, default_file: str, source: str | None = None) -> UserError:
        """The same report, raised through a tool's usual error path."""
        return UserError(self.message + self.snippet(source), where=str(self.loc) if self.loc else default_file)


def error_at(op: Operation, message: str) -> PassFailedException:
    """A pass failure that names the op it is about, so kiln-opt reports it at the op's source location.

    Use it from passes and emitters: ``raise error_at(op, "cannot lower graph.gather with a symbolic axis")``.
    """
    exc = PassFailedException(message)
    exc.op = op  # type: ignore[attr-defined]
    return exc


def location_of(op: Operation | None) -> SourceLoc | None:
    """The source location of ``op``, or of the nearest enclosing op that has one."""
    while op is not None:
        loc = _file_loc(op.location)
        if loc is not None:
            return loc
        op = op.parent_op()
    return None


def _file_loc(loc: Attribute) -> SourceLoc | None:
    if isinstance(loc, FileLineColLoc):
        return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
    if isinstance(loc, NameLoc):
        return _file_loc(loc.location)
    if isinstance(loc, FusedLoc):  # a kernel fused from several ops: the first of them
        return next((f for inner in loc.locations.data if (f := _file_loc(inner)) is not None), None)  # type: ignore[attr-defined]
    return None


def from_parse_error(e: ParseError) -> Diagnostic:
    loc = e.span.get_location()
    return Diagnostic("error", e.msg, SourceLoc(loc.file, loc.line, loc.col))


def op_diagnostic(op: Operation | None, message: str) -> Diagnostic:
    """An error about ``op``, worded like MLIR's ``'arith.addi' op <message>`` unless it names the op already."""
    if op is None:
        return Diagnostic("error", message)
    if not message.startswith(f"'{op.name}'"):
        message = f"'{op.name}' op {message}"
    return Diagnostic("error", message, location_of(op))


def from_exception(e: DiagnosticException) -> Diagnostic:
    """A diagnostic raised by a pass or an emitter: located when it was raised with `error_at`."""
    op = getattr(e, "op", None)
    return op_diagnostic(op if isinstance(op, Operation) else None, message_of(e))



def message_of(e: Exception) -> str:
    return str(e).strip() or type(e).__name__
