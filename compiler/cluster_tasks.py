"""What runs on a cluster node: ``NodeWorker``, a plain class that ``cluster_pool`` starts as a Ray actor (so
importing this module imports no ``ray``). Its methods return small picklable results and never raise for a
candidate's own failure: a raised exception means the call itself was lost."""

from __future__ import annotations

import socket

from kiln.compiler import measure


def node_name() -> str:
    """This node as the tuning database records it: host name and the start of Ray's node id."""
    import ray

    return f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:8]}"


def warm_up(device: str) -> None:
    """Do once what every process's first compile for ``device`` does: import the passes (building the
    pipeline), the emitter and the toolchain. On a busy machine that is seconds, which a per-task worker process
    would pay on its first candidate, inside the candidate's time budget."""
    from kiln.compiler import registry
    from kiln.compiler.driver import LOWERINGS, device_pipeline
    from kiln.runtime.devices import get_device

    device_pipeline(device)
    registry.make_context()
    registry.get_all_targets()[LOWERINGS[device][1]]()
    get_device(device)


class NodeWorker:
    """A kiln process on a node, kept while the asking process uses the cluster: one per CPU, warmed up when
    it starts. Only workers holding the node's ``kiln-timing`` slot are asked to ``time``."""

    def __init__(self, device: str):
        self.device = device
        self._timer: measure.Timer | None = None
        self._arrays: tuple[tuple[object, ...], list] = ((), [])
        warm_up(device)

    def ready(self) -> None:
        """Answers once the worker has started (and warmed up)."""

    def compile(self, text: str) -> str | None:
        """Compile a candidate into this node's caches: the error, or None."""
        return measure.compile_candidate(self.device, text)

    def time(self, text: str, shipped: list, best: float) -> measure.Measured:
        """Load, check and time a candidate (compiled on this node before: a cache hit; else compiled here).
        ``shipped`` holds the object refs of the kernel's inputs and reference outputs (or None)."""
        if self._timer is None:  # 64 MiB of flush buffer, only in the workers that time
            self._timer = measure.Timer()
        inputs, reference = self._fetch(shipped)
        result = measure.time_candidate(self.device, text, inputs, reference, self._timer, best)
        result.worker = node_name()
        return result

    def _fetch(self, shipped: list) -> list:
        """The arrays behind ``shipped``, fetched once per kernel: the refs come inside a list, so Ray does not
        resolve them for every call (2-3 ms a call measured at load 27)."""
        import ray

        key = tuple(ref and ref.hex() for ref in shipped)
        if self._arrays[0] != key:
            self._arrays = key, [ref and ray.get(ref) for ref in shipped]
        return self._arrays[1]

    def compile_program(self, text: str, function: str) -> tuple[str, bytes, str] | str:
        """Compile one function of a program: (the compile cache's key digest, the whole cache entry with its
        integrity header, this node), or the error message."""
        from kiln.compiler.driver import compile_entry
        from kiln.support.errors import KilnError

        try:
            return (*compile_entry(text, function, self.device), node_name())
        except KilnError as e:
            return str(e)
