"""The persistent tuning database: the opts a search found for a kernel, so the next compile searches nothing.

Entries live in kiln's disk cache (``kiln.support.cache``, namespace ``tuning``; ``KILN_CACHE_DIR`` moves it,
``KILN_NO_CACHE=1`` turns it off). The key is the kernel's *normalized structure* (its text with the kernel
renamed, SSA names and the bookkeeping attributes ``opts``/``inputs`` dropped, so the same computation in
another program finds the same entry), the target description, the host CPU for CPU targets (a tuning is only
true for the machine it was timed on), the search options that shape the result, and kiln's version. The
value is JSON: ``{"opts": ["upcast:1:32", ...], "seconds": 1.2e-3, "baseline": 4.5e-3}``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from importlib import metadata

from kiln.dialects import kernel as K
from kiln.passes.optimize.opts import Opt, OptError, parse_opts
from kiln.support import cache
from kiln.capabilities.description import TargetDescription, host_cpu

NAMESPACE = "tuning"
_DROPPED_ATTRIBUTES = ("opts", "inputs")


@dataclass(frozen=True)
class Tuning:
    opts: list[Opt]
    seconds: float
    baseline: float


def structure(kernel: K.KernelOp) -> str:
    """The kernel's text with everything that does not change the generated code removed."""
    clone = kernel.clone()
    clone.properties["sym_name"] = type(clone.sym_name)("kernel")
    for name in _DROPPED_ATTRIBUTES:
        clone.attributes.pop(name, None)
    for arg in clone.args:
        arg.name_hint = None
    for op in clone.body.block.ops:
        for r in op.results:
            r.name_hint = None
    return str(clone)


def kiln_version() -> str:
    try:
        return metadata.version("kiln")
    except metadata.PackageNotFoundError:
        return "unknown"


def describe_target(target: TargetDescription) -> str:
    """The target description as canonical JSON (sets sorted, also those in ``native_dtypes``: their repr order
    changes between processes)."""
    return json.dumps(asdict(target), sort_keys=True, default=sorted)


def key(kernel: K.KernelOp, target: TargetDescription, options: str) -> tuple[str, ...]:
    machine = "|".join(host_cpu()) if target.cpu_cores is not None else ""
    return (structure(kernel), describe_target(target), machine, options, kiln_version())


def lookup(kernel: K.KernelOp, target: TargetDescription, options: str) -> Tuning | None:
    """The stored tuning of ``kernel`` (None when absent or unreadable)."""
    raw = cache.get(NAMESPACE, key(kernel, target, options))
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
        return Tuning(parse_opts(",".join(entry["opts"])), float(entry["seconds"]), float(entry["baseline"]))
    except (ValueError, KeyError, TypeError, OptError):
        return None


def store(kernel: K.KernelOp, target: TargetDescription, options: str, tuning: Tuning) -> None:
    entry = {"opts": [str(o) for o in tuning.opts], "seconds": tuning.seconds, "baseline": tuning.baseline}
    cache.put(NAMESPACE, key(kernel, target, options), json.dumps(entry).encode())
