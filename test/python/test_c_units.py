"""A program's C source cut into translation units that compile side by side (``kiln.targets.c.units``), and
programs loaded from several units running as from one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from kiln.support.errors import CompileError
from kiln.targets.c import toolchain, units

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def kernel(name: str, lines: int) -> str:
    body = "".join(f"  p[{i}] += {i}.0f;\n" for i in range(lines - 2))
    return (f"void {name}(float *restrict p, int64_t core_start, int64_t core_end) {{\n{body}}}\n"
            f"void {name}__entry(void **args, int64_t lo, int64_t hi) {{ {name}(args[0], lo, hi); }}\n")


def program(*kernels: tuple[str, int]) -> str:
    names = ", ".join(n for n, _ in kernels)
    prelude = "#include <stdint.h>\n\nstatic inline float kiln_twice(float x) {\n  return 2.0f * x;\n}\n\n"
    return f"{units.HEADER}{names}\n{prelude}" + "".join(kernel(n, k) for n, k in kernels)


def test_a_small_source_stays_one_unit() -> None:
    source = program(("a", 50), ("b", 60))
    assert units.split_units(source, 2) == [source]


def test_one_core_compiles_one_unit() -> None:
    source = program(("a", 120), ("b", 130))
    assert units.split_units(source, 1) == [source] and len(units.split_units(source, 2)) == 2


def test_a_foreign_source_stays_one_unit() -> None:
    source = "void f(void) {}\n" + "void g(void) {}\n" * 500
    assert units.split_units(source, 2) == [source]


def test_units_hold_whole_kernels_with_their_entries_and_the_prelude() -> None:
    source = program(("a", 120), ("b", 30), ("c", 110), ("d", 20))
    parts = units.split_units(source, 2)
    assert len(parts) == 2
    prelude = source.split("\n", 1)[1].split("void a(")[0]
    assert parts[0].startswith(units.HEADER + "a, b\n" + prelude)
    assert parts[1].startswith(units.HEADER + "c, d\n" + prelude)
    # every kernel and entry once, in order, nothing else
    assert "".join(p.split(prelude, 1)[1] for p in parts) == source.split(prelude, 1)[1]


def test_big_sources_get_about_unit_lines_each() -> None:
    source = program(*[(f"k{i}", 100) for i in range(50)])
    parts = units.split_units(source, 2)
    assert len(parts) == round(5000 / units.UNIT_LINES)
    sizes = [p.count("\n") for p in parts]
    assert max(sizes) - min(sizes) <= 100


def test_units_load_as_one_program(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    source = program(("a", 120), ("b", 30), ("c", 110))
    names = ["a", "b", "c", "a__entry", "c__entry"]
    loaded = toolchain.load_c_units(units.split_units(source, 2), names)
    assert set(loaded.addresses) == set(names) and len(set(loaded.addresses.values())) == len(names)
    assert isinstance(loaded.handle, tuple) and len(loaded.handle) == 2
    assert len(list((tmp_path / toolchain.LIBRARY_NAMESPACE).glob("*.so"))) == 2  # one cache entry per unit


def test_an_error_in_one_unit_is_the_compilers_message(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    good, bad = units.split_units(program(("a", 120), ("b", 130)), 2)
    with pytest.raises(CompileError, match=r"(?s)C compilation failed.*kernels\.c:\d+:\d+: error: 'nope' undeclared"):
        toolchain.load_c_units([good, bad.replace("p[3] +=", "nope +=")], ["a", "b"])


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_split_program_computes_what_numpy_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                            threads: str) -> None:
    from kiln.compiler.driver import compile, compile_program

    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KILN_THREADS", threads)
    text = (EXAMPLES / "mlp.mlir").read_text()
    spec = compile_program(text, "mlp", "cpu-c")
    assert len(units.split_units(spec.kernels.source, int(threads))) == int(threads)  # one unit per core here
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s, dtype=np.float32) for s in [(37, 64), (64, 128), (128,), (128, 10), (10,)]]
    x, w1, b1, w2, b2 = args
    expected = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    got = compile(text, "mlp", "cpu-c")(*args)
    np.testing.assert_allclose(got[0], expected, rtol=1e-4, atol=1e-4)


def test_units_compile_side_by_side(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """With two cores allowed, the second unit's compiler starts before the first one's ends."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("KILN_THREADS", "2")
    running, most = [0], [0]
    real_run = subprocess.run

    def counting_run(*args: object, **kwargs: object) -> object:
        running[0] += 1
        most[0] = max(most[0], running[0])
        try:
            return real_run(*args, **kwargs)
        finally:
            running[0] -= 1

    monkeypatch.setattr(subprocess, "run", counting_run)
    toolchain.load_c_units(units.split_units(program(("a", 300), ("b", 300)), 2), ["a", "b"])
    assert most[0] == 2
