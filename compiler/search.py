"""Beam search over opt sequences, timed on the target's device, remembered in the tuning database.

For each kernel: a tuning-database hit replays the stored opts (no search). Otherwise the search starts from
the unoptimized kernel and the heuristic's choice, and each round extends every member of the beam by every
legal action (``actions``), drops candidates that are the same kernel as one seen before, ranks the rest by
the static estimate (``cost``) and keeps the most promising ``ROUND_FACTOR * beam_width``; those are compiled
in parallel worker processes, then timed one after another (``measure.LocalRunner``), or, when a Ray cluster
is configured, compiled and timed as cluster tasks (``cluster_runner``; the winner is then re-timed here before
it is stored). A candidate whose outputs differ from the unoptimized kernel's is rejected (a guard against
miscompiles). The best ``beam_width`` go on.

It stops when a round improves the best time by less than ``min_progress`` (a fraction), when the kernel's
or the module's time budget is spent, or when ``max_candidates`` have been tried. The best sequence found is
applied to the kernel and stored.

Reporting (``Progress``): on a terminal, a status line rewritten in place; otherwise (a log file, CI) one line
per round: candidates timed, best so far, time left. On every run, one summary line per kernel: the opts
chosen and where from (searched, the tuning database, or the heuristic when the budget was spent), with the
time against the heuristic's.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from kiln.dialects import kernel as K
from kiln.passes.optimize import cost, tuning_db
from kiln.compiler import measure
from kiln.passes.optimize.apply import apply_opts
from kiln.passes.optimize.heuristic import heuristic_opts, linearizer_supports
from kiln.passes.optimize.opts import Opt, OptError, OptOp
from kiln.passes.optimize.space import record
from kiln.capabilities.tensor_cores import tensor_cores
from kiln.capabilities.description import TargetDescription, usable_cores

ROUND_FACTOR = 6
"""Candidates compiled and timed per round, per beam member."""


@dataclass(frozen=True)
class SearchBudget:
    beam_width: int = 4
    time_per_kernel: float = 20.0
    time_total: float = 120.0
    max_candidates: int = 400
    min_progress: float = 0.02
    workers: int = 0
    cluster: str = ""
    """A Ray cluster's address to measure candidates on (``auto``, ``host:port``, ``ray://host:port``); empty:
    ``$KILN_RAY_ADDRESS``, and without it this machine alone."""

    def options_key(self) -> str:
        """The options that shape the result (the tuning database key); time budgets are not among them."""
        return f"beam-width={self.beam_width} max-candidates={self.max_candidates}"


def actions(target: TargetDescription) -> list[Opt]:
    """The opts the search tries at every step (tinygrad's action space, sized for kiln's targets)."""
    out = [Opt(OptOp.UPCAST, axis, amount) for axis in range(8) for amount in (0, 2, 3, 4, 8, 16, 32)]
    out += [Opt(OptOp.UNROLL, axis, amount) for axis in range(4) for amount in (0, 2, 4, 8)]
    out += [Opt(OptOp.PADTO, axis, amount) for axis in range(4) for amount in (16, 32)]
    out += [Opt(OptOp.SWAP, a, b) for a in range(4) for b in range(a + 1, 4)]
    if target.has_threads and (target.cpu_cores or 1) > 1:
        out += [Opt(OptOp.THREAD, axis, target.cpu_cores) for axis in range(4)]
    if target.has_local:
        out += [Opt(OptOp.LOCAL, axis, amount) for axis in range(6) for amount in (2, 4, 8, 16, 32)]
        out.append(Opt(OptOp.NOLOCALS))
        if linearizer_supports(target, "group_reduce"):
            out += [Opt(OptOp.GROUPTOP, axis, amount) for axis in range(3) for amount in (16, 32, 64, 256)]
            out += [Opt(OptOp.GROUP, axis, amount) for axis in range(3) for amount in (4, 8, 16)]
        if tensor_cores(target) and linearizer_supports(target, "tensor_core"):
            out += [Opt(OptOp.TC, choice, 0) for choice in range(3)]
    return out


@dataclass
class Candidate:
    opts: tuple[Opt, ...]
    kernel: K.KernelOp
    seconds: float = math.inf
    worker: str = "local"


@dataclass
class Progress:
    """The search's lines on stderr: transient status on a terminal, a line per round elsewhere, summaries always."""

    terminal: bool = field(default_factory=lambda: sys.stderr.isatty())

    def show(self, text: str) -> None:
        """A status update: rewritten in place on a terminal, not shown elsewhere (too many for a log)."""
        if self.terminal:
            sys.stderr.write("\r\033[K" + text)
            sys.stderr.flush()

    def round(self, text: str) -> None:
        """The end of a round: a status update on a terminal, a line of its own elsewhere."""
        if self.terminal:
            self.show(text)
        else:
            self.line(text)

    def line(self, text: str) -> None:
        self.done()
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.terminal:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


class Runner(Protocol):
    """Compiles and times candidates: ``measure.LocalRunner`` on this machine, ``cluster_runner.RayRunner`` on
    a Ray cluster. ``failed`` says why the runner can measure nothing more (a cluster that went away)."""

    device: str
    failed: str | None

    def measure(self, texts: Sequence[str], inputs: list[np.ndarray], reference: list[np.ndarray] | None,
                best: float, deadline: float) -> list[measure.Measured]: ...

    def close(self) -> None: ...


class BeamSearch:
    def __init__(self, kernel: K.KernelOp, target: TargetDescription, budget: SearchBudget, runner: Runner,
                 deadline: float, progress: Progress):
        self.base, self.target, self.budget = kernel.clone(), target, budget
        self.runner, self.progress = runner, progress
        self.deadline = min(deadline, time.monotonic() + budget.time_per_kernel)
        self.inputs = measure.random_inputs(kernel)
        self.actions = actions(target)
        self.seen: set[str] = set()
        self.tried = 0
        self.reference: list[np.ndarray] | None = None
        self.best = math.inf
        self.heuristic = math.inf
        """The heuristic's choice's time, which the summary compares the result with."""
        self.name = kernel.sym_name.data
        self.lost: list[str] = []
        """Why candidates were lost to faults (a dead or hung worker, a cluster gone): reported."""
        self.retried: list[str] = []
        """Why candidates' tasks were run a second time (they were measured then): reported."""

    def candidate(self, opts: tuple[Opt, ...]) -> Candidate | None:
        """The base kernel with ``opts`` applied, unless illegal or the same kernel as one seen before."""
        k = self.base.clone()
        try:
            apply_opts(k, opts, self.target)
        except OptError:
            return None
        key = tuning_db.structure(k)
        if key in self.seen:
            return None
        self.seen.add(key)
        record(k)
        return Candidate(opts, k)

    def run(self) -> tuning_db.Tuning:
        baseline = self.candidate(())
        assert baseline is not None
        seeds = self.measure([baseline], "baseline", math.inf)
        if not seeds:
            raise OptError(f"the unoptimized kernel @{self.name} does not run: nothing to compare candidates with")
        heuristic = self.base.clone()
        if (found := self.candidate(tuple(heuristic_opts(heuristic, self.target)))) is not None:
            seeds += self.measure([found], "heuristic", math.inf)
        self.heuristic = found.seconds if found is not None else seeds[0].seconds  # no opts: the unoptimized time
        beam = sorted(seeds, key=lambda c: c.seconds)
        best = beam[0]
        round_ = 0
        while self.tried < self.budget.max_candidates and time.monotonic() < self.deadline and not self.runner.failed:
            round_ += 1
            grown = [c for m in beam for a in self.actions if (c := self.candidate((*m.opts, a))) is not None]
            if not grown:
                break
            grown.sort(key=lambda c: cost.estimate(c.kernel, self.target))
            room = min(ROUND_FACTOR * self.budget.beam_width, self.budget.max_candidates - self.tried)
            timed = self.measure(grown[:room], f"round {round_}", self.deadline)
            beam = sorted([*beam, *timed], key=lambda c: c.seconds)[: self.budget.beam_width]
            left = max(0.0, self.deadline - time.monotonic())
            self.progress.round(
                f"kernel-optimize: @{self.name} round {round_}: timed {len(timed)} of {min(room, len(grown))} "
                f"candidates, best {_ms(beam[0].seconds)}, {left:.1f} s left"
            )
            improved = beam[0].seconds < best.seconds * (1 - self.budget.min_progress)
            best = beam[0]
            if not improved:
                break
        if not isinstance(self.runner, measure.LocalRunner):
            best, baseline = self.confirm_locally(beam, baseline)
        return tuning_db.Tuning(list(best.opts), best.seconds, baseline.seconds, best.worker)

    def measure(self, candidates: list[Candidate], stage: str, deadline: float) -> list[Candidate]:
        """Compile and time ``candidates``; the ones that ran correctly, fastest first. Compiles not started by
        ``deadline`` are skipped (the seeds are measured with no deadline)."""
        ready = [(c, text) for c in candidates if (text := self._timing_module(c))]
        self.progress.show(f"kernel-optimize: @{self.name} {stage}: measuring {len(ready)} candidates")
        results = self.runner.measure([text for _, text in ready], self.inputs, self.reference, self.best, deadline)
        self.tried += len(candidates)
        done = []
        for (c, _), result in zip(ready, results):
            if result.outputs is not None and self.reference is None:
                self.reference = result.outputs
            if result.error is not None and result.error.startswith(measure.LOST):
                self.lost.append(result.error.removeprefix(measure.LOST))
            if result.retried is not None:
                self.retried.append(result.retried)
            if math.isfinite(result.seconds):
                c.seconds, c.worker = result.seconds, result.worker
                done.append(c)
        self.best = min([self.best, *(c.seconds for c in done)])
        self.progress.show(
            f"kernel-optimize: @{self.name} {stage}: timed {len(done)}/{len(ready)}, best {self.best * 1e3:.3f} ms"
        )
        return sorted(done, key=lambda c: c.seconds)

    def confirm_locally(self, beam: list[Candidate], baseline: Candidate) -> tuple[Candidate, Candidate]:
        """Re-time the unoptimized kernel and the final beam (measured on the cluster) here; the fastest here
        wins. A remote time is trusted only as a ranking: the tuning database stores what this machine
        measured."""
        local = measure.LocalRunner(self.target.name, 1)
        try:
            base = local.measure([measure.timing_module(baseline.kernel)], self.inputs, None, math.inf, math.inf)[0]
            texts = [measure.timing_module(c.kernel) for c in beam]
            results = local.measure(texts, self.inputs, base.outputs, math.inf, math.inf)
        finally:
            local.close()
        mine = Candidate(baseline.opts, baseline.kernel, base.seconds, "local")
        timed = [Candidate(c.opts, c.kernel, r.seconds, c.worker) for c, r in zip(beam, results)]
        return min([*timed, mine], key=lambda c: c.seconds), mine

    @staticmethod
    def _timing_module(c: Candidate) -> str:
        try:
            return measure.timing_module(c.kernel)
        except OptError:
            return ""


def beam_search_module(kernels: list[K.KernelOp], target: TargetDescription, budget: SearchBudget) -> None:
    """Optimize each kernel with its tuning-database entry, or by a beam search (then stored)."""
    from kiln.runtime.devices import device_available, get_device

    deadline = time.monotonic() + budget.time_total
    options = budget.options_key()
    runner: Runner | None = None
    progress = Progress()
    try:
        for kernel in kernels:
            name = f"kernel-optimize: @{kernel.sym_name.data}"
            if (hit := tuning_db.lookup(kernel, target, options)) is not None and _replay(kernel, hit.opts, target):
                progress.line(f"{name}: {_opts(hit.opts)} from the tuning database "
                              f"({_ms(hit.seconds)}, unoptimized {_ms(hit.baseline)} when searched)")
                continue
            if time.monotonic() > deadline or not device_available(target.name):
                if not device_available(target.name):
                    get_device(target.name)  # raises DeviceUnavailable with the reason
                chosen = heuristic_opts(kernel, target)
                record(kernel)
                progress.line(f"{name}: the heuristic's {_opts(chosen)} (the search's time-total was spent)")
                continue
            if runner is None:
                runner = make_runner(target, budget)
            started = time.monotonic()
            search = BeamSearch(kernel, target, budget, runner, deadline, progress)
            try:
                found = search.run()
            except OptError:
                if not search.lost:
                    raise
                progress.line(fault_report(search, runner.failed) + "; kept the heuristic's opts")
                heuristic_opts(kernel, target)
                record(kernel)
                continue
            if search.lost or search.retried or runner.failed:
                progress.line(fault_report(search, runner.failed))
            tuning_db.store(kernel, target, options, found)
            _replay(kernel, found.opts, target)
            h, spent = search.heuristic, time.monotonic() - started
            versus = f"vs the heuristic's {_ms(h)} ({h / found.seconds:.2f}x" if math.isfinite(h) else "(heuristic untimed"
            progress.line(f"{name}: searched {_opts(found.opts)}, {_ms(found.seconds)} {versus}; {search.tried} "
                          f"candidates in {spent:.1f} s)")
    finally:
        progress.done()
        if runner is not None:
            runner.close()


def make_runner(target: TargetDescription, budget: SearchBudget) -> Runner:
    """The cluster's runner when an address is configured (``cluster`` or ``$KILN_RAY_ADDRESS``), else the
    local one; ``ray`` is imported only in the first case."""
    from kiln.compiler import cluster

    if (address := cluster.address(budget.cluster)) is not None:
        from kiln.compiler.cluster_runner import RayRunner

        return RayRunner(address, target, task_timeout=budget.time_per_kernel)
    return measure.LocalRunner(target.name, budget.workers or usable_cores())


def fault_report(search: BeamSearch, failed: str | None) -> str:
    """One line saying what a search lost to faults and what it ran twice, by reason."""

    def counted(reasons: list[str]) -> str:
        return ", ".join(f"{n} {reason}" for reason, n in Counter(reasons).most_common())

    text = f"kernel-optimize: @{search.name}: {len(search.lost)} candidates lost"
    text += f" ({counted(search.lost)})" if search.lost else ""
    text += f"; {len(search.retried)} retried elsewhere ({counted(search.retried)})" if search.retried else ""
    return text + (f"; the search stopped early: {failed}" if failed else "")


def _opts(opts: list[Opt]) -> str:
    return f"opts [{', '.join(map(str, opts))}]"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _replay(kernel: K.KernelOp, opts: list[Opt], target: TargetDescription) -> bool:
    """Apply ``opts`` to ``kernel`` (as a whole or not at all); False if they no longer apply."""
    trial = kernel.clone()
    try:
        apply_opts(trial, opts, target)
    except OptError:
        return False
    apply_opts(kernel, opts, target)
    record(kernel)
    return True
