"""Applying an opt to a kernel: the legality checks, then the rewrite, then the record in ``opts``.

Every check runs before the kernel is touched, so an illegal opt raises ``OptError`` (with the reason) and
leaves the kernel as it was; the heuristic and the search rely on that to try opts freely.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from kiln.dialects import kernel as K
from kiln.dialects.types import declared_dims, itemsize
from kiln.passes.optimize import rewrite
from kiln.passes.optimize.opts import Opt, OptError, OptOp
from kiln.passes.optimize.space import (
    AxisKind,
    applied,
    axes,
    const_size,
    expansion,
    kind,
    ranges,
    record,
    reduce_axes,
    size_bound,
    size_multiple,
    symbol_names,
)
from kiln.capabilities.description import TargetDescription

MAX_EXPANSION = 1024
"""Upper bound on the copies of the body one thread makes (product of upcast and unroll sizes): it bounds
the size of the generated code and the compile time."""
MAX_UNROLL = 32
"""Largest single unroll of a reduce loop into one accumulator (longer chains only add code)."""
MAX_PAD_FACTOR = 4
"""``padto`` may at most multiply the size of a range by this; a symbolic size is judged at its declared upper
bound (below it the padding is still at most ``m - 1`` points)."""

Handler = Callable[[K.KernelOp, Opt, TargetDescription], None]


def describe_axes(kernel: K.KernelOp) -> str:
    """``0: global 64, 1: global 48, 2: reduce 32`` (the axis numbers opts use)."""
    parts = [f"{n}: {kind(r).value} {const_size(r) or _symbol(r)}" for n, r in enumerate(axes(kernel))]
    return ", ".join(parts) or "no ranges"


def _symbol(r: K.RangeOp) -> str:
    return f"%{r.size.name_hint}" if r.size.name_hint else "a symbolic size"


def apply_opt(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    """Apply ``opt`` to ``kernel`` for ``target`` and record it; OptError (kernel unchanged) if illegal."""
    rewrite.normalize(kernel)
    _HANDLERS[opt.op](kernel, opt, target)
    rewrite.drop_dead_constants(kernel)
    record(kernel, str(opt))


def apply_opts(kernel: K.KernelOp, opts: Sequence[Opt], target: TargetDescription) -> None:
    """Apply ``opts`` in order; an illegal one raises OptError naming it and its position."""
    for n, opt in enumerate(opts):
        try:
            apply_opt(kernel, opt, target)
        except OptError as e:
            raise OptError(f"cannot apply opt #{n} '{opt}' to @{kernel.sym_name.data}: {e}") from None


# ---------------------------------------------------------------------------------------------
# shared checks


def _check(ok: bool, reason: str) -> None:
    if not ok:
        raise OptError(reason)


def _axis(kernel: K.KernelOp, opt: Opt, kinds: frozenset[AxisKind]) -> K.RangeOp:
    found = axes(kernel)
    assert opt.axis is not None
    _check(opt.axis < len(found), f"axis {opt.axis} does not exist (axes: {describe_axes(kernel)})")
    r = found[opt.axis]
    _check(kind(r) in kinds, f"axis {opt.axis} is a {kind(r).value} range; {opt.op.value} applies to {_names(kinds)} ranges")
    return r


def _reduce_axis(kernel: K.KernelOp, opt: Opt) -> K.RangeOp:
    found = reduce_axes(kernel)
    assert opt.axis is not None
    _check(opt.axis < len(found), f"{opt.op.value} counts reduce ranges and there are {len(found)} (axes: {describe_axes(kernel)})")
    return found[opt.axis]


def _names(kinds: frozenset[AxisKind]) -> str:
    return "/".join(sorted(k.value for k in kinds))


def _amount(r: K.RangeOp, opt: Opt, top: bool = False) -> int:
    """The split amount (``0`` = the whole range); the range needs a constant size it divides, or for an inner
    split a symbolic size padded to a multiple of it."""
    size = const_size(r)
    assert opt.arg is not None
    if size is None:
        symbolic = f"the range has a symbolic size; {opt.op.value} needs a constant size"
        _check(not top and opt.arg != 0, symbolic)
        _check(size_multiple(r) % opt.arg == 0, f"{symbolic} or one padded to a multiple of {opt.arg} (padto first)")
    amount = opt.arg or size
    assert amount is not None
    _check(amount >= 2, f"amount {amount} does not split anything (the range has size {size})")
    _check(size is None or size % amount == 0, f"amount {amount} does not divide the range's size {size} (padto first)")
    return amount


def _check_expansion(kernel: K.KernelOp, amount: int) -> None:
    total = expansion(kernel) * amount
    _check(total <= MAX_EXPANSION, f"the body would be copied {total} times per thread (at most {MAX_EXPANSION})")


def _uses_locals(kernel: K.KernelOp, target: TargetDescription, what: str) -> None:
    _check(target.has_local, f"{what} needs workgroup-local memory, which target {target.name} does not have")
    _check("nolocals" not in (applied(kernel) or []), f"{what} after nolocals")


def _check_workgroup(kernel: K.KernelOp, after: K.RangeOp, amount: int, target: TargetDescription) -> None:
    """The workgroup (local and group_reduce ranges; the last is x) with a new one of ``amount`` placed after
    ``after`` must fit the target's limits."""
    sizes = []
    for r in ranges(kernel):
        if kind(r) in (AxisKind.LOCAL, AxisKind.GROUP_REDUCE):
            sizes.append(const_size(r) or 1)
        if r is after:
            sizes.append(amount)
    limits = target.max_workgroup_dims or (1, 1, 1)
    _check(len(sizes) <= 3, "a workgroup has at most 3 dimensions")
    total, most = math.prod(sizes), target.max_workgroup_size or 1
    _check(total <= most, f"a workgroup of {total} threads exceeds the target's {most}")
    for axis, (size, limit) in enumerate(zip(reversed(sizes), limits)):
        _check(size <= limit, f"workgroup dimension {'xyz'[axis]} of {size} exceeds the target's {limit}")


# ---------------------------------------------------------------------------------------------
# the opts


def _upcast(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    r = _axis(kernel, opt, frozenset({AxisKind.GLOBAL, AxisKind.LOCAL, AxisKind.LOOP, AxisKind.REDUCE}))
    amount = _amount(r, opt)
    _check_expansion(kernel, amount)
    if kind(r) == AxisKind.REDUCE:
        rewrite.split_accumulators(kernel, r, amount)
    else:
        rewrite.split(kernel, r, amount, AxisKind.UPCAST)


def _unroll(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    r = _reduce_axis(kernel, opt)
    amount = _amount(r, opt)
    _check(amount <= MAX_UNROLL, f"unroll by at most {MAX_UNROLL} (got {amount}); upcast a reduce axis for partial sums")
    _check_expansion(kernel, amount)
    rewrite.split(kernel, r, amount, AxisKind.UNROLL)


def _local(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    _uses_locals(kernel, target, "local")
    r = _axis(kernel, opt, frozenset({AxisKind.GLOBAL, AxisKind.LOOP}))
    amount = _amount(r, opt)
    _check_workgroup(kernel, r, amount, target)
    rewrite.split(kernel, r, amount, AxisKind.LOCAL)


def _group(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    _uses_locals(kernel, target, opt.op.value)
    r = _reduce_axis(kernel, opt)
    amount = _amount(r, opt, top=opt.op == OptOp.GROUPTOP)
    reduces = [u.operation for u in r.result.uses if isinstance(u.operation, K.ReduceOp) and u.index > 0]
    _check(len(reduces) == 1, "a grouped range must be reduced by exactly one kernel.reduce")
    (reduce,) = reduces
    assert isinstance(reduce, K.ReduceOp)
    _check("tensor_core" not in reduce.attributes, "cannot group a reduce that runs on tensor cores")
    _check(not _feeds_reduce(reduce), "cannot group a reduce that is computed inside another reduce's loop")
    _check_workgroup(kernel, r, amount, target)
    threads = amount * math.prod(const_size(x) or 1 for x in ranges(kernel) if kind(x) in (AxisKind.LOCAL, AxisKind.GROUP_REDUCE))
    lanes = math.prod(const_size(x) or 1 for x in ranges(kernel) if kind(x) == AxisKind.UPCAST)
    needed = threads * lanes * itemsize(reduce.result.type)
    limit = target.local_memory_bytes or 0
    _check(needed <= limit, f"the partial results need {needed} bytes of local memory; target {target.name} has {limit}")
    rewrite.split(kernel, r, amount, AxisKind.GROUP_REDUCE, top=opt.op == OptOp.GROUPTOP)


def _feeds_reduce(reduce: K.ReduceOp) -> bool:
    """Whether the reduce's result flows into the value of another kernel.reduce."""
    stack, seen = [reduce.result], set()
    while stack:
        v = stack.pop()
        for use in v.uses:
            user = use.operation
            if isinstance(user, K.ReduceOp) and use.index == 0:
                return True
            if user not in seen:
                seen.add(user)
                stack.extend(user.results)
    return False


def _thread(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    _check(target.has_threads, f"target {target.name} does not split launches across CPU cores")
    _check(all(kind(r) != AxisKind.THREAD for r in ranges(kernel)), "the kernel already has a thread range")
    r = _axis(kernel, opt, frozenset({AxisKind.GLOBAL}))
    amount = _amount(r, opt, top=True)
    rewrite.split(kernel, r, amount, AxisKind.THREAD, top=True)


def _padto(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    r = _axis(kernel, opt, frozenset({AxisKind.GLOBAL, AxisKind.LOOP, AxisKind.REDUCE}))
    size = const_size(r)
    assert opt.arg is not None
    _check(opt.arg >= 2, "padto needs a multiple of at least 2")
    what = f"size {size}" if size is not None else "padded symbolic size"
    _check(size_multiple(r) % opt.arg != 0, f"the {what} is a multiple of {opt.arg} already")
    at = ""
    if size is None:
        try:
            size, at = size_bound(r, declared_dims(kernel), symbol_names(kernel)), " (the declared upper bound)"
        except (KeyError, IndexError):
            raise OptError("padto of a symbolic size needs the kernel's symbols and their declared bounds (graph.dims)") from None
    padded = -(-size // opt.arg) * opt.arg
    _check(padded <= MAX_PAD_FACTOR * size, f"padding {size}{at} to {padded} multiplies the work by more than {MAX_PAD_FACTOR}")
    rewrite.pad(kernel, r, opt.arg)


def _swap(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    a = _axis(kernel, opt, frozenset({AxisKind.GLOBAL}))
    assert opt.axis is not None and opt.arg is not None
    _check(opt.arg > opt.axis, "swap takes the smaller axis first (swap:0:1)")
    b = _axis(kernel, Opt(opt.op, opt.arg, None), frozenset({AxisKind.GLOBAL}))
    order = ranges(kernel)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = b, a
    rewrite.reorder(kernel, order)


def _nolocals(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    _uses_locals(kernel, target, "nolocals")
    _check(all(kind(r) not in (AxisKind.LOCAL, AxisKind.GROUP_REDUCE) for r in ranges(kernel)), "the kernel has local ranges already")


def _tc(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    from kiln.passes.optimize.tensor_cores import apply_tensor_core

    apply_tensor_core(kernel, opt, target)


_HANDLERS: dict[OptOp, Handler] = {
    OptOp.UPCAST: _upcast,
    OptOp.UNROLL: _unroll,
    OptOp.LOCAL: _local,
    OptOp.GROUP: _group,
    OptOp.GROUPTOP: _group,
    OptOp.THREAD: _thread,
    OptOp.PADTO: _padto,
    OptOp.SWAP: _swap,
    OptOp.NOLOCALS: _nolocals,
    OptOp.TC: _tc,
}
