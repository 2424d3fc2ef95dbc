"""Translation validation by execution (``--verify-semantics``): run a module before and after every pass on
random input sets, with the interpreter of its level, and stop at the first pass that changes the results.

``SemanticChecker(module, sets=N)`` draws N input sets per function (`kiln.interpreters.sample_inputs`: seeds
``seed .. seed+N-1``) and runs the module as given. ``check(p, module)`` after each pass runs it again with the
interpreter of its new level (graph, kernel or uop) and compares each result with the one before the pass
(`kiln.compiler.agreement`); the first disagreement comes back as a ``Disagreement`` naming the pass, the
function, the input seed and the worst element, with the IR the pass was given (a reproducer). A pass that
leaves the printed IR unchanged is not run again. Once the kernels reach a target dialect (LLVM, C, PTX, WGSL)
no interpreter runs the module; ``check_device`` then compares a device's compiled program with the last
interpreted level, so a miscompile is pinned either to a pass or to the backend.

Input sets the module rejects before any pass ran (an index input out of range, say) are left out, as are
sets a pass narrowed the signature below (``graph-legalize-dtypes``: the compiled program would reject them at
its boundary). Both are counted in ``skipped``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from io import StringIO

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from kiln.compiler.agreement import compare
from kiln.compiler.pipeline import pass_text
from kiln.dialects.types import to_numpy
from kiln.interpreters import graph, uop
from kiln.interpreters.graph import find_function
from kiln.interpreters.run import executable_level, on_arrays, run_module
from kiln.interpreters.sample_inputs import random_inputs
from kiln.support.errors import InputError, KilnError

DEFAULT_SETS = 3
"""Input sets per function when ``--verify-semantics`` gives no number."""

BUDGETS = {"kernel": 20_000_000, "uop": 5_000_000}
"""The most work one input set may take at a level, else that level does not run it: for the kernel
interpreter the graph function's scalar operations (it holds a kernel's values for all points at once: memory),
for the uop interpreter the ALU ops its kernels execute (one at a time: about 5 s per million)."""


class SemanticMismatch(KilnError):
    """A pass or a backend changed what a function computes; ``str()`` is the report, ``disagreement`` the data."""

    def __init__(self, disagreement: Disagreement, note: str = ""):
        super().__init__(disagreement.report() + (f"\n{note}" if note else ""))
        self.disagreement = disagreement


@dataclass(frozen=True)
class Disagreement:
    """The first pass (or backend) whose output computes something else than its input."""

    culprit: str
    """``pass 'kernel-optimize{target="cpu-c"}'`` or ``the cpu-c backend``."""
    function: str
    seed: int
    dims: dict[str, int]
    detail: str
    """Which result, where, by how much; or why the IR after the pass could not run."""
    given_ir: str
    """The IR the culprit was given: with its pipeline, a reproducer."""
    pipeline: str
    """The passes that replay the culprit on ``given_ir`` (``-p`` syntax)."""

    def report(self) -> str:
        dims = f" ({', '.join(f'{k} = {v}' for k, v in self.dims.items())})" if self.dims else ""
        return (f"--verify-semantics: {self.culprit} changed what @{self.function} computes: input seed {self.seed}{dims}, "
                f"{self.detail}\n(expected: what the IR it was given computes)")


@dataclass
class _Set:
    seed: int
    dims: dict[str, int]
    inputs: list[np.ndarray]
    work: int
    """``graph.estimated_work`` of the function on this set (0 when the input is not a graph function)."""
    outputs: list[np.ndarray] = field(default_factory=list)


def module_text(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


class SemanticChecker:
    """Runs a module's functions on fixed input sets after every pass; see the module docstring."""

    def __init__(self, module: ModuleOp, sets: int = DEFAULT_SETS, seed: int = 0, functions: Sequence[str] | None = None):
        names = list(functions) if functions is not None else [
            op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks and on_arrays(op)
        ]
        self.text = module_text(module)
        self.level = "graph"
        self.skipped = 0
        self.too_large: dict[str, tuple[int, int]] = {}
        """Level -> (how many set runs it left out, the most work one of them needed)."""
        self.sets: dict[str, list[_Set]] = {}
        for name in names:
            f = find_function(module, name)
            level = executable_level(module, name)
            if level is None:
                raise KilnError(f"--verify-semantics: no interpreter runs @{name} at the level of the input; "
                                "give it a graph, kernel or uop module")
            self.level = level
            self.sets[name] = []
            for n in range(seed, seed + sets):
                inputs, dims = random_inputs(f, n)
                s = _Set(n, dims, inputs, graph.estimated_work(f, dims) if level == "graph" else 0)
                try:
                    s.outputs = run_module(module, name, inputs, dims)
                except InputError:
                    self.skipped += 1  # the function rejects this set before any pass: not a miscompile
                    continue
                self.sets[name].append(s)

    def summary(self) -> str:
        """How far the check got, for a note after a clean run (``level``: the last level that ran a set)."""
        text = f"{self.ran} input sets agree after every pass up to the {self.level} level"
        if self.skipped:
            text += f", {self.skipped} left out (rejected by the function or its narrowed dtypes)"
        for level, (count, most) in self.too_large.items():
            text += (f"; {count} runs of the {level} interpreter left out as too large (up to {most:.2g} operations, "
                     f"over its budget of {BUDGETS[level]:.2g})")
        return text

    @property
    def ran(self) -> int:
        """The input sets checked so far (of every function)."""
        return sum(len(s) for s in self.sets.values())

    def check(self, p: ModulePass, module: ModuleOp) -> Disagreement | None:
        """After pass ``p`` ran on ``module``: the first result that changed, or None (also when no interpreter
        runs the new level: ``check_device`` checks that end)."""
        text = module_text(module)
        if text == self.text:
            return None
        culprit, replay = f"pass '{pass_text(p)}'", f"builtin.module({pass_text(p)})"
        for name, sets in self.sets.items():
            try:
                f = find_function(module, name)
                level = executable_level(module, name)
            except KilnError as e:
                return Disagreement(culprit, name, sets[0].seed if sets else 0, {}, str(e), self.text, replay)
            if level is None:
                return None  # the kernels are target code now; self.text keeps the last interpreted IR
            for s in list(sets):
                inputs = _fitted(s.inputs, f)
                if inputs is None:
                    sets.remove(s)
                    self.skipped += 1
                    continue
                work = uop.estimated_work(module, name, s.dims) if level == "uop" else s.work
                if work > BUDGETS.get(level, work):
                    count, most = self.too_large.get(level, (0, 0))
                    self.too_large[level] = (count + 1, max(most, work))
                    continue
                if (problem := self._run_and_compare(module, name, s, inputs, level)) is not None:
                    return Disagreement(culprit, name, s.seed, s.dims, problem, self.text, replay)
                self.level = level
        self.text = text
        return None

    def _run_and_compare(self, module: ModuleOp, name: str, s: _Set, inputs: list[np.ndarray], level: str) -> str | None:
        """Run one set at ``level``; a difference from the set's last results, or None (and they are the new ones)."""
        try:
            outputs = run_module(module, name, inputs, s.dims)
        except KilnError as e:
            return f"the IR after it fails in the {level} interpreter: {e}"
        problem = _first_difference(outputs, s.outputs)
        if problem is None:
            s.outputs = outputs
        return problem

    def check_device(self, run: Callable[..., Sequence[np.ndarray]], device: str, function: str, rest: str) -> Disagreement | None:
        """Whether ``run`` (``function`` compiled for ``device``, taking the declared dtypes) gives the results of
        the last interpreted level; ``rest`` is the pipeline from that level on, for the reproducer."""
        for s in self.sets[function]:
            try:
                outputs = list(run(*s.inputs))
            except InputError:
                continue  # the program's boundary rejects the set (a narrowed dtype): not a miscompile
            except KilnError as e:
                problem = f"the compiled program fails: {e}"
            else:
                problem = _first_difference(outputs, s.outputs)
            if problem is not None:
                culprit = f"the {device} backend (the code compiled from the {self.level}-level IR)"
                return Disagreement(culprit, function, s.seed, s.dims, problem, self.text, f"builtin.module({rest})")
        return None


def _first_difference(got: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> str | None:
    if len(got) != len(expected):
        return f"{len(got)} results where {len(expected)} were expected"
    for i, (g, e) in enumerate(zip(got, expected)):
        if (problem := compare(g, e)) is not None:
            return f"result {i} {problem}"
    return None


def _fitted(inputs: list[np.ndarray], f: func.FuncOp) -> list[np.ndarray] | None:
    """``inputs`` in the dtypes ``f`` takes now (a pass may narrow them), or None when a value does not fit."""
    out = []
    for a, t in zip(inputs, f.function_type.inputs.data):
        dtype = to_numpy(t.element_type)  # type: ignore[attr-defined]
        if a.dtype == dtype:
            out.append(a)
            continue
        narrowed = a.astype(dtype)
        if not np.array_equal(narrowed.astype(a.dtype), a, equal_nan=a.dtype.kind == "f"):
            return None
        out.append(narrowed)
    return out
