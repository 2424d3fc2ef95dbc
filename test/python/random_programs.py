"""A hypothesis strategy for well-typed random graph programs built from the core ops.

Programs chain elementwise ops, broadcasts against extra inputs, reductions and movement ops
(reshape, permute, expand, pad, shrink, flip) on small static shapes, and may return an intermediate value
too (which forces a realize in the middle of a fused chain). Every op is built through the graph op
classes, so the result types come from the same inference the verifier uses.

The edges are drawn on purpose (issue 16): f16/bf16 programs (their reductions accumulate in f32), dims of size
0, rank-0 tensors, a reduced axis longer than 65,536 (webgpu's loop limit), and inputs holding inf, -inf, nan and
-0.0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region, SSAValue

from kiln.dialects import graph as G
from kiln.dialects.types import DTYPES, TensorType, to_numpy

F32 = DTYPES["f32"]
LONG_AXIS = 70001
"""A reduced axis longer than webgpu's 65,535 loop iterations per invocation."""
SPECIAL_VALUES = (np.inf, -np.inf, np.nan, -0.0, 0.0)
SAFE_UNARY = ("neg", "exp", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "floor", "sign", "gelu")
SAFE_BINARY = ("add", "sub", "mul", "max", "min")


@dataclass
class RandomProgram:
    text: str
    inputs: list[np.ndarray]


def _divisors_split(n: int, draw) -> list[int]:
    """A random factorization of n into up to 3 dims."""
    dims: list[int] = []
    while n > 1 and len(dims) < 2:
        ds = [d for d in range(2, n + 1) if n % d == 0]
        d = draw(st.sampled_from(ds))
        dims.append(d)
        n //= d
    dims.append(n)
    return draw(st.permutations(dims))


def _first_shape(draw) -> tuple[int, ...]:
    """Mostly small dims; sometimes rank 0, a dim of size 0, or one axis longer than webgpu's loop limit."""
    edge = draw(st.sampled_from(["none"] * 6 + ["rank0", "zero", "long"]))
    if edge == "rank0":
        return ()
    if edge == "long":
        return draw(st.sampled_from([(LONG_AXIS,), (2, LONG_AXIS)]))
    rank = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    if edge == "zero":
        shape[draw(st.integers(0, rank - 1))] = 0
    return tuple(shape)


def _inputs(rng: np.random.Generator, shapes: list[tuple[int, ...]], dtype: np.dtype, special: bool) -> list[np.ndarray]:
    """Uniform values in [-2, 2]; with ``special``, about one in eight replaced by inf, -inf, nan, -0.0 or 0.0."""
    arrays = []
    for s in shapes:
        a = rng.uniform(-2, 2, s)
        if special:
            a = np.where(rng.random(s) < 0.125, rng.choice(SPECIAL_VALUES, s), a)
        arrays.append(np.asarray(a).astype(dtype))
    return arrays


@st.composite
def random_programs(draw, max_ops: int = 8, dtypes: tuple[str, ...] = ("f32",)) -> RandomProgram:
    """A program over one of ``dtypes`` (float names; the device's own) with the edges above drawn on purpose."""
    dtype = DTYPES[draw(st.sampled_from(dtypes))]
    shape = _first_shape(draw)
    block = Block(arg_types=[TensorType(shape, dtype)])
    inputs = [np.asarray(draw(st.integers(0, 2**31)), dtype=np.int64)]  # seed placeholder, replaced below
    shapes = [shape]
    cur: SSAValue = block.args[0]
    extra_out: SSAValue | None = None

    def add(op):
        block.add_op(op)
        return op.results[0]

    for step in range(draw(st.integers(1, max_ops))):
        t: TensorType = cur.type  # type: ignore[assignment]
        kind = draw(st.sampled_from(["unary", "binary", "reduce", "reshape", "permute", "expand", "pad", "shrink", "flip"]))
        if kind == "unary":
            cur = add(G.op(draw(st.sampled_from(SAFE_UNARY))).build_op([cur]))
        elif kind == "binary":
            # the other operand is a new input broadcast along a random subset of dims
            oshape = tuple(d if draw(st.booleans()) else 1 for d in t.shape)
            arg = block.insert_arg(TensorType(oshape, dtype), len(block.args))
            shapes.append(oshape)
            lhs, rhs = (cur, arg) if draw(st.booleans()) else (arg, cur)
            cur = add(G.op(draw(st.sampled_from(SAFE_BINARY))).build_op([lhs, rhs]))
        elif kind == "reduce" and t.rank >= 1:
            axes = tuple(sorted(draw(st.sets(st.integers(0, t.rank - 1), min_size=1))))
            empty = any(t.shape[a] == 0 for a in axes)  # max/min over no elements do not verify
            names = ["reduce_sum", "reduce_prod", "mean"] + ([] if empty else ["reduce_max", "reduce_min"])
            name = draw(st.sampled_from(names))
            keep = draw(st.booleans()) or len(axes) == t.rank
            cur = add(G.op(name).build_op([cur], axes=axes, keepdims=keep))
        elif kind == "reshape":
            n = int(np.prod(t.shape))
            new = tuple(_divisors_split(n, draw))
            cur = add(G.ReshapeOp.build_op([cur], result_type=TensorType(new, dtype)))
        elif kind == "permute" and t.rank >= 2:
            perm = tuple(draw(st.permutations(range(t.rank))))
            cur = add(G.PermuteOp.build_op([cur], perm=perm))
        elif kind == "expand" and t.rank <= 2:
            new = (draw(st.integers(2, 3)), *t.shape)
            cur = add(G.ExpandOp.build_op([cur], result_type=TensorType(new, dtype)))
        elif kind == "pad" and t.rank >= 1:
            low = tuple(draw(st.integers(0, 2)) for _ in t.shape)
            high = tuple(draw(st.integers(0, 2)) for _ in t.shape)
            cur = add(G.PadOp.build_op([cur], low=low, high=high, value=draw(st.sampled_from([0.0, -1.5]))))
        elif kind == "shrink" and t.rank >= 1 and 0 not in t.shape:
            start, limit, step_ = [], [], []
            for d in t.shape:
                s = draw(st.integers(0, d - 1))
                start.append(s)
                limit.append(draw(st.integers(s + 1, d)))
                step_.append(draw(st.integers(1, 2)))
            cur = add(G.ShrinkOp.build_op([cur], start=tuple(start), limit=tuple(limit), step=tuple(step_)))
        elif kind == "flip" and t.rank >= 1:
            axes = tuple(sorted(draw(st.sets(st.integers(0, t.rank - 1), min_size=1))))
            cur = add(G.FlipOp.build_op([cur], axes=axes))
        if extra_out is None and step > 0 and draw(st.integers(0, 4)) == 0:
            extra_out = cur
    outs = [cur] + ([extra_out] if extra_out is not None and extra_out is not cur else [])
    block.add_op(func.ReturnOp(*outs))
    fn = func.FuncOp("rand", ([a.type for a in block.args], [o.type for o in outs]), Region(block))
    module = ModuleOp([fn])
    module.verify()
    rng = np.random.default_rng(int(inputs[0]))
    return RandomProgram(str(module), _inputs(rng, shapes, to_numpy(dtype), draw(st.integers(0, 3)) == 0))
