"""The house's floors only look down: a module imports its own package or packages on lower floors, never up,
and no two packages import each other. The order is written once, here, and in docs/internals.md.

Imports are read with ``ast`` (module level and inside functions alike: a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"support"}),  # errors, diagnostics, source locations, the disk cache, the symbolic algebra
    frozenset({"dialects"}),  # dtypes, op definitions, the dialects
    frozenset({"capabilities", "interpreters"}),  # what each target can do (data); reference interpreters
    frozenset({"passes"}),  # transformations within one level
    frozenset({"lowering"}),  # conversions from one level to the next
    frozenset({"targets"}),  # emitters and toolchains per target
    frozenset({"runtime"}),  # devices: load and run compiled programs
    frozenset({"compiler"}),  # the driver: registry, pipelines, module -> program, search
    frozenset({"jit"}),  # the Python front end: lazy tensors, @kiln.jit
    frozenset({"onnx_import"}),  # kiln.onnx: ONNX models in, through the Python front end
    frozenset({"tools", "(root)"}),  # the CLIs, the package root
)
"""Lowest first. Packages on one floor do not import each other."""

PACKAGE_DIRS = {"onnx": "onnx_import"}
"""Import name -> folder, where pyproject's package-dir maps a package elsewhere (``kiln.onnx`` is ``onnx_import/``:
a top-level ``onnx/`` would shadow the real ``onnx`` for code run from the repository root)."""

BESIDE = ("test", "bench", "docs", "examples", ".venv", ".git", ".ci")
"""Folders that stand beside the house: they import kiln, kiln never imports them."""


def floor_of(package: str) -> int:
    for i, floor in enumerate(FLOORS):
        if package in floor:
            return i
    raise KeyError(package)


def package_of(path: Path) -> str:
    """The top-level package of a source file under ROOT ("(root)" for files at the top)."""
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else "(root)"


def module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    folders = {d: n for n, d in PACKAGE_DIRS.items()}
    parts[0] = folders.get(parts[0], parts[0])
    return ["kiln", *(parts[:-1] if parts[-1] == "__init__" else parts)]


def imported_packages(path: Path, source: str) -> Iterator[tuple[int, str, str]]:
    """(line, imported module, its top-level kiln package) for every kiln import in ``source``."""
    here = module_name(path)
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(source, str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                names = [".".join([*base, *([node.module] if node.module else [])])]
            else:
                names = [node.module or ""]
        for name in names:
            parts = name.split(".")
            if parts[0] == "kiln" and len(parts) > 1:
                yield node.lineno, name, PACKAGE_DIRS.get(parts[1], parts[1])


def violations(files: Iterable[tuple[Path, str]]) -> list[str]:
    """Every import that looks up a floor or sideways, and every cycle between packages, as one line each."""
    found: list[str] = []
    edges: dict[str, set[str]] = {}
    for path, source in files:
        package = package_of(path)
        for line, name, target in imported_packages(path, source):
            if target == package:
                continue
            where = f"{path.relative_to(ROOT)}:{line}: imports {name}"
            try:
                up = floor_of(target) >= floor_of(package)
            except KeyError as e:
                found.append(f"{where}: package {e} has no floor in FLOORS")
                continue
            edges.setdefault(package, set()).add(target)
            if up:
                how = "a package on the same floor" if floor_of(target) == floor_of(package) else "a higher floor"
                found.append(f"{where}: '{package}' may not import '{target}' ({how})")
    found += [f"cycle between packages: {' -> '.join(c)}" for c in cycles(edges)]
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One path per cycle in the package graph (each cycle reported from its smallest package)."""
    out: list[list[str]] = []

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                out.append([*path, start])
            elif nxt not in path and nxt > start:
                walk(start, nxt, [*path, nxt])

    for start in sorted(edges):
        walk(start, start, [start])
    return out


def source_files() -> Iterator[tuple[Path, str]]:
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).parts
        if rel[0] in BESIDE or rel[-1] == "lit.cfg.py" or "__pycache__" in rel:
            continue
        yield path, path.read_text()


def test_every_package_has_a_floor() -> None:
    packages = {package_of(p) for p, _ in source_files()}
    assert not [p for p in packages if not any(p in f for f in FLOORS)], "add new packages to FLOORS"


def test_floors_only_look_down() -> None:
    found = violations(source_files())
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "path, source, expected",
    [
        ("passes/x.py", "from kiln.tools.diagnostics import error_at\n", "'passes' may not import 'tools' (a higher floor)"),
        ("targets/c/toolchain.py", "from kiln.runtime import cache\n", "'targets' may not import 'runtime'"),
        ("passes/optimize/probes.py", "def f():\n    from kiln.lowering.kernel_to_uop import linearize\n", "passes/optimize/probes.py:2"),
        ("runtime/devices.py", "import kiln.compiler.registry\n", "'runtime' may not import 'compiler'"),
        ("capabilities/x.py", "from ..interpreters import graph\n", "(a package on the same floor)"),
        ("dialects/graph.py", "import kiln.jit\n", "'dialects' may not import 'jit'"),
    ],
)
def test_the_check_names_an_upward_import(path: str, source: str, expected: str) -> None:
    found = violations([(ROOT / path, source)])
    assert len(found) == 1 and expected in found[0], found


def test_the_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_reading_ir_loads_no_front_end_runtime_or_driver() -> None:
    """``import kiln.dialects.graph`` (a compiler engineer reading IR) must not pay for the JIT, the runtime or
    the compiler driver; ``import kiln`` loads them only when ``kiln.Tensor``/``kiln.jit`` are first used."""
    probe = (
        "import sys, kiln.dialects.graph, kiln\n"
        "print(sorted(m for m in sys.modules if m.startswith(('kiln.jit', 'kiln.runtime', 'kiln.compiler'))))\n"
        "kiln.Tensor, kiln.jit.Tensor\n"
        "print('kiln.jit' in sys.modules and callable(kiln.jit))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]", f"imported: {out[0]}"
    assert out[1] == "True"
