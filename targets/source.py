"""What the emitters of source languages (``-t c``, ``-t wgsl``) share: naming values, the prelude of helper
definitions a unit holds only when its code uses them, and printing the statements of a function body made of
``kiln.dialects.target_ops`` ops."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Attribute, Block, Operation, SSAValue

from kiln.dialects import target_ops
from kiln.support.diagnostics import error_at


class Names:
    """Identifiers for one scope's values, all distinct: a value's name in the IR where the language allows it,
    else a numbered ``<base><n>`` (the smallest free ``n``). Subclasses say how a name becomes an identifier."""

    def __init__(self, taken: Iterable[str] = ()):
        self.taken: set[str] = set(taken)
        self.counters: dict[str, int] = {}
        self.names: dict[SSAValue, str] = {}

    def identifier(self, hint: str) -> str:
        """``hint`` (an IR name, maybe empty) made an identifier of the language, or "" if it cannot be one."""
        raise NotImplementedError

    def free(self, name: str) -> bool:
        """Whether ``name`` may be taken as it is."""
        return name not in self.taken

    def fresh(self, hint: str | None, default: str) -> str:
        """Take a new identifier: ``hint`` made one, as it is if free, else numbered (``hint_0``); ``default``
        numbered when the hint gives none."""
        candidate = self.identifier(hint or "")
        if not candidate:
            name = self._numbered(default)
        elif self.free(candidate):
            name = candidate
        else:
            name = self._numbered(candidate + "_")
        self.taken.add(name)
        return name

    def _numbered(self, base: str) -> str:
        n = self.counters.get(base, 0)
        while f"{base}{n}" in self.taken:
            n += 1
        self.counters[base] = n + 1
        return f"{base}{n}"

    def define(self, value: SSAValue, default: str, text: str | None = None) -> str:
        """Name ``value`` (see ``fresh``), or make it stand for ``text`` (an expression, say)."""
        name = self.fresh(value.name_hint, default) if text is None else text
        self.names[value] = name
        return name

    def __getitem__(self, value: SSAValue) -> str:
        return self.names[value]


@dataclass(frozen=True)
class Piece:
    """One prelude definition (a typedef, a helper function) and the pieces it uses."""

    text: str
    needs: tuple[str, ...] = ()


class Prelude:
    """The pieces of a prelude table that the code printed so far uses, and the pieces they use."""

    def __init__(self, table: Mapping[str, Piece]):
        self.table = table
        self.pieces: set[str] = set()

    def use(self, name: str) -> None:
        if name in self.pieces:
            return
        self.pieces.add(name)
        for dependency in self.table[name].needs:
            self.use(dependency)

    def definitions(self) -> str:
        """The pieces used, in table order (each after what it needs), each between blank lines."""
        return "".join(f"\n{piece.text}\n" for name, piece in self.table.items() if name in self.pieces)


class BodyPrinter:
    """Prints the statements of a function body, one per line, nested blocks indented by two spaces: loops,
    conditionals, mutable locals, stores and named values. Subclasses spell them in their language (the
    ``_text``, ``_loop``, ``_binding`` and ``_expression_text`` hooks) and print any other op first."""

    LANGUAGE: ClassVar[str]
    """The language's name, for errors (``C``)."""
    EXPRESSIONS: ClassVar[tuple[type[Operation], ...]]
    """The ops that compute one value and change nothing: statements that name it, unless nobody reads it."""
    DEFAULT_NAMES: ClassVar[Mapping[type[Operation], str]]
    """How values an op class makes are named when the IR gives no name (else ``v``)."""

    names: Names
    lines: list[str]

    def _text(self, value: SSAValue) -> str:
        """``value`` as an operand."""
        raise NotImplementedError

    def _loop(self, op: target_ops.ForOp) -> str:
        """What stands in ``for (...)``; it names the counter."""
        raise NotImplementedError

    def _binding(self, name: str, t: Attribute, value: str, mutable: bool) -> str:
        """The statement that makes ``name`` a ``t`` holding ``value`` (a variable when ``mutable``)."""
        raise NotImplementedError

    def _expression_text(self, op: Operation) -> str:
        """The value of an ``EXPRESSIONS`` op."""
        raise NotImplementedError

    def _line(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def _block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self._statement(op, depth)

    def _braced(self, depth: int, header: str, block: Block) -> None:
        self._line(depth, f"{header} {{")
        self._block(block, depth + 1)
        self._line(depth, "}")

    def _statement(self, op: Operation, depth: int) -> None:
        match op:
            case target_ops.ForOp():
                self._braced(depth, f"for ({self._loop(op)})", op.body.block)
            case target_ops.IfOp():
                self._braced(depth, f"if ({self._text(op.cond)})", op.body.block)
            case target_ops.CellInitOp():
                init = self._text(op.init)
                name = self.names.define(op.results[0], self.DEFAULT_NAMES[type(op)])
                self._line(depth, self._binding(name, op.init.type, init, mutable=True))
            case target_ops.CellWriteOp():
                self._line(depth, f"{self.names[op.cell]} = {self._text(op.value)};")
            case target_ops.IndexedStoreOp():
                base, index, value = op.operands[:3]
                self._line(depth, f"{self.names[base]}[{self._text(index)}] = {self._text(value)};")
            case _ if isinstance(op, self.EXPRESSIONS):
                if op.results[0].first_use is None:
                    return  # nobody reads it, and computing it changes nothing
                expr = self._expression_text(op)
                name = self.names.define(op.results[0], self.DEFAULT_NAMES.get(type(op), "v"))
                self._line(depth, self._binding(name, op.results[0].type, expr, mutable=False))
            case _:
                raise error_at(op, f"the {self.LANGUAGE} emitter cannot emit {op.name}")


__all__ = ["BodyPrinter", "Names", "Piece", "Prelude"]
