"""``kernel-optimize``: choose and apply opts to every ``kernel.kernel`` of a module.

``kernel-optimize{target=cpu-llvm}``                     the heuristic's opts for each kernel
``kernel-optimize{opts="upcast:0:4,unroll:0:4"}``        exactly these opts (on every kernel, or ``kernel=NAME``)
``kernel-optimize{search=beam beam-width=4}``            beam search timed on the target's device, cached
``kernel-optimize{search=none}``                         record ``opts = []`` and change nothing

Each kernel's ``opts`` attribute lists what was applied; a kernel that has one already was optimized before
and is left alone by the heuristic and the search (explicit opts are applied on top). docs/optimizer.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects.kernel import KernelOp
from kiln.passes.optimize.apply import apply_opts
from kiln.passes.optimize.heuristic import heuristic_opts
from kiln.passes.optimize.opts import OptError, parse_opts
from kiln.passes.optimize.space import applied, loop_iterations, record
from kiln.support.errors import KilnError
from kiln.capabilities.description import TargetDescription, target_for_pass
from kiln.support.diagnostics import error_at
from kiln.support.statistics import Statistic

SEARCHES = ("heuristic", "beam", "none")


OPTS_APPLIED = Statistic("opts-applied", "Number of opts applied to kernels")


def _opts_applied(module: ModuleOp) -> int:
    return sum(len(applied(k) or []) for k in module.ops if isinstance(k, KernelOp))


@dataclass(frozen=True)
class KernelOptimize(ModulePass):
    """Apply optimization opts to kernels: explicit (opts=...), the heuristic (default) or a beam search."""

    name = "kernel-optimize"

    target: str = "cpu-llvm"
    opts: str | None = None
    """Comma-separated opts (``upcast:0:4,unroll:0:4``) applied to every kernel instead of choosing."""
    kernel: str | None = None
    """Only optimize the kernel of this name."""
    search: str = "heuristic"
    """How opts are chosen without ``opts``: ``heuristic``, ``beam`` (timed search) or ``none``."""
    beam_width: int = 4
    time_per_kernel: float = 20.0
    """Search budget per kernel, seconds."""
    time_total: float = 120.0
    """Search budget for the whole module, seconds."""
    max_candidates: int = 400
    """Candidates timed per kernel at most."""
    min_progress: float = 0.02
    """A search round must make the best time this fraction faster, or the search of that kernel stops."""
    workers: int = 0
    """Processes compiling candidates (0: one per core)."""
    cluster: str = ""
    """A Ray cluster to compile and time candidates on (``auto``, ``host:port``, ``ray://host:port``); empty:
    ``$KILN_RAY_ADDRESS``, else this machine. docs/distributed.md."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        before = _opts_applied(op)
        self._optimize(op)
        OPTS_APPLIED.bump(_opts_applied(op) - before)

    def _optimize(self, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target)
        if self.search not in SEARCHES:
            raise PassFailedException(f"kernel-optimize: search must be one of {', '.join(SEARCHES)}, got '{self.search}'")
        try:
            explicit = parse_opts(self.opts) if self.opts is not None else None
        except OptError as e:
            raise PassFailedException(f"kernel-optimize: {e}") from None
        kernels = [k for k in op.ops if isinstance(k, KernelOp) and self.kernel in (None, k.sym_name.data)]
        if self.kernel is not None and not kernels:
            raise PassFailedException(f"kernel-optimize: no kernel.kernel @{self.kernel} in the module")
        if explicit is None and self.search == "beam":
            try:
                self.beam_search([k for k in kernels if applied(k) is None], target)
            except KilnError as e:
                raise PassFailedException(f"kernel-optimize: {e}") from None
            for kernel in kernels:
                try:
                    check_loop_limit(kernel, target)
                except OptError as e:
                    raise error_at(kernel, str(e)) from None
            return
        for kernel in kernels:
            try:
                if explicit is not None:
                    apply_opts(kernel, explicit, target)
                elif applied(kernel) is None and self.search == "heuristic":
                    heuristic_opts(kernel, target)
                record(kernel)
                check_loop_limit(kernel, target)
            except OptError as e:
                raise error_at(kernel, str(e)) from None

    def beam_search(self, kernels: list[KernelOp], target: TargetDescription) -> None:
        """Choose opts for ``kernels`` by timing candidates on the target's device. Timing needs the compiler
        and the runtime, which sit above the passes: the registered pass (``kiln.compiler.kernel_optimize``)
        provides it."""
        raise KilnError("search=beam times compiled candidates; run this pass through kiln's pass registry")


def check_loop_limit(kernel: KernelOp, target: TargetDescription) -> None:
    """OptError when one invocation of ``kernel`` would loop more often than ``target`` runs (its
    ``max_loop_iterations``): lavapipe would stop the loop early and return a wrong answer, not an error."""
    limit = target.max_loop_iterations
    if limit is None:
        return
    count = loop_iterations(kernel)
    if count > limit:
        raise OptError(
            f"one invocation of @{kernel.sym_name.data} would run {count} loop iterations, more than target "
            f"{target.name} allows ({limit}, max_loop_iterations); split the reduction (kernel-optimize could not "
            f"spread it over a workgroup's threads)"
        )
