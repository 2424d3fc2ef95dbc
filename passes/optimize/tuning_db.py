"""The persistent tuning database: the opts a search found for a kernel, so the next compile searches nothing.

Entries live in kiln's disk cache (``kiln.support.cache``, namespace ``tuning``; ``KILN_CACHE_DIR`` moves it,
``KILN_NO_CACHE=1`` turns it off). The key is the kernel's *normalized structure* (its text with the kernel
renamed, SSA names and the bookkeeping attributes ``opts``/``inputs`` dropped, so the same computation in
another program finds the same entry), the target description, the host CPU for CPU targets (a tuning is only
true for the machine it was timed on), the search options that shape the result, and kiln's version. The
value is JSON: ``{"opts": ["upcast:1:32", ...], "seconds": 1.2e-3, "baseline": 4.5e-3, "worker": "local",
"target": "cpu-llvm", "hardware": "kiln-hw-..."}``: where the winner was measured (a cluster node, or ``local``)
and the *hardware class* of the key (``hardware_class``), which lets ``export_entries``/``import_entries`` move
entries between machines and refuse those of another target description.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
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
    worker: str = "local"
    """Where the search measured the winner: ``local`` or a cluster node (the winner is re-timed locally, and
    ``seconds`` is that local time)."""


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


def machine(target: TargetDescription) -> str:
    """The host CPU for CPU targets (a tuning holds for the machine it was timed on), else empty."""
    return "|".join(host_cpu()) if target.cpu_cores is not None else ""


def hardware_class(target: TargetDescription) -> str:
    """A short name for the target description and machine of the key: machines with the same one can use each
    other's tunings, and a cluster node advertising it (a Ray resource) may compile and time for this target."""
    digest = hashlib.sha256((describe_target(target) + "\0" + machine(target)).encode()).hexdigest()
    return f"kiln-hw-{target.name}-{digest[:12]}"


def key(kernel: K.KernelOp, target: TargetDescription, options: str) -> tuple[str, ...]:
    return (structure(kernel), describe_target(target), machine(target), options, kiln_version())


def lookup(kernel: K.KernelOp, target: TargetDescription, options: str) -> Tuning | None:
    """The stored tuning of ``kernel`` (None when absent or unreadable)."""
    raw = cache.get(NAMESPACE, key(kernel, target, options))
    if raw is None:
        return None
    try:
        entry = json.loads(raw)
        return Tuning(
            parse_opts(",".join(entry["opts"])), float(entry["seconds"]), float(entry["baseline"]),
            str(entry.get("worker", "local")),
        )
    except (ValueError, KeyError, TypeError, OptError):
        return None


def store(kernel: K.KernelOp, target: TargetDescription, options: str, tuning: Tuning) -> None:
    entry = {
        "opts": [str(o) for o in tuning.opts], "seconds": tuning.seconds, "baseline": tuning.baseline,
        "worker": tuning.worker, "target": target.name, "hardware": hardware_class(target),
    }
    cache.put(NAMESPACE, key(kernel, target, options), json.dumps(entry).encode())


def export_entries() -> list[dict[str, object]]:
    """Every readable entry that names its hardware class, with its key digest (``key``), for another machine
    of the same class (``import_entries``)."""
    out = []
    for digest, payload in cache.payloads(NAMESPACE):
        try:
            entry = json.loads(payload)
        except ValueError:
            continue
        if isinstance(entry, dict) and "hardware" in entry and "target" in entry:
            out.append({"key": digest, **entry})
    return out


@dataclass
class ImportReport:
    added: int = 0
    replaced: int = 0
    kept: int = 0
    """Entries already here and at least as fast."""
    refused: int = 0
    """Entries for another target description or machine, or unreadable ones."""


def import_entries(entries: Iterable[object], hardware: dict[str, str]) -> ImportReport:
    """Merge exported entries into this machine's database: an entry is accepted only when its hardware class
    is this machine's for its target (``hardware``: target name -> ``hardware_class``); of two entries for the
    same key the faster one stays."""
    report = ImportReport()
    existing = {digest: _seconds(payload) for digest, payload in cache.payloads(NAMESPACE)}
    for raw in entries:
        checked = _readable(raw)
        if checked is None or hardware.get(str(checked[1]["target"])) != checked[1].get("hardware"):
            report.refused += 1
            continue
        digest, entry = checked
        if digest in existing and existing[digest] <= float(entry["seconds"]):
            report.kept += 1
            continue
        if not cache.put_entry(NAMESPACE, digest, cache.wrap(json.dumps(entry).encode())):
            report.refused += 1
            continue
        report.replaced += digest in existing
        report.added += digest not in existing
        existing[digest] = float(entry["seconds"])
    return report


def _readable(raw: object) -> tuple[str, dict[str, object]] | None:
    """(key digest, entry) of an exported entry whose fields parse, else None."""
    if not isinstance(raw, dict) or not isinstance(raw.get("key"), str) or not isinstance(raw.get("opts"), list):
        return None
    entry = {k: v for k, v in raw.items() if k != "key"}
    try:
        parse_opts(",".join(map(str, raw["opts"])))
        float(raw["seconds"]), float(raw["baseline"]), str(raw["target"])
    except (ValueError, KeyError, TypeError, OptError):
        return None
    return raw["key"], entry


def _seconds(payload: bytes) -> float:
    """The measured time of a stored entry (infinite when unreadable, so any import replaces it)."""
    try:
        return float(json.loads(payload)["seconds"])
    except (ValueError, KeyError, TypeError):
        return float("inf")
