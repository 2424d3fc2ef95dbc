"""Where tools and tests find kiln's dialects, passes, targets and named pipelines.

Everything is registered lazily (module path + attribute name) so that `kiln-opt --help` does not import
llvmlite or wgpu, and a tool only pays for what it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.ir import Dialect
    from xdsl.passes import ModulePass


def _lazy(path: str) -> Callable[[], object]:
    module, _, attr = path.partition(":")

    def load() -> object:
        return getattr(importlib.import_module(module), attr)

    return load


_DIALECTS: dict[str, str] = {
    "graph": "kiln.dialects.graph:Graph",
    "kernel": "kiln.dialects.kernel:Kernel",
    "uop": "kiln.dialects.uop:UOp",
    "cstyle": "kiln.dialects.cstyle:CStyle",
    "ptx": "kiln.dialects.ptx:PTX",
    "wgsl": "kiln.dialects.wgsl:WGSL",
}
_UPSTREAM_DIALECTS = ("builtin", "func", "arith", "llvm", "test")

_PASSES: dict[str, str] = {
    "graph-canonicalize": "kiln.passes.graph_canonicalize:GraphCanonicalize",
    "graph-decompose": "kiln.passes.graph_decompose:GraphDecompose",
    "graph-legalize-dtypes": "kiln.passes.legalize_dtypes:GraphLegalizeDtypes",
    "graph-autodiff": "kiln.passes.graph_autodiff:GraphAutodiff",
    "graph-conv-to-matmul": "kiln.passes.conv_to_matmul:GraphConvToMatmul",
    "graph-pack-matmul": "kiln.passes.pack_matmul:GraphPackMatmul",
    "graph-copy-transposed-rhs": "kiln.passes.copy_transposed_rhs:GraphCopyTransposedRhs",
    "graph-mark-realize": "kiln.passes.schedule:GraphMarkRealize",
    "convert-graph-to-kernel": "kiln.lowering.graph_to_kernel:ConvertGraphToKernel",
    "kernel-plan-memory": "kiln.passes.memory_plan:KernelPlanMemory",
    "kernel-dedupe": "kiln.passes.kernel_dedupe:KernelDedupe",
    "kernel-optimize": "kiln.compiler.kernel_optimize:KernelOptimize",
    "kernel-join-launches": "kiln.passes.join_launches:KernelJoinLaunches",
    "convert-kernel-to-uop": "kiln.lowering.kernel_to_uop:ConvertKernelToUop",
    "uop-simplify": "kiln.passes.uop_simplify:UopSimplify",
    "uop-stash-recomputed": "kiln.passes.uop_stash_recomputed:UopStashRecomputed",
    "uop-prefetch-next-row": "kiln.passes.uop_prefetch_next_row:UopPrefetchNextRow",
    "uop-prefetch-next-block": "kiln.passes.uop_prefetch_next_block:UopPrefetchNextBlock",
    "uop-decompose": "kiln.passes.uop_decompose:UopDecompose",
    "convert-uop-to-llvm": "kiln.lowering.uop_to_llvm:ConvertUopToLLVM",
    "convert-uop-to-cstyle": "kiln.lowering.uop_to_cstyle:ConvertUopToCStyle",
    "convert-uop-to-ptx": "kiln.lowering.uop_to_ptx:ConvertUopToPTX",
    "convert-uop-to-wgsl": "kiln.lowering.uop_to_wgsl:ConvertUopToWGSL",
}
_UPSTREAM_PASSES = ("cse", "dce", "canonicalize")

_TARGETS: dict[str, str] = {
    "llvm": "kiln.targets.llvm.emitter:emit",
    "c": "kiln.targets.c.emitter:emit",
    "ptx": "kiln.targets.ptx.emitter:emit",
    "wgsl": "kiln.targets.wgsl.emitter:emit",
}
"""`-t NAME` emitters: callables ``emit(module: ModuleOp) -> str``."""

CPU_TARGETS = ("cpu-llvm", "cpu-c")
NARROW_TARGETS = ("webgpu",)
"""Targets without 64-bit integers: their pipelines start by narrowing them (``graph-legalize-dtypes``)."""


def _schedule(target: str | None) -> list[str]:
    """Scheduling (graph -> kernel); for a ``target``, with its scheduling decisions (which matmuls read a
    packed B, which reduce broadcasts it fuses)."""
    option = f"{{target={target}}}" if target else ""
    pack = ([f"graph-conv-to-matmul{option}", f"graph-pack-matmul{option}", f"graph-copy-transposed-rhs{option}"]
            if target in CPU_TARGETS else [])
    legalize = [f"graph-legalize-dtypes{option}"] if target in NARROW_TARGETS else []
    return [*legalize, *pack, "graph-decompose", "graph-canonicalize", "cse", f"graph-mark-realize{option}",
            "convert-graph-to-kernel", "kernel-plan-memory"]


def _to_uop(target: str) -> list[str]:
    join = ["kernel-join-launches"] if target in CPU_TARGETS else []
    return [*_schedule(target), "kernel-dedupe", f"kernel-optimize{{target={target}}}", *join,
            f"convert-kernel-to-uop{{target={target}}}", "uop-simplify"]


def _to_target(target: str, conversion: str) -> list[str]:
    prefetch = ["uop-prefetch-next-row", "uop-prefetch-next-block"] if target == "cpu-llvm" else []
    return [*_to_uop(target), "uop-stash-recomputed", *prefetch, f"uop-decompose{{target={target}}}", conversion]


PIPELINES: dict[str, str] = {
    name: ",".join(passes)
    for name, passes in (
        ("lower-to-kernel", _schedule(None)),
        ("lower-to-uop", _to_uop("cpu-llvm")),
        ("lower-to-llvm", _to_target("cpu-llvm", "convert-uop-to-llvm")),
        ("lower-to-c", _to_target("cpu-c", "convert-uop-to-cstyle")),
        ("lower-to-ptx", _to_target("cuda", "convert-uop-to-ptx")),
        ("lower-to-wgsl", _to_target("webgpu", "convert-uop-to-wgsl")),
    )
}
"""Named pipelines: each expands to pass-pipeline text (xDSL's ``a,b{k=v}`` form), composed from the stages
above; devices configure the built pass objects further (``kiln.compiler.driver.device_pipeline``)."""


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    from xdsl.dialects import get_all_dialects as upstream

    out: dict[str, Callable[[], Dialect]] = {n: f for n, f in upstream().items() if n in _UPSTREAM_DIALECTS}
    out.update({n: _lazy(p) for n, p in _DIALECTS.items()})  # type: ignore[misc]
    return out


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from xdsl.transforms import get_all_passes as upstream

    out: dict[str, Callable[[], type[ModulePass]]] = {n: f for n, f in upstream().items() if n in _UPSTREAM_PASSES}
    out.update({n: _lazy(p) for n, p in _PASSES.items()})  # type: ignore[misc]
    return out


def get_all_targets() -> dict[str, Callable[[], Callable[..., str]]]:
    return {n: _lazy(p) for n, p in _TARGETS.items()}  # type: ignore[misc]


def make_context(allow_unregistered: bool = False) -> Context:
    """A context that knows every kiln dialect and the upstream ones kiln uses (loaded lazily)."""
    from xdsl.context import Context

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
