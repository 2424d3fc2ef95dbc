"""What runs on a cluster node: plain functions that the driver wraps with ``ray.remote`` (so importing this
module imports no ``ray``). Each returns small picklable results and never raises for a candidate's own
failure: a raised exception means the task itself was lost."""

from __future__ import annotations

import functools
import socket

import numpy as np

from kiln.compiler import measure


def node_name() -> str:
    """This node as the tuning database records it: host name and the start of Ray's node id."""
    import ray

    return f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:8]}"


def compile_task(device: str, text: str) -> tuple[str | None, str]:
    """Compile a candidate into this node's caches: (the error or None, Ray's node id, for placing its
    timing on the node that holds the compiled code)."""
    import ray

    return measure.compile_candidate(device, text), ray.get_runtime_context().get_node_id()


@functools.cache
def _timer() -> measure.Timer:
    """One per worker process: its flush buffer is 64 MiB, allocated once rather than per timing."""
    return measure.Timer()


def time_task(device: str, text: str, inputs: list[np.ndarray], reference: list[np.ndarray] | None,
              best: float) -> measure.Measured:
    """Load, check and time a compiled candidate on this node (the node's ``kiln-timing`` slot is held)."""
    result = measure.time_candidate(device, text, inputs, reference, _timer(), best)
    result.worker = node_name()
    return result


def compile_program_task(device: str, text: str, function: str) -> tuple[str, bytes, str] | str:
    """Compile one function of a program for ``device``: (the compile cache's key digest, the whole cache entry
    with its integrity header, this node), or the error message."""
    from kiln.compiler.driver import compile_entry
    from kiln.support.errors import KilnError

    try:
        return (*compile_entry(text, function, device), node_name())
    except KilnError as e:
        return str(e)
