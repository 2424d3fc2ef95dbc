"""Reading IR text: ``// -----`` splitting and a parser that gives every op its source location.

xDSL's parser records no locations; `LocatingParser` attaches a ``FileLineColLoc`` to every op it parses (as
mlir-opt does), unless the text gives one with ``loc(...)``. Chunks of a split file are padded with blank
lines so that every location, in parse errors too, is a line of the whole file.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import AttributeInvT
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from kiln.support.errors import UserError

_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')
"""xDSL 0.75's string-literal pattern, the same language without its nested quantifier (a ``+`` of characters
inside a ``*``): with it, an unterminated literal of n characters makes ``re`` try all 2**n ways of splitting
them before failing, a hang at 40 characters. Here every character is one step, matched once (``*+``)."""


def use_linear_string_lexer() -> None:
    """Give xDSL's MLIR lexer `_STRING_LITERAL` (xdsl is pinned at 0.75.0; drop this once upstream's is linear).

    Done once, here, when the front door for IR text is imported: every parse of user text goes through it."""
    MLIRLexer._unescaped_characters_regex = _STRING_LITERAL


use_linear_string_lexer()

SPLIT_MARKER = "// -----"
_SPLIT_LINE = re.compile(r"^[ \t]*// -----.*$", re.MULTILINE)

T = TypeVar("T")


@dataclass(frozen=True)
class Chunk:
    """One piece of a (possibly split) input. ``text`` starts with blank lines standing for the lines above it."""

    text: str

    def has_ops(self) -> bool:
        """False for a chunk of only whitespace and comments, which is skipped rather than an error. A first token
        that does not lex counts as content: the parser then reports it with its location."""
        try:
            return MLIRLexer(Input(self.text, "")).lex().kind is not MLIRTokenKind.EOF
        except ParseError:
            return True


def split_input(text: str, split: bool) -> list[Chunk]:
    """The whole text as one chunk, or (with ``split``) the pieces between lines starting with ``// -----``."""
    if not split:
        return [Chunk(text)]
    chunks: list[Chunk] = []
    start = 0
    for marker in _SPLIT_LINE.finditer(text):
        chunks.append(_chunk(text, start, marker.start()))
        start = marker.end()
    chunks.append(_chunk(text, start, len(text)))
    return chunks


def _chunk(text: str, start: int, end: int) -> Chunk:
    return Chunk("\n" * text.count("\n", 0, start) + text[start:end])


class LocatingParser(Parser):
    """A Parser that sets ``op.location`` to where the op starts, and locates the errors xDSL leaves unlocated.

    An attribute that fails its verifier while being parsed raises a bare VerifyException in xDSL; here it
    becomes a ParseError spanning the attribute (or the op, for attributes parsed by other means). A value
    used but never defined is reported at its first use rather than at the end of the input.
    """

    def __init__(self, ctx: Context, input: str, name: str):
        super().__init__(ctx, input, name)
        self._name = StringAttr(name)
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", input))]
        self._first_forward_use: dict[str, Span] = {}

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            if not e.msg.startswith("values used but not defined"):
                raise
            name, span = min(
                ((n, self._first_forward_use[n]) for n in self.forward_ssa_references), key=lambda u: u[1].start
            )
            raise ParseError(span, f"use of undefined value '%{name}'") from None
        except NotImplementedError as e:  # xDSL's way of saying what it cannot read (`{-# external_resources #-}`)
            raise ParseError(Span(self.pos, self.pos + 1, self.lexer.input), f"not supported here: {e}") from None

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_forward_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_operation(self) -> Operation:
        start = self.pos
        with self._verify_errors_located_from(start):
            op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect_right(self._line_starts, start)  # not Span.get_location: that rescans the text per op
            op.location = FileLineColLoc(self._name, IntAttr(line), IntAttr(start - self._line_starts[line - 1] + 1))
        return op

    def parse_optional_attribute(self) -> Attribute | None:
        return self._located(super().parse_optional_attribute)

    def parse_optional_type(self) -> TypeAttribute | None:
        return self._located(super().parse_optional_type)

    def _located(self, parse: Callable[[], T]) -> T:
        with self._verify_errors_located_from(self.pos):
            return parse()

    @contextmanager
    def _verify_errors_located_from(self, start: int) -> Iterator[None]:
        try:
            yield
        except VerifyException as e:
            end = max(start + 1, self.pos)
            raise ParseError(Span(start, end, self.lexer.input), str(e)) from None


def parse_chunk(ctx: Context, chunk: Chunk, filename: str) -> ModuleOp:
    """Parse one chunk into a module (an empty module when the chunk has no ops). Raises ParseError."""
    if not chunk.has_ops():
        return ModuleOp([])
    return LocatingParser(ctx, chunk.text, filename).parse_module()


def read_source(path: str) -> tuple[str, str]:
    """(the name diagnostics use, the text) of a file, or of stdin for '-'. Raises UserError if unreadable."""
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except OSError as e:
        raise UserError(f"cannot read input file '{path}': {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise UserError(f"input file '{path}' is not UTF-8 text ({e.reason} at byte {e.start})") from None
