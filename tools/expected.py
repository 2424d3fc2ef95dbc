"""``--verify-diagnostics``: match emitted diagnostics against ``expected-*`` annotations, as mlir-opt does.

Annotations live in comments: ``// expected-error {{message}}`` expects an error on its own line whose message
contains ``message``; ``@+N`` / ``@-N`` shift the line, ``@above`` / ``@below`` name the nearest line above /
below that holds no annotation. Severities: ``error``, ``warning``, ``note``, ``remark``. Every emitted
diagnostic must match an annotation and every annotation must be matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kiln.support.diagnostics import Diagnostic, SourceLoc
from kiln.support.cli import UserError

_ANNOTATION = re.compile(
    r"expected-(?P<severity>error|warning|note|remark)(?:@(?P<anchor>above|below|[+-]\d+))?\s*\{\{(?P<text>.*)\}\}"
)
_ANY_ANNOTATION = re.compile(r"expected-(error|warning|note|remark)\b")


@dataclass
class Expectation:
    severity: str
    text: str
    line: int
    """The line the diagnostic is expected on."""
    written_at: SourceLoc
    """Where the annotation itself is, for reporting it when it is not matched."""
    matched: bool = False


def parse_expectations(text: str, file: str) -> list[Expectation]:
    """Every annotation in ``text`` (line numbers are those of ``text``). Raises UserError on a malformed one."""
    expectations: list[Expectation] = []
    waiting_for_next_line: list[Expectation] = []
    last_plain_line = 0
    for number, line in enumerate(text.splitlines(), start=1):
        found = list(_ANNOTATION.finditer(line))
        if not found:
            if malformed := _ANY_ANNOTATION.search(line):
                raise UserError(
                    "malformed diagnostic annotation; expected e.g. "
                    "'expected-error {{message}}' or 'expected-error@+1 {{message}}'",
                    where=str(SourceLoc(file, number, malformed.start() + 1)),
                )
            last_plain_line = number
            for e in waiting_for_next_line:
                e.line = number
            waiting_for_next_line.clear()
            continue
        for m in found:
            anchor = m.group("anchor")
            e = Expectation(m.group("severity"), m.group("text"), number, SourceLoc(file, number, m.start() + 1))
            if anchor == "above":
                e.line = last_plain_line
            elif anchor == "below":
                waiting_for_next_line.append(e)
            elif anchor is not None:
                e.line = number + int(anchor)
            expectations.append(e)
    for e in waiting_for_next_line:
        raise UserError(f"expected-{e.severity}@below has no line below it", where=str(e.written_at))
    return expectations


def check_diagnostics(emitted: list[Diagnostic], expectations: list[Expectation], file: str) -> list[str]:
    """The mismatches, as mlir-opt words them: unexpected diagnostics, then expectations not produced."""
    problems: list[str] = []
    for d in emitted:
        match = next(
            (
                e
                for e in expectations
                if not e.matched
                and d.loc is not None
                and d.loc.file == file
                and e.line == d.loc.line
                and e.severity == d.severity
                and e.text in d.message
            ),
            None,
        )
        if match is None:
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.loc).header(file))
        else:
            match.matched = True
    for e in expectations:
        if not e.matched:
            problems.append(f'{e.written_at}: error: expected {e.severity} "{e.text}" was not produced')
    return problems
