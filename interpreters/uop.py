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
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp, element_type, is_vector, lanes
from kiln.dialects.types import to_numpy
from kiln.interpreters.alu import alu_semantics
from kiln.interpreters.graph import InterpretError
from kiln.interpreters.graph_ops import bitcast
from kiln.interpreters.schedule import run_schedule
from kiln.interpreters.wmma import warp_mma
from kiln.support.symexpr import evaluate


def _np_type(t: Attribute) -> np.dtype:
    return to_numpy(element_type(t))


def _value(x: object, t: Attribute) -> object:
    """``x`` as the interpreter represents a value of type ``t``: int for index, numpy scalars or arrays else."""
    if isinstance(t, IndexType):
        return int(x)  # type: ignore[call-overload]
    return np.asarray(x, dtype=_np_type(t)) if is_vector(t) else _np_type(t).type(x)


def run_kernel(kernel: U.UopKernelOp, args: list, specials: Mapping[str, int] | None = None) -> None:
    """Execute ``kernel`` once (one thread, no barriers) on ``args``: numpy arrays for pointer params (written in
    place), ints for index params."""
    for op, _ in thread(kernel, args, specials or {}, {}):
        raise InterpretError(f"{op.name} in a kernel run by a single thread")


def _brackets(ops: Sequence[Operation]) -> dict[int, int]:
    """Position of each ``uop.range``/``uop.if`` -> position of the ``uop.end``/``uop.endif`` that closes it."""
    closing: dict[int, int] = {}
    open_at: list[int] = []
    for n, op in enumerate(ops):
        if isinstance(op, U.RangeOp | U.IfOp):
            open_at.append(n)
        elif isinstance(op, U.EndOp | U.EndIfOp):
            closing[open_at.pop()] = n
    return closing


def thread(
    kernel: U.UopKernelOp, args: list, specials: Mapping[str, int], local: dict
) -> Iterator[tuple[Operation, list]]:
    """One thread of ``kernel``: yields (op, operand values) at every ``uop.barrier`` and ``uop.wmma`` (ops the
    workgroup executes together; ``send`` gives a wmma its result) and returns at the end. ``local`` holds
    the workgroup's local memory (``uop.define_local`` op -> array), shared by the threads of a workgroup."""
    ops = list(kernel.body.block.ops)
    position = {op: n for n, op in enumerate(ops)}
    closing = _brackets(ops)
    env: dict[SSAValue, object] = {}
    pc = 0
    with np.errstate(all="ignore"):
        while pc < len(ops):
            op = ops[pc]
            if isinstance(op, U.RangeOp) and env[op.lo] >= env[op.hi]:  # type: ignore[operator]
                pc = closing[pc] + 1
                continue
            if isinstance(op, U.IfOp) and not env[op.cond]:
                pc = closing[pc] + 1
                continue
            if isinstance(op, U.EndOp):
                rng = op.range.owner
                env[op.range] = env[op.range] + 1  # type: ignore[operator]
                if env[op.range] < env[rng.hi]:  # type: ignore[union-attr,operator]
                    pc = position[rng] + 1  # type: ignore[index]
                    continue
            if isinstance(op, U.BarrierOp):
                yield op, []
            elif isinstance(op, U.WmmaOp):
                env[op.result] = yield op, [env[v] for v in op.operands]
            elif isinstance(op, U.DefineLocalOp):
                if op not in local:  # never written: NaN (or the lowest integer) shows up in any result that reads it
                    dtype = _np_type(op.result.type.element_type)  # type: ignore[attr-defined]
                    fill = np.nan if dtype.kind == "f" else np.iinfo(dtype).min if dtype.kind in "iu" else True
                    local[op] = np.full(op.size.value.data, fill, dtype)
                env[op.results[0]] = local[op]
            else:
                _execute(op, env, args, specials)
            pc += 1


def run_workgroup(kernel: U.UopKernelOp, args: list, ids: list[dict[str, int]]) -> None:
    """Run the threads of one workgroup (their specials ``ids``) in lockstep from barrier to barrier; every
    thread must reach the same barriers and ``uop.wmma`` ops (uniform control flow) and finish together.
    Between two stops the last thread runs first and thread 0 last, so thread 0 (which stores what a workgroup
    combined) sees any local memory another thread overwrote too early: a missing barrier changes the result.
    At a ``uop.wmma`` each warp (32 consecutive ``local_id.x``) multiplies its lanes' fragments."""
    local: dict = {}
    order = list(reversed(ids))
    threads = [thread(kernel, args, specials, local) for specials in order]
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


def _in_bounds(op: Operation, idx: int, n: int, buf: np.ndarray) -> None:
    if not (0 <= idx and idx + n <= len(buf)):
        raise InterpretError(f"{op.name} out of bounds: elements {idx}..{idx + n - 1} of a buffer of {len(buf)}")


def _execute(op: Operation, env: dict, args: list, specials: Mapping[str, int]) -> None:
    """One straight-line op (everything but brackets, barriers, wmma and local memory)."""
    get = [env.get(v) for v in op.operands]
    t = op.results[0].type if op.results else None
    if isinstance(op, U.RangeOp):
        out = get[0]
    elif isinstance(op, U.ParamOp):
        out = args[op.index.value.data]
    elif isinstance(op, U.SpecialOp):
        out = specials[op.special.data]
    elif isinstance(op, U.ConstOp):
        value = op.value
        out = _value(value.get_values() if isinstance(value, DenseIntOrFPElementsAttr) else value.value.data, t)  # type: ignore[union-attr,arg-type]
    elif isinstance(op, AluOp):
        out = _value(alu_semantics(op.alu_kind)(*get), t)  # type: ignore[arg-type]
    elif isinstance(op, U.CastOp):
        out = _value(np.asarray(get[0]).astype(_np_type(t)), t)  # type: ignore[arg-type]
    elif isinstance(op, U.BitcastOp):
        out = _value(bitcast(np.asarray(get[0]), _np_type(t)), t)  # type: ignore[arg-type]
    elif isinstance(op, U.LoadOp):
        buf, idx, *gate = get
        n = lanes(t)  # type: ignore[arg-type]
        if gate and not gate[0]:
            out = _value(np.zeros(n), t) if n > 1 else _value(0, t)  # type: ignore[arg-type]
        else:
            _in_bounds(op, idx, n, buf)  # type: ignore[arg-type]
            out = _value(buf[idx : idx + n], t) if n > 1 else _value(buf[idx], t)  # type: ignore[index,arg-type]
    elif isinstance(op, U.StoreOp):
        buf, idx, value, *gate = get
        if not gate or gate[0]:
            n = lanes(op.value.type)
            _in_bounds(op, idx, n, buf)  # type: ignore[arg-type]
            buf[idx : idx + n] = value  # type: ignore[index]
        return
    elif isinstance(op, U.DefineAccOp):
        out = [get[0]]
    elif isinstance(op, U.AccGetOp):
        out = get[0][0]  # type: ignore[index]
    elif isinstance(op, U.AccSetOp):
        get[0][0] = get[1]  # type: ignore[index]
        return
    elif isinstance(op, U.VectorizeOp):
        out = _value(get, t)  # type: ignore[arg-type]
    elif isinstance(op, U.ExtractOp):
        out = _value(get[0][op.lane.value.data], t)  # type: ignore[index,arg-type]
    elif isinstance(op, U.IfOp | U.EndIfOp | U.EndOp):
        return
    else:
        raise InterpretError(f"the uop interpreter cannot run '{op.name}'")
    env[op.results[0]] = out


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
    symbols = symbols or {}
    attrs = kernel.attributes
    if "core_extent" in attrs:
        extent = evaluate(attrs["core_extent"].data, symbols)  # type: ignore[attr-defined]
        cuts = sorted({0, extent, *(extent * t // threads for t in range(1, threads))})
        for start, end in zip(cuts, cuts[1:]):
            run_kernel(kernel, args, {"core_start": start, "core_end": end})
        return
    grid = grid or [evaluate(s.data, symbols) for s in attrs["global_size"].data]  # type: ignore[attr-defined]
    block = [n.value.data for n in attrs["local_size"].data]  # type: ignore[attr-defined]
    for g in itertools.product(*(range(n) for n in reversed(grid))):
        groups = {f"group_id.{a}": v for a, v in zip("zyx", g)}
        in_group = itertools.product(*(range(n) for n in reversed(block)))
        ids = [groups | {f"local_id.{a}": v for a, v in zip("zyx", t)} for t in in_group]
        run_workgroup(kernel, args, ids)


def _launch_uop(callee: Operation, args: list, symbols: Mapping[str, int]) -> None:
    if not isinstance(callee, U.UopKernelOp):
        raise InterpretError(f"the uop interpreter launches uop.kernel ops, not '{callee.name}'")
    launch(callee, args, symbols)


def run_module(
    module: ModuleOp, function_name: str, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run the schedule ``function_name`` of a module whose kernels are ``uop.kernel`` ops."""
    return run_schedule(module, function_name, inputs, dims, _launch_uop)
