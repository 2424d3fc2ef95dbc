"""The warp-wide tensor-core multiply of ``uop.wmma`` (m16n8k16, PTX ``mma.sync``) for the uop interpreter.

Each of a warp's 32 threads holds fragments of A, B and C; where each element sits is worded here as the PTX
ISA's tables say ("Matrix Fragments for mma.m16n8k16 with floating point type"), independently of the
linearizer's own table, so the interpreter checks the linearizer instead of repeating it.
"""

from __future__ import annotations

import numpy as np


def mma_m16n8k16_fragments(lane: int) -> dict[str, list[tuple[int, int]]]:
    """(row, col) of each element a0..a7, b0..b3, c0..c3 that ``lane`` holds for PTX ``mma.m16n8k16`` with
    .f16/.bf16 A/B and .f32 C/D."""
    group, thread_in_group = lane >> 2, lane % 4
    a = [(group + 8 * (i in (2, 3, 6, 7)), thread_in_group * 2 + (i & 0x1) + 8 * (i >= 4)) for i in range(8)]
    b = [(thread_in_group * 2 + (i & 0x1) + 8 * (i >= 2), group) for i in range(4)]
    c = [(group + 8 * (i >= 2), thread_in_group * 2 + (i & 0x1)) for i in range(4)]
    return {"a": a, "b": b, "c": c}


def warp_mma(fragments: list[tuple[int, list]]) -> list[np.ndarray]:
    """``uop.wmma`` m16n8k16 for one warp: (lane, [a, b, c]) of its 32 threads -> each thread's D fragment.
    Products and sums in f32 (the tensor core's accumulator)."""
    if sorted(lane for lane, _ in fragments) != list(range(32)):
        raise ValueError("uop.wmma needs all 32 lanes of the warp")
    a, b, c = np.zeros((16, 16), np.float32), np.zeros((16, 8), np.float32), np.zeros((16, 8), np.float32)
    for lane, values in fragments:
        for matrix, name, value in zip((a, b, c), "abc", values):
            for (row, col), x in zip(mma_m16n8k16_fragments(lane)[name], np.asarray(value, np.float32)):
                matrix[row, col] = x
    d = a @ b + c
    return [np.array([d[pos] for pos in mma_m16n8k16_fragments(lane)["c"]], np.float32) for lane, _ in fragments]
