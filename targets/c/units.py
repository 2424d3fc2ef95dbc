"""A program's C source cut into translation units that the C compiler builds side by side.

gcc compiles one file on one core, and its time grows with the kernels' code (a register tile's function costs
it 20-60 ms; ResNet-50's 77 kernels 1.5 s), while a unit also pays a fixed cost (the driver, cc1's start, the
prelude, the assembler and the linker: ~25 ms for an empty library here). So a source with enough code is cut into
units of whole kernels, about ``UNIT_LINES`` lines each and at least two, which ``toolchain.load_c_units``
compiles in parallel, each into a shared library of its own: every unit repeats the source's prelude (its
``static`` helpers and typedefs) and holds its kernels with their entries (``entry_name``). A source below
``SPLIT_MIN_LINES`` of kernels stays one unit, as does every source where only one compiler can run at a time
(one usable core: ``KILN_THREADS=1``), since there the units' fixed costs only add up. Beyond that the cut depends
on the source alone, so a unit's library (and its cache entry) is the same for any core count; a unit's first
line names its kernels, as the whole source's does.
"""

from __future__ import annotations

import re

from kiln.targets.grouping import consecutive_groups
from kiln.targets.loaded import ENTRY_SUFFIX

SPLIT_MIN_LINES = 200
"""Lines of kernels below which a source is one unit: a second unit's fixed cost would cost more than it saves."""

UNIT_LINES = 1000
"""About how many lines of kernels a unit gets when a source is cut into more than two."""

HEADER = "// kiln -t c: "
"""The first line of an emitted source (``emitter.emit``), followed by its kernels' names."""

_KERNEL = re.compile(r"^(?:KILN_LOOP_VECTORIZE )?void (\w+)\(", re.MULTILINE)


def split_units(source: str, parallel: int) -> list[str]:
    """``source`` as the translation units it is compiled as with ``parallel`` compilers at a time (``source``
    itself when it stays one)."""
    if parallel < 2:
        return [source]
    starts = [m for m in _KERNEL.finditer(source) if not m.group(1).endswith(ENTRY_SUFFIX)]
    if not source.startswith(HEADER) or not starts:
        return [source]
    prelude = source[source.index("\n") + 1 : starts[0].start()]
    bounds = [m.start() for m in starts] + [len(source)]
    kernels = [(m.group(1), source[a:b]) for m, a, b in zip(starts, bounds, bounds[1:])]
    groups = _groups([text.count("\n") for _, text in kernels])
    if len(groups) <= 1:
        return [source]
    units = []
    for group in groups:
        names = ", ".join(kernels[i][0] for i in group)
        units.append(HEADER + names + "\n" + prelude + "".join(kernels[i][1] for i in group))
    return units


def _groups(lines: list[int]) -> list[list[int]]:
    """The kernels' indices in order, cut into groups of about equal lines: one group below ``SPLIT_MIN_LINES``
    in all, else ``max(2, total / UNIT_LINES)`` groups."""
    total = sum(lines)
    if total < SPLIT_MIN_LINES:
        return [list(range(len(lines)))]
    return consecutive_groups(lines, max(2, round(total / UNIT_LINES)))
