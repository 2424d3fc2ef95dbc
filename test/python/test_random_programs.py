"""Random well-typed graph programs give the interpreter's answer on every CPU backend.

CI runs a bounded number of examples; `KILN_RANDOM_EXAMPLES=2000 pytest test/python/test_random_programs.py`
is the longer run.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from kiln.runtime.devices import device_available
from kiln.compiler.driver import compile

from corpus import assert_same
from random_programs import RandomProgram, random_programs

EXAMPLES = int(os.environ.get("KILN_RANDOM_EXAMPLES", "20"))


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c"])
def test_random_programs_match_interpreter(device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(random_programs())
    def check(p: RandomProgram) -> None:
        want = compile(p.text, "rand", "interp")(*p.inputs)
        got = compile(p.text, "rand", device)(*p.inputs)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, 1e-4, 1e-5, f"result {i} of\n{p.text}")

    check()
