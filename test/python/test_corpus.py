"""Every corpus program on every backend that can run here gives the reference interpreter's answer.

The interpreter runs the program as written (composites included); the backends run the full pipeline
(decompose, schedule, linearize, emit, compile). A backend skips programs using dtypes its target
description does not list.
"""

from __future__ import annotations

import os

import pytest

from kiln.runtime.devices import device_available
from kiln.capabilities.description import get_target
from kiln.compiler.driver import compile

from corpus import Program, all_programs, assert_same

PROGRAMS = all_programs()
BACKENDS = [d for d in os.environ.get("KILN_TEST_DEVICES", "cpu-llvm,cpu-c").split(",") if d]

_reference_cache: dict[str, list[list]] = {}


def _reference(p: Program) -> list[list]:
    if p.name not in _reference_cache:
        run = compile(p.text, p.function, "interp")
        _reference_cache[p.name] = [run(*inputs) for inputs in p.runs]
    return _reference_cache[p.name]


@pytest.mark.parametrize("device", BACKENDS)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_matches_interpreter(program: Program, device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    unsupported = program.dtypes - get_target(device).dtypes
    if unsupported:
        pytest.skip(f"{device} does not support {sorted(unsupported)}")
    run = compile(program.text, program.function, device)
    for inputs, want in zip(program.runs, _reference(program)):
        got = run(*inputs)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, program.rtol, program.atol, f"{program.name} on {device}, result {i}")
