"""Every level is executable: each corpus program gives the same numbers in the graph interpreter, in the kernel
interpreter after ``lower-to-kernel`` and in the uop interpreter after ``lower-to-uop``.

This checks the scheduler and the linearizer by execution, with no backend involved, and checks the three
interpreters against each other. Tolerances are the corpus's, which depend on the dtypes a program uses.
The uop interpreter runs one micro-op at a time in Python: programs whose kernels do more work than
``UOP_WORK_BUDGET`` (the linearizer's own ``core_work`` estimate) run only with ``KILN_SLOW=1``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from kiln.capabilities.description import get_target
from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.interpreters.graph import bind_inputs, find_function
from kiln.interpreters.run import level_of, run_module
from kiln.interpreters.uop import estimated_work

from corpus import Program, all_programs, assert_same

PROGRAMS = all_programs()
LEVELS = {"lower-to-kernel": "kernel", "lower-to-uop": "uop"}
UOP_TARGET = "cpu-llvm"
"""The target ``lower-to-uop`` schedules and linearizes for."""
UOP_WORK_BUDGET = 2000
"""Estimated ALU ops (summed over input sets) the uop interpreter runs per program by default (about 0.2 s)."""

_references: dict[str, list[list[np.ndarray]]] = {}


def _reference(p: Program) -> list[list[np.ndarray]]:
    if p.name not in _references:
        module = Parser(make_context(), p.text).parse_module()
        _references[p.name] = [run_module(module, p.function, inputs) for inputs in p.runs]
    return _references[p.name]


def _lowered(p: Program, pipeline: str) -> ModuleOp:
    ctx = make_context()
    module = Parser(ctx, p.text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), PIPELINES[pipeline]).apply(ctx, module)
    return module


def uop_work(module: ModuleOp, p: Program) -> int:
    """The linearizer's estimate of the ALU ops all of ``p``'s input sets make the uop kernels execute."""
    f = find_function(Parser(make_context(), p.text).parse_module(), p.function)
    return sum(estimated_work(module, p.function, bind_inputs(f, inputs, None)[1]) for inputs in p.runs)


@pytest.mark.parametrize("pipeline", LEVELS)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_lowered_program_matches_the_graph_interpreter(program: Program, pipeline: str) -> None:
    if pipeline == "lower-to-uop" and (unsupported := program.dtypes - get_target(UOP_TARGET).dtypes):
        pytest.skip(f"{UOP_TARGET}, which lower-to-uop targets, has no {sorted(unsupported)}")
    module = _lowered(program, pipeline)
    assert level_of(module, program.function) == LEVELS[pipeline]
    if pipeline == "lower-to-uop" and (work := uop_work(module, program)) > UOP_WORK_BUDGET and not os.environ.get("KILN_SLOW"):
        pytest.skip(f"~{work} uop ALU ops take the uop interpreter too long for the default run; KILN_SLOW=1 runs it")
    for n, (inputs, want) in enumerate(zip(program.runs, _reference(program))):
        got = run_module(module, program.function, inputs)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, program.rtol, program.atol, f"{program.name} after {pipeline}, input set {n}, result {i}")
