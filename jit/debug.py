"""What ``KILN_DEBUG`` and ``KILN_DUMP_IR`` show, on stderr and on disk.

``KILN_DEBUG``: 1 = each compile and, per call, the schedule (kernels, launch sizes for the bound symbols);
2 = also the call's time and each kernel's estimated work and bytes, with the call's GFLOP/s and GB/s; 3 = also
the optimizations applied to each kernel (when it is compiled); 4 = also the generated source.
``KILN_DUMP_IR=dir``: when a function is compiled, the IR after every pass of the device's pipeline goes to
``dir/<function>-<N>/<NN>-<pass>.mlir`` (``00-input.mlir`` is the traced graph), N counting the compiles of
that name: a retrace (new shapes) or another process dumping into the same folder never overwrites one.

The environment is read at every compile and call, so it can be changed while a program runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.runtime.program import LaunchSpec, ProgramSpec
from kiln.support.debug import level, log
from kiln.support.symbolic import compile_size


def dump_dir() -> Path | None:
    value = os.environ.get("KILN_DUMP_IR", "")
    return Path(value) if value else None


# ------------------------------------------------------------------------------------------- compile time


def lower_with_snapshots(module: Any, pipeline: str, snapshot: Callable[[str, Any], None]) -> None:
    """Run ``pipeline`` on a copy of ``module``; ``snapshot(label, module)`` sees the input and each pass's output."""
    from xdsl.passes import PassPipeline

    from kiln.compiler.registry import get_all_passes, make_context

    def after(done: Any, op: Any, _next: Any) -> None:
        snapshot("input" if done is None else done.name, op)

    PassPipeline.parse_spec(get_all_passes(), pipeline, after).apply(make_context(), module.clone())


def dump_ir(module: Any, name: str, pipeline: str | None, directory: Path) -> None:
    """Write the IR of ``module`` before and after every pass of ``pipeline`` to a new ``directory/name-N/``."""
    folder = _new_folder(directory, name)
    count = 0

    def write(label: str, op: Any) -> None:
        nonlocal count
        (folder / f"{count:02d}-{re.sub(r'[^A-Za-z0-9_.-]', '_', label)}.mlir").write_text(str(op) + "\n")
        count += 1

    if pipeline is None:
        write("input", module)
    else:
        lower_with_snapshots(module, pipeline, write)
    log(f"dumped the IR of @{name} after {count} steps to {folder}")


def _new_folder(directory: Path, name: str) -> Path:
    """``directory/name-N`` for the first N not taken; ``mkdir`` is atomic, so concurrent processes get different N."""
    directory.mkdir(parents=True, exist_ok=True)
    n = 1
    while True:
        try:
            (directory / f"{name}-{n}").mkdir()
            return directory / f"{name}-{n}"
        except FileExistsError:
            n += 1


def applied_opts(module: Any, pipeline: str) -> dict[str, list[str]]:
    """The ``opts`` attribute of every ``kernel.kernel`` after the last kernel-level pass of ``pipeline``."""
    found: dict[str, list[str]] = {}

    def read(_: str, op: Any) -> None:
        kernels = [k for k in op.ops if k.name == "kernel.kernel"]
        if kernels:
            found.clear()
            for k in kernels:
                opts = k.attributes.get("opts")
                found[k.sym_name.data] = [o.data for o in opts.data] if opts is not None else []

    lower_with_snapshots(module, pipeline, read)
    return found


def report_compile(
    name: str, device: str, seconds: float, program: ProgramSpec | None, module: Any, pipeline: str | None
) -> None:
    """What ``KILN_DEBUG`` shows once a function is compiled."""
    lvl = level()
    kernels = program.kernel_names() if program is not None else []
    what = f"{len(kernels)} kernel{'s' * (len(kernels) != 1)}" if program is not None else "interpreted"
    log(f"compiled @{name} for {device} in {seconds * 1e3:.1f} ms ({what})")
    if lvl >= 3 and pipeline is not None:
        for kernel, opts in applied_opts(module, pipeline).items():
            log(f"  @{kernel}: opts = [{', '.join(opts)}]")
    if lvl >= 4:
        source = program.kernels.source if program is not None else str(module)
        log(f"generated code of @{name}:\n{source}")


# ------------------------------------------------------------------------------------------- call time


def bind_symbols(shapes: Sequence[Sequence[int | str]], arrays: Sequence[np.ndarray]) -> dict[str, int]:
    """Symbol values implied by the arrays passed for inputs of the given (symbolic) shapes."""
    env: dict[str, int] = {}
    for shape, a in zip(shapes, arrays):
        for d, n in zip(shape, a.shape):
            if isinstance(d, str):
                env[d] = n
    return env


def _launch_size(launch: LaunchSpec, env: Mapping[str, int]) -> str:
    def value(e: int | str) -> int:
        return e if isinstance(e, int) else compile_size(e)(env)

    if launch.global_size is not None:
        grid = "x".join(str(value(e)) for e in launch.global_size)
        block = "x".join(str(value(e)) for e in launch.local_size or ())
        return f"grid {grid}, block {block}"
    if launch.core_extent is None:
        return "1 call"
    return f"{value(launch.core_extent)} indices split over cores"


def _buffer_bytes(program: ProgramSpec, launch: LaunchSpec, env: Mapping[str, int]) -> int:
    buffers = {b.id: b for b in program.buffers}
    total = 0
    for kind, v in launch.args:
        if kind == "buf":
            b = buffers[v]  # type: ignore[index]
            n = to_numpy(b.dtype).itemsize
            for d in b.shape:
                n *= env[d] if isinstance(d, str) else d
            total += n
    return total


def _work(launch: LaunchSpec, env: Mapping[str, int]) -> int | None:
    if launch.core_work is None:
        return None
    extent = 1 if launch.core_extent is None else compile_size(launch.core_extent)(env)
    return launch.core_work * extent


def report_call(
    name: str,
    device: str,
    program: ProgramSpec | None,
    env: Mapping[str, int],
    seconds: float,
    n_graph_ops: int,
    launch_seconds: Sequence[float] | None = None,
) -> None:
    """What ``KILN_DEBUG`` shows after each call of a compiled function (with each launch's measured time
    and rates when the device can time launches)."""
    lvl = level()
    binding = ", ".join(f"{k}={v}" for k, v in env.items())
    header = f"@{name} on {device}" + (f" ({binding})" if binding else "")
    if program is None:
        log(f"{header}: interpreted {n_graph_ops} graph ops" + (f" in {seconds * 1e6:.0f} us" if lvl >= 2 else ""))
        return
    total_work, total_bytes = 0, 0
    lines = []
    for i, launch in enumerate(program.launches):
        line = f"  {i:3d} @{launch.kernel}: {_launch_size(launch, env)}"
        if lvl >= 2:
            work, nbytes = _work(launch, env), _buffer_bytes(program, launch, env)
            total_work += work or 0
            total_bytes += nbytes
            line += f", ~{work if work is not None else '?'} ops, {nbytes} bytes"
            if launch_seconds is not None:
                t = max(launch_seconds[i], 1e-9)
                line += f", {t * 1e6:.1f} us, {(work or 0) / t / 1e9:.2f} GFLOP/s, {nbytes / t / 1e9:.2f} GB/s"
        lines.append(line)
    summary = f"{header}: {len(program.launches)} launch{'es' * (len(program.launches) != 1)}"
    if lvl >= 2:
        gflops, gbs = total_work / seconds / 1e9, total_bytes / seconds / 1e9
        summary += f" in {seconds * 1e6:.0f} us, {gflops:.2f} GFLOP/s, {gbs:.2f} GB/s"
    log("\n".join([summary, *lines]))
