"""Values computed before a loop and used only after it move down past the loop, in a ``cstyle.func``.

The linearizer places an output's epilogue operands where they are first available: a convolution's bias is
loaded and broadcast before the reduce loops and added after them. LLVM rematerializes such values; gcc keeps
them in registers across the loops, where they compete with the register tile: SqueezeNet's 3x3 32->128 expand
conv (16 accumulators of 16 lanes, 8 broadcast biases held across the loop) spilled 12 vectors in its inner
loop and ran 681 us against 555 us with the biases loaded after the loop (one core, gcc 12, znver4).

So each expression that is computed before a ``cstyle.for`` of its block and first used after it moves to just
before its first user (in that block: the statement whose text or region holds the use). Where that user is a
loop whose body holds every use and the value would cross an inner loop there (the bias of a tile whose output
points are a loop of 2 around the reduce loops: SqueezeNet's 3x3 16->64 conv), it moves into that body, to be
computed once per iteration of a loop that runs a whole loop nest besides. Only values that mean the same there
move: pure expressions, and loads through a ``const`` pointer (the kernel never stores there); reads of
variables stay. Nothing that is used before or inside the next loop moves.

Since gcc allocates registers with ``-fira-region=one`` (``targets/c/toolchain.py``) its allocator spills such
values outside the loop by itself, and this pass measured neutral there (SqueezeNet 8.92 / 8.91 ms, ShuffleNet
4.59 / 4.55 ms with / without it, per-launch bests on one core; docs/performance.md "gcc's register allocation
regions, session 11"); it still keeps the loops' live ranges short for a compiler without that choice.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation

from kiln.dialects import cstyle

_PURE = tuple(t for t in cstyle.EXPRESSION_OPS if t not in (cstyle.LoadOp, cstyle.ReadOp))
"""Expressions whose value depends on their operands alone."""


def sink_past_loops(func: cstyle.FuncOp) -> None:
    """Move the values of ``func`` that cross a loop unused down to their first user (module docstring)."""
    blocks = [func.body.block]  # in pre-order, so that the reversed list has every block before its parent
    for block in blocks:
        blocks.extend(r.block for op in block.ops for r in op.regions)
    for block in reversed(blocks):  # a value's users are settled before it moves
        for op in reversed(list(block.ops)):  # users first: a chain moves as a whole
            if _movable(op):
                users = [use.operation for result in op.results for use in result.uses]
                target = _destination(users, op.next_op)
                if target is not None:
                    op.detach()
                    target_block = target.parent_block()
                    assert target_block is not None
                    target_block.insert_op_before(op, target)


def _movable(op: Operation) -> bool:
    if isinstance(op, cstyle.LoadOp):
        ptr = op.ptr.type
        return isinstance(ptr, cstyle.PtrType) and ptr.is_const
    return isinstance(op, _PURE) and not isinstance(op, cstyle.LiteralOp)


def _destination(users: list[Operation], start: Operation | None) -> Operation | None:
    """The statement before which a value used by ``users`` goes, searching from ``start`` on in its block, if
    that is past a ``cstyle.for``: the first statement that uses it, or, where that is a loop whose body holds
    every use, the place in the body where the value crosses an inner loop (computed once per iteration of a
    loop that runs a whole loop after it)."""
    if start is None or not users:
        return None
    block = start.parent_block()
    assert block is not None
    statements = {_in_block(user, block) for user in users}
    crossed = False
    statement: Operation | None = start
    while statement is not None and statement not in statements:
        crossed |= isinstance(statement, cstyle.ForOp)
        statement = statement.next_op
    if statement is None:
        return None
    if isinstance(statement, cstyle.ForOp) and len(statements) == 1 and statement not in users:
        inner = _destination(users, statement.body.block.first_op)
        if inner is not None:
            return inner
    return statement if crossed else None


def _in_block(op: Operation, block: Block) -> Operation:
    """``op``, or the ancestor of ``op`` that is a statement of ``block``."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None, "a user outside the value's block"
        op = parent
    return op
