"""``@kiln.jit``: trace a Python function to one `graph` function, compile it once, replay it.

A call is keyed by its arguments: the nesting of lists/tuples/dicts, the value of every non-tensor argument,
and the shape and dtype of every tensor (``Tensor`` or numpy array). A key seen before replays its compiled
program directly: one dict lookup, then the device's ``Executable`` (no tracing, no xDSL).

On a new key the function is traced: its tensor arguments become placeholders (the ``func.func`` arguments),
every tensor op records a graph node, and the returned tensors become the function's results. Host buffers the
function reads without receiving them (captured tensors) become extra arguments, passed on every replay.

Symbolic dims (``dims={"x": {0: kiln.Dim("N", 1, 4096)}}``) make the traced types use the symbol ``N``, so one
program serves every size in the bounds; each new size costs one more dict entry, not a compile. A size outside
the bounds (or two inputs that declare the same Dim but disagree) compiles a program for the exact shapes.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiln.jit import debug, lazy, state
from kiln.jit.compiled import CompiledGraph, compile_graph
from kiln.jit.dims import Dim, show_shape
from kiln.jit.dtypes import dtype_name
from kiln.jit.errors import JitError, TraceError
from kiln.jit.lower import Subgraph
from kiln.jit.realize import realize
from kiln.jit.state import StateEffects
from kiln.jit.tensor import Tensor, default_device
from kiln.jit.trace import Trace, current, tracing

DimsSpec = Mapping[str | int, Mapping[int, Dim]]

_LEAF = "tensor"
"""Marks a tensor's place in a flattened structure."""


def _flatten(obj: Any, leaves: list[Any]) -> Hashable:
    """A hashable picture of ``obj`` with tensors (and numpy arrays) replaced by ``_LEAF``, appended to ``leaves``."""
    t = type(obj)
    if t is Tensor or t is np.ndarray or isinstance(obj, Tensor | np.ndarray):
        leaves.append(obj)
        return _LEAF
    if t is tuple or t is list:
        return (t, tuple([_flatten(o, leaves) for o in obj]))
    if t is dict:
        return (dict, tuple([(k, _flatten(v, leaves)) for k, v in obj.items()]))
    try:
        hash(obj)
    except TypeError:
        raise JitError(
            f"a @kiln.jit argument of type {t.__name__} is neither a tensor nor hashable: non-tensor arguments are "
            "compiled in as constants and must be hashable so a changed value can be detected"
        ) from None
    return (t, obj)  # the type keeps 1, 1.0 and True apart


@functools.cache
def _tensors_only(n: int) -> Hashable:
    """What ``_flatten`` gives for ``n`` positional tensor arguments and no keyword arguments."""
    leaves: list[Any] = []
    return (_flatten((Tensor(0),) * n, leaves), _flatten({}, leaves))


def _unflatten(structure: Hashable, leaves: Iterator[Any]) -> Any:
    if structure == _LEAF:
        return next(leaves)
    kind, value = structure  # type: ignore[misc]
    if kind is tuple or kind is list:
        return kind(_unflatten(s, leaves) for s in value)
    if kind is dict:
        return {k: _unflatten(s, leaves) for k, s in value}
    return value


def _describe(structure: Hashable) -> str:
    if structure == _LEAF:
        return "a tensor"
    kind, value = structure  # type: ignore[misc]
    if kind in (tuple, list, dict):
        return f"a {kind.__name__}"
    return repr(value)


def _first_difference(old: Hashable, new: Hashable, where: str) -> str | None:
    """Where two flattened structures first differ, for people: ``argument 'lr': 0.1 -> 0.2``."""
    if old == new:
        return None
    if old != _LEAF and new != _LEAF and old[0] is new[0] and old[0] in (tuple, list, dict):  # type: ignore[index]
        olds, news = old[1], new[1]  # type: ignore[index]
        if old[0] is dict:
            if [k for k, _ in olds] == [k for k, _ in news]:
                pairs = [(f"{where}[{k!r}]", a, b) for (k, a), (_, b) in zip(olds, news)]
            else:
                pairs = []
        else:
            same_length = len(olds) == len(news)
            pairs = [(f"{where}[{i}]", a, b) for i, (a, b) in enumerate(zip(olds, news))] if same_length else []
        for path, a, b in pairs:
            if (found := _first_difference(a, b, path)) is not None:
                return found
    return f"{where}: {_describe(old)} -> {_describe(new)}"


@dataclass
class _Compiled:
    """One traced signature: the program, the captured buffers it also takes, and how to rebuild the result."""

    program: CompiledGraph
    captured: tuple[np.ndarray, ...]
    out_structure: Hashable
    out_dtypes: tuple[str, ...]
    device: str
    state: StateEffects | None
    """Tensors the function assigns and gradients it sets (None: it has no side effects)."""


def _symbol_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "", name) or "f"


class JitFunction:
    """A function compiled per argument signature; see the module docstring. ``trace_count`` counts traces."""

    def __init__(self, fn: Callable[..., Any], dims: DimsSpec | None = None, device: str | None = None):
        self.fn = fn
        self.name = _symbol_name(getattr(fn, "__name__", "f"))
        self.device = device
        self.trace_count = 0
        self._params = _positional_names(fn)
        self._dims = _check_dims(dims or {}, fn)
        self._replay: dict[Hashable, _Compiled] = {}
        self._programs: dict[Hashable, _Compiled] = {}
        self._last_signature: Hashable | None = None
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    @property
    def compiled(self) -> list[CompiledGraph]:
        """Every program compiled so far, in trace order (``.graph_ir``, ``.source``, ``.program``)."""
        return [entry.program for entry in self._programs.values()]

    def reset(self) -> None:
        """Forget every compiled signature (the next call traces again)."""
        self._replay.clear()
        self._programs.clear()
        self._last_signature = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current() is not None:  # called while tracing another function: trace through it
            return self.fn(*args, **kwargs)
        if not kwargs and all(type(a) is Tensor for a in args):  # the common case, without the recursion
            leaves: list[Any] = list(args)
            structure = _tensors_only(len(args))
        else:
            leaves = []
            structure = (_flatten(args, leaves), _flatten(kwargs, leaves))
        device = self.device or next((t.device for t in leaves if isinstance(t, Tensor)), None) or default_device()
        arrays = self._arrays(leaves, device)
        key = (structure, device, *[(a.shape, a.dtype) for a in arrays])
        entry = self._replay.get(key)
        if entry is None:
            entry = self._miss(key, structure, arrays, device, args, kwargs)
        state = entry.state
        if state is None:
            outputs = entry.program(*arrays, *entry.captured)
        else:
            outputs = entry.program(*arrays, *state.inputs(entry.captured, self.name))
            state.apply(outputs[len(entry.out_dtypes) :])
        results = [Tensor._of(lazy.buffer(a, d), entry.device) for a, d in zip(outputs, entry.out_dtypes)]
        if entry.out_structure == _LEAF:
            return results[0]
        return _unflatten(entry.out_structure, iter(results))

    # ------------------------------------------------------------------------------------------- arguments

    def _arrays(self, leaves: list[Any], device: str) -> list[np.ndarray]:
        """The data of each tensor argument (lazy ones are realized first, together)."""
        arrays = []
        for t in leaves:
            if not isinstance(t, Tensor):
                arrays.append(t)
                continue
            if t.device != device:
                raise JitError(f"@kiln.jit function '{self.name}' runs on {device}, got a tensor on {t.device}")
            if t._node.op != "buffer":
                lazy_tensors = [t for t in leaves if isinstance(t, Tensor) and t._node.op != "buffer"]
                realize(lazy_tensors, f"passing a tensor to @kiln.jit function '{self.name}'")
            arrays.append(t._node.arg)
        return arrays

    def _owners(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str | None]:
        """For each tensor leaf, the parameter it was passed as (None when nested in a container)."""
        owners: list[str | None] = []
        named = [(self._params[i] if i < len(self._params) else str(i), a) for i, a in enumerate(args)]
        for name, value in [*named, *kwargs.items()]:
            found: list[Any] = []
            _flatten(value, found)
            direct = len(found) == 1 and found[0] is value
            owners.extend([name if direct else None] * len(found))
        return owners

    def _abstract(self, arrays: list[np.ndarray], owners: list[str | None]) -> tuple[tuple, dict[str, Dim], str | None]:
        """The shapes with declared symbols in place of sizes, the symbols used, and why symbols were dropped."""
        used: dict[str, Dim] = {}
        values: dict[str, int] = {}
        shapes: list[tuple] = []
        problem = None
        for a, owner in zip(arrays, owners):
            shape: list[int | str] = list(a.shape)
            for axis, d in self._dims.get(owner, {}).items() if owner is not None else ():
                if not -a.ndim <= axis < a.ndim:
                    raise JitError(f"dims: argument '{owner}' has rank {a.ndim}, so it has no axis {axis}")
                n = a.shape[axis]
                if not d.contains(n):
                    problem = f"{d.name} = {n} (argument '{owner}' axis {axis}) is outside [{d.lo}, {d.hi}]"
                elif values.setdefault(d.name, n) != n:
                    problem = f"{d.name} is {values[d.name]} and {n} in different arguments"
                used[d.name] = d
                shape[axis % a.ndim] = d.name
            shapes.append((tuple(shape), dtype_name(a.dtype)))
        if problem is not None:
            return tuple((tuple(a.shape), dtype_name(a.dtype)) for a in arrays), {}, problem
        return tuple(shapes), used, None

    # ------------------------------------------------------------------------------------------- compiling

    def _miss(
        self,
        key: Hashable,
        structure: Hashable,
        arrays: list[np.ndarray],
        device: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> _Compiled:
        owners = self._owners(args, kwargs)
        missing = set(self._dims) - {o for o in owners if o is not None}
        if missing:
            raise JitError(
                f"dims names {sorted(missing)} of @kiln.jit function '{self.name}', which got no tensor there "
                f"(tensor arguments: {sorted({o for o in owners if o is not None})})"
            )
        shapes, dims, problem = self._abstract(arrays, owners)
        signature = (structure, device, shapes)
        entry = self._programs.get(signature)
        if entry is None:
            if debug.level():
                debug.log(self._why(signature, problem))
            entry = self._trace(structure, shapes, dims, device, _requiring_grad(args, kwargs))
            self._programs[signature] = entry
            self._last_signature = signature
        elif debug.level():
            debug.log(f"@{self.name} for {device}: memory cache hit (traced earlier in this process)")
        self._replay[key] = entry
        return entry

    def _why(self, signature: tuple, problem: str | None) -> str:
        structure, device, shapes = signature
        text = ", ".join(f"{dt}{show_shape(s)}" for s, dt in shapes)
        head = f"tracing @{self.name} on {device} for ({text})"
        if problem is not None:
            return f"{head}: {problem}, so this call gets a program for its exact shapes"
        if self._last_signature is None:
            return head
        change = self._changed_argument(self._last_signature[0], structure)
        if change is not None:
            return f"{head}: retracing, a non-tensor argument changed ({change}); they are compiled in as constants"
        return f"{head}: no compiled signature matches these shapes and dtypes"

    def _changed_argument(self, old: Hashable, new: Hashable) -> str | None:
        """The first non-tensor argument whose value differs between two call structures."""
        (_, old_args), (_, old_kwargs) = old  # type: ignore[misc]
        (_, new_args), (_, new_kwargs) = new  # type: ignore[misc]
        if len(old_args) != len(new_args):
            return f"{len(old_args)} -> {len(new_args)} positional arguments"
        names = [self._params[i] if i < len(self._params) else str(i) for i in range(len(new_args))]
        for name, a, b in zip(names, old_args, new_args):
            if (found := _first_difference(a, b, f"argument '{name}'")) is not None:
                return found
        return _first_difference(old[1], new[1], "keyword arguments")  # type: ignore[index]

    def _trace(
        self, structure: Hashable, shapes: tuple, dims: dict[str, Dim], device: str, grads: list[bool]
    ) -> _Compiled:
        self.trace_count += 1
        trace = Trace(self.name, dims)
        placeholders = [Tensor._of(lazy.placeholder(trace, i, s, dt), device) for i, (s, dt) in enumerate(shapes)]
        for p, flag in zip(placeholders, grads):
            if flag:
                p.requires_grad_()
        inputs = iter(placeholders)
        args, kwargs = (_unflatten(part, inputs) for part in structure)  # type: ignore[union-attr]
        with tracing(trace):
            try:
                result = self.fn(*args, **kwargs)
            finally:
                written, written_nodes, constants, before = state.collect(trace)
        outputs: list[Any] = []
        out_structure = _flatten(result, outputs)
        if not outputs:
            raise JitError(f"@kiln.jit function '{self.name}' returned no tensors (it must return what it computes)")
        for o in outputs:
            if not isinstance(o, Tensor):
                raise JitError(f"@kiln.jit function '{self.name}' returned a numpy array; return tensors")
            if o._node.trace is not None and o._node.trace is not trace:
                escaped = o._node.trace.name
                raise TraceError(f"@kiln.jit function '{self.name}' returned a tensor that escaped the trace of {escaped}")
            if o.device != device:
                raise JitError(f"@kiln.jit function '{self.name}' returned a tensor on {o.device}, runs on {device}")
        sub = Subgraph.of([o._node for o in outputs] + written_nodes)
        captured = [n for n in sub.leaves if n.op == "buffer"]
        effects = None
        if written or constants:
            effects = state.effects(self.name, captured, sub.order, written, written_nodes, constants, before)
        args_nodes = [p._node for p in placeholders] + captured
        bounds = {d.name: (d.lo, d.hi) for d in dims.values()}
        program = compile_graph(sub, self.name, args_nodes, device, bounds)
        out_dtypes = tuple(o.dtype for o in outputs)
        return _Compiled(program, tuple(n.arg for n in captured), out_structure, out_dtypes, device, effects)


def _requiring_grad(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[bool]:
    """For each tensor leaf of a call, whether it requires gradients (its placeholder will too, so
    ``backward`` inside the function reaches the arguments; read at trace time, not part of the call key)."""
    leaves: list[Any] = []
    _flatten((args, kwargs), leaves)
    return [isinstance(t, Tensor) and t._requires_grad for t in leaves]


def _positional_names(fn: Callable[..., Any]) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _check_dims(dims: DimsSpec, fn: Callable[..., Any]) -> dict[str, dict[int, Dim]]:
    """``dims`` by parameter name (positional indices resolved), each entry checked."""
    params = _positional_names(fn)
    out: dict[str, dict[int, Dim]] = {}
    for owner, axes in dims.items():
        if isinstance(owner, int):
            owner = params[owner] if 0 <= owner < len(params) else str(owner)
        if not isinstance(axes, Mapping) or not all(isinstance(a, int) and isinstance(d, Dim) for a, d in axes.items()):
            raise JitError(f"dims['{owner}'] must map axes (ints) to kiln.Dim, e.g. {{0: kiln.Dim('N', 1, 4096)}}")
        out[owner] = dict(axes)
    return out


def jit(
    fn: Callable[..., Any] | None = None, *, dims: DimsSpec | None = None, device: str | None = None
) -> JitFunction | Callable[[Callable[..., Any]], JitFunction]:
    """Compile ``fn`` per argument signature and replay it: ``@kiln.jit`` or ``@kiln.jit(dims=..., device=...)``.

    ``dims`` maps a parameter (name, or position) to ``{axis: kiln.Dim(name, lo, hi)}``; the same ``Dim`` on
    several arguments means they must agree. ``device`` defaults to the device of the tensor arguments.
    """
    if fn is None:
        return lambda f: JitFunction(f, dims, device)
    return JitFunction(fn, dims, device)
