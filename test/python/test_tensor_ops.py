"""Every front-end op, eager and under ``@kiln.jit``, against numpy (values and dtypes) and against each other.

Per case on the interpreter (each case its own program, so a failure names the op); per group of cases on
every device (one program computes a whole group, so the compiled backends stay fast). Symbolic cases run
with several values of N under one trace.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from kiln.jit import Dim, JitFunction, Tensor, jit

from tensor_cases import BINDINGS, CASES, DEVICES, GROUPS, Case, assert_matches, call, require, supported

N = Dim("N", 1, 64)


def _bindings(case: Case) -> Sequence[int]:
    return BINDINGS if case.symbolic else BINDINGS[-1:]


def _jitted(case: Case, device: str) -> JitFunction:
    dims = {i: {0: N} for i, (shape, _) in enumerate(case.inputs) if shape and shape[0] == "N"} if case.symbolic else {}
    return jit(case.fn, dims=dims, device=device)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_eager_matches_numpy(case: Case) -> None:
    for n in _bindings(case):
        arrays = case.arrays(n)
        assert_matches(call(case.fn, arrays, "interp"), case.reference(*arrays), case.tol, f"{case.name} N={n}")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_jit_matches_numpy_and_eager(case: Case) -> None:
    f = _jitted(case, "interp")
    for n in _bindings(case):
        arrays = case.arrays(n, seed=n)
        got = f(*(Tensor(a, device="interp") for a in arrays))
        want = case.reference(*arrays)
        assert_matches(got, want, case.tol, f"{case.name} jit N={n}")
        np.testing.assert_array_equal(got.numpy(), call(case.fn, arrays, "interp").numpy(), err_msg="jit != eager")
    assert f.trace_count == 1, "every binding of N must replay the one trace"


def _group_fn(cases: Sequence[Case]):
    """One function computing every case of a group: takes all their inputs, returns all their outputs."""

    def group(*tensors: Tensor) -> tuple[Tensor, ...]:
        outputs, at = [], 0
        for c in cases:
            outputs.append(c.fn(*tensors[at : at + len(c.inputs)]))
            at += len(c.inputs)
        return tuple(outputs)

    return group


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("group", list(GROUPS))
def test_group_on_device(device: str, group: str) -> None:
    """jit results of every case on ``device`` against numpy, for every binding of N under one trace; eager
    results too for the static group."""
    require(device)
    cases = supported(GROUPS[group], device)
    fn = _group_fn(cases)
    symbolic = group == "symbolic"
    dims = {}
    if symbolic:
        at = 0
        for c in cases:
            for shape, _ in c.inputs:
                if shape and shape[0] == "N":
                    dims[at] = {0: N}
                at += 1
    jitted = jit(fn, dims=dims, device=device)
    bindings = BINDINGS if symbolic else BINDINGS[-1:]
    for n in bindings:
        per_case = [c.arrays(n, seed=n) for c in cases]
        flat = [a for arrays in per_case for a in arrays]
        outputs = {"jit": jitted(*(Tensor(a, device=device) for a in flat))}
        if not symbolic:  # eager programs have static shapes: the static group covers them (each is a compile)
            outputs["eager"] = fn(*(Tensor(a, device=device) for a in flat))
            outputs["eager"][0].realize(*outputs["eager"][1:])
        for mode, results in outputs.items():
            for c, arrays, got in zip(cases, per_case, results):
                tol = max(c.tol, 1e-4) if device != "interp" else c.tol
                assert_matches(got, c.reference(*arrays), tol, f"{c.name} {mode} on {device} N={n}")
    assert jitted.trace_count == 1
