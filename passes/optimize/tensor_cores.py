"""The ``tc`` opt: a matmul-shaped reduce computed by tensor cores, a warp at a time.

A kernel matches when a ``kernel.reduce add`` of f32 combines ``cast(load A) * cast(load B)`` with A and B of
one of the tensor core's input dtypes, over a single reduce range K, where load A moves along an output axis M
that load B does not, and load B along an output axis N that load A does not. ``tc:<choice>:<shape>`` picks
the ``choice``-th such (reduce, M, N, K) in axis order and the ``shape``-th tensor core of the target.

The kernel-level rewrite splits M by the shape's m (an ``upcast`` range), N by n (``upcast``) and K by k
(``unroll``) and marks the reduce ``tensor_core = "m16n8k16"``. The marked kernel still means exactly what
it meant; the mark tells the linearizer to compute that m x n x k tile with ``uop.wmma`` spread over a warp
(the lane layout is the instruction's) instead of in one thread's registers. docs/optimizer.md gives the
contract the linearizer implements.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import StringAttr, f32
from xdsl.ir import Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.alu import AluOp
from kiln.dialects.types import dtype_name
from kiln.passes.optimize import rewrite
from kiln.passes.optimize.opts import Opt, OptError
from kiln.passes.optimize.space import AxisKind, applied, axes, const_size, kind
from kiln.capabilities.description import TargetDescription
from kiln.capabilities.tensor_cores import TensorCore, tensor_cores




@dataclass(frozen=True)
class Match:
    reduce: K.ReduceOp
    m: K.RangeOp
    n: K.RangeOp
    k: K.RangeOp
    dtype: str


def _load_of(v: SSAValue, dtypes: tuple[str, ...]) -> K.LoadOp | None:
    """``v`` as ``cast(load : T) -> f32`` with T one of ``dtypes``: the load."""
    op = v.owner
    if not isinstance(op, K.CastOp) or op.result.type != f32:
        return None
    load = op.input.owner
    return load if isinstance(load, K.LoadOp) and dtype_name(load.result.type) in dtypes else None


def _ranges_of(v: SSAValue, memo: dict[SSAValue, frozenset[SSAValue]]) -> frozenset[SSAValue]:
    """The ranges ``v`` depends on."""
    if v not in memo:
        op = v.owner
        if isinstance(op, K.RangeOp):
            memo[v] = frozenset({v})
        elif isinstance(op, Operation):
            found = frozenset().union(*(_ranges_of(o, memo) for o in op.operands))
            memo[v] = found - set(op.ranges) if isinstance(op, K.ReduceOp) else found
        else:
            memo[v] = frozenset()
    return memo[v]


def matching_tensor_cores(kernel: K.KernelOp, target: TargetDescription, core: TensorCore | None = None) -> list[Match]:
    """Every (reduce, M, N, K) of ``kernel`` that tensor core ``core`` (default: the target's first) can compute."""
    cores = tensor_cores(target)
    core = core or (cores[0] if cores else None)
    if core is None:
        return []
    memo: dict[SSAValue, frozenset[SSAValue]] = {}
    order = axes(kernel)
    found: list[Match] = []
    for reduce in (op for op in kernel.body.block.ops if isinstance(op, K.ReduceOp)):
        product = reduce.value.owner
        if reduce.kind.data != K.ReduceKind.ADD or dtype_name(reduce.result.type) != core.accumulator or len(reduce.ranges) != 1:
            continue
        if not (isinstance(product, AluOp) and product.alu_kind == "mul"):
            continue
        a, b = (_load_of(v, core.inputs) for v in product.operands)
        if a is None or b is None or a.result.type != b.result.type:
            continue
        k = reduce.ranges[0].owner
        assert isinstance(k, K.RangeOp)
        ra, rb = _ranges_of(a.result, memo), _ranges_of(b.result, memo)
        if kind(k) != AxisKind.REDUCE or (const_size(k) or 1) % core.k or k.result not in ra or k.result not in rb:
            continue
        outputs = [r for r in order if kind(r) == AxisKind.GLOBAL]
        ms = [r for r in outputs if r.result in ra - rb and (const_size(r) or 1) % core.m == 0]
        ns = [r for r in outputs if r.result in rb - ra and (const_size(r) or 1) % core.n == 0]
        found += [Match(reduce, m, n, k, dtype_name(a.result.type)) for m in ms for n in ns]
    return found


def apply_tensor_core(kernel: K.KernelOp, opt: Opt, target: TargetDescription) -> None:
    """``tc:<choice>:<shape>`` (see the module docstring); OptError (kernel unchanged) if it does not apply."""
    cores = tensor_cores(target)
    if not cores:
        raise OptError(f"target {target.name} has no tensor cores")
    assert opt.axis is not None and opt.arg is not None
    if opt.arg >= len(cores):
        raise OptError(f"target {target.name} has {len(cores)} tensor core shape(s); there is no shape {opt.arg}")
    if applied(kernel):
        raise OptError("tc must be the first opt of a kernel")
    core = cores[opt.arg]
    matches = matching_tensor_cores(kernel, target, core)
    if opt.axis >= len(matches):
        raise OptError(
            f"{len(matches)} matmul reduce(s) fit the {core.name} tensor core (needs an f32 sum of products of "
            f"{'/'.join(core.inputs)} loads over one reduce range, with M, N and K constant multiples of {core.m}, "
            f"{core.n} and {core.k}: no padding, no symbolic sizes); there is no choice {opt.axis}"
        )
    match = matches[opt.axis]
    rewrite.split(kernel, match.m, core.m, AxisKind.UPCAST)
    rewrite.split(kernel, match.n, core.n, AxisKind.UPCAST)
    rewrite.split(kernel, match.k, core.k, AxisKind.UNROLL)
    match.reduce.attributes["tensor_core"] = StringAttr(core.name)
