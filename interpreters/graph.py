"""The reference interpreter of the `graph` dialect: runs a ``func.func`` on numpy arrays.

Each graph op is computed by its numpy meaning in ``kiln.interpreters.graph_ops``. The interpreter also checks
every value it computes against the op's declared result type (dtype and shape, symbolic dims bound from
the inputs), so a wrong result type in the IR, or a wrong numpy implementation, fails loudly here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    TensorType as BuiltinTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects.types import BufferType, Shape, TensorType, declared_dims, format_shape, is_bool, numel, to_numpy
from kiln.support.errors import InputError, KilnError
from kiln.interpreters.graph_ops import NEEDS_DTYPE, NEEDS_SHAPE, OPS, is_float


class InterpretError(KilnError):
    """The IR cannot be interpreted (unknown op, unsupported property), or an op's value does not have its
    declared type: a bug in the IR's types or in the interpreter, never in the inputs."""


def wrap_ints(values: Sequence[int], dtype: np.dtype) -> np.ndarray:
    """Integers (signed or unsigned readings of the bits, as IntegerAttr keeps them) as ``dtype``, wrapping."""
    if dtype == np.bool_:
        return np.array([v != 0 for v in values], dtype=np.bool_)
    mask = (1 << (dtype.itemsize * 8)) - 1
    return np.array([v & mask for v in values], dtype=np.uint64).astype(dtype)


def property_value(attr: Attribute) -> object:
    """An op property as a Python value: array<i64> -> tuple, i1 -> bool, integer -> int, float -> float,
    dense elements -> numpy array of the element dtype."""
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data) if is_bool(attr.type) else int(attr.value.data)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        t = attr.type
        assert isinstance(t, BuiltinTensorType)
        dtype = to_numpy(t.element_type)
        values = attr.get_values()
        flat = np.array(values, dtype=np.float64).astype(dtype) if is_float(dtype) else wrap_ints(values, dtype)  # type: ignore[arg-type]
        return flat.reshape(tuple(t.get_shape()))
    raise InterpretError(f"cannot interpret a property of kind {attr.name}")


def bound_shape(shape: Shape, symbols: Mapping[str, int], what: str) -> tuple[int, ...]:
    out: list[int] = []
    for d in shape:
        if isinstance(d, str):
            if d not in symbols:
                raise InputError(f"{what}: symbolic dim '{d}' is not fixed by the inputs; pass its value in dims")
            d = symbols[d]
        out.append(d)
    return tuple(out)


def bind_inputs(
    f: func.FuncOp,
    inputs: Sequence[np.ndarray],
    dims: Mapping[str, int] | None,
    shaped: type[TensorType | BufferType] = TensorType,
) -> tuple[list[np.ndarray], dict[str, int]]:
    """Check the inputs against the function's argument types (``shaped``: tensors for a graph function,
    buffers for a schedule); bind every symbolic dim they fix."""
    name = f.sym_name.data
    arg_types = f.function_type.inputs.data
    if len(inputs) != len(arg_types):
        raise InputError(f"@{name} takes {len(arg_types)} inputs, got {len(inputs)}")
    symbols: dict[str, int] = dict(dims or {})
    arrays: list[np.ndarray] = []
    for i, (x, t) in enumerate(zip(inputs, arg_types)):
        if not isinstance(t, shaped):
            raise InterpretError(f"@{name}: argument {i} has type {t}, not a !{shaped.name}")
        a = np.asarray(x)
        want = to_numpy(t.element_type)
        if a.dtype != want:
            raise InputError(f"@{name} input {i}: expected dtype {want}, got {a.dtype}")
        if a.ndim != t.rank:
            raise InputError(f"@{name} input {i}: expected shape {format_shape(t.shape)}, got {list(a.shape)}")
        for d, n in zip(t.shape, a.shape):
            expected = symbols.setdefault(d, n) if isinstance(d, str) else d
            if expected != n:
                raise InputError(
                    f"@{name} input {i}: expected shape {format_shape(t.shape)}"
                    + (f" with {d} = {expected}" if isinstance(d, str) else "")
                    + f", got {list(a.shape)}"
                )
        arrays.append(a)
    for sym, (lo, hi) in declared_dims(f).items():
        if sym in symbols and not lo <= symbols[sym] <= hi:
            raise InputError(f"@{name}: {sym} = {symbols[sym]} is outside its declared range [{lo}, {hi}]")
    return arrays, symbols


def run_op(op: Operation, env: dict[SSAValue, np.ndarray], symbols: Mapping[str, int]) -> None:
    """Compute graph op ``op`` from its operands' values in ``env``; its result goes into ``env``."""
    short = op.name.removeprefix("graph.")
    if short == op.name or short not in OPS:
        raise InterpretError(f"the graph interpreter cannot run '{op.name}'")
    if len(op.results) != 1 or not isinstance(rt := op.results[0].type, TensorType):
        raise InterpretError(f"'{op.name}' must have one !graph.tensor result")
    shape = bound_shape(rt.shape, symbols, op.name)
    dtype = to_numpy(rt.element_type)
    kwargs = {k: property_value(v) for k, v in op.properties.items()}
    if short in NEEDS_SHAPE:
        kwargs["shape"] = shape
    if short in NEEDS_DTYPE:
        kwargs["dtype"] = dtype
    try:
        value = OPS[short](*(env[v] for v in op.operands), **kwargs)
    except IndexError as e:
        raise InputError(f"{op.name}: {e}") from e
    except (TypeError, ValueError) as e:
        raise InterpretError(f"{op.name}: {e}") from e
    if value.dtype != dtype or value.shape != shape:
        raise InterpretError(
            f"{op.name} computed a {value.dtype} value of shape {list(value.shape)}, but its result type is "
            f"{rt} (= {dtype} of shape {list(shape)}): the IR's type or the interpreter is wrong"
        )
    env[op.results[0]] = value


def run_function(
    func_op: func.FuncOp, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run ``func_op`` on ``inputs`` (arrays of the argument dtypes); returns fresh C-contiguous arrays.

    ``dims`` gives symbolic dims the inputs do not fix (only needed when a symbol appears in no argument).
    """
    arrays, symbols = bind_inputs(func_op, inputs, dims)
    env: dict[SSAValue, np.ndarray] = dict(zip(func_op.body.block.args, arrays))
    for op in func_op.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [np.array(env[v], order="C", copy=True) for v in op.arguments]
        run_op(op, env, symbols)
    raise InterpretError(f"@{func_op.sym_name.data} has no func.return")


def find_function(module: ModuleOp, function_name: str) -> func.FuncOp:
    """The ``func.func`` named ``function_name`` in ``module`` (a graph function or a schedule)."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == function_name:
            return op
    raise KilnError(f"no function @{function_name} in the module")


def run_module(
    module: ModuleOp, function_name: str, inputs: Sequence[np.ndarray], dims: Mapping[str, int] | None = None
) -> list[np.ndarray]:
    """Run the graph ``func.func`` named ``function_name`` in ``module``."""
    return run_function(find_function(module, function_name), inputs, dims)


def estimated_work(func_op: func.FuncOp, symbols: Mapping[str, int]) -> int:
    """About how many scalar operations ``func_op`` makes with ``symbols`` bound: per op its largest operand or
    result, times the contraction for ``matmul`` and ``conv2d``. Lowered, the same computation costs the kernel
    and uop interpreters in proportion (memory in one, time in the other)."""
    total = 0
    for op in func_op.body.block.ops:
        sizes = [numel(bound_shape(v.type.shape, symbols, op.name)) for v in (*op.operands, *op.results)
                 if isinstance(v.type, TensorType)]
        work = max(sizes, default=0)
        if op.name == "graph.matmul":
            work = sizes[-1] * bound_shape(op.operands[0].type.shape, symbols, op.name)[-1]  # type: ignore[attr-defined]
        elif op.name == "graph.conv2d":
            w = bound_shape(op.operands[1].type.shape, symbols, op.name)  # type: ignore[attr-defined]
            work = sizes[-1] * numel(w[1:])
        total += work
    return total
