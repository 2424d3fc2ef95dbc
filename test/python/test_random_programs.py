"""Random well-typed graph programs give the interpreter's answer on every compiled device.

Programs use the float dtypes the device's target holds (f32, f16, bf16 on the CPUs; f32 on portable webgpu) and
draw the edges on purpose (see random_programs.py): zero-size dims, rank-0 tensors, axes longer than 65,536 and
special values. CI runs a bounded number of examples; `KILN_RANDOM_EXAMPLES=2000 pytest
test/python/test_random_programs.py` is the longer run.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from kiln.runtime.devices import device_available
from kiln.capabilities.description import get_target
from kiln.compiler.driver import compile

from corpus import assert_same
from random_programs import RandomProgram, random_programs

EXAMPLES = int(os.environ.get("KILN_RANDOM_EXAMPLES", "20"))
FLOATS = ("f32", "f16", "bf16")


def tolerances(p: RandomProgram) -> tuple[float, float]:
    """(rtol, atol): 16-bit floats round each result to 8 or 11 bits; a long sum's order changes its last bits
    in proportion to the number of terms."""
    narrow = p.inputs[0].dtype != np.float32
    size = max(a.size for a in p.inputs)
    return (2e-2, 2e-2 * max(1, size / 1000)) if narrow else (1e-4, 1e-5 * max(1, size / 100))


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu", "cuda"])
def test_random_programs_match_interpreter(device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    dtypes = tuple(d for d in FLOATS if get_target(device).supports_dtype(d))

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(random_programs(dtypes=dtypes))
    def check(p: RandomProgram) -> None:
        want = compile(p.text, "rand", "interp")(*p.inputs)
        got = compile(p.text, "rand", device)(*p.inputs)
        rtol, atol = tolerances(p)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, f"result {i} of\n{p.text}\ninputs {p.inputs}")

    check()
