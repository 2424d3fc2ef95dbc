"""convert-kernel-to-uop: the structure of linearized kernels, and their meaning.

Meaning is checked by running the ``uop.kernel`` with a small reference evaluator (``run_kernel``, below: the
uop semantics of docs/dialects/uop.md over numpy values) against numpy, on the CPU mapping split across
"threads" and on the GPU mappings by running every workgroup of the launch, its threads in lockstep from
barrier to barrier with shared local memory (``run_workgroup``; test_group_reduce.py uses it too).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp, element_type, is_vector, lanes
from kiln.dialects.types import BufferType, numel, to_numpy
from kiln.lowering.kernel_to_uop import ConvertKernelToUop
from kiln.support.symbolic import c_div
from kiln.passes.uop_simplify import UopSimplify
from kiln.compiler.registry import make_context
from kiln.support.symbolic import evaluate_size

# ---------------------------------------------------------------------------------------------
# a reference evaluator for uop kernels


def _np_type(t) -> np.dtype:
    return to_numpy(element_type(t))


def _value(x, t):
    """``x`` as the evaluator represents a value of type ``t``: int for index, numpy scalars or arrays else."""
    if isinstance(t, IndexType):
        return int(x)
    return np.asarray(x, dtype=_np_type(t)) if is_vector(t) else _np_type(t).type(x)


def _is_float(a) -> bool:
    return np.asarray(a).dtype.kind == "f"


def _c_div(a, b):
    if isinstance(a, int):
        return c_div(a, b)
    q = a // b  # floor; C truncates: one more where the signs differ and it was not exact
    return np.where((a - q * b != 0) & ((a < 0) != (b < 0)), q + 1, q)


def _shift(a, b, left: bool):
    """kiln's shifts: by an amount outside [0, width) the result is 0 (-1 for a negative signed ``shr``)."""
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    width = a_arr.dtype.itemsize * 8
    inside = (b_arr >= 0) & (b_arr < width)
    amount = np.where(inside, b_arr, 0).astype(a_arr.dtype)
    shifted = np.left_shift(a_arr, amount) if left else np.right_shift(a_arr, amount)
    beyond = 0 if left else np.where(a_arr < 0, -1, 0)
    return np.where(inside, shifted, beyond)


ALU = {
    "neg": lambda x: -x,
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "recip": lambda x: 1 / x,
    "trunc": np.trunc,
    "floor": np.floor,
    "ceil": np.ceil,
    "abs": abs,
    "sign": np.sign,
    "tanh": np.tanh,
    "erf": np.vectorize(math.erf),
    "not": lambda x: np.logical_not(x) if np.asarray(x).dtype == np.bool_ else np.invert(x),
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "idiv": lambda a, b: np.trunc(a / b) if _is_float(a) else _c_div(a, b),
    "mod": lambda a, b: np.fmod(a, b) if _is_float(a) else a - b * _c_div(a, b),
    "max": np.maximum,
    "min": np.minimum,
    "pow": np.power,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: _shift(a, b, True),
    "shr": lambda a, b: _shift(a, b, False),
    "cmplt": lambda a, b: a < b,
    "cmple": lambda a, b: a <= b,
    "cmpeq": lambda a, b: a == b,
    "cmpne": lambda a, b: a != b,
    "where": lambda c, a, b: np.where(c, a, b),
    "fma": lambda a, b, c: a * b + c,
}


def run_kernel(kernel: U.UopKernelOp, args: list, specials: dict[str, int] | None = None) -> None:
    """Execute ``kernel`` once (one thread, no barriers) on ``args``: numpy arrays for pointer params (written in
    place), ints for index params."""
    for op, _ in thread(kernel, args, specials or {}, {}):
        raise AssertionError(f"{op.name} in a kernel run by a single thread")


def mma_m16n8k16_fragments(lane: int) -> dict[str, list[tuple[int, int]]]:
    """(row, col) of each element a0..a7, b0..b3, c0..c3 that ``lane`` holds for PTX ``mma.m16n8k16`` with
    .f16/.bf16 A/B and .f32 C/D, worded as the PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 with
    floating point type"), independently of the linearizer's own table."""
    group, thread_in_group = lane >> 2, lane % 4
    a = [(group + 8 * (i in (2, 3, 6, 7)), thread_in_group * 2 + (i & 0x1) + 8 * (i >= 4)) for i in range(8)]
    b = [(thread_in_group * 2 + (i & 0x1) + 8 * (i >= 2), group) for i in range(4)]
    c = [(group + 8 * (i >= 2), thread_in_group * 2 + (i & 0x1)) for i in range(4)]
    return {"a": a, "b": b, "c": c}


def warp_mma(fragments: list[tuple[int, list]]) -> list[np.ndarray]:
    """``uop.wmma`` m16n8k16 for one warp: (lane, [a, b, c]) of its 32 threads -> each thread's D fragment.
    Products and sums in f32 (the tensor core's accumulator)."""
    assert sorted(lane for lane, _ in fragments) == list(range(32)), "uop.wmma needs all 32 lanes of the warp"
    a, b, c = np.zeros((16, 16), np.float32), np.zeros((16, 8), np.float32), np.zeros((16, 8), np.float32)
    for lane, values in fragments:
        for matrix, name, value in zip((a, b, c), "abc", values):
            for (row, col), x in zip(mma_m16n8k16_fragments(lane)[name], np.asarray(value, np.float32)):
                matrix[row, col] = x
    d = a @ b + c
    return [np.array([d[pos] for pos in mma_m16n8k16_fragments(lane)["c"]], np.float32) for lane, _ in fragments]


def thread(kernel: U.UopKernelOp, args: list, specials: dict[str, int], local: dict) -> Iterator[tuple[Operation, list]]:
    """One thread of ``kernel``: yields (op, operand values) at every ``uop.barrier`` and ``uop.wmma`` (ops the
    workgroup executes together; ``send`` gives a wmma its result) and returns at the end. ``local`` holds
    the workgroup's local memory (``uop.define_local`` op -> array), shared by the threads of a workgroup."""
    ops = list(kernel.body.block.ops)
    position = {op: n for n, op in enumerate(ops)}
    closing: dict[int, int] = {}
    open_at: list[int] = []
    for n, op in enumerate(ops):
        if isinstance(op, U.RangeOp | U.IfOp):
            open_at.append(n)
        elif isinstance(op, U.EndOp | U.EndIfOp):
            closing[open_at.pop()] = n
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
        assert len(set(map(id, ops))) == 1, f"threads of one workgroup stopped at different ops: {ops}"
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


def _execute(op: Operation, env: dict, args: list, specials: dict[str, int]) -> None:
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
        if isinstance(value, DenseIntOrFPElementsAttr):
            out = _value(value.get_values(), t)
        else:
            out = _value(value.value.data, t)  # type: ignore[union-attr]
    elif isinstance(op, AluOp):
        out = _value(ALU[op.alu_kind](*get), t)
    elif isinstance(op, U.CastOp):
        out = _value(np.asarray(get[0]).astype(_np_type(t)), t)
    elif isinstance(op, U.LoadOp):
        buf, idx, *gate = get
        n = lanes(t)
        if gate and not gate[0]:
            out = _value(np.zeros(n), t) if n > 1 else _value(0, t)
        else:
            assert 0 <= idx and idx + n <= len(buf), f"load out of bounds: {idx}+{n} of {len(buf)}"
            out = _value(buf[idx : idx + n], t) if n > 1 else _value(buf[idx], t)
    elif isinstance(op, U.StoreOp):
        buf, idx, value, *gate = get
        if not gate or gate[0]:
            n = lanes(op.value.type)
            assert 0 <= idx and idx + n <= len(buf), f"store out of bounds: {idx}+{n} of {len(buf)}"
            buf[idx : idx + n] = value
        return
    elif isinstance(op, U.DefineAccOp):
        out = [get[0]]
    elif isinstance(op, U.AccGetOp):
        out = get[0][0]
    elif isinstance(op, U.AccSetOp):
        get[0][0] = get[1]
        return
    elif isinstance(op, U.VectorizeOp):
        out = _value(get, t)
    elif isinstance(op, U.ExtractOp):
        out = _value(get[0][op.lane.value.data], t)
    elif isinstance(op, U.IfOp | U.EndIfOp | U.EndOp):
        return
    else:
        raise NotImplementedError(op.name)
    env[op.results[0]] = out


def launch(
    kernel: U.UopKernelOp,
    args: list,
    symbols: dict[str, int] | None = None,
    threads: int = 3,
    grid: Sequence[int] | None = None,
) -> None:
    """Run ``kernel`` the way its launch attributes say: CPU slices of ``core_extent`` over ``threads``
    threads, or every workgroup and thread of a GPU launch (over ``grid`` workgroups instead of its
    ``global_size`` when given, to run workgroups beyond the kernel's ranges)."""
    symbols = symbols or {}
    attrs = kernel.attributes
    if "core_extent" in attrs:
        extent = evaluate_size(attrs["core_extent"].data, symbols)  # type: ignore[union-attr]
        cuts = sorted({0, extent, *(extent * t // threads for t in range(1, threads))})
        for start, end in zip(cuts, cuts[1:]):
            run_kernel(kernel, args, {"core_start": start, "core_end": end})
        return
    grid = grid or [evaluate_size(s.data, symbols) for s in attrs["global_size"].data]  # type: ignore[union-attr]
    block = [n.value.data for n in attrs["local_size"].data]  # type: ignore[union-attr]
    for g in itertools.product(*(range(n) for n in reversed(grid))):
        groups = {f"group_id.{a}": v for a, v in zip("zyx", g)}
        in_group = itertools.product(*(range(n) for n in reversed(block)))
        ids = [groups | {f"local_id.{a}": v for a, v in zip("zyx", t)} for t in in_group]
        run_workgroup(kernel, args, ids)


# ---------------------------------------------------------------------------------------------
# helpers


def linearize(text: str, target: str = "cpu-llvm", simplify: bool = False) -> U.UopKernelOp:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertKernelToUop(target=target).apply(ctx, module)
    if simplify:
        UopSimplify().apply(ctx, module)
    module.verify()
    (kernel,) = [op for op in module.ops if isinstance(op, U.UopKernelOp)]
    return kernel


def ops_of(kernel: U.UopKernelOp) -> list[Operation]:
    return list(kernel.body.block.ops)


def depth_of(kernel: U.UopKernelOp) -> dict[Operation, int]:
    """How many brackets enclose each op."""
    depth, out = 0, {}
    for op in ops_of(kernel):
        if isinstance(op, U.EndOp | U.EndIfOp):
            depth -= 1
        out[op] = depth
        if isinstance(op, U.RangeOp | U.IfOp):
            depth += 1
    return out


def count(kernel: U.UopKernelOp, cls: type) -> int:
    return sum(isinstance(op, cls) for op in ops_of(kernel))


def defining(kernel: U.UopKernelOp, name: str) -> Operation:
    (op,) = [op for op in ops_of(kernel) if op.results and op.results[0].name_hint == name]
    return op


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# kernels

ELEMENTWISE = """
kernel.kernel @add_bias(%x: !kernel.buffer<Nx8xf32>, %b: !kernel.buffer<8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %j : index
  %xi = kernel.load %x[%idx] : f32
  %bj = kernel.load %b[%j] : f32
  %s = kernel.add %xi, %bj : f32
  %e = kernel.exp %s : f32
  kernel.store %out[%idx], %e
}
"""

MATMUL = """
kernel.kernel @dense(%x: !kernel.buffer<Nx16xf32>, %w: !kernel.buffer<16x8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c16 reduce
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %zero = kernel.const 0.0 : f32
  %r = kernel.max %s, %zero : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %r
}
"""

SOFTMAX = """
kernel.kernel @softmax(%x: !kernel.buffer<Nx8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c8 reduce
  %i8 = kernel.mul %i, %c8 : index
  %ik = kernel.add %i8, %k : index
  %xk = kernel.load %x[%ik] : f32
  %m = kernel.reduce max %xk over %k : f32
  %d = kernel.sub %xk, %m : f32
  %e = kernel.exp %d : f32
  %s = kernel.reduce add %e over %k : f32
  %ij = kernel.add %i8, %j : index
  %xj = kernel.load %x[%ij] : f32
  %dj = kernel.sub %xj, %m : f32
  %ej = kernel.exp %dj : f32
  %r = kernel.div %ej, %s : f32
  kernel.store %out[%ij], %r
}
"""

NESTED = """
kernel.kernel @sum_of_max(%x: !kernel.buffer<4x6x5xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c6 = kernel.const 6 : index
  %c5 = kernel.const 5 : index
  %c30 = kernel.const 30 : index
  %i = kernel.range %c4 global
  %j = kernel.range %c6 reduce
  %k = kernel.range %c5 reduce
  %i30 = kernel.mul %i, %c30 : index
  %j5 = kernel.mul %j, %c5 : index
  %a = kernel.add %i30, %j5 : index
  %idx = kernel.add %a, %k : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %k : f32
  %s = kernel.reduce add %m over %j : f32
  kernel.store %out[%i], %s
}
"""

PAD = """
kernel.kernel @pad(%x: !kernel.buffer<10xf32>, %out: !kernel.buffer<12xf32>) attributes {symbols = []} {
  %c12 = kernel.const 12 : index
  %c1 = kernel.const 1 : index
  %c11 = kernel.const 11 : index
  %i = kernel.range %c12 global
  %lo = kernel.cmple %c1, %i : index
  %hi = kernel.cmplt %i, %c11 : index
  %valid = kernel.and %lo, %hi : i1
  %src = kernel.sub %i, %c1 : index
  %v = kernel.load %x[%src], %valid : f32
  kernel.store %out[%i], %v
}
"""

UPCAST_MATMUL = """
kernel.kernel @tiled(%a: !kernel.buffer<6x8xf32>, %b: !kernel.buffer<8x16xf32>, %out: !kernel.buffer<6x16xf32>)
    attributes {symbols = [], opts = ["upcast(1,4)", "unroll(0,4)"]} {
  %c16 = kernel.const 16 : index
  %c6 = kernel.const 6 : index
  %c4 = kernel.const 4 : index
  %c2 = kernel.const 2 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c6 global
  %j = kernel.range %c4 global
  %u = kernel.range %c4 upcast
  %k = kernel.range %c2 reduce
  %v = kernel.range %c4 unroll
  %j4 = kernel.mul %j, %c4 : index
  %jj = kernel.add %j4, %u : index
  %k4 = kernel.mul %k, %c4 : index
  %kk = kernel.add %k4, %v : index
  %i8 = kernel.mul %i, %c8 : index
  %ia = kernel.add %i8, %kk : index
  %k16 = kernel.mul %kk, %c16 : index
  %ib = kernel.add %k16, %jj : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k, %v : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %jj : index
  kernel.store %out[%io], %s
}
"""


def _matmul_inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return f32(n, 16, seed=1), f32(16, 8, seed=2), np.zeros((n, 8), np.float32)


# ---------------------------------------------------------------------------------------------
# CPU structure and meaning


def test_elementwise() -> None:
    k = linearize(ELEMENTWISE)
    assert k.attributes["core_extent"].data == "N"  # type: ignore[union-attr]
    assert [p.index.value.data for p in ops_of(k) if isinstance(p, U.ParamOp)] == [0, 1, 2, 3]
    core = [op for op in ops_of(k) if isinstance(op, U.SpecialOp)]
    assert [s.special.data for s in core] == ["core_start", "core_end"]
    loops = [op for op in ops_of(k) if isinstance(op, U.RangeOp)]
    assert loops[0].lo == core[0].result and loops[0].hi == core[1].result
    assert len(loops) == 2
    x, b, out = f32(5, 8), f32(8, seed=3), np.zeros((5, 8), np.float32)
    launch(k, [x.reshape(-1), b, out.reshape(-1), 5], {"N": 5})
    np.testing.assert_allclose(out, np.exp(x + b), rtol=1e-6)


def test_matmul_accumulator_and_hoisting() -> None:
    k = linearize(MATMUL)
    depth = depth_of(k)
    acc = next(op for op in ops_of(k) if isinstance(op, U.DefineAccOp))
    loop_k = defining(k, "k")
    assert ops_of(k).index(acc) < ops_of(k).index(loop_k) and depth[acc] == depth[loop_k] == 2
    # index math of the i row is computed once per i, outside the j and k loops; a[k] reads inside k
    assert depth[defining(k, "i16")] == 1 and depth[defining(k, "ia")] == 3
    assert depth[defining(k, "io")] == 2  # the output index does not depend on k
    gets = [op for op in ops_of(k) if isinstance(op, U.AccGetOp)]
    assert [depth[g] for g in gets] == [3, 2]  # read inside the loop to update, after it for the result
    assert k.attributes["core_work"].value.data == 8 * (16 * 7 + 3) + 2  # type: ignore[union-attr]
    x, w, out = _matmul_inputs(7)
    launch(k, [x.reshape(-1), w.reshape(-1), out.reshape(-1), 7], {"N": 7})
    np.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)


def test_dependent_reduces_over_one_range_get_two_loops() -> None:
    k = linearize(SOFTMAX)
    loops = [op.results[0].name_hint for op in ops_of(k) if isinstance(op, U.RangeOp)]
    assert loops == ["i", "k", "k", "j"]  # max over k, then sum over k, both hoisted out of j
    x, out = f32(3, 8), np.zeros((3, 8), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1), 3], {"N": 3})
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


def test_independent_reduces_over_one_range_share_a_loop() -> None:
    k = linearize(
        """
kernel.kernel @stats(%x: !kernel.buffer<4x8xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c4 global
  %k = kernel.range %c8 reduce
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %k : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k : f32
  %m = kernel.reduce max %v over %k : f32
  %r = kernel.sub %m, %s : f32
  kernel.store %out[%i], %r
}"""
    )
    assert count(k, U.RangeOp) == 2 and count(k, U.DefineAccOp) == 2 and count(k, U.LoadOp) == 1
    x, out = f32(4, 8), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_allclose(out, x.max(axis=1) - x.sum(axis=1), rtol=1e-5)


def test_nested_reduce() -> None:
    k = linearize(NESTED)
    depth = depth_of(k)
    accs = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]
    assert [depth[a] for a in accs] == [1, 2]  # the max accumulator restarts for every j
    x, out = f32(4, 6, 5), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_allclose(out, x.max(axis=2).sum(axis=1), rtol=1e-5)


def test_reduce_used_by_alu_ops_before_store() -> None:
    k = linearize(MATMUL)
    s = defining(k, "s")
    relu = next(op for op in ops_of(k) if isinstance(op, AluOp) and op.alu_kind == "max")
    assert relu.operands[0] == s.results[0]


def test_gated_load_keeps_its_gate() -> None:
    k = linearize(PAD)
    (load,) = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert load.gate is not None
    x, out = f32(10), np.full(12, 7, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, np.pad(x, 1))


def test_upcast_and_unroll_are_expanded_and_vectorized() -> None:
    k = linearize(UPCAST_MATMUL)
    assert count(k, U.RangeOp) == 3  # i, j and k: no loop for the upcast and unroll ranges
    assert count(k, U.DefineAccOp) == 4  # one accumulator per upcast lane, all in the one k loop
    vector_loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp) and is_vector(op.result.type)]
    assert len(vector_loads) == 5  # a: 4 unrolled k lanes; b: 4 rows of 4 upcast lanes
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert store.value.type == VectorType(store.ptr.type.element_type, [4])  # type: ignore[union-attr]
    a, b, out = f32(6, 8), f32(8, 16, seed=4), np.zeros((6, 16), np.float32)
    launch(k, [a.reshape(-1), b.reshape(-1), out.reshape(-1)])
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-6)


def test_non_consecutive_lanes_stay_scalar() -> None:
    k = linearize(
        """
kernel.kernel @strided(%x: !kernel.buffer<16xf32>, %out: !kernel.buffer<16xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c2 global
  %u = kernel.range %c4 upcast
  %u2 = kernel.mul %u, %c2 : index
  %idx = kernel.add %u2, %i : index
  %i8 = kernel.mul %i, %c8 : index
  %o = kernel.add %i8, %u : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %out[%o], %v
}"""
    )
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert len(loads) == 4 and not any(is_vector(op.result.type) for op in loads)
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]  # the output lanes are consecutive
    assert is_vector(store.value.type)
    x, out = f32(16), np.zeros(16, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out[[0, 1, 2, 3, 8, 9, 10, 11]], x[[0, 2, 4, 6, 1, 3, 5, 7]])


def test_reduce_over_unroll_only_combines_copies() -> None:
    k = linearize(
        """
kernel.kernel @sum4(%x: !kernel.buffer<3x4xi32>, %out: !kernel.buffer<3xi32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c3 global
  %v = kernel.range %c4 unroll
  %i4 = kernel.mul %i, %c4 : index
  %idx = kernel.add %i4, %v : index
  %xv = kernel.load %x[%idx] : i32
  %s = kernel.reduce mul %xv over %v : i32
  kernel.store %out[%i], %s
}"""
    )
    assert count(k, U.DefineAccOp) == 0 and count(k, U.RangeOp) == 1
    x, out = np.arange(1, 13, dtype=np.int32).reshape(3, 4), np.zeros(3, np.int32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_array_equal(out, x.prod(axis=1))


def test_store_runs_once_per_point_of_its_own_ranges() -> None:
    k = linearize(
        """
kernel.kernel @two_outputs(%x: !kernel.buffer<3x4xf32>, %rows: !kernel.buffer<3x4xf32>, %cols: !kernel.buffer<4xf32>)
    attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c3 global
  %j = kernel.range %c4 global
  %i4 = kernel.mul %i, %c4 : index
  %idx = kernel.add %i4, %j : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %rows[%idx], %v
  %w = kernel.load %x[%j] : f32
  kernel.store %cols[%j], %w
}"""
    )
    depth = depth_of(k)
    stores = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert sorted(depth[s] for s in stores) == [1, 2]  # cols[j] is not inside the i loop
    x, rows, cols = f32(3, 4), np.zeros((3, 4), np.float32), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), rows.reshape(-1), cols])
    np.testing.assert_array_equal(rows, x)
    np.testing.assert_array_equal(cols, x[0])


def test_reduce_identities() -> None:
    template = """
kernel.kernel @r(%x: !kernel.buffer<5xT>, %out: !kernel.buffer<1xT>) attributes {{symbols = []}} {{
  %c0 = kernel.const 0 : index
  %c5 = kernel.const 5 : index
  %k = kernel.range %c5 reduce
  %v = kernel.load %x[%k] : T
  %s = kernel.reduce {kind} %v over %k : T
  kernel.store %out[%c0], %s
}}"""
    cases = {
        ("max", "f32"): np.max,
        ("min", "f32"): np.min,
        ("mul", "f32"): np.prod,
        ("max", "i32"): np.max,
        ("min", "ui8"): np.min,
    }
    for (kind, t), reference in cases.items():
        k = linearize(template.format(kind=kind).replace("T", t))
        assert k.attributes["core_extent"].data == "1"  # type: ignore[union-attr]
        dtype = to_numpy(t)
        x = (np.arange(5) * 37 % 11 + 1).astype(dtype) * (-1 if dtype.kind == "f" else 1)
        out = np.zeros(1, dtype)
        launch(k, [x, out])
        assert out[0] == reference(x), (kind, t)


# ---------------------------------------------------------------------------------------------
# GPU mappings


@pytest.mark.parametrize("target", ["webgpu", "cuda"])
def test_gpu_matmul(target: str) -> None:
    k = linearize(MATMUL, target)
    assert "core_extent" not in k.attributes
    assert [s.data for s in k.attributes["global_size"].data] == ["1", "N", "1"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [8, 1, 1]  # type: ignore[union-attr]
    assert count(k, U.RangeOp) == 1 and count(k, U.IfOp) == 0  # only the reduce loops; 8 | 8: no guard
    x, w, out = _matmul_inputs(5)
    launch(k, [x.reshape(-1), w.reshape(-1), out.reshape(-1), 5], {"N": 5})
    np.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)


def test_gpu_guard_for_partial_workgroups() -> None:
    k = linearize(
        """
kernel.kernel @scale(%x: !kernel.buffer<Nxf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 1000]>, symbols = ["N"]} {
  %i = kernel.range %N global
  %v = kernel.load %x[%i] : f32
  %two = kernel.const 2.0 : f32
  %r = kernel.mul %v, %two : f32
  kernel.store %out[%i], %r
}""",
        "webgpu",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["ceildiv(N, 64)", "1", "1"]  # type: ignore[union-attr]
    (guard,) = [op for op in ops_of(k) if isinstance(op, U.IfOp)]
    depth = depth_of(k)
    assert all(depth[op] == 1 for op in ops_of(k) if isinstance(op, U.LoadOp | U.StoreOp))
    assert isinstance(guard.cond.owner, AluOp) and guard.cond.owner.alu_kind == "cmplt"
    x, out = f32(70), np.zeros(70, np.float32)
    launch(k, [x, out, 70], {"N": 70})
    np.testing.assert_array_equal(out, 2 * x)


def test_gpu_grid_dim_split() -> None:
    k = linearize(
        """
kernel.kernel @big(%x: !kernel.buffer<16777216xf32>, %out: !kernel.buffer<16777216xf32>) attributes {symbols = []} {
  %n = kernel.const 16777216 : index
  %i = kernel.range %n global
  %v = kernel.load %x[%i] : f32
  %e = kernel.neg %v : f32
  kernel.store %out[%i], %e
}""",
        "webgpu",
    )
    cols, rows, z = (int(s.data) for s in k.attributes["global_size"].data)  # type: ignore[union-attr]
    assert z == 1 and max(cols, rows) <= 65535 and cols * rows * 64 >= 2**24
    assert (cols, rows) == (52429, 5)
    specials = {op.special.data for op in ops_of(k) if isinstance(op, U.SpecialOp)}
    assert specials == {"group_id.x", "group_id.y", "local_id.x"}
    assert count(k, U.IfOp) == 1  # 5 * 52429 * 64 overshoots 2^24


def test_gpu_more_than_three_global_ranges_merge() -> None:
    k = linearize(
        """
kernel.kernel @dims4(%x: !kernel.buffer<Nx3x5x7xf32>, %out: !kernel.buffer<Nx3x5x7xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 10]>, symbols = ["N"]} {
  %c3 = kernel.const 3 : index
  %c5 = kernel.const 5 : index
  %c7 = kernel.const 7 : index
  %c105 = kernel.const 105 : index
  %c35 = kernel.const 35 : index
  %a = kernel.range %N global
  %b = kernel.range %c3 global
  %c = kernel.range %c5 global
  %d = kernel.range %c7 global
  %t0 = kernel.mul %a, %c105 : index
  %t1 = kernel.mul %b, %c35 : index
  %t2 = kernel.mul %c, %c7 : index
  %s0 = kernel.add %t0, %t1 : index
  %s1 = kernel.add %s0, %t2 : index
  %idx = kernel.add %s1, %d : index
  %v = kernel.load %x[%idx] : f32
  %e = kernel.neg %v : f32
  kernel.store %out[%idx], %e
}""",
        "webgpu",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["1", "5", "N*3"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [7, 1, 1]  # type: ignore[union-attr]
    x, out = f32(2, 3, 5, 7), np.zeros((2, 3, 5, 7), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1), 2], {"N": 2})
    np.testing.assert_array_equal(out, -x)


def test_gpu_local_ranges_become_thread_ids() -> None:
    k = linearize(
        """
kernel.kernel @loc(%x: !kernel.buffer<64xf32>, %out: !kernel.buffer<64xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c4 = kernel.const 4 : index
  %g = kernel.range %c4 global
  %l = kernel.range %c16 local
  %g16 = kernel.mul %g, %c16 : index
  %i = kernel.add %g16, %l : index
  %v = kernel.load %x[%i] : f32
  %r = kernel.abs %v : f32
  kernel.store %out[%i], %r
}""",
        "cuda",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["4", "1", "1"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [16, 1, 1]  # type: ignore[union-attr]
    x, out = f32(64), np.zeros(64, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, np.abs(x))


SLIDING = """
kernel.kernel @windows(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<5x4xf32>) attributes {symbols = []} {
  %c5 = kernel.const 5 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c5 global
  %u = kernel.range %c4 upcast
  %idx = kernel.add %i, %u : index
  %i4 = kernel.mul %i, %c4 : index
  %o = kernel.add %i4, %u : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %out[%o], %v
}"""


@pytest.mark.parametrize(("target", "vector_loads"), [("cpu-llvm", 1), ("cuda", 0), ("webgpu", 0)])
def test_vector_accesses_on_gpus_must_be_aligned(target: str, vector_loads: int) -> None:
    k = linearize(SLIDING, target)  # x[i + u] starts anywhere; out[i*4 + u] at multiples of 4
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert sum(is_vector(op.result.type) for op in loads) == vector_loads
    assert all(is_vector(op.value.type) for op in ops_of(k) if isinstance(op, U.StoreOp))
    x, out = f32(8), np.zeros((5, 4), np.float32)
    launch(k, [x, out.reshape(-1)])
    np.testing.assert_array_equal(out, np.lib.stride_tricks.sliding_window_view(x, 4)[:5])


def test_lanes_wider_than_one_vector_become_several_vector_accesses() -> None:
    k = linearize(
        """
kernel.kernel @wide(%x: !kernel.buffer<3x8xf32>, %out: !kernel.buffer<3x8xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c3 global
  %u = kernel.range %c8 upcast
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %u : index
  %v = kernel.load %x[%idx] : f32
  %r = kernel.neg %v : f32
  kernel.store %out[%idx], %r
}""",
        "webgpu",
    )
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    stores = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert len(loads) == len(stores) == 2  # 8 lanes of f32: two vec4 on webgpu
    assert all(is_vector(op.result.type) for op in loads) and all(is_vector(op.value.type) for op in stores)
    x, out = f32(3, 8), np.zeros((3, 8), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1)])
    np.testing.assert_array_equal(out, -x)


def _random_args(text: str, symbols: dict[str, int]) -> list:
    """Random contents for every buffer argument of the kernel in ``text``, symbol values for index ones."""
    (kernel,) = [op for op in Parser(make_context(), text).parse_module().ops if isinstance(op, K.KernelOp)]
    names = iter(s.data for s in kernel.attributes["symbols"].data)  # type: ignore[union-attr]
    rng = np.random.default_rng(7)
    args: list = []
    for arg in kernel.args:
        if isinstance(arg.type, BufferType):
            values = rng.standard_normal(numel(arg.type.shape, symbols)) * 8
            args.append(values.astype(to_numpy(arg.type.element_type)))
        else:
            args.append(symbols[next(names)])
    return args


@pytest.mark.parametrize("target", ["cpu-llvm", "webgpu"])
@pytest.mark.parametrize(
    ("text", "symbols"),
    [(ELEMENTWISE, {"N": 5}), (MATMUL, {"N": 3}), (SOFTMAX, {"N": 2}), (NESTED, {}), (PAD, {}), (UPCAST_MATMUL, {}), (SLIDING, {})],
    ids=["elementwise", "matmul", "softmax", "nested", "pad", "upcast", "sliding"],
)
def test_uop_simplify_keeps_the_meaning(text: str, symbols: dict[str, int], target: str) -> None:
    plain, simplified = linearize(text, target), linearize(text, target, simplify=True)
    results = []
    for kernel in (plain, simplified):
        args = _random_args(text, symbols)
        launch(kernel, args, symbols)
        results.append(args)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("kind", "target"),
    [("local", "cpu-llvm"), ("group_reduce", "cpu-c"), ("thread", "webgpu"), ("thread", "cuda")],
)
def test_unsupported_range_kinds_fail_loudly(kind: str, target: str) -> None:
    reduce_ = kind == "group_reduce"
    text = f"""
kernel.kernel @k(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<8xf32>) attributes {{symbols = []}} {{
  %c8 = kernel.const 8 : index
  %c0 = kernel.const 0 : index
  %i = kernel.range %c8 {kind}
  %v = kernel.load %x[%i] : f32
  {"%s = kernel.reduce add %v over %i : f32" if reduce_ else ""}
  kernel.store %out[{"%c0" if reduce_ else "%i"}], {"%s" if reduce_ else "%v"}
}}"""
    with pytest.raises(PassFailedException, match=f"range kind {kind} not supported on target {target}"):
        linearize(text, target)


def test_unknown_target() -> None:
    with pytest.raises(PassFailedException, match="unknown target 'tpu'"):
        ConvertKernelToUop(target="tpu").apply(make_context(), ModuleOp([]))
