"""The reference interpreter of the ``uop`` dialect: runs ``uop.kernel`` ops, one micro-op at a time, as
docs/dialects/uop.md defines them, over numpy values.

A kernel runs the way its launch attributes say (``launch``): on a CPU mapping its ``core_extent`` range is cut
into slices, one per "thread"; on a GPU mapping every workgroup of the grid runs, its threads in lockstep from
barrier to barrier sharing local memory (``run_workgroup``), and a ``uop.wmma`` multiplies each warp's fragments
together. ``run_module`` runs a whole lowered module: its schedule allocates the buffers and launches the
kernels. Values are Python ints for ``index``, numpy scalars for scalars, numpy arrays for vectors; buffers are
flat numpy arrays, written in place.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import SymbolTable

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp, element_type, is_vector, lanes
from kiln.dialects.types import to_numpy
from kiln.interpreters.alu import INDEX_OPS, alu_semantics
from kiln.interpreters.graph import InterpretError, find_function
from kiln.interpreters.graph_ops import bitcast
from kiln.interpreters.schedule import run_schedule
from kiln.interpreters.wmma import warp_mma
from kiln.support.symbolic import evaluate_size


Step = Callable[[dict, list, Mapping[str, int]], None]
"""One straight-line op, prepared: (values so far, the kernel's arguments, this thread's specials) -> None."""


def _np_type(t: Attribute) -> np.dtype:
    return to_numpy(element_type(t))


def _converter(t: Attribute) -> Callable[[object], object]:
    """How the interpreter holds a value of type ``t``: int for index, numpy scalars or arrays else."""
    if isinstance(t, IndexType):
        return int  # type: ignore[return-value]
    dtype = _np_type(t)
    return (lambda x: np.asarray(x, dtype=dtype)) if is_vector(t) else dtype.type


def _in_bounds(op: Operation, idx: int, n: int, buf: np.ndarray) -> None:
    if not (0 <= idx and idx + n <= len(buf)):
        raise InterpretError(f"{op.name} out of bounds: elements {idx}..{idx + n - 1} of a buffer of {len(buf)}")


def _load(op: U.LoadOp) -> Step:
    out, as_value, n = op.result, _converter(op.result.type), lanes(op.result.type)
    buffer, index, *gate = op.operands
    zero = as_value(np.zeros(n) if n > 1 else 0)

    def step(env: dict, args: list, specials: Mapping[str, int]) -> None:
        if gate and not env[gate[0]]:
            env[out] = zero
            return
        buf, idx = env[buffer], env[index]
        _in_bounds(op, idx, n, buf)
        env[out] = as_value(buf[idx : idx + n] if n > 1 else buf[idx])

    return step


def _store(op: U.StoreOp) -> Step:
    buffer, index, value, *gate = op.operands
    n = lanes(value.type)

    def step(env: dict, args: list, specials: Mapping[str, int]) -> None:
        if not gate or env[gate[0]]:
            buf, idx = env[buffer], env[index]
            _in_bounds(op, idx, n, buf)
            buf[idx : idx + n] = env[value]

    return step


def _acc_set(op: U.AccSetOp) -> Step:
    acc, value = op.operands

    def step(env: dict, args: list, specials: Mapping[str, int]) -> None:
        env[acc][0] = env[value]

    return step


def _computed(op: Operation) -> Callable[[list, list, Mapping[str, int]], object] | None:
    """For an op with one result: (operand values, arguments, specials) -> its value; None if not such an op."""
    if isinstance(op, U.RangeOp):
        return lambda get, args, specials: get[0]
    if isinstance(op, U.ParamOp):
        n = op.index.value.data
        return lambda get, args, specials: args[n]
    if isinstance(op, U.SpecialOp):
        name = op.special.data
        return lambda get, args, specials: specials[name]
    if isinstance(op, U.DefineAccOp):
        return lambda get, args, specials: [get[0]]
    if isinstance(op, U.AccGetOp):
        return lambda get, args, specials: get[0][0]
    if not op.results:
        return None
    as_value = _converter(op.results[0].type)
    if isinstance(op, U.ConstOp):
        attr = op.value
        value = as_value(attr.get_values() if isinstance(attr, DenseIntOrFPElementsAttr) else attr.value.data)  # type: ignore[union-attr]
        return lambda get, args, specials: value
    if isinstance(op, AluOp):
        if op.alu_kind in INDEX_OPS and all(isinstance(v.type, IndexType) for v in op.operands):
            exact = INDEX_OPS[op.alu_kind]
            return lambda get, args, specials: as_value(exact(*get))
        fn = alu_semantics(op.alu_kind)
        return lambda get, args, specials: as_value(fn(*get))
    if isinstance(op, U.CastOp):
        dtype = _np_type(op.results[0].type)
        return lambda get, args, specials: as_value(np.asarray(get[0]).astype(dtype))
    if isinstance(op, U.BitcastOp):
        dtype = _np_type(op.results[0].type)
        return lambda get, args, specials: as_value(bitcast(np.asarray(get[0]), dtype))
    if isinstance(op, U.VectorizeOp):
        return lambda get, args, specials: as_value(get)
    if isinstance(op, U.ExtractOp):
        lane = op.lane.value.data
        return lambda get, args, specials: as_value(get[0][lane])
    if isinstance(op, U.ReduceLanesOp):
        combine = alu_semantics(op.reduce_kind)
        return lambda get, args, specials: as_value(U.pairwise_lanes(get[0], combine))
    return None


def _step(op: Operation) -> Step | None:
    """``op`` prepared for execution; None for the ops ``_thread`` handles itself (brackets, barriers, wmma,
    local memory)."""
    if isinstance(op, U.LoadOp):
        return _load(op)
    if isinstance(op, U.StoreOp):
        return _store(op)
    if isinstance(op, U.AccSetOp):
        return _acc_set(op)
    if isinstance(op, U.IfOp | U.EndIfOp | U.EndOp | U.BarrierOp | U.WmmaOp | U.DefineLocalOp):
        return None
    if isinstance(op, U.PrefetchOp):  # a cache hint: nothing to compute
        return lambda env, args, specials: None
    compute = _computed(op)
    if compute is None:
        raise InterpretError(f"the uop interpreter cannot run '{op.name}'")
    ins, out = tuple(op.operands), op.results[0]

    def step(env: dict, args: list, specials: Mapping[str, int]) -> None:
        env[out] = compute([env[v] for v in ins], args, specials)

    return step


@dataclass
class _Plan:
    """A kernel prepared once per launch: its ops in program order, each op's step, and where brackets close."""

    ops: list[Operation]
    steps: list[Step | None]
    position: dict[Operation, int]
    closing: dict[int, int]

    @staticmethod
    def of(kernel: U.UopKernelOp) -> _Plan:
        ops = list(kernel.body.block.ops)
        closing: dict[int, int] = {}
        open_at: list[int] = []
        for n, op in enumerate(ops):
            if isinstance(op, U.RangeOp | U.IfOp):
                open_at.append(n)
            elif isinstance(op, U.EndOp | U.EndIfOp):
                closing[open_at.pop()] = n
        return _Plan(ops, [_step(op) for op in ops], {op: n for n, op in enumerate(ops)}, closing)


def _run_alone(plan: _Plan, args: list, specials: Mapping[str, int]) -> None:
    """Execute the kernel once (one thread, no barriers) on ``args``."""
    for op, _ in _thread(plan, args, specials, {}):
        raise InterpretError(f"{op.name} in a kernel run by a single thread")


def _thread(plan: _Plan, args: list, specials: Mapping[str, int], local: dict) -> Iterator[tuple[Operation, list]]:
    """One thread of the kernel: yields (op, operand values) at every ``uop.barrier`` and ``uop.wmma`` (ops the
    workgroup executes together; ``send`` gives a wmma its result) and returns at the end. ``local`` holds
    the workgroup's local memory (``uop.define_local`` op -> array), shared by the threads of a workgroup."""
    ops, steps, closing = plan.ops, plan.steps, plan.closing
    env: dict[SSAValue, object] = {}
    pc = 0
    with np.errstate(all="ignore"):
        while pc < len(ops):
            op, step = ops[pc], steps[pc]
            if step is not None:
                step(env, args, specials)
                if isinstance(op, U.RangeOp) and env[op.lo] >= env[op.hi]:  # type: ignore[operator]
                    pc = closing[pc] + 1
                    continue
            elif isinstance(op, U.IfOp):
                if not env[op.cond]:
                    pc = closing[pc] + 1
                    continue
            elif isinstance(op, U.EndOp):
                rng = op.range.owner
                env[op.range] = env[op.range] + 1  # type: ignore[operator]
                if env[op.range] < env[rng.hi]:  # type: ignore[union-attr,operator]
                    pc = plan.position[rng] + 1  # type: ignore[index]
                    continue
            elif isinstance(op, U.BarrierOp):
                yield op, []
            elif isinstance(op, U.WmmaOp):
                env[op.result] = yield op, [env[v] for v in op.operands]
            elif isinstance(op, U.DefineLocalOp):
                if op not in local:  # never written: NaN (or the lowest integer) shows up in any result that reads it
                    dtype = _np_type(op.result.type.element_type)  # type: ignore[attr-defined]
                    fill = np.nan if dtype.kind == "f" else np.iinfo(dtype).min if dtype.kind in "iu" else True
                    local[op] = np.full(op.size.value.data, fill, dtype)
                env[op.results[0]] = local[op]
            pc += 1


def _run_workgroup(plan: _Plan, args: list, ids: list[dict[str, int]]) -> None:
    """Run the threads of one workgroup (their specials ``ids``) in lockstep from barrier to barrier; every
    thread must reach the same barriers and ``uop.wmma`` ops (uniform control flow) and finish together.
    Between two stops the last thread runs first and thread 0 last, so thread 0 (which stores what a workgroup
    combined) sees any local memory another thread overwrote too early: a missing barrier changes the result.
    At a ``uop.wmma`` each warp (32 consecutive ``local_id.x``) multiplies its lanes' fragments."""
    local: dict = {}
    order = list(reversed(ids))
    threads = [_thread(plan, args, specials, local) for specials in order]
    replies: list = [None] * len(threads)
    while True:
        stops = [_resume(t, r) for t, r in zip(threads, replies)]
        ops = [s[0] if s else None for s in stops]
        if len(set(map(id, ops))) != 1:
            raise InterpretError(f"threads of one workgroup stopped at different ops: {ops}")
        if ops[0] is None:
            return
        if isinstance(ops[0], U.WmmaOp):
            warps: dict[tuple, list[int]] = {}
            for n, t in enumerate(order):
                x, y, z = (t.get(f"local_id.{axis}", 0) for axis in "xyz")
                warps.setdefault((x // 32, y, z), []).append(n)
            for members in warps.values():
                fragments = [(order[n].get("local_id.x", 0) % 32, stops[n][1]) for n in members]  # type: ignore[index]
                for n, d in zip(members, warp_mma(fragments)):
                    replies[n] = d


def _resume(t: Iterator, reply: object) -> tuple | None:
    try:
        return t.send(reply)  # type: ignore[attr-defined]
    except StopIteration:
        return None


def launch(
    kernel: U.UopKernelOp,
    args: list,
    symbols: Mapping[str, int] | None = None,
    threads: int = 3,
    grid: Sequence[int] | None = None,
) -> None:
    """Run ``kernel`` the way its launch attributes say: CPU slices of ``core_extent`` over ``threads``
    threads, or every workgroup and thread of a GPU launch (over ``grid`` workgroups instead of its
    ``global_size`` when given, to run workgroups beyond the kernel's ranges)."""
    symbols, plan = symbols or {}, _Plan.of(kernel)
    attrs = kernel.attributes
    if "core_extent" in attrs:
        extent = evaluate_size(attrs["core_extent"].data, symbols)  # type: ignore[attr-defined]
        cuts = sorted({0, extent, *(extent * t // threads for t in range(1, threads))})
        for start, end in zip(cuts, cuts[1:]):
            _run_alone(plan, args, {"core_start": start, "core_end": end})
        return
    grid = grid or [evaluate_size(s.data, symbols) for s in attrs["global_size"].data]  # type: ignore[attr-defined]
    block = [n.value.data for n in attrs["local_size"].data]  # type: ignore[attr-defined]
    for g in itertools.product(*(range(n) for n in reversed(grid))):
        groups = {f"group_id.{a}": v for a, v in zip("zyx", g)}
        in_group = itertools.product(*(range(n) for n in reversed(block)))
        ids = [groups | {f"local_id.{a}": v for a, v in zip("zyx", t)} for t in in_group]
        _run_workgroup(plan, args, ids)


def _launch_uop(callee: Operation, args: list, symbols: Mapping[str, int]) -> None:
    if not isinstance(callee, U.UopKernelOp):
        raise InterpretError(f"the uop interpreter launches uop.kernel ops, not '{callee.name}'")
    launch(callee, args, symbols)


def run_module(
    module: ModuleOp, function_name: str, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run the schedule ``function_name`` of a module whose kernels are ``uop.kernel`` ops."""
    return run_schedule(module, function_name, inputs, dims, _launch_uop)


def estimated_work(module: ModuleOp, function_name: str, symbols: Mapping[str, int]) -> int:
    """The ALU ops one run of schedule ``function_name`` executes in its CPU-mapped ``uop.kernel`` launches, by
    the linearizer's own estimate (``core_extent`` times ``core_work``): whether this interpreter is quick enough."""
    total = 0
    for launch in find_function(module, function_name).body.block.ops:
        k = SymbolTable.lookup_symbol(module, launch.callee) if isinstance(launch, K.LaunchOp) else None
        if isinstance(k, U.UopKernelOp) and "core_extent" in k.attributes and "core_work" in k.attributes:
            total += evaluate_size(k.attributes["core_extent"].data, symbols) * k.attributes["core_work"].value.data  # type: ignore[attr-defined]
    return total
