"""Installed packages' versions, for cache keys, without importing ``importlib.metadata`` where possible.

A later process that finds its program in the disk cache still builds the key, which names xDSL's and
llvmlite's versions; ``importlib.metadata`` (and the ``email`` parser it brings) costs ~0.1 s of that process's
start. A wheel installs ``<name>-<version>.dist-info`` (PEP 427, the name normalized to lowercase with ``_``),
so the version is the folder's name; a package installed otherwise falls back to ``importlib.metadata``.
"""

from __future__ import annotations

import functools
import os
import re
import sys


@functools.cache
def package_version(name: str) -> str:
    """The version of the installed distribution ``name`` (as pip spells it), or "absent"."""
    prefix = re.sub(r"[-_.]+", "_", name).lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            if folder.endswith(".dist-info") and folder.lower().startswith(prefix):
                return folder[len(prefix):-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"
