"""KILN_* variables: a value kiln cannot use is one clear error naming the variable, never silently ignored."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.support.env import EnvError, env_bytes, env_flag, env_int
from kiln.tools.inputs import format_literal


@pytest.mark.parametrize("value, expected", [("", 0), ("0", 0), ("3", 3), (" 4 ", 4)])
def test_int_values(monkeypatch: pytest.MonkeyPatch, value: str, expected: int) -> None:
    monkeypatch.setenv("KILN_X", value)
    assert env_int("KILN_X", 0, 0, 4) == expected


@pytest.mark.parametrize("value", ["yes", "5", "-1", "2.0"])
def test_bad_int_values_name_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("KILN_X", value)
    with pytest.raises(EnvError, match=rf"^KILN_X='{value}' is not valid: expected an integer from 0 to 4$"):
        env_int("KILN_X", 0, 0, 4)


def test_flags_and_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    for value, on in [("1", True), ("TRUE", True), ("off", False), ("", False)]:
        monkeypatch.setenv("KILN_F", value)
        assert env_flag("KILN_F") is on
    monkeypatch.setenv("KILN_F", "maybe")
    with pytest.raises(EnvError, match="KILN_F='maybe'"):
        env_flag("KILN_F")
    for value, n in [("1000", 1000), ("512K", 512 * 1024), ("2G", 2 << 30), ("3MiB", 3 << 20)]:
        monkeypatch.setenv("KILN_B", value)
        assert env_bytes("KILN_B") == n
    monkeypatch.setenv("KILN_B", "lots")
    with pytest.raises(EnvError, match="a size in bytes"):
        env_bytes("KILN_B")


def test_the_readers_use_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from kiln.capabilities.description import usable_cores
    from kiln.compiler.driver import device_pipeline
    from kiln.support import cache, debug

    for name, read in [("KILN_DEBUG", debug.level), ("KILN_THREADS", usable_cores), ("KILN_NO_CACHE", cache.cache_dir),
                       ("KILN_BEAM", lambda: device_pipeline("cpu-c"))]:
        monkeypatch.setenv(name, "bogus")
        with pytest.raises(EnvError, match=name):
            read()
        monkeypatch.delenv(name)


def test_large_results_are_summarized_as_numpy_does() -> None:
    big = np.arange(2000, dtype=np.int32).reshape(1000, 2)
    assert format_literal(big) == "1000x2xi32=[[0 1][2 3][4 5]...[1994 1995][1996 1997][1998 1999]]"
    assert format_literal(big, full=True).count("][") == 999
    assert format_literal(np.arange(7, dtype=np.int8)) == "7xi8=[0 1 2 3 4 5 6]"
