"""``kernel-optimize`` as registered: the pass of ``kiln.passes.optimize`` with its beam search, which compiles
and times candidates through the driver and the runtime (the floors above the passes)."""

from __future__ import annotations

from dataclasses import dataclass

from kiln.capabilities.description import TargetDescription
from kiln.compiler.search import SearchBudget, beam_search_module
from kiln.dialects.kernel import KernelOp
from kiln.passes.optimize import kernel_optimize


@dataclass(frozen=True)
class KernelOptimize(kernel_optimize.KernelOptimize):
    """Apply optimization opts to kernels: explicit (opts=...), the heuristic (default) or a beam search."""

    def beam_search(self, kernels: list[KernelOp], target: TargetDescription) -> None:
        budget = SearchBudget(
            self.beam_width, self.time_per_kernel, self.time_total, self.max_candidates, self.min_progress, self.workers,
            self.cluster,
        )
        beam_search_module(kernels, target, budget)
