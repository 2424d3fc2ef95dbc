"""A graph function compiled for a device, and the one place the front end compiles.

Eager realization and ``@kiln.jit`` both end here: build the `graph` module, hand it to the device
(``Device.compile``, which caches the compiled program on disk keyed on the module text), and wrap the result
so that ``KILN_DEBUG`` can report each call without slowing calls down when it is off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from kiln.dialects.types import Shape
from kiln.jit import debug
from kiln.jit.lazy import Node
from kiln.jit.lower import Subgraph
from kiln.compiler.driver import LOWERINGS, compile, device_pipeline_text
from kiln.runtime.program import ProgramSpec


class CompiledGraph:
    """Call with one array per function argument; returns the output arrays (fresh on every call)."""

    __slots__ = ("name", "device", "run", "input_shapes", "program", "n_ops", "module")

    def __init__(
        self,
        name: str,
        device: str,
        run: Callable[..., list[np.ndarray]],
        input_shapes: list[Shape],
        n_ops: int,
        module: ModuleOp,
    ):
        self.name = name
        self.device = device
        self.run = run
        self.input_shapes = input_shapes
        spec = getattr(run, "spec", None)
        self.program = spec if isinstance(spec, ProgramSpec) else None
        """The compiled schedule (kernels, launches), for devices that have one; None for the interpreter."""
        self.n_ops = n_ops
        self.module = module
        """The traced `graph` module that was compiled."""

    @property
    def graph_ir(self) -> str:
        """The traced `graph` function as text (``kiln-opt`` reads it)."""
        return str(self.module)

    @property
    def source(self) -> str:
        """The generated code (LLVM IR, C, ...); the graph IR for the interpreter, which runs it directly."""
        return self.program.kernels.source if self.program is not None else self.graph_ir

    def __call__(self, *arrays: np.ndarray) -> list[np.ndarray]:
        if not debug.level():
            return self.run(*arrays)
        profile = getattr(self.run, "profile", None) if debug.level() >= 2 else None
        start = time.perf_counter()
        outputs, launch_seconds = profile(*arrays) if profile is not None else (self.run(*arrays), None)
        seconds = time.perf_counter() - start
        env = debug.bind_symbols(self.input_shapes, arrays)
        debug.report_call(self.name, self.device, self.program, env, seconds, self.n_ops, launch_seconds)
        return outputs


def compile_graph(
    sub: Subgraph, name: str, args: Sequence[Node], device: str, dims: Mapping[str, tuple[int, int]] | None = None
) -> CompiledGraph:
    """Compile ``sub`` as ``func.func @name(args...)`` for ``device``."""
    module = sub.module(name, args, dims)
    pipeline = device_pipeline_text(device) if device in LOWERINGS else None
    if (directory := debug.dump_dir()) is not None:
        debug.dump_ir(module, name, pipeline, directory)
    start = time.perf_counter()
    run = compile(module, name, device, debug.log if debug.level() else None)
    seconds = time.perf_counter() - start
    n_ops = sum(1 for n in sub.order if n.op not in ("buffer", "input"))
    compiled = CompiledGraph(name, device, run, [a.shape for a in args], n_ops, module)
    if debug.level():
        debug.report_compile(name, device, seconds, compiled.program, module, pipeline)
    return compiled
