"""kiln.runtime.arena.pack: buffers live at once never share bytes, offsets are aligned, and reuse is real."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.runtime.arena import pack


def test_disjoint_lifetimes_share_one_place() -> None:
    offsets, total = pack([100, 100, 100], [(0, 1), (2, 3), (4, 5)], 64)
    assert offsets == [0, 0, 0] and total == 100


def test_small_buffers_fit_where_a_large_one_was() -> None:
    """Slots sized by their largest buffer hold one buffer at a time: 1000 + 300 + 300 here; the arena puts the
    three small buffers, live together after the large one, inside its 1000 bytes."""
    offsets, total = pack([1000, 300, 300, 300], [(0, 0), (1, 1), (1, 1), (1, 1)], 64)
    assert total == 1000 and sorted(offsets[1:]) == [0, 320, 640]


@pytest.mark.parametrize("seed", range(20))
def test_random_plans_never_overlap_live_buffers(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    sizes = [int(s) for s in rng.integers(0, 5000, n)]
    starts = rng.integers(0, 30, n)
    lifetimes = [(int(s), int(s + rng.integers(0, 6))) for s in starts]
    offsets, total = pack(sizes, lifetimes, 64)
    assert all(o % 64 == 0 for o in offsets)
    assert total == max(o + s for o, s in zip(offsets, sizes))
    for i in range(n):
        for j in range(i):
            live_together = lifetimes[i][0] <= lifetimes[j][1] and lifetimes[j][0] <= lifetimes[i][1]
            apart = offsets[i] + sizes[i] <= offsets[j] or offsets[j] + sizes[j] <= offsets[i]
            assert not live_together or apart or 0 in (sizes[i], sizes[j]), (i, j)
    most_live = max(sum(s for s, (f, l) in zip(sizes, lifetimes) if f <= k <= l) for k in range(36))
    assert most_live <= total <= sum(sizes) + 64 * n
