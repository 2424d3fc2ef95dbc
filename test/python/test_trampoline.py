"""`kiln.support.trampoline.run`: a walk written as generators runs in the recursive order, at any depth."""

from __future__ import annotations

import sys

from kiln.support.trampoline import Walk, run


def test_calls_run_in_recursive_order_and_return_values() -> None:
    order: list[str] = []

    def node(name: str, children: dict[str, list[str]]) -> Walk[int]:
        order.append(name)
        total = 1
        for c in children.get(name, []):
            total += yield node(c, children)
        return total

    tree = {"a": ["b", "c"], "b": ["d"], "c": []}
    assert run(node("a", tree)) == 4
    assert order == ["a", "b", "d", "c"]


def test_depth_beyond_the_recursion_limit() -> None:
    def down(n: int) -> Walk[int]:
        return 0 if n == 0 else 1 + (yield down(n - 1))

    depth = 20 * sys.getrecursionlimit()
    assert run(down(depth)) == depth
