"""The pass-statistics hook: bumps inside collecting() are counted, outside they are dropped."""

from kiln.support.statistics import Statistic, collecting, removed

FORMED = Statistic("kernels-formed", "Number of kernel.kernel ops formed")


def test_bumps_are_counted_only_while_collecting() -> None:
    FORMED.bump(5)
    with collecting() as counts:
        FORMED.bump()
        FORMED.bump(2)
        with collecting() as inner:
            FORMED.bump(10)
    assert counts == {FORMED: 3} and inner == {FORMED: 10}


def test_removed_counts_ops_gone_as_a_multiset() -> None:
    assert removed(["uop.exp", "uop.exp", "uop.add"], ["uop.exp2", "uop.mul", "uop.add"]) == 2
    assert removed(["a"], ["a", "b"]) == 0
