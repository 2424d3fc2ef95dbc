"""Offsets of a call's intermediate buffers in one arena: buffers whose lifetimes overlap never overlap in memory.

The compiler's ``kernel-plan-memory`` gives each intermediate buffer a slot, and slots are sized by their largest
buffer, so a slot that once held a 7 MiB im2col matrix keeps 7 MiB for every small buffer after it (ResNet-50:
seven slots, 38 MiB, while at most 23 MiB are live at once). The CPU runtime instead packs the buffers into one
arena once per binding of the symbols, at their actual sizes: largest first, each at the lowest aligned offset
clear of every placed buffer whose launches overlap its own (greedy by size, as TensorFlow Lite's arena planner).
"""

from __future__ import annotations

from collections.abc import Sequence


def align_up(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def pack(sizes: Sequence[int], lifetimes: Sequence[tuple[int, int]], alignment: int) -> tuple[list[int], int]:
    """Offsets for buffers of ``sizes`` bytes live over the inclusive launch ranges ``lifetimes``, and the arena's
    size. Offsets are multiples of ``alignment``; two buffers share bytes only if their lifetimes are disjoint."""
    offsets = [0] * len(sizes)
    live: dict[int, list[int]] = {}  # launch -> the placed buffers it uses or that stay live across it
    total = 0
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], lifetimes[i])):
        first, last = lifetimes[i]
        overlapping = {j for k in range(first, last + 1) for j in live.get(k, ())}
        offset = 0
        for j in sorted(overlapping, key=offsets.__getitem__):
            if offset + sizes[i] <= offsets[j]:
                break
            offset = max(offset, align_up(offsets[j] + sizes[j], alignment))
        offsets[i] = offset
        for k in range(first, last + 1):
            live.setdefault(k, []).append(i)
        total = max(total, offset + sizes[i])
    return offsets, total
