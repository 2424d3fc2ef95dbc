"""Concat in place: which realized values `convert-graph-to-kernel` stores straight into a slice of a concat's buffer.

A concat's kernel computes every piece at every element and selects (loads outside a piece masked); when the
pieces are realized anyway (`concat piece`), it is a copy, and a DenseNet dense block reads its growing concat
through one such select per layer (25 pieces at the end of block 3). Instead, a *host* concat gets one buffer,
each realized piece's kernel stores its result into the host's slice (an output view: its store index is offset
along the concat axis), and every read of the host, of a piece, or of a concat made of consecutive pieces of the
host (DenseNet's layer k reads the first k + 1 pieces) is a plain load from the host's buffer.

Hosts are chosen largest first. A concat hosts its pieces when each is a realized result of an op, or a reshape of
one (a convolution's matmul output: the same flat index), but not a function argument or result (they need
buffers of their own); when each occurs once, has a static size along the axis, is not yet hosted, and its kernel
does not read the host (a kernel never reads and writes one buffer).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Block, Operation, SSAValue

from kiln.dialects import graph as G
from kiln.dialects.types import TensorType


@dataclass(frozen=True)
class Slot:
    """Where a value lies in its host concat's buffer: from `offset` along `axis`."""

    host: SSAValue
    axis: int
    offset: int
    piece: bool = False
    """A piece of the host: its kernel stores into the slot (else a host or a view of one, only read there)."""
    via: TensorType | None = None
    """The shape of the concat's operand where the stored value is a realized value that operand reshapes (a
    convolution's matmul output, N x (H*W), concatenated as N x H x W): its flat index is the operand's."""
    valid: tuple[int, ...] | None = None
    """Where the operand reshapes a leading slice of the stored value (the conv's points padded to a multiple
    of its panel width, 196 -> 208): that slice's shape; the rest is not stored."""


def plan_slots(body: Block, realized: dict[SSAValue, str]) -> dict[SSAValue, Slot]:
    """The slot of every hosted piece, of every concat read as consecutive pieces of a host, and of each host
    itself (offset 0)."""
    concats = [op for op in body.ops if isinstance(op, G.ConcatOp)]
    leaves = {c: _leaves(c, realized) for c in concats}
    concats.sort(key=lambda c: -len(leaves[c]))  # stable: program order among equals
    slots: dict[SSAValue, Slot] = {}
    for c in concats:
        axis = _axis(c)
        if c.res in slots:
            continue
        if _can_host(c, leaves[c], axis, realized, slots):
            slots[c.res] = Slot(c.res, axis, 0)
            for x, offset in leaves[c]:
                if isinstance(x.owner, G.ConcatOp) and x not in realized:  # a nested concat: a view of the host
                    slots[x] = Slot(c.res, axis, offset)
                    continue
                stored = _stored(x, realized)
                if stored is x:
                    slots[x] = Slot(c.res, axis, offset, piece=True)
                else:
                    slots[x] = Slot(c.res, axis, offset)
                    slots[stored] = Slot(c.res, axis, offset, piece=True, via=x.type, valid=_valid(x, stored))  # type: ignore[arg-type]
        elif (view := _consecutive(c, axis, slots)) is not None:
            slots[c.res] = view
    return slots


def _axis(c: G.ConcatOp) -> int:
    return int(c.axis.value.data) % c.res.type.rank  # type: ignore[attr-defined]


def _leaves(c: G.ConcatOp, realized: dict[SSAValue, str]) -> list[tuple[SSAValue, int]]:
    """The pieces of `c` with their offsets along its axis, unrealized concats along the same axis among them
    opened (DenseNet's block is concat(concat(x, n1), n2)...); each opened concat is listed too, before its
    pieces."""
    axis = _axis(c)
    out: list[tuple[SSAValue, int]] = []
    stack: list[tuple[SSAValue, int]] = [(c.res, 0)]
    while stack:
        v, base = stack.pop()
        owner = v.owner
        if isinstance(owner, G.ConcatOp) and _axis(owner) == axis and (owner is c or v not in realized):
            if owner is not c:
                out.append((v, base))
            offset, inner = base, []
            for x in owner.operands:
                inner.append((x, offset))
                offset += x.type.shape[axis]  # type: ignore[attr-defined]
            stack += reversed(inner)
        else:
            out.append((v, base))
    return out


def _can_host(c: G.ConcatOp, leaves: list[tuple[SSAValue, int]], axis: int, realized: dict[SSAValue, str],
              slots: dict[SSAValue, Slot]) -> bool:
    pieces = [x for x, _ in leaves if not isinstance(x.owner, G.ConcatOp) or x in realized]
    if len(pieces) < 2 or len(set(pieces)) != len(pieces) or any(x in slots for x, _ in leaves):
        return False
    stored = [_stored(x, realized) for x in pieces]
    if any(v is None or v in slots for v in stored) or len(set(stored)) != len(stored):
        return False
    for x in pieces:
        if not isinstance(x.type.shape[axis], int) or x.type.shape[axis] == 0:  # type: ignore[attr-defined]
            return False
    return not any(_reads_any(v, {*pieces, *stored}, realized) for v in stored)  # type: ignore[misc]


def _stored(x: SSAValue, realized: dict[SSAValue, str]) -> SSAValue | None:
    """The realized value whose kernel would store piece `x`: `x` itself, or the value `x` reshapes (row-major,
    so the same flat index), possibly a leading slice of it used only there; None when neither is a realized
    result of an op that is not a function result."""
    if isinstance(x.owner, G.ReshapeOp) and x not in realized:
        x = x.owner.operands[0]
        if isinstance(x.owner, G.ShrinkOp) and x not in realized and _leading(x.owner) and x.has_one_use():
            x = x.owner.operands[0]
            if not x.has_one_use():  # another reader of the whole value would miss the part not stored
                return None
    if not isinstance(x.owner, Operation) or realized.get(x) in (None, "output"):
        return None
    return x


def _leading(op: G.ShrinkOp) -> bool:
    """Does `op` slice from 0 with step 1 on every axis?"""
    step = [int(v) for v in op.step.get_values()] if op.step is not None else []
    return all(int(v) == 0 for v in op.start.get_values()) and all(v == 1 for v in step)


def _valid(x: SSAValue, stored: SSAValue) -> tuple[int, ...] | None:
    """The shape of the leading slice of `stored` that piece `x` reshapes, when it is a slice."""
    inner = x.owner.operands[0] if isinstance(x.owner, G.ReshapeOp) else x  # type: ignore[union-attr]
    return tuple(inner.type.shape) if inner is not stored else None  # type: ignore[attr-defined]


def _consecutive(c: G.ConcatOp, axis: int, slots: dict[SSAValue, Slot]) -> Slot | None:
    """The slot of `c` when its pieces lie one after the other in one host along the same axis."""
    first = slots.get(c.operands[0])
    if first is None or first.axis != axis:
        return None
    offset = first.offset
    for x in c.operands:
        s = slots.get(x)
        if s is None or s.host is not first.host or s.axis != axis or s.offset != offset or x is s.host:
            return None
        offset += x.type.shape[axis]  # type: ignore[attr-defined]
    return Slot(first.host, axis, first.offset)


def _reads_any(root: SSAValue, values: set[SSAValue], realized: dict[SSAValue, str]) -> bool:
    """Does the kernel of `root` load one of `values` (its unrealized producers inlined)?"""
    stack, seen = [root], {root}
    while stack:
        v = stack.pop()
        owner = v.owner
        if not isinstance(owner, Operation):
            continue
        for o in owner.operands:
            if o in values:
                return True
            if o not in seen and (o not in realized or isinstance(o.owner, G.ConcatOp)):  # a realized view reads the host
                seen.add(o)
                stack.append(o)
    return False
