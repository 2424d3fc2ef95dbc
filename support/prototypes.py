"""Building many xDSL ops of a few kinds without xDSL's generic op builder each time.

xDSL's generic builder (``irdl_op_init``) sorts the operands into variadic groups with ABC ``isinstance`` checks,
and the ops' constructors build and verify their property attributes: 20-30 us an op, five times what
``Operation.__init__`` itself costs. A lowering of a register tile builds thousands of ops of a few kinds (the
tile's loads, FMAs and stores, the lanes of a vector). ``OpPrototypes`` builds the first op of each kind through
its constructor and every later one from it: the same class, properties, attributes and result types, with the
new operands. Nothing about the op changes, only how it is made.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from xdsl.ir import Attribute, Operation, SSAValue

OpT = TypeVar("OpT", bound=Operation)
Settings = tuple[Hashable, ...]
"""The arguments of an op's constructor other than its operands (they pick its properties and result types)."""
_Made = tuple[tuple[Attribute, ...], dict[str, Attribute], dict[str, Attribute]]


class OpPrototypes:
    """The first op built of each kind: a class, the constructor's other arguments and the operands' types."""

    def __init__(self) -> None:
        self._built: dict[tuple[Hashable, ...], _Made] = {}

    def build(self, cls: type[OpT], operands: Sequence[SSAValue], settings: Settings, make: Callable[[], OpT]) -> OpT:
        """The op ``make()`` builds: a ``cls`` with exactly ``operands`` in that order, whose properties,
        attributes and result types depend on nothing but ``settings`` (every other argument ``make`` passes its
        constructor) and the operands' types."""
        key = (cls, settings, *[v.type for v in operands])
        made = self._built.get(key)
        if made is None:
            op = make()
            assert type(op) is cls and tuple(op.operands) == tuple(operands), f"{cls.name}: not built from its operands"
            # copies: a caller may change the op it was given (a flag set after building)
            self._built[key] = (tuple(r.type for r in op.results), dict(op.properties), dict(op.attributes))
            return op
        result_types, properties, attributes = made
        op = cls.__new__(cls)
        Operation.__init__(
            op, operands=operands, result_types=result_types, properties=properties, attributes=attributes
        )
        return op


def number_key(value: int | float) -> int | str:
    """A constant's number as a setting of ``OpPrototypes.build`` (or any cache key): an integer (bools too) as
    itself, a float as ``float.hex`` text, which keeps -0.0 apart from 0.0 (they hash and compare equal)."""
    return int(value) if isinstance(value, numbers.Integral) else float(value).hex()
