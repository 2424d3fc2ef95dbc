"""The reference interpreter of the ``kernel`` dialect: runs ``kernel.kernel`` ops over flat numpy buffers, and
whole scheduled modules through their schedule (``run_module``).

A kernel body is graph-like (docs/dialects/kernel.md): a value is computed at every point of the ranges in its
backward slice. So the interpreter computes each value once, for all those points at a time, as a numpy array
with one axis per ``kernel.range`` of the kernel (in definition order): size 1 along the ranges it does not
depend on, broadcasting doing the rest. A range is an ``arange`` along its own axis; ``kernel.reduce`` combines
along its ranges' axes (keeping them, now of size 1); a store writes every point of its operands' broadcast
shape where its gate holds. Range kinds do not change the meaning, so a kernel before and after
``kernel-optimize`` must give the same numbers here.

Reductions follow the graph interpreter's rules (``kiln.interpreters.graph_ops``): f16/bf16 accumulate in f32,
integers wrap, float max/min propagate NaN, an empty range gives the kind's identity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects import kernel as K
from kiln.dialects.alu import AluOp
from kiln.dialects.types import to_numpy
from kiln.interpreters.alu import alu_semantics
from kiln.interpreters.graph import InterpretError, property_value, wrap_ints
from kiln.interpreters.graph_ops import bitcast, compute_dtype, highest, lowest
from kiln.interpreters.schedule import run_schedule

INDEX = np.dtype(np.int64)
"""How ``index`` values are held."""

_REDUCE: dict[str, tuple[np.ufunc, Callable[[np.dtype], object]]] = {
    "add": (np.add, lambda dt: 0),
    "mul": (np.multiply, lambda dt: 1),
    "max": (np.maximum, lowest),
    "min": (np.minimum, highest),
}
"""Reduce kind -> (the ufunc that combines, its identity for a dtype)."""


def _dtype(t: Attribute) -> np.dtype:
    return INDEX if isinstance(t, IndexType) else to_numpy(t)


class _Body:
    """The values of one kernel run: every SSA value as an array with one axis per range."""

    def __init__(self, kernel: K.KernelOp, args: Sequence[object]):
        self.ranges = [op for op in kernel.body.block.ops if isinstance(op, K.RangeOp)]
        self.axis = {op.result: n for n, op in enumerate(self.ranges)}
        self.scalar_shape = (1,) * len(self.ranges)
        self.env: dict[SSAValue, np.ndarray] = {}
        self.buffers: dict[SSAValue, np.ndarray] = {}
        for arg, value in zip(kernel.args, args):
            if isinstance(arg.type, IndexType):
                self.env[arg] = np.full(self.scalar_shape, value, INDEX)
            else:
                self.buffers[arg] = value  # type: ignore[assignment]

    def size_of(self, op: K.RangeOp) -> int:
        size = self.env[op.size]
        if size.size != 1:
            raise InterpretError(f"kernel.range size {op.size} depends on another range")
        return int(size.reshape(()))

    def range(self, op: K.RangeOp) -> np.ndarray:
        shape = list(self.scalar_shape)
        shape[self.axis[op.result]] = self.size_of(op)
        return np.arange(shape[self.axis[op.result]], dtype=INDEX).reshape(shape)

    def reduce(self, op: K.ReduceOp) -> np.ndarray:
        kind = op.kind.data.value
        value = self.env[op.value]
        axes = tuple(self.axis[r] for r in op.ranges)
        shape = list(value.shape)
        for r, a in zip(op.ranges, axes):
            shape[a] = self.size_of(r.owner)  # type: ignore[arg-type]
        fn, identity = _REDUCE[kind]
        cdt = compute_dtype(value.dtype)
        with np.errstate(all="ignore"):
            out = fn.reduce(np.broadcast_to(value, shape).astype(cdt), axis=axes, keepdims=True, initial=identity(cdt))
        return out.astype(value.dtype)

    def load(self, op: Operation) -> np.ndarray:
        buffer, index, *gate = op.operands
        buf, idx, valid = self.buffers[buffer], self.env[index], None
        if gate:
            idx, valid = np.broadcast_arrays(idx, self.env[gate[0]])
            idx = np.where(valid, idx, 0)
        _check_bounds(op, idx if valid is None else idx[valid], len(buf))
        if len(buf) == 0:
            return np.zeros(idx.shape, buf.dtype)
        values = buf[idx]
        return values if valid is None else np.where(valid, values, buf.dtype.type(0))

    def store(self, op: Operation) -> None:
        buffer, index, value, *gate = op.operands
        arrays = np.broadcast_arrays(*(self.env[v] for v in (index, value, *gate)))
        idx, val = arrays[0].reshape(-1), arrays[1].reshape(-1)
        if gate:
            keep = arrays[2].reshape(-1)
            idx, val = idx[keep], val[keep]
        buf = self.buffers[buffer]
        _check_bounds(op, idx, len(buf))
        buf[idx] = val


def _check_bounds(op: Operation, idx: np.ndarray, n: int) -> None:
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise InterpretError(f"{op.name} out of bounds: element {int(idx.min())}..{int(idx.max())} of a buffer of {n}")


def _const(op: K.ConstOp, shape: tuple[int, ...]) -> np.ndarray:
    dtype = _dtype(op.result.type)
    value = property_value(op.value)
    scalar = wrap_ints([int(value)], dtype)[0] if dtype.kind in "iub" else dtype.type(value)  # type: ignore[call-overload,arg-type]
    return np.full(shape, scalar, dtype)


def run_kernel(kernel: K.KernelOp, args: Sequence[object]) -> None:
    """Execute ``kernel`` on ``args`` (flat numpy arrays for buffers, written in place; ints for index
    arguments)."""
    body = _Body(kernel, args)
    env = body.env
    for op in kernel.body.block.ops:
        if isinstance(op, K.StoreOp):
            body.store(op)
            continue
        if isinstance(op, K.RangeOp):
            value = body.range(op)
        elif isinstance(op, K.ConstOp):
            value = _const(op, body.scalar_shape)
        elif isinstance(op, AluOp):
            value = alu_semantics(op.alu_kind)(*(env[v] for v in op.operands))
        elif isinstance(op, K.CastOp):
            value = env[op.operands[0]].astype(_dtype(op.results[0].type))
        elif isinstance(op, K.BitcastOp):
            value = bitcast(env[op.operands[0]], _dtype(op.results[0].type))
        elif isinstance(op, K.LoadOp):
            value = body.load(op)
        elif isinstance(op, K.ReduceOp):
            value = body.reduce(op)
        else:
            raise InterpretError(f"the kernel interpreter cannot run '{op.name}'")
        want = _dtype(op.results[0].type)
        if value.dtype != want:
            raise InterpretError(f"{op.name} computed a {value.dtype} value, but its result type is {op.results[0].type}")
        env[op.results[0]] = value


def _launch_kernel(callee: Operation, args: list, symbols: Mapping[str, int]) -> None:
    if not isinstance(callee, K.KernelOp):
        raise InterpretError(f"the kernel interpreter launches kernel.kernel ops, not '{callee.name}'")
    run_kernel(callee, args)


def run_module(
    module: ModuleOp, function_name: str, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run the schedule ``function_name`` of a module whose kernels are ``kernel.kernel`` ops."""
    return run_schedule(module, function_name, inputs, dims, _launch_kernel)
