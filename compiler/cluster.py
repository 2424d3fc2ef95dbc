"""Where kiln finds a Ray cluster and how cluster nodes say what hardware they are.

A cluster is configured by an address (a pass option, a ``kiln-tune --cluster`` flag, or ``$KILN_RAY_ADDRESS``):
``auto`` (the cluster this machine belongs to), ``host:port`` (its head's GCS port) or ``ray://host:port`` (Ray
client). Without one, nothing here imports ``ray``: the local search and compile are unchanged.

A node may compile and time candidates for a target only if it advertises that target's *hardware class*
(``tuning_db.hardware_class``: the target description and, for CPU targets, the host CPU) as a Ray custom
resource, and a ``kiln-timing`` resource of 1 so that no two timings share the node. ``node_resources`` gives
the ``ray start --resources`` JSON; ``kiln-tune --node-resources`` prints it on the node itself.
"""

from __future__ import annotations

import os
import socket
from typing import Any

from kiln.capabilities.description import TargetDescription
from kiln.passes.optimize.tuning_db import hardware_class
from kiln.support.errors import KilnError

ADDRESS_VARIABLE = "KILN_RAY_ADDRESS"
TIMING_RESOURCE = "kiln-timing"
"""One per node: a timing task holds it, so timings never run next to each other on one machine."""
PROBE_TIMEOUT = 5.0
"""Seconds to wait for a cluster's head to accept a connection."""
SHARE = 0.001
"""The amount of the hardware-class resource a task asks for: any number of tasks fit on a node that has it;
CPUs (one per compile) and the timing resource are what limit them."""


def address(option: str = "") -> str | None:
    """The cluster to use: the option, else ``$KILN_RAY_ADDRESS``, else None (this machine alone)."""
    return option or os.environ.get(ADDRESS_VARIABLE) or None


def node_resources(target: TargetDescription, cpus: int | None = None) -> dict[str, float]:
    """The custom resources a node running ``target``'s hardware offers kiln (for ``ray start --resources``)."""
    return {hardware_class(target): float(cpus or os.cpu_count() or 1), TIMING_RESOURCE: 1.0}


def connect(where: str) -> Any:
    """The ``ray`` module, connected to the cluster at ``where`` (an existing connection is reused). A missing
    ``ray`` or an unreachable cluster is a ``KilnError`` that says what to do."""
    try:
        import ray
    except ImportError:
        raise KilnError(
            f"a Ray cluster was requested ({where}) but ray is not installed: pip install 'kiln[distributed]'"
        ) from None
    if ray.is_initialized():
        return ray
    _probe(where)
    try:
        ray.init(address=where, logging_level="ERROR", log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise KilnError(f"cannot connect to the Ray cluster at '{where}': {str(e).splitlines()[0]}") from None
    return ray


def _probe(where: str) -> None:
    """Fail in seconds when nothing listens at a ``host:port`` address (Ray itself waits minutes for a GCS)."""
    host, _, port = where.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms: Ray resolves them
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_TIMEOUT).close()
    except OSError as e:
        raise KilnError(f"cannot connect to the Ray cluster at '{where}': {e.strerror or e}") from None


def capable_nodes(ray: Any, target: TargetDescription) -> list[str]:
    """The live nodes that advertise ``target``'s hardware class (node ids)."""
    wanted = hardware_class(target)
    return [n["NodeID"] for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(wanted, 0) > 0]
