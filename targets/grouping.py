"""Cutting a program's functions, in order, into units of about equal size: the LLVM and C toolchains compile a
big program as several units side by side, one compiler per core."""

from __future__ import annotations


def consecutive_groups(sizes: list[int], count: int) -> list[list[int]]:
    """The indices of ``sizes`` in order, cut into at most ``count`` runs of about equal total size (a run ends
    where its last item would put more than half of itself past the run's share)."""
    if not sizes:
        return []
    share = sum(sizes) / max(1, count)
    groups: list[list[int]] = [[]]
    done = 0
    for i, size in enumerate(sizes):
        if groups[-1] and done + size / 2 > share * len(groups):
            groups.append([])
        groups[-1].append(i)
        done += size
    return groups
