"""Tuning whole programs ahead of time (``kiln-tune``): the kernels a program's compile would optimize, each
searched unless the tuning database already has it, so that a later compile with ``KILN_BEAM`` only replays.

The kernels are taken from the device's own pipeline, stopped just before ``kernel-optimize``: exactly the
kernels, with exactly the structure, that the pipeline's search would look up, so the entries written here are
the ones a compile finds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from kiln.capabilities.description import TargetDescription
from kiln.compiler import registry
from kiln.compiler.driver import device_pipeline
from kiln.compiler.search import SearchBudget, beam_search_module
from kiln.dialects.kernel import KernelOp
from kiln.passes.optimize import tuning_db


def program_kernels(module: ModuleOp, device: str) -> list[KernelOp]:
    """The kernels of ``module`` (a graph module) as ``kernel-optimize`` sees them on ``device``."""
    passes = device_pipeline(device)
    cut = next(n for n, p in enumerate(passes) if p.name == "kernel-optimize")
    lowered = module.clone()
    PassPipeline(tuple(passes[:cut])).apply(registry.make_context(), lowered)
    return [op for op in lowered.ops if isinstance(op, KernelOp)]


@dataclass
class KernelResult:
    name: str
    status: str
    """``tuned``, ``cached`` (already in the database: skipped) or ``heuristic`` (no time left, or faults)."""
    tuning: tuning_db.Tuning | None
    seconds: float
    """Wall time spent on it."""


def tune_kernel(kernel: KernelOp, target: TargetDescription, budget: SearchBudget) -> KernelResult:
    """Search ``kernel`` (stored in the tuning database) unless the database has it already."""
    name, options = kernel.sym_name.data, budget.options_key()
    start = time.monotonic()
    if (hit := tuning_db.lookup(kernel, target, options)) is not None:
        return KernelResult(name, "cached", hit, 0.0)
    searched = kernel.clone()  # the search applies the opts it found to it: look the entry up by the original
    beam_search_module([searched], target, budget)
    found = tuning_db.lookup(kernel, target, options)
    return KernelResult(name, "tuned" if found else "heuristic", found, time.monotonic() - start)
