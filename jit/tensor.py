"""``kiln.Tensor``: a lazy tensor with numpy's names, broadcasting and dtype promotion, traced to `graph` IR.

Every operation builds a graph node (``kiln.jit.lazy``); nothing runs until a value is needed (``numpy()``,
``item()``, ``realize()``), when the tensors are compiled for their device and run (``kiln.jit.realize``).
Inside ``@kiln.jit`` the same operations trace the function instead. The numpy meaning of each op decides its
result dtype (``kiln.jit.dtypes.promote``); the front end inserts the casts kiln's graph ops need.

Data made on the host (``Tensor(array)``, ``rand``, ``randn``) is copied once and passed to the compiled
program as an input buffer; ``zeros``/``ones``/``full`` and Python scalars in expressions are splat constants
in the IR, and ``arange`` is a ``graph.iota``.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kiln.dialects.ops.spec import Elementwise
from kiln.dialects.ops.table import OPS as ELEMENTWISE
from kiln.dialects.types import Shape, broadcast_shapes, to_numpy
from kiln.jit import autograd, fancy_index, interop, lazy
from kiln.jit.dims import Dim, DimLike, infer_reshape, normalize_axes, normalize_axis, show_shape
from kiln.jit.dtypes import (
    DEFAULT_FLOAT,
    DTypeLike,
    Scalar,
    dtype_name,
    float_result,
    is_bool,
    is_float,
    is_int,
    promote,
    scalar_dtype,
)
from kiln.jit.errors import TraceError
from kiln.jit.indexing import plan_index
from kiln.jit.lazy import Node
from kiln.jit.realize import realize
from kiln.jit.trace import check_readable, current
from kiln.runtime.devices import DEFAULT_DEVICE, device_names


Axes = int | Sequence[int] | None
Pair = int | Sequence[int]
ShapeLike = DimLike | Sequence[DimLike]


def default_device() -> str:
    """``$KILN_DEVICE`` if set, else the runtime's default (``cpu-llvm``)."""
    return os.environ.get("KILN_DEVICE") or DEFAULT_DEVICE


def _device(name: str | None) -> str:
    """``name`` (or the default), rejected here when kiln has no such device rather than at the first compile."""
    name = name or default_device()
    if name not in device_names():
        raise ValueError(f"unknown device '{name}' (kiln's devices: {', '.join(device_names())})")
    return name


_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Restart the random numbers of ``Tensor.rand``/``randn`` (calls without ``seed=``) from ``seed``."""
    global _generator
    _generator = np.random.default_rng(seed)


def _scalar_in(value: Scalar, dtype: str) -> Scalar:
    """``value`` rounded/wrapped to ``dtype``, as a Python scalar (what a splat constant holds)."""
    v = np.asarray(value).astype(to_numpy(dtype)).item() if not is_bool(dtype) else bool(value)
    return float(v) if is_float(dtype) else v


def _unpack(args: Sequence[Any]) -> tuple[Any, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` both mean the sequence (2, 3)."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], tuple | list) else tuple(args)


def _shape_arg(shape: Sequence[Any]) -> Shape:
    """``zeros(2, 3)`` / ``zeros((2, 3))`` -> internal shape; Dims must belong to the running trace."""
    shape = _unpack(shape)
    out: list[int | str] = []
    for d in shape:
        if isinstance(d, Dim):
            trace = current()
            if trace is None or trace.dims.get(d.name) != d:
                raise ValueError(f"symbolic dim {d.name} only exists inside the @kiln.jit function that declares it")
            out.append(d.name)
        elif isinstance(d, int | np.integer) and not isinstance(d, bool) and d >= 0:
            out.append(int(d))
        else:
            raise ValueError(f"bad dim {d!r} in shape {tuple(shape)}: dims are non-negative ints or kiln.Dim")
    return tuple(out)


def _leaf(node: Node) -> Node:
    """A leaf whose shape uses symbols belongs to the running trace (it only exists there)."""
    if any(isinstance(d, str) for d in node.shape):
        node.trace = current()
    return node


def _cast(node: Node, dtype: str) -> Node:
    if node.dtype == dtype:
        return node
    if node.op == "const":
        return lazy.const(_scalar_in(node.arg, dtype), node.shape, dtype)
    return lazy.apply("cast", [node], result=(node.shape, dtype))


def _as_node(value: Scalar, node: Node | None, dtype: str) -> Node:
    """An operand in ``dtype``: a node cast, or a Python scalar as a rank-0 constant."""
    return _cast(node, dtype) if node is not None else lazy.const(_scalar_in(value, dtype), (), dtype)


def _where_dtype(a: Any, b: Any) -> Any:
    return np.where(True, a, b)


def _concat_dtype(*xs: Any) -> Any:
    return np.concatenate(xs)


class Tensor:
    """A lazy n-dimensional array on a device. See the module docstring and docs/jit.md."""

    __slots__ = ("_node", "device", "_grad", "_requires_grad", "__weakref__")
    __array_priority__ = 1000  # ndarray + Tensor asks Tensor (through __array_ufunc__) and gives a Tensor
    __hash__ = object.__hash__  # == builds a comparison tensor, so hashing is by identity

    def __init__(
        self, data: Any, dtype: DTypeLike | None = None, device: str | None = None, requires_grad: bool = False
    ):
        """From a numpy array (copied; keeps its dtype), a nested list, a Python scalar, or another Tensor."""
        self._grad: Tensor | None = None
        self._requires_grad = False
        self._init(data, dtype, device)
        if requires_grad:
            self.requires_grad_()

    def _init(self, data: Any, dtype: DTypeLike | None, device: str | None) -> None:
        if isinstance(data, Tensor):  # a view of the same value, cast and/or moved
            source = data.to(device) if device is not None else data
            self.device = source.device
            self._node = source._node if dtype is None else _cast(source._node, dtype_name(dtype))
            return
        self.device = _device(device)
        if isinstance(data, bool | int | float) and not isinstance(data, np.generic):
            name = dtype_name(dtype) if dtype is not None else scalar_dtype(data)
            self._node = lazy.const(_scalar_in(data, name), (), name)
            return
        array = np.asarray(data)
        if dtype is not None:
            name = dtype_name(dtype)
        elif isinstance(data, np.ndarray | np.generic):
            name = dtype_name(array.dtype)
        else:  # Python lists: Python floats/ints get the front end's defaults
            name = DEFAULT_FLOAT if array.dtype == np.float64 else dtype_name(array.dtype)
        self._node = lazy.buffer(np.array(array, dtype=to_numpy(name), order="C", copy=True), name)

    @classmethod
    def _of(cls, node: Node, device: str) -> Tensor:
        t = object.__new__(cls)
        t._node = node
        t.device = device
        t._grad = None
        t._requires_grad = False
        return t

    def _new(self, node: Node) -> Tensor:
        return Tensor._of(node, self.device)

    # ------------------------------------------------------------------------------------------- creation

    @staticmethod
    def full(shape: ShapeLike, value: Scalar, dtype: DTypeLike | None = None, device: str | None = None) -> Tensor:
        """Every element ``value`` (a splat constant, no memory until realized)."""
        dims = _shape_arg(shape if isinstance(shape, tuple | list) else (shape,))
        name = dtype_name(dtype) if dtype is not None else scalar_dtype(value)
        return Tensor._of(_leaf(lazy.const(_scalar_in(value, name), dims, name)), _device(device))

    @staticmethod
    def zeros(*shape: ShapeLike, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None) -> Tensor:
        return Tensor.full(_unpack(shape), 0, dtype, device)

    @staticmethod
    def ones(*shape: ShapeLike, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None) -> Tensor:
        return Tensor.full(_unpack(shape), 1, dtype, device)

    def full_like(self, value: Scalar, dtype: DTypeLike | None = None) -> Tensor:
        name = dtype_name(dtype) if dtype is not None else self.dtype
        return self._new(_leaf(lazy.const(_scalar_in(value, name), self._node.shape, name)))

    def zeros_like(self, dtype: DTypeLike | None = None) -> Tensor:
        return self.full_like(0, dtype)

    def ones_like(self, dtype: DTypeLike | None = None) -> Tensor:
        return self.full_like(1, dtype)

    @staticmethod
    def arange(
        start: Scalar,
        stop: Scalar | None = None,
        step: Scalar = 1,
        dtype: DTypeLike | None = None,
        device: str | None = None,
    ) -> Tensor:
        """numpy ``arange``: ``graph.iota`` scaled and shifted; ints give i64, floats f64 unless ``dtype``."""
        if stop is None:
            start, stop = 0, start
        if step == 0:
            raise ValueError("arange: step must not be zero")
        n = max(0, int(np.ceil((stop - start) / step)))
        name = dtype_name(dtype) if dtype is not None else dtype_name(np.result_type(start, stop, step))
        iota = lazy.apply("iota", [], result=((n,), name), axis=0)
        t = Tensor._of(iota, _device(device))
        if step != 1:
            t = t * _scalar_in(step, name)
        if start != 0:
            t = t + _scalar_in(start, name)
        return t.cast(name)

    @staticmethod
    def empty(*shape: ShapeLike, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None) -> Tensor:
        """numpy ``empty``: kiln has no uninitialized memory, so the tensor holds zeros (a splat, free)."""
        return Tensor.full(_unpack(shape), 0, dtype, device)

    @staticmethod
    def eye(n: int, m: int | None = None, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None) -> Tensor:
        """numpy ``eye``: ones on the diagonal (two ``graph.iota``s compared, no host data)."""
        rows = Tensor._of(lazy.apply("iota", [], result=((n, 1), "i32"), axis=0), _device(device))
        cols = Tensor._of(lazy.apply("iota", [], result=((1, n if m is None else m), "i32"), axis=1), rows.device)
        return (rows == cols).cast(dtype)

    @staticmethod
    def linspace(
        start: float, stop: float, num: int = 50, dtype: DTypeLike | None = None, device: str | None = None
    ) -> Tensor:
        """numpy ``linspace`` (endpoint included): ``start + iota * step``, f32 unless ``dtype``."""
        name = dtype_name(dtype) if dtype is not None else DEFAULT_FLOAT
        work = name if is_float(name) else "f64"
        step = (stop - start) / (num - 1) if num > 1 else 0.0
        iota = Tensor._of(lazy.apply("iota", [], result=((num,), work), axis=0), _device(device))
        return (iota * _scalar_in(step, work) + _scalar_in(start, work)).cast(name)

    @staticmethod
    def uniform(
        *shape: int | Sequence[int], low: float = 0.0, high: float = 1.0, seed: int | None = None,
        dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None,
    ) -> Tensor:
        """Uniform in [low, high), drawn on the host like ``rand``."""
        return Tensor._random(lambda g, s: g.uniform(low, high, s), shape, seed, dtype, device)

    @staticmethod
    def randint(
        low: int, high: int | None = None, size: int | Sequence[int] = (), seed: int | None = None,
        dtype: DTypeLike = "i64", device: str | None = None,
    ) -> Tensor:
        """numpy ``randint``: integers in [low, high) (or [0, low)), drawn on the host."""
        lo, hi = (0, low) if high is None else (low, high)
        shape = (size,) if isinstance(size, int) else tuple(size)
        return Tensor._random(lambda g, s: g.integers(lo, hi, s), shape, seed, dtype, device)

    @staticmethod
    def _random(
        draw: Callable[[np.random.Generator, Shape], np.ndarray],
        shape: Sequence[Any],
        seed: int | None,
        dtype: DTypeLike,
        device: str | None,
    ) -> Tensor:
        if current() is not None:
            raise TraceError(
                "random tensors made inside a @kiln.jit function would be drawn once, at trace time, and replayed "
                "unchanged on every call: draw them outside and pass them in as arguments"
            )
        dims = _shape_arg(shape)
        device = _device(device)
        generator = _generator if seed is None else np.random.default_rng(seed)
        return Tensor(draw(generator, dims).astype(to_numpy(dtype_name(dtype))), device=device)

    @staticmethod
    def rand(
        *shape: int | Sequence[int], seed: int | None = None, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None,
    ) -> Tensor:
        """Uniform in [0, 1), drawn on the host with numpy (``manual_seed`` or ``seed=`` make it reproducible)."""
        return Tensor._random(lambda g, s: g.random(s), shape, seed, dtype, device)

    @staticmethod
    def randn(
        *shape: int | Sequence[int], seed: int | None = None, dtype: DTypeLike = DEFAULT_FLOAT, device: str | None = None,
    ) -> Tensor:
        """Standard normal, drawn on the host with numpy (``manual_seed`` or ``seed=`` make it reproducible)."""
        return Tensor._random(lambda g, s: g.standard_normal(s), shape, seed, dtype, device)

    # ------------------------------------------------------------------------------------------- properties

    @property
    def shape(self) -> tuple[int | Dim, ...]:
        """The shape; inside ``@kiln.jit`` a symbolic axis shows the ``kiln.Dim`` it was declared with."""
        trace = self._node.trace
        return tuple(trace.dims[d] if isinstance(d, str) else d for d in self._node.shape)  # type: ignore[union-attr]

    @property
    def dtype(self) -> str:
        """The kiln dtype name: ``"f32"``, ``"i64"``, ``"i1"`` (bool), ``"ui8"``, ... (``numpy()`` gives numpy's)."""
        return self._node.dtype

    @property
    def ndim(self) -> int:
        return len(self._node.shape)

    def __len__(self) -> int:
        if not self._node.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]  # type: ignore[return-value]

    def __repr__(self) -> str:
        """The values like numpy's repr when already computed; an unrealized tensor says so, computing nothing."""
        return interop.describe(self)

    def __str__(self) -> str:
        """The values as numpy prints them (``print(t)`` computes the tensor)."""
        return interop.show(self)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """``np.asarray(t)`` / ``np.array(t, dtype)``: one realization, one copy."""
        return interop.to_array(self, dtype, copy)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.exp(t)``, ``ndarray + t``: the kiln op, lazy on ``t``'s device (see ``kiln.jit.interop``)."""
        return interop.apply_ufunc(Tensor, ufunc, method, inputs, kwargs)

    def __pos__(self) -> Tensor:
        return self

    def square(self) -> Tensor:
        return self * self

    # ------------------------------------------------------------------------------------------- gradients

    @property
    def requires_grad(self) -> bool:
        """Whether ``backward`` computes a gradient for this tensor: set on a leaf (a parameter), and true for
        every tensor computed from one outside ``kiln.no_grad``."""
        return self._requires_grad or autograd.depends_on_leaf(self._node)

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, flag: bool = True) -> Tensor:
        """Make this tensor a leaf that ``backward`` fills ``.grad`` of (floating-point tensors only). Outside a
        trace its value is realized now, so a jitted step that updates it reads its buffer."""
        if flag and not is_float(self.dtype):
            raise TypeError(f"only floating-point tensors can require gradients, this one is {self.dtype}")
        self._requires_grad = bool(flag)
        autograd.mark_leaf(self, self._requires_grad)
        if flag and self._node.trace is None:
            self.realize()
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient ``backward`` accumulated for this leaf (None before the first ``backward``)."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        trace = current()
        if trace is not None:
            trace.record_write(self, "_grad")
        self._grad = value

    def backward(self, gradient: Tensor | None = None) -> None:
        """Add d self / d leaf to ``leaf.grad`` for every leaf this tensor depends on (``gradient``: the
        cotangent, needed unless this is a scalar). Lazy like everything else: the gradients are computed when
        read, or inside ``@kiln.jit`` by the same program as the forward pass."""
        autograd.backward(self, gradient)

    def detach(self) -> Tensor:
        """The same value, as a constant to ``backward``."""
        n = self._node
        node = lazy.Node(n.op, n.srcs, n.props, n.shape, n.dtype, n.arg)
        node.trace, node.no_grad = n.trace, True
        return self._new(node)

    def assign(self, value: Tensor | Scalar | Any) -> Tensor:
        """Replace this tensor's value in place (broadcast and cast to its shape and dtype): every reference to
        this Tensor object sees the new value. Inside ``@kiln.jit`` the new value is an output of the program,
        written back on every call (how an optimizer's update survives replay)."""
        v = value if isinstance(value, Tensor) else Tensor(value, dtype=self.dtype, device=self.device)
        if v.device != self.device:
            raise ValueError(f"assign: the value is on {v.device}, this tensor on {self.device}")
        v = v.expand(self.shape) if v._node.shape != self._node.shape else v
        trace = current()
        if trace is not None:
            trace.record_write(self, "_node")
        self._node = _cast(v._node, self.dtype)
        return self

    def __iadd__(self, o): return self.assign(self + o)
    def __isub__(self, o): return self.assign(self - o)
    def __imul__(self, o): return self.assign(self * o)
    def __itruediv__(self, o): return self.assign(self / o)

    # ------------------------------------------------------------------------------------------- values

    def realize(self, *others: Tensor) -> Tensor:
        """Compute this tensor (and ``others``, in the same program) now; inside a trace, tensors that depend
        on the jitted function's arguments are computed by the compiled program, so this does nothing to them."""
        realize([t for t in (self, *others) if t._node.trace is None or not t._node.trace.active])
        return self

    def numpy(self) -> np.ndarray:
        """The value as a new numpy array."""
        check_readable(self._node, ".numpy()")
        realize([self], ".numpy()")
        return self._node.arg.copy()

    def item(self) -> Scalar:
        check_readable(self._node, ".item()")
        realize([self], ".item()")
        return self._node.arg.item()

    def tolist(self) -> Any:
        check_readable(self._node, ".tolist()")
        realize([self], ".tolist()")
        return self._node.arg.tolist()

    def __bool__(self) -> bool:
        check_readable(self._node, "bool()")
        return bool(self.numpy())

    def __int__(self) -> int:
        check_readable(self._node, "int()")
        return int(self.item())

    def __float__(self) -> float:
        check_readable(self._node, "float()")
        return float(self.item())

    @staticmethod
    def from_numpy(array: np.ndarray, device: str | None = None) -> Tensor:
        """A tensor of ``array``'s values and dtype (copied once: kiln's buffers are immutable)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"from_numpy expects a numpy array, got {type(array).__name__}")
        return Tensor(array, device=device)

    def to(self, device: str, allow_downcast: bool = False) -> Tensor:
        """The same values on another device. A device without f64 (webgpu) takes f64 data only with
        ``allow_downcast=True``, which converts it to f32 (with a warning)."""
        if _device(device) == self.device:
            return self
        data = self.numpy()
        if allow_downcast and data.dtype == np.float64 and device != "interp":
            from kiln.capabilities.description import get_target

            if "f64" not in get_target(device).dtypes:
                warnings.warn(f"{device} has no f64: the tensor is converted to f32", stacklevel=2)
                data = data.astype(np.float32)
        return Tensor(data, device=device)

    def to_mlir(self, name: str = "main") -> str:
        """The traced graph of this tensor as a `graph` module: a ``func.func`` whose arguments are the
        buffers (and, inside a trace, the jitted function's inputs) it depends on. ``kiln-opt`` reads it."""
        from kiln.jit.lower import Subgraph

        sub = Subgraph.of([self._node])
        trace = self._node.trace
        dims = {d.name: (d.lo, d.hi) for d in trace.dims.values()} if trace is not None else None
        used = {d for n in sub.order for d in n.shape if isinstance(d, str)}
        return str(sub.module(name, sub.leaves, {k: v for k, v in (dims or {}).items() if k in used}))

    # ------------------------------------------------------------------------------------------- elementwise

    def _operand(self, other: Tensor | Scalar) -> tuple[str | Scalar, Node | None]:
        """(what promotion sees, node or None for a Python scalar) of the other operand."""
        if isinstance(other, Tensor):
            if other.device != self.device:
                raise ValueError(f"tensors on different devices: {self.device} and {other.device} (use .to())")
            return other.dtype, other._node
        if isinstance(other, bool | int | float) and not isinstance(other, np.generic):
            return other, None
        if isinstance(other, np.ndarray | np.generic | list | tuple):
            t = Tensor(other, device=self.device)
            return t.dtype, t._node
        raise TypeError(f"unsupported operand type for a Tensor op: {type(other).__name__}")

    def _nodes(self, others: Sequence[Tensor | Scalar], dtype: str) -> list[Node]:
        """This tensor and ``others`` as nodes of ``dtype`` (scalars become rank-0 constants)."""
        rest = [_as_node(o, self._operand(o)[1], dtype) for o in others]  # type: ignore[arg-type]
        return [_cast(self._node, dtype), *rest]

    def _binary(self, other: Tensor | Scalar, fn: Callable[..., Any], op: str, reflected: bool = False) -> Tensor:
        """``fn(self, other)`` (numpy's meaning and dtype) as ``graph.<op>`` of both operands in that dtype."""
        seen, _ = self._operand(other)
        dtype = promote(fn, seen, self.dtype) if reflected else promote(fn, self.dtype, seen)
        if is_bool(dtype):
            op = {"add": "or", "mul": "and", "max": "or", "min": "and"}.get(op, op)
        a, b = self._nodes([other], dtype)
        return self._new(lazy.apply(op, [b, a] if reflected else [a, b]))

    def _compare(self, other: Tensor | Scalar, op: str) -> Tensor:
        seen, _ = self._operand(other)
        a, b = self._nodes([other], promote(np.maximum, self.dtype, seen))
        return self._new(lazy.apply(op, [a, b]))

    def __add__(self, o): return self._binary(o, np.add, "add")
    def __radd__(self, o): return self._binary(o, np.add, "add", True)
    def __sub__(self, o): return self._binary(o, np.subtract, "sub")
    def __rsub__(self, o): return self._binary(o, np.subtract, "sub", True)
    def __mul__(self, o): return self._binary(o, np.multiply, "mul")
    def __rmul__(self, o): return self._binary(o, np.multiply, "mul", True)
    def __truediv__(self, o): return self._binary(o, np.true_divide, "div")
    def __rtruediv__(self, o): return self._binary(o, np.true_divide, "div", True)
    def __floordiv__(self, o): return self._binary(o, np.floor_divide, "idiv")
    def __rfloordiv__(self, o): return self._binary(o, np.floor_divide, "idiv", True)
    def __mod__(self, o): return self._binary(o, np.remainder, "mod")
    def __rmod__(self, o): return self._binary(o, np.remainder, "mod", True)
    def __and__(self, o): return self._binary(o, np.bitwise_and, "and")
    def __rand__(self, o): return self._binary(o, np.bitwise_and, "and", True)
    def __or__(self, o): return self._binary(o, np.bitwise_or, "or")
    def __ror__(self, o): return self._binary(o, np.bitwise_or, "or", True)
    def __xor__(self, o): return self._binary(o, np.bitwise_xor, "xor")
    def __rxor__(self, o): return self._binary(o, np.bitwise_xor, "xor", True)
    def __lshift__(self, o): return self._binary(o, np.left_shift, "shl")
    def __rlshift__(self, o): return self._binary(o, np.left_shift, "shl", True)
    def __rshift__(self, o): return self._binary(o, np.right_shift, "shr")
    def __rrshift__(self, o): return self._binary(o, np.right_shift, "shr", True)
    def __lt__(self, o): return self._compare(o, "lt")
    def __le__(self, o): return self._compare(o, "le")
    def __gt__(self, o): return self._compare(o, "gt")
    def __ge__(self, o): return self._compare(o, "ge")
    def __eq__(self, o): return self._compare(o, "eq")  # type: ignore[override]
    def __ne__(self, o): return self._compare(o, "ne")  # type: ignore[override]
    def __neg__(self): return self.neg()
    def __abs__(self): return self.abs()
    def __invert__(self): return self.logical_not()
    def __matmul__(self, o): return self.matmul(o)
    def __rmatmul__(self, o): return Tensor(o, device=self.device).matmul(self)

    def maximum(self, other: Tensor | Scalar) -> Tensor:
        return self._binary(other, np.maximum, "max")

    def minimum(self, other: Tensor | Scalar) -> Tensor:
        return self._binary(other, np.minimum, "min")

    def __pow__(self, other: Tensor | Scalar) -> Tensor:
        return self._power(other, reflected=False)

    def __rpow__(self, other: Tensor | Scalar) -> Tensor:
        return self._power(other, reflected=True)

    def _power(self, other: Tensor | Scalar, reflected: bool) -> Tensor:
        """numpy ``power``. ``graph.pow`` is float-only, so an integer power is exponentiation by squaring
        (exact, wrapping like numpy): unrolled over the bits of a Python int exponent, or over every bit of
        the dtype for a tensor exponent (a negative tensor exponent gives 0, where numpy raises)."""
        seen, _ = self._operand(other)
        dtype = promote(np.power, seen, self.dtype) if reflected else promote(np.power, self.dtype, seen)
        if is_float(dtype):
            return self._binary(other, np.power, "pow", reflected)
        if not reflected and type(other) is int:
            if other < 0:
                raise ValueError("Integers to negative integer powers are not allowed.")
            result, square, n = self.cast(dtype).ones_like(), self.cast(dtype), other
            while n:
                if n & 1:
                    result = result * square
                n >>= 1
                if n:
                    square = square * square
            return result
        other_tensor = Tensor(other, device=self.device)
        base, exponent = (other_tensor, self) if reflected else (self, other_tensor)
        negative = exponent < 0
        square, bits = base.cast(dtype), exponent.cast(dtype)
        result = square.ones_like()
        for _ in range(to_numpy(dtype).itemsize * 8):
            result = (bits & 1).where(result * square, result)
            square, bits = square * square, bits >> 1
        return negative.where(0, result)

    def _unary(self, op: str, dtype: str) -> Tensor:
        return self._new(lazy.apply(op, [_cast(self._node, dtype)]))

    def _float_unary(self, op: str) -> Tensor:
        return self._unary(op, float_result(self.dtype))

    # exp, log, sin, ..., floor, ceil, trunc: generated from the op declarations (``_declared_method``)
    def sigmoid(self) -> Tensor: return self._float_unary("sigmoid")
    def gelu(self) -> Tensor: return self._float_unary("gelu")

    def _rounding(self, op: str, fn: Callable[..., Any]) -> Tensor:
        dtype = promote(fn, self.dtype)
        return self.cast(dtype) if not is_float(dtype) else self._unary(op, dtype)

    def _predicate(self, op: str) -> Tensor:
        """A float property (isnan, isinf): false everywhere for integers and bools, as in numpy."""
        return self._unary(op, self.dtype) if is_float(self.dtype) else self != self

    def neg(self) -> Tensor:
        return self._unary("neg", promote(np.negative, self.dtype))

    def abs(self) -> Tensor:
        return self if is_bool(self.dtype) else self._unary("abs", promote(np.abs, self.dtype))

    def sign(self) -> Tensor:
        return self._unary("sign", promote(np.sign, self.dtype))

    def relu(self) -> Tensor:
        if is_bool(self.dtype):
            raise TypeError("relu of a bool tensor")
        return self._unary("relu", self.dtype)

    def logical_not(self) -> Tensor:
        """``~x``: logical not on bool, bitwise not on integers (numpy ``invert``)."""
        return self._unary("not", promote(np.invert, self.dtype))

    def where(self, a: Tensor | Scalar, b: Tensor | Scalar) -> Tensor:
        """``np.where(self, a, b)``: ``self`` is the condition (non-zero is true)."""
        cond = self.cast("i1")
        (seen_a, node_a), (seen_b, node_b) = cond._operand(a), cond._operand(b)
        dtype = promote(_where_dtype, seen_a, seen_b)
        branches = [_as_node(a, node_a, dtype), _as_node(b, node_b, dtype)]  # type: ignore[arg-type]
        return cond._new(lazy.apply("where", [cond._node, *branches]))

    def cast(self, dtype: DTypeLike) -> Tensor:
        """numpy ``astype`` (float to int truncates toward zero)."""
        name = dtype_name(dtype)
        return self if name == self.dtype else self._new(_cast(self._node, name))

    astype = cast

    def contiguous(self) -> Tensor:
        """Materialize the value in a buffer here (a scheduling boundary)."""
        return self._new(lazy.apply("contiguous", [self._node], result=(self._node.shape, self.dtype)))

    # ------------------------------------------------------------------------------------------- reductions

    def _reduce(self, op: str, fn: Callable[..., Any], axis: Axes, keepdims: bool) -> Tensor:
        axes = normalize_axes(axis, self.ndim)
        x = self.cast(promote(fn, self.dtype))
        if not axes:
            return x
        return x._new(lazy.apply(op, [x._node], axes=axes, keepdims=keepdims))

    def sum(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return self._reduce("reduce_sum", np.sum, axis, keepdims)

    def prod(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return self._reduce("reduce_prod", np.prod, axis, keepdims)

    def max(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return self._reduce("reduce_max", np.max, axis, keepdims)

    def min(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return self._reduce("reduce_min", np.min, axis, keepdims)

    def mean(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return self._reduce("mean", np.mean, axis, keepdims)

    def var(self, axis: Axes = None, keepdims: bool = False, ddof: int = 0) -> Tensor:
        """numpy ``var``: mean squared deviation, divided by (count - ddof)."""
        x = self._float()
        centered = x - x.mean(axis, keepdims=True)
        if ddof == 0:  # graph.mean divides by the count, symbolic dims included
            return (centered * centered).mean(axis, keepdims)
        dims = [self._node.shape[a] for a in normalize_axes(axis, self.ndim)]
        if not all(isinstance(d, int) for d in dims):
            raise TraceError(f"var/std with ddof={ddof} over a symbolic dim {dims} is not supported (use ddof=0)")
        return (centered * centered).sum(axis, keepdims) / max(math.prod(dims) - ddof, 0)  # type: ignore[arg-type]

    def std(self, axis: Axes = None, keepdims: bool = False, ddof: int = 0) -> Tensor:
        return self.var(axis, keepdims, ddof).sqrt()

    def any(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        """Whether any element (along ``axis``) is non-zero (bool)."""
        return (self != 0).max(axis, keepdims)

    def all(self, axis: Axes = None, keepdims: bool = False) -> Tensor:
        return (self != 0).min(axis, keepdims)

    def clip(self, min: Tensor | Scalar | None = None, max: Tensor | Scalar | None = None) -> Tensor:  # noqa: A002
        """numpy ``clip``: each bound may be None (no bound), a scalar or a broadcastable tensor."""
        if min is None and max is None:
            raise ValueError("clip: one of min or max must be given")
        x = self if min is None else self.maximum(min)
        return x if max is None else x.minimum(max)

    def numel(self) -> int:
        """The number of elements (static shapes only)."""
        if any(isinstance(d, str) for d in self._node.shape):
            raise TypeError(f"numel of a tensor with a symbolic shape {show_shape(self._node.shape)}")
        return math.prod(self._node.shape)  # type: ignore[arg-type]

    @property
    def size(self) -> int:
        """numpy's ``size``: the number of elements."""
        return self.numel()

    def _arg_reduce(self, op: str, axis: int | None, keepdims: bool) -> Tensor:
        if axis is None:
            flat = self.flatten()._arg_reduce(op, 0, keepdims)
            return flat.reshape((1,) * self.ndim) if keepdims else flat
        ax = normalize_axis(axis, self.ndim)
        shape = tuple(1 if i == ax else d for i, d in enumerate(self._node.shape) if keepdims or i != ax)
        return self._new(lazy.apply(op, [self._node], result=(shape, "i64"), axis=ax, keepdims=keepdims))

    def argmax(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """Index (i64) of the first maximum; ``axis=None`` searches the flattened tensor (numpy)."""
        return self._arg_reduce("argmax", axis, keepdims)

    def argmin(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        return self._arg_reduce("argmin", axis, keepdims)

    def cumsum(self, axis: int | None = None) -> Tensor:
        """Inclusive prefix sum; ``axis=None`` flattens first (numpy)."""
        if axis is None:
            return self.flatten().cumsum(0)
        x = self.cast(promote(np.cumsum, self.dtype))
        return x._new(lazy.apply("cumsum", [x._node], axis=normalize_axis(axis, self.ndim)))

    # ------------------------------------------------------------------------------------------- movement

    def reshape(self, *shape: DimLike | Sequence[DimLike]) -> Tensor:
        """numpy ``reshape`` (one -1 is inferred; symbolic dims must reappear as factors)."""
        target = [-1 if d == -1 else _shape_arg((d,))[0] for d in _unpack(shape)]  # type: ignore[misc]
        new = infer_reshape(self._node.shape, target)
        if new == self._node.shape:
            return self
        return self._new(lazy.apply("reshape", [self._node], result=(new, self.dtype)))

    def flatten(self) -> Tensor:
        return self.reshape(-1)

    def squeeze(self, axis: Axes = None) -> Tensor:
        shape = self._node.shape
        axes = [i for i, d in enumerate(shape) if d == 1] if axis is None else normalize_axes(axis, self.ndim)
        if any(shape[a] != 1 for a in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        return self._new_shape(tuple(d for i, d in enumerate(shape) if i not in axes))

    def unsqueeze(self, axis: int) -> Tensor:
        """A new axis of size 1 at ``axis`` (numpy ``expand_dims``)."""
        shape = list(self._node.shape)
        shape.insert(normalize_axis(axis, self.ndim + 1), 1)
        return self._new_shape(tuple(shape))

    def _new_shape(self, shape: Shape) -> Tensor:
        if shape == self._node.shape:
            return self
        return self._new(lazy.apply("reshape", [self._node], result=(shape, self.dtype)))

    def permute(self, *order: int | Sequence[int]) -> Tensor:
        """Result axis i is input axis ``order[i]``."""
        order = _unpack(order)
        perm = tuple(normalize_axis(a, self.ndim) for a in order)  # type: ignore[arg-type]
        if sorted(perm) != list(range(self.ndim)):
            raise ValueError(f"axes {list(order)} are not a permutation of the {self.ndim} axes")
        if perm == tuple(range(self.ndim)):
            return self
        return self._new(lazy.apply("permute", [self._node], perm=perm))

    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """numpy ``transpose``: reverse the axes, or permute them by ``axes``."""
        return self.permute(*axes) if axes else self.permute(tuple(reversed(range(self.ndim))))

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def expand(self, *shape: DimLike | Sequence[DimLike]) -> Tensor:
        """numpy ``broadcast_to``; -1 keeps that dim."""
        shape = _unpack(shape)
        old = self._node.shape
        lead = len(shape) - len(old)
        target = tuple(
            old[i - lead] if d == -1 and i >= lead else _shape_arg((d,))[0]  # type: ignore[misc]
            for i, d in enumerate(shape)
        )
        try:
            ok = lead >= 0 and broadcast_shapes(old, target) == target
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"cannot broadcast a tensor of shape {show_shape(old)} to {show_shape(target)}")
        if target == old:
            return self
        return self._new(lazy.apply("expand", [self._node], result=(target, self.dtype)))

    def pad(self, pad_width: int | Sequence[Any], value: Scalar = 0) -> Tensor:
        """numpy ``pad`` with a constant: ``pad_width`` is an int, one (before, after) pair for every axis, or a
        pair (or None) per axis. Negative amounts cut instead."""
        widths = _pad_widths(pad_width, self.ndim)
        x = self
        if any(lo < 0 or hi < 0 for lo, hi in widths):
            key = tuple(
                slice(-min(lo, 0), (d + min(hi, 0)) if isinstance(d, int) else None)
                for (lo, hi), d in zip(widths, self._node.shape)
            )
            x = x[key]
            widths = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
        if not any(lo or hi for lo, hi in widths):
            return x
        low, high = tuple(lo for lo, _ in widths), tuple(hi for _, hi in widths)
        fill = lazy.scalar_attr(_scalar_in(value, x.dtype), x.dtype)
        return x._new(lazy.apply("pad", [x._node], low=low, high=high, value=fill))

    def flip(self, axis: Axes = None) -> Tensor:
        """Reverse the order of elements along ``axis`` (all axes when None)."""
        axes = normalize_axes(axis, self.ndim)
        return self._new(lazy.apply("flip", [self._node], axes=axes)) if axes else self

    def __getitem__(self, key: Any) -> Tensor:
        """numpy indexing: basic (ints, slices, None, ...), one integer array or tensor, a numpy boolean mask."""
        if fancy_index.is_advanced(key):
            return fancy_index.getitem(self, key)
        plan = plan_index(self._node.shape, key)
        x = self.flip(plan.flip) if plan.flip else self
        if plan.shrinks(self._node.shape):
            start, limit, step = zip(*plan.bounds)
            x = x._new(lazy.apply("shrink", [x._node], start=start, limit=limit, step=step))
        return x._new_shape(plan.shape)

    def __setitem__(self, key: Any, value: Tensor | Scalar | Any) -> None:
        """``t[key] = value``: a new lazy value for this tensor (``assign``), seen through every reference to
        it. Basic keys, a boolean mask (tensor or numpy), or one list/numpy array of indices for axis 0."""
        fancy_index.setitem(self, key, value)

    def take(self, indices: Tensor | Any, axis: int = 0) -> Tensor:
        """numpy ``take`` along ``axis``: the result has the indices' shape in place of that axis."""
        index = indices if isinstance(indices, Tensor) else Tensor(np.asarray(indices, np.int64), device=self.device)
        return fancy_index.take(self, index, normalize_axis(axis, self.ndim))

    def cat(self, *others: Tensor, axis: int = 0) -> Tensor:
        """numpy ``concatenate`` of this tensor and ``others`` along ``axis`` (dtypes promoted)."""
        tensors = [self, *others]
        for t in others:
            self._operand(t)
        dtype = promote(_concat_dtype, *(t.dtype for t in tensors))
        nodes = [_cast(t._node, dtype) for t in tensors]
        if len(nodes) == 1:
            return self._new(nodes[0])
        return self._new(lazy.apply("concat", nodes, axis=normalize_axis(axis, self.ndim)))

    def stack(self, *others: Tensor, axis: int = 0) -> Tensor:
        """numpy ``stack``: join along a new axis."""
        ax = normalize_axis(axis, self.ndim + 1)
        return Tensor.cat(*(t.unsqueeze(ax) for t in (self, *others)), axis=ax)

    # ------------------------------------------------------------------------------------------- composites

    def matmul(self, other: Tensor | Any) -> Tensor:
        """numpy ``matmul`` (1-D operands promoted, batch dims broadcast)."""
        seen, _ = self._operand(other)
        a, b = self._nodes([other], promote(np.matmul, self.dtype, seen))
        return self._new(lazy.apply("matmul", [a, b]))

    def _float(self) -> Tensor:
        return self.cast(float_result(self.dtype))

    def softmax(self, axis: int = -1) -> Tensor:
        x = self._float()
        return x._new(lazy.apply("softmax", [x._node], axis=normalize_axis(axis, self.ndim)))

    def log_softmax(self, axis: int = -1) -> Tensor:
        x = self._float()
        return x._new(lazy.apply("log_softmax", [x._node], axis=normalize_axis(axis, self.ndim)))

    def layernorm(
        self, weight: Tensor | None = None, bias: Tensor | None = None, axis: Axes = -1, eps: float = 1e-5
    ) -> Tensor:
        """(x - mean) / sqrt(var + eps) over the trailing ``axis`` (biased variance), then * weight + bias."""
        x = self._float()
        axes = normalize_axes(axis, self.ndim)
        if axes != tuple(range(self.ndim - len(axes), self.ndim)):
            raise ValueError(f"layernorm normalizes trailing axes; got axis={axis} for rank {self.ndim}")
        affine: list[Node] = []
        if weight is not None or bias is not None:
            norm_shape = x._node.shape[self.ndim - len(axes) :]
            w = weight if weight is not None else Tensor.ones(norm_shape, dtype=x.dtype, device=self.device)
            b = bias if bias is not None else Tensor.zeros(norm_shape, dtype=x.dtype, device=self.device)
            affine = [_cast(w._node, x.dtype), _cast(b._node, x.dtype)]
        return x._new(lazy.apply("layernorm", [x._node, *affine], axes=axes, epsilon=float(eps)))

    def conv2d(
        self,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Pair = 1,
        padding: Pair = 0,
        dilation: Pair = 1,
        groups: int = 1,
    ) -> Tensor:
        """2-D cross-correlation: self NCHW, weight OIHW (I = C / groups), optional bias [O]."""
        dtype = promote(np.multiply, self.dtype, weight.dtype)
        if not is_float(dtype):
            raise TypeError(f"conv2d needs float tensors, got {self.dtype} and {weight.dtype}")
        nodes = self._nodes([weight] + ([bias] if bias is not None else []), dtype)
        windows = {"stride": _pair(stride), "padding": _pair(padding), "dilation": _pair(dilation)}
        return self._new(lazy.apply("conv2d", nodes, groups=groups, **windows))

    def _pool(self, op: str, kernel_size: Pair, stride: Pair | None, padding: Pair) -> Tensor:
        kernel = _pair(kernel_size)
        strides = _pair(stride) if stride is not None else kernel
        return self._new(lazy.apply(op, [self._node], kernel=kernel, stride=strides, padding=_pair(padding)))

    def max_pool2d(self, kernel_size: Pair = 2, stride: Pair | None = None, padding: Pair = 0) -> Tensor:
        """Window maximum over NCHW (padding never wins); the stride defaults to the window."""
        return self._pool("max_pool2d", kernel_size, stride, padding)

    def avg_pool2d(self, kernel_size: Pair = 2, stride: Pair | None = None, padding: Pair = 0) -> Tensor:
        """Window mean over NCHW (padding counts as zeros); the stride defaults to the window."""
        return self._float()._pool("avg_pool2d", kernel_size, stride, padding)

    def gather(self, axis: int, index: Tensor) -> Tensor:
        """numpy ``take_along_axis(self, index, axis)``: ``index`` (integers) has this tensor's rank."""
        _, node = self._operand(index)
        if node is None or not is_int(node.dtype):
            raise TypeError("gather needs an integer index tensor")
        return self._new(lazy.apply("gather", [self._node, node], axis=normalize_axis(axis, self.ndim)))


def _declared_method(op: Elementwise) -> Callable[[Tensor], Tensor]:
    """The ``Tensor`` method of a declared elementwise op (``kiln.dialects.ops``), named as its graph op: a float
    function promotes integers as ``np.exp`` does, a rounding follows numpy's dtype rule for ``op.numpy``, a
    predicate is false on integers."""
    name = op.graph
    assert name is not None and op.numpy is not None

    def method(self: Tensor) -> Tensor:
        if op.tensor == "float":
            return self._float_unary(name)
        if op.tensor == "rounding":
            return self._rounding(name, op.numpy)  # type: ignore[arg-type]
        return self._predicate(name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Elementwise {op.graph_summary or op.summary} (``graph.{name}``)."
    return method


for _op in ELEMENTWISE:
    if _op.tensor:
        setattr(Tensor, _op.graph, _declared_method(_op))  # type: ignore[arg-type]


def _pair(v: Pair) -> tuple[int, int]:
    pair = (v, v) if isinstance(v, int) else tuple(v)
    if len(pair) != 2:
        raise ValueError(f"expected an int or a pair, got {v!r}")
    return pair  # type: ignore[return-value]


def _pad_widths(pad_width: int | Sequence[Any], rank: int) -> list[tuple[int, int]]:
    if isinstance(pad_width, int):
        return [(pad_width, pad_width)] * rank
    widths = list(pad_width)
    if len(widths) == 2 and all(isinstance(w, int) for w in widths):
        return [(widths[0], widths[1])] * rank
    if len(widths) != rank:
        raise ValueError(f"pad_width needs one (before, after) pair per axis ({rank}), got {len(widths)}")
    return [(0, 0) if w is None else (int(w[0]), int(w[1])) for w in widths]


def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """``kiln.cat``: numpy ``concatenate`` of a sequence of tensors."""
    if not tensors:
        raise ValueError("cat needs at least one tensor")
    return tensors[0].cat(*tensors[1:], axis=axis)


def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """``kiln.stack``: numpy ``stack`` of a sequence of tensors along a new axis."""
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    return tensors[0].stack(*tensors[1:], axis=axis)
