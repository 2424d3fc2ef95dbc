"""IR surgery on a ``kernel.kernel`` for the opts: split a range in two, round a range up with masking, reorder
ranges. Every function keeps the kernel's meaning (up to the order floats are combined in) and leaves it in
the *normal layout* the optimizer works on: constants first, then the index ops computing range sizes (a padded
symbolic size), then the ranges in nesting order, then the rest.

A split is tinygrad's ``shift_to``: a range ``r`` of size ``N`` keeps ``N/a`` points and a new range of ``a``
points joins it; every use of ``r`` becomes ``r*a + new`` (an inner split) or ``new*(N/a) + r`` (a top split),
and a ``kernel.reduce`` over ``r`` reduces over both.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects import kernel as K
from kiln.dialects.types import bitwidth, is_bool, is_float, is_unsigned
from kiln.passes.optimize.opts import OptError
from kiln.passes.optimize.space import AxisKind, body_ops, const_size, ranges, size_multiple, size_ops, sizes_are_computable


def normalize(kernel: K.KernelOp) -> None:
    """Move the constants to the top of the block, the ops computing range sizes and the ranges right after
    them (order kept)."""
    block = kernel.body.block
    consts = [op for op in block.ops if isinstance(op, K.ConstOp)]
    rngs = ranges(kernel)
    if not sizes_are_computable(kernel):
        raise OptError("a range size must be a kernel.const, an index argument of the kernel, or add/mul/idiv of those")
    place([*consts, *size_ops(kernel), *rngs], kernel)


def place(ops: list[Operation], kernel: K.KernelOp) -> None:
    """Put ``ops`` at the start of the kernel's block, in this order."""
    block = kernel.body.block
    for op in reversed(ops):
        op.detach()
        if block.first_op is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, block.first_op)


def body_start(kernel: K.KernelOp) -> InsertPoint:
    """Just after the constants, range sizes and ranges of a kernel in normal layout."""
    last, sizes = None, set(size_ops(kernel))
    for op in kernel.body.block.ops:
        if not isinstance(op, K.ConstOp | K.RangeOp) and op not in sizes:
            break
        last = op
    return InsertPoint.after(last) if last is not None else InsertPoint.at_start(kernel.body.block)


def const(kernel: K.KernelOp, value: int | float | bool, type: Attribute) -> SSAValue:
    """A ``kernel.const`` of ``value`` at the top of the kernel (an existing one when there is one)."""
    block = kernel.body.block
    for op in block.ops:
        if isinstance(op, K.ConstOp) and op.result.type == type and _number(op) == value and not _is_neg_zero(op, value):
            return op.result
    op = K.ConstOp.from_number(value, type)
    Rewriter.insert_op(op, InsertPoint.at_start(block))
    return op.result


def _number(op: K.ConstOp) -> int | float | None:
    v = op.value
    return v.value.data if hasattr(v, "value") else None  # type: ignore[union-attr]


def _is_neg_zero(op: K.ConstOp, value: int | float | bool) -> bool:
    """-0.0 == 0.0 in Python; an identity must not pick up a negative zero constant."""
    n = _number(op)
    return isinstance(n, float) and n == 0.0 and str(n) != str(float(value))


def _insert(op: Operation, where: InsertPoint) -> SSAValue:
    Rewriter.insert_op(op, where)
    return op.results[0]


def split(kernel: K.KernelOp, r: K.RangeOp, amount: int, new_kind: AxisKind, top: bool = False) -> K.RangeOp:
    """Split ``r`` (a size divisible by ``amount``: constant, or a padded symbolic ``q * m``) in two: ``r``
    itself keeps the rest (size/amount) and a new ``amount``-sized range of ``new_kind`` is placed next to it
    (after it, or before it for a top split, constant sizes only); returns the new range. When ``amount`` is
    the whole size, ``r`` itself becomes the new kind."""
    size = const_size(r)
    assert size_multiple(r) % amount == 0 and (size is not None or not top)
    if amount == size:
        r.properties["kind"] = K.AxisKindAttr(new_kind)
        return r
    index = IndexType()
    uses = list(r.result.uses)
    r.operands[0] = const(kernel, size // amount, index) if size is not None else _divide_size(kernel, r, amount)
    new = K.RangeOp(const(kernel, amount, index), new_kind)
    if r.result.name_hint:
        new.result.name_hint = f"{r.result.name_hint}_{new_kind.value}"
    Rewriter.insert_op(new, InsertPoint.before(r) if top else InsertPoint.after(r))
    outer, inner = (new, r) if top else (r, new)
    scale = const(kernel, size // amount if top else amount, index)
    scaled = _insert(K.ALU["mul"](outer.result, scale), body_start(kernel))
    value = _insert(K.ALU["add"](scaled, inner.result), InsertPoint.after(scaled.owner))  # type: ignore[arg-type]
    for use in uses:
        user = use.operation
        if isinstance(user, K.ReduceOp) and use.index > 0:
            replaced = [x for v in user.ranges for x in ((r.result, new.result) if v is r.result else (v,))]
            user.operands = [user.value, *replaced]
        else:
            user.operands[use.index] = value
    return new


def _divide_size(kernel: K.KernelOp, r: K.RangeOp, amount: int) -> SSAValue:
    """``q * (m/amount)`` for a range of padded symbolic size ``q * m`` (just ``q`` when ``amount`` is ``m``);
    the product it replaces is erased when nothing else uses it."""
    product = r.size.owner
    assert isinstance(product, Operation)
    q = next(v for v in product.operands if not isinstance(v.owner, K.ConstOp))
    rest = size_multiple(r) // amount
    divided = q if rest == 1 else _insert(K.ALU["mul"](q, const(kernel, rest, IndexType())), InsertPoint.before(r))
    r.operands[0] = divided
    if not product.results[0].uses:
        product.detach()
        product.erase()
    return divided


def split_accumulators(kernel: K.KernelOp, r: K.RangeOp, amount: int) -> K.RangeOp:
    """Split reduce range ``r`` so each of ``amount`` lanes keeps its own partial result: every
    ``reduce kind %v over (..., r, ...)`` becomes ``reduce kind (reduce kind %v over (..., rest, ...)) over lanes``.
    The lanes are an ``unroll`` range (combined after the loop); returns it."""
    reduces = [use.operation for use in r.result.uses if isinstance(use.operation, K.ReduceOp) and use.index > 0]
    lanes = split(kernel, r, amount, AxisKind.UNROLL)
    for reduce in reduces:
        assert isinstance(reduce, K.ReduceOp)
        inner_ranges = [v for v in reduce.ranges if v is not lanes.result]
        if not inner_ranges or len(inner_ranges) == len(reduce.ranges):
            continue  # the whole range became the lanes: a plain unrolled reduce
        partial = K.ReduceOp(reduce.kind.data, reduce.value, inner_ranges)
        Rewriter.insert_op(partial, InsertPoint.before(reduce))
        reduce.operands = [partial.result, lanes.result]
    return lanes


def pad(kernel: K.KernelOp, r: K.RangeOp, amount: int) -> None:
    """Round ``r`` up to a multiple of ``amount``. The extra points are masked: stores that depend on ``r`` are
    gated by ``r < size``, and a reduce over ``r`` combines its identity there. Loads that depend on a reduce
    range are gated too; an output range is clamped instead (``min(r, size-1)`` for every use but the gate), so
    loads there read in bounds without a gate: one that does not vary inside a reduce loop would otherwise be a
    branch in that loop (8 per k in a matmul tile with padded rows, twice as slow), and its values at the extra
    points are only stored under the gate. A constant output range at least ``amount`` long shifts its last
    block back instead (``_shift_last_block``). A symbolic size ``N`` becomes ``((N + amount-1) // amount) *
    amount``, computed by index ops before the ranges."""
    size, old = const_size(r), r.size
    index = IndexType()
    if size is not None and size >= amount and r.kind.data != AxisKind.REDUCE:
        r.operands[0] = const(kernel, -(-size // amount) * amount, index)
        _shift_last_block(kernel, r, amount, size)
        return
    if size is not None:
        r.operands[0] = const(kernel, -(-size // amount) * amount, index)
    else:
        m = const(kernel, amount, index)
        bumped = _insert(K.ALU["add"](old, const(kernel, amount - 1, index)), InsertPoint.before(r))
        quotient = _insert(K.ALU["idiv"](bumped, m), InsertPoint.before(r))
        r.operands[0] = _insert(K.ALU["mul"](quotient, m), InsertPoint.before(r))
    valid = _insert(K.ALU["cmplt"](r.result, old), body_start(kernel))
    clamp = r.kind.data != AxisKind.REDUCE
    if clamp:
        _clamp(kernel, r, valid, old)
    tainted = {r.result}
    for op in list(body_ops(kernel)):
        if op is valid.owner:
            continue
        depends = any(v in tainted for v in op.operands)
        if isinstance(op, K.ReduceOp) and r.result in op.ranges:
            identity = const(kernel, _identity(op.kind.data.value, op.result.type), op.result.type)
            masked = K.ALU["where"](valid, op.value, identity)
            Rewriter.insert_op(masked, InsertPoint.before(op))
            op.operands[0] = masked.result
            continue
        if (isinstance(op, K.StoreOp) or isinstance(op, K.LoadOp) and not clamp) and depends:
            gate = valid
            if op.gate is not None:
                gate = _insert(K.ALU["and"](op.gate, valid), InsertPoint.before(op))
                op.operands[len(op.operands) - 1] = gate
            else:
                op.operands = [*op.operands, gate]
        if depends:
            tainted.update(op.results)


def _shift_last_block(kernel: K.KernelOp, r: K.RangeOp, amount: int, size: int) -> None:
    """Every use of padded output range ``r`` reads ``min(r - r % amount, size - amount) + r % amount``: each
    block of ``amount`` points is whole, the last one moved back to end at ``size - 1``, so it recomputes and
    stores again some points of the block before it (the same values: a kernel never reads its output) and no
    store needs a gate. Unlike a clamp per point, the index stays ``base + lane`` along an upcast of the block:
    loads and stores of the lanes remain vectors (a 3x3/2 max pool to 55 columns, padded to 64 and clamped,
    read every tap lane by lane: 0.53 ms against 0.09 for 56 columns; docs/performance.md, "SqueezeNet,
    session 9")."""
    index = IndexType()
    uses = list(r.result.uses)
    step = const(kernel, amount, index)
    where = body_start(kernel)
    lane = _insert(K.ALU["mod"](r.result, step), where)
    start = _insert(K.ALU["sub"](r.result, lane), InsertPoint.after(lane.owner))  # type: ignore[arg-type]
    last = const(kernel, size - amount, index)
    moved = _insert(K.ALU["min"](start, last), InsertPoint.after(start.owner))  # type: ignore[arg-type]
    shifted = _insert(K.ALU["add"](moved, lane), InsertPoint.after(moved.owner))  # type: ignore[arg-type]
    for use in uses:
        use.operation.operands[use.index] = shifted


def _clamp(kernel: K.KernelOp, r: K.RangeOp, valid: SSAValue, size: SSAValue) -> None:
    """Every use of ``r`` but the gate ``valid`` reads ``min(r, size - 1)`` (placed after the gate)."""
    uses = [u for u in r.result.uses if u.operation is not valid.owner]
    where = InsertPoint.after(valid.owner)  # type: ignore[arg-type]
    if isinstance(size.owner, K.ConstOp):
        last = const(kernel, _number(size.owner) - 1, IndexType())  # type: ignore[operator]
    else:
        last = _insert(K.ALU["sub"](size, const(kernel, 1, IndexType())), where)
        where = InsertPoint.after(last.owner)  # type: ignore[arg-type]
    clamped = _insert(K.ALU["min"](r.result, last), where)
    for use in uses:
        use.operation.operands[use.index] = clamped


def _identity(kind: str, t: Attribute) -> int | float:
    """The value ``kind`` combines from (see kernel.reduce)."""
    if kind in ("add", "mul"):
        return int(kind == "mul")
    if is_float(t):
        return float("-inf") if kind == "max" else float("inf")
    if is_bool(t) or is_unsigned(t):
        lo, hi = 0, (1 if is_bool(t) else 2 ** bitwidth(t) - 1)
    else:
        lo, hi = -(2 ** (bitwidth(t) - 1)), 2 ** (bitwidth(t) - 1) - 1
    return lo if kind == "max" else hi


def reorder(kernel: K.KernelOp, order: list[K.RangeOp]) -> None:
    """Give the ranges ``order`` as their nesting order."""
    consts = [op for op in kernel.body.block.ops if isinstance(op, K.ConstOp)]
    place([*consts, *order], kernel)


def drop_dead_constants(kernel: K.KernelOp) -> None:
    for op in list(kernel.body.block.ops):
        if isinstance(op, K.ConstOp) and not op.result.uses:
            op.detach()
            op.erase()

