"""Generate the op reference of a dialect page from the op and attribute definitions, so docs cannot drift.

    python docs/gen_dialect_docs.py kiln.dialects.kernel kiln.dialects.uop          # rewrite the pages
    python docs/gen_dialect_docs.py --check kiln.dialects.kernel                     # exit 1 if out of date

For each module, the ``Dialect`` it defines is documented in ``docs/dialects/<dialect name>.md`` between the
lines ``<!-- BEGIN GENERATED REFERENCE -->`` and ``<!-- END GENERATED REFERENCE -->``; the rest of the page is
hand-written. The reference lists the dialect's types and attributes (docstring; enum values), then every op
(docstring, operands, results, properties, traits). Ops generated from the ALU table (kiln.dialects.alu) are
one table instead of one section each.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Dialect, TypeAttribute
from xdsl.irdl import IRDLOperation, OptionalDef, VariadicDef

from kiln.dialects.alu import AluOp

BEGIN = "<!-- BEGIN GENERATED REFERENCE -->"
END = "<!-- END GENERATED REFERENCE -->"
DOCS = Path(__file__).resolve().parent / "dialects"


def _doc(obj: object) -> str:
    return inspect.cleandoc(obj.__doc__ or "(undocumented)")


def _names(defs: list[tuple[str, object]]) -> str:
    out = []
    for name, d in defs:
        mark = " (optional)" if isinstance(d, OptionalDef) else " (variadic)" if isinstance(d, VariadicDef) else ""
        out.append(f"`{name}`{mark}")
    return ", ".join(out) or "none"


def _trait_name(trait: object) -> str:
    parents = getattr(trait, "op_types", None)
    if parents:
        return f"{type(trait).__name__}({', '.join(p.name for p in parents)})"
    return type(trait).__name__


def _op_section(op: type[IRDLOperation]) -> str:
    d = op.get_irdl_definition()
    lines = [f"### `{op.name}`", "", _doc(op), ""]
    lines.append(f"- operands: {_names(d.operands)}")  # type: ignore[arg-type]
    lines.append(f"- results: {_names(d.results)}")  # type: ignore[arg-type]
    if d.properties:
        lines.append(f"- properties: {', '.join(f'`{p}`' for p in d.properties)}")
    traits = sorted(_trait_name(t) for t in d.traits if not type(t).__name__.startswith("_"))
    if traits:
        lines.append(f"- traits: {', '.join(traits)}")
    return "\n".join(lines)


def _alu_table(prefix: str, ops: list[type[AluOp]]) -> str:
    lines = [
        f"### ALU ops (`{prefix}.<kind>`, from `kiln.dialects.alu.ALU_OPS`)",
        "",
        f"Syntax: `%r = {prefix}.<kind> %a, %b : T` (T is the operand type). "
        + ("T may be a scalar or `vector<NxT>` (lane by lane). " if ops[0].VECTORS else "T is a scalar. ")
        + "All are Pure.",
        "",
        "| op | operands | accepts | result | meaning |",
        "|---|---|---|---|---|",
    ]
    for op in ops:
        s = op.SPEC
        result = "i1" if s.returns_bool else "T"
        operands = ", ".join(f"{n}: i1" if s.takes_condition and i == 0 else n for i, n in enumerate(s.operands))
        lines.append(f"| `{op.name}` | {operands} | {', '.join(sorted(s.dtypes))} | {result} | {s.summary} |")
    return "\n".join(lines)


def _attr_section(attr: type) -> str:
    name = getattr(attr, "name")
    sigil = "!" if issubclass(attr, TypeAttribute) else "#"
    lines = [f"### `{sigil}{name}`", "", _doc(attr)]
    if issubclass(attr, EnumAttribute):
        values = ", ".join(f"`{v.value}`" for v in attr.enum_type)  # type: ignore[attr-defined]
        lines += ["", f"Values: {values}."]
    return "\n".join(lines)


def reference(dialect: Dialect) -> str:
    """The generated Markdown for ``dialect``."""
    ops = list(dialect.operations)
    alu = [op for op in ops if issubclass(op, AluOp)]
    parts = ["## Types and attributes"] + [_attr_section(a) for a in dialect.attributes]
    parts += ["## Ops"] + [_op_section(op) for op in ops if op not in alu]  # type: ignore[arg-type]
    if alu:
        parts.append(_alu_table(dialect.name, alu))
    return "\n\n".join(parts)


def _dialect_of(module_name: str) -> Dialect:
    module = importlib.import_module(module_name)
    found = [v for v in vars(module).values() if isinstance(v, Dialect)]
    if len(found) != 1:
        raise SystemExit(f"{module_name} defines {len(found)} Dialect objects; expected exactly one")
    return found[0]


def update(page: Path, dialect: Dialect) -> str:
    """The page's text with its generated section replaced."""
    text = page.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{page}: add the lines {BEGIN} and {END} where the reference goes")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n{reference(dialect)}\n\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("modules", nargs="+", help="dialect modules, e.g. kiln.dialects.kernel")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 if a page is out of date")
    args = p.parse_args(argv)
    stale = []
    for module_name in args.modules:
        dialect = _dialect_of(module_name)
        page = DOCS / f"{dialect.name}.md"
        new = update(page, dialect)
        if new != page.read_text():
            stale.append(page)
            if not args.check:
                page.write_text(new)
    if args.check and stale:
        names = " ".join(args.modules)
        print(f"out of date: {', '.join(map(str, stale))}; run: python docs/gen_dialect_docs.py {names}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
