"""Recursive descents without the Python stack: a walk written as generators, driven by one loop.

A graph walk that recurses once per op fails with `RecursionError` on a chain of a few hundred ops (a
300-op elementwise chain, ResNet-50's residual spine). Written as a generator, each recursive call becomes
``x = yield child`` where ``child`` is the callee's generator object; `run` keeps the frames on an explicit
list and sends each finished callee's return value back to its caller. Unlike ``yield from`` (whose every
resumption passes through each delegating frame, nesting C frames as deep as the recursion), the depth here
costs a list entry, and calls still run in exactly the order the recursive version made them.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

R = TypeVar("R")

Walk = Generator[Any, Any, R]
"""A step of a walk: yields the generators of its calls, receives their results, returns its own."""


def run(walk: Walk[R]) -> R:
    """Drive `walk` and every call it yields to completion; its return value."""
    frames: list[Generator[Any, Any, Any]] = [walk]
    result: Any = None
    while True:
        try:
            call = frames[-1].send(result)
        except StopIteration as done:
            frames.pop()
            if not frames:
                return done.value
            result = done.value
            continue
        frames.append(call)
        result = None
