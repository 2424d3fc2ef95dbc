"""A compiled function as plain data (``ProgramSpec``), and the object that runs it (``Executable``).

A ``ProgramSpec`` is what a device extracts from the lowered schedule ``func.func``: the inputs (shapes may use
symbols), the symbol bounds, the buffers (each either a function input or a storage slot), the kernel launches in
order, which buffers are returned, and the kernels' compiled artifact (source text plus target name). It is
JSON-serializable, so a compile-cache hit rebuilds it without touching xDSL.

An ``Executable`` joins a spec with the loaded kernels (entry addresses) and runs it. Everything that does not
depend on the call's arguments is computed once: ctypes prototypes, argument gatherers, and, per distinct
binding of the symbols, a ``_Plan`` (arena offsets, launch extents and thread chunks, output views, and the
launch list as the native runner's program). A call then checks and binds its inputs, allocates output storage,
and runs every launch in one call of the native runner (``kiln.runtime.native``; the GIL is released for all of
it), or, without it (no C compiler, ``KILN_PYTHON_RUNNER=1``), in a loop of ctypes calls.

Memory: the intermediate buffers (those that are neither inputs nor outputs) live in one arena, each at an
offset that ``kiln.runtime.arena.pack`` chooses per binding of the symbols from the buffers' actual sizes and the
launches that use them, so buffers whose lifetimes do not overlap share bytes (the spec's slots, planned by the
compiler at the symbols' upper bounds, are what the GPU devices use). Offsets and storage are aligned to 64 bytes.
The arena is kept by the Executable between calls and grown when a larger binding needs more, so a steady-state
call faults in no fresh pages (a memory-bound kernel writing a fresh 64 MiB output paid ~16k page faults per
call). Each output buffer has storage of its own and keeps up to ``OUTPUT_STORAGES``
storages, and a call reuses one only when nothing refers to it any more: every array made from it (the returned
view, its views, a ``Tensor`` holding it) keeps the storage array alive through numpy's ``base``, so its
reference count says whether the caller still holds a result; a result the caller holds is never overwritten.
Two storages let ``y = f(x)`` in a loop alternate between them. An output is returned as a view of its
storage, except that it is copied when it is an input of the call or when the same buffer is returned again.
``last_peak_bytes`` (after a call) and ``peak_bytes(**symbols)`` give the bytes of arena and output storage a call
uses (inputs not included).

CPU calling convention (the emitters produce it): a kernel is ``void name(args..., i64 core_start, i64
core_end)``; ``args`` follow the launch's argument order, buffers as pointers, symbols as int64. The last two
give the half-open slice of the kernel's outermost parallel range to compute; its size is the launch's
``core_extent`` (a ``kiln.support.symbolic`` size text), or the kernel is called once with ``(0, 1)`` when
``core_extent`` is None. Each kernel also has its uniform entry ``void name__entry(void **args, i64 lo, i64
hi)`` (``kiln.targets.loaded.entry_name``), which the native runner calls.
"""

from __future__ import annotations

import ctypes
import sys
import time
import json
import math
import operator
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from kiln.support.dtypes import DTYPE_FACTS as DTYPES, numpy_dtype as to_numpy  # no xDSL on a cache hit
from kiln.support.errors import CompileError, InputError
from kiln.support.symbolic import compile_size, size_symbols
from kiln.runtime.arena import align_up, pack
from kiln.runtime.native import program_words, runner
from kiln.runtime.threads import Range, ThreadPool, default_pool
from kiln.support.env import env_flag
from kiln.targets.loaded import LoadedKernels, entry_name

if TYPE_CHECKING:
    from kiln.dialects.types import Shape

ALIGNMENT = 64
"""Byte alignment of arena offsets and storage (one cache line; a full AVX-512 vector)."""

OUTPUT_STORAGES = 2
"""Storages an Executable keeps per output buffer for reuse once the caller has dropped the results in them."""

MAX_PLANS = 64
"""Symbol bindings whose launch plans an Executable remembers (oldest forgotten first)."""

Values = Any
"""A call's values as the native runner reads them: a ctypes ``c_int64`` array (indexing gives ints)."""

LaunchArg = tuple[Literal["buf"], int] | tuple[Literal["sym"], str]
Chunk = tuple[int, float, float]
"""One chunk of a launch in ``Executable.timeline``: the thread that ran it, its start and end in seconds."""


@dataclass(frozen=True)
class TensorSpec:
    """A function input: shape (ints and symbol names) and dtype name."""

    shape: Shape
    dtype: str


@dataclass(frozen=True)
class BufferSpec:
    """A buffer of the schedule: either function input ``input`` or storage slot ``slot`` (exactly one is set).
    ``chunk_span`` (CPU, from the ``kernel.alloc`` attribute that ``kernel-join-launches`` sets): the buffer is
    used only by one joined group, and grid chunk g of G touches only its elements ``[span g / G, span (g + 1) /
    G)``, so the native runner gives each thread one chunk's slice in place of the buffer."""

    id: int
    shape: Shape
    dtype: str
    slot: int | None = None
    input: int | None = None
    chunk_span: int | None = None


@dataclass(frozen=True)
class LaunchSpec:
    """One kernel call: its arguments in order, and how it is spread over cores (CPU) or a grid (GPU).

    The launch fields come from the ``uop.kernel`` attributes of the same names (docs/internals.md). CPU:
    ``core_extent`` is the size of the range split across threads (None: call once with (0, 1)), ``core_work``
    the estimated ALU ops per index of that range (None: unknown), from which the thread pool decides whether
    splitting pays. GPU: ``global_size`` (workgroups per grid dim) and ``local_size`` (threads per workgroup),
    3 entries each, ints or ``kiln.support.symbolic`` size texts. ``joined`` (CPU, from the ``kernel.launch``
    attribute that ``kernel-join-launches`` sets): the launch runs chunk by chunk with the launch before it (and
    that one's joined predecessors): the group's core ranges are cut on a common grid (the gcd of their extents),
    and one thread runs grid chunk c of every launch of the group in order, with no barrier between them.
    """

    kernel: str
    args: tuple[LaunchArg, ...]
    core_extent: str | None = None
    core_work: int | None = None
    global_size: tuple[int | str, ...] | None = None
    local_size: tuple[int | str, ...] | None = None
    joined: bool = False

    def expressions(self) -> list[str]:
        """Every size expression of the launch (for validation)."""
        sizes = [*(self.global_size or ()), *(self.local_size or ())]
        return ([self.core_extent] if self.core_extent is not None else []) + [str(e) for e in sizes]


@dataclass(frozen=True)
class KernelsArtifact:
    """What a device needs to load the kernels: the emitted text and the target it was emitted for."""

    target: str
    source: str


@dataclass(frozen=True)
class ProgramSpec:
    name: str
    inputs: tuple[TensorSpec, ...]
    symbols: tuple[tuple[str, int, int], ...]
    """(name, lo, hi) with inclusive bounds, as in ``#graph.dims``."""
    buffers: tuple[BufferSpec, ...]
    outputs: tuple[int, ...]
    """Buffer ids returned, in order."""
    launches: tuple[LaunchSpec, ...]
    kernels: KernelsArtifact

    @property
    def symbol_bounds(self) -> dict[str, tuple[int, int]]:
        return {n: (lo, hi) for n, lo, hi in self.symbols}

    def kernel_names(self) -> list[str]:
        return list(dict.fromkeys(launch.kernel for launch in self.launches))

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> ProgramSpec:
        d = json.loads(text)
        return ProgramSpec(
            name=d["name"],
            inputs=tuple(TensorSpec(tuple(t["shape"]), t["dtype"]) for t in d["inputs"]),
            symbols=tuple((n, lo, hi) for n, lo, hi in d["symbols"]),
            buffers=tuple(BufferSpec(**{**b, "shape": tuple(b["shape"])}) for b in d["buffers"]),
            outputs=tuple(d["outputs"]),
            launches=tuple(
                LaunchSpec(
                    x["kernel"],
                    tuple((kind, v) for kind, v in x["args"]),
                    x["core_extent"],
                    x["core_work"],
                    None if x["global_size"] is None else tuple(x["global_size"]),
                    None if x["local_size"] is None else tuple(x["local_size"]),
                    x.get("joined", False),
                )
                for x in d["launches"]
            ),
            kernels=KernelsArtifact(**d["kernels"]),
        )

    def validate(self) -> None:
        """Raise ``CompileError`` if the spec is inconsistent (a lowering bug, never a user error)."""

        def fail(msg: str) -> None:
            raise CompileError(f"bad program '{self.name}': {msg}")

        bounds = self.symbol_bounds
        for name, lo, hi in self.symbols:
            if not 0 <= lo <= hi:
                fail(f"symbol {name} has bounds [{lo}, {hi}]")
        bindable = {d for t in self.inputs for d in t.shape if isinstance(d, str)}
        if missing := bounds.keys() - bindable:
            fail(f"symbols {sorted(missing)} appear in no input shape, so no call can bind them")

        def check_shape(what: str, shape: Shape, dtype: str) -> None:
            if dtype not in DTYPES:
                fail(f"{what} has unknown dtype '{dtype}'")
            for d in shape:
                if isinstance(d, str) and d not in bounds:
                    fail(f"{what} uses undeclared symbol '{d}'")
                if isinstance(d, int) and d < 0:
                    fail(f"{what} has negative dim {d}")

        for i, t in enumerate(self.inputs):
            check_shape(f"input {i}", t.shape, t.dtype)
        buffers: dict[int, BufferSpec] = {}
        for b in self.buffers:
            check_shape(f"buffer {b.id}", b.shape, b.dtype)
            if b.id in buffers:
                fail(f"buffer id {b.id} defined twice")
            buffers[b.id] = b
            if (b.slot is None) == (b.input is None):
                fail(f"buffer {b.id} must have exactly one of slot / input")
            if b.chunk_span is not None and (b.slot is None or b.chunk_span < 1):
                fail(f"buffer {b.id} has chunk_span {b.chunk_span}, but only an intermediate may, with a span >= 1")
            if b.input is not None:
                if not 0 <= b.input < len(self.inputs):
                    fail(f"buffer {b.id} refers to input {b.input}, but there are {len(self.inputs)} inputs")
                t = self.inputs[b.input]
                if (tuple(t.shape), t.dtype) != (tuple(b.shape), b.dtype):
                    fail(f"buffer {b.id} does not match input {b.input}")
        for k, launch in enumerate(self.launches):
            for kind, v in launch.args:
                if kind == "buf" and v not in buffers:
                    fail(f"launch {k} (@{launch.kernel}) uses unknown buffer {v}")
                elif kind == "sym" and v not in bounds:
                    fail(f"launch {k} (@{launch.kernel}) uses undeclared symbol '{v}'")
                elif kind not in ("buf", "sym"):
                    fail(f"launch {k} (@{launch.kernel}) has an argument of unknown kind '{kind}'")
            if launch.joined and (k == 0 or launch.core_extent is None or self.launches[k - 1].core_extent is None):
                fail(f"launch {k} (@{launch.kernel}) is joined, but it or the launch before it has no core range")
            for expr in launch.expressions():
                try:
                    unknown = size_symbols(expr) - bounds.keys()
                    compile_size(expr)
                except (SyntaxError, ValueError) as e:
                    fail(f"launch {k} (@{launch.kernel}) has a bad size expression '{expr}': {e}")
                if unknown:
                    fail(f"launch {k} (@{launch.kernel}) size '{expr}' uses undeclared symbols {sorted(unknown)}")
        for o in self.outputs:
            if o not in buffers:
                fail(f"output {o} is not a buffer")




class _Plan:
    """Everything about a call that depends only on the symbol values."""

    __slots__ = (
        "symbol_values", "offsets", "arena_bytes", "output_bytes", "peak_bytes", "launches", "program",
        "program_address", "outputs", "n_inputs", "outputs_at", "values", "values_base",
    )  # fmt: skip

    def __init__(
        self,
        n_inputs: int,
        symbol_values: list[int],
        offsets: list[int],
        arena_bytes: int,
        output_bytes: list[int],
        launches: list[tuple[Callable[..., None], Callable[[Values], Any], tuple[Range, ...], int]],
        program: np.ndarray | None,
        outputs: list[tuple[str, int, np.dtype, tuple[int, ...], bool]],
    ):
        self.n_inputs = n_inputs
        self.symbol_values = symbol_values
        self.offsets = offsets
        """Per intermediate buffer (``Executable._intermediates`` order), its offset in the arena."""
        self.arena_bytes = arena_bytes
        self.output_bytes = output_bytes
        """Per output buffer (``Executable._output_buffers`` order), its size."""
        self.peak_bytes = arena_bytes + sum(output_bytes)
        self.launches = launches
        """Per launch or joined group (Python loop): function, argument gatherer, chunks, launches in it."""
        self.program = program
        """The launches as the native runner's program (``kiln.runtime.native.program_words``); None when the
        Executable runs them from Python."""
        self.program_address = 0 if program is None else _address(program)
        self.outputs = outputs
        self.outputs_at = n_inputs + len(offsets)
        """Where the output addresses start among the call's values."""
        self.values = self.fresh_values()
        """The value array of calls under the Executable's scratch lock (one at a time), kept between them."""
        self.values_base = -1
        """The arena address ``values`` holds the intermediates' addresses for (-1: none yet)."""

    def fresh_values(self) -> Values:
        """A call's values (the native runner's int64 array): inputs, arena and output addresses, then the symbol
        values, which are filled in here; the addresses are the call's to fill."""
        values = (ctypes.c_int64 * (self.outputs_at + len(self.output_bytes) + len(self.symbol_values)))()
        values[self.outputs_at + len(self.output_bytes) :] = self.symbol_values
        return values

    def values_for(self, base: int, held: bool) -> Values:
        """The values of a call whose arena starts at ``base``, the intermediates' addresses filled in: the plan's
        own array when the call holds the scratch lock (refilled only when the arena moved), else a fresh one."""
        values = self.values if held else self.fresh_values()
        if values is not self.values or self.values_base != base:
            values[self.n_inputs : self.outputs_at] = [base + offset for offset in self.offsets]
            if held:
                self.values_base = base
        return values


_PROTOTYPES: dict[tuple[str, ...], Any] = {}


def _prototype(kinds: tuple[str, ...]) -> Any:
    if kinds not in _PROTOTYPES:
        params = [ctypes.c_void_p if k == "buf" else ctypes.c_int64 for k in kinds]
        _PROTOTYPES[kinds] = ctypes.CFUNCTYPE(None, *params, ctypes.c_int64, ctypes.c_int64)
    return _PROTOTYPES[kinds]


def _gatherer(indices: Sequence[int]) -> Callable[[Values], tuple[int, ...]]:
    """A fast ``vals -> tuple(vals[i] for i in indices)`` (operator.itemgetter returns a bare item for one index)."""
    if len(indices) == 0:
        return lambda vals: ()
    if len(indices) == 1:
        i = indices[0]
        return lambda vals: (vals[i],)
    return operator.itemgetter(*indices)


def _address(a: np.ndarray) -> int:
    """The data address of a C-contiguous array (the ctypes buffer route is ~3x faster than ``a.ctypes.data``)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    except (TypeError, ValueError):  # read-only or empty arrays
        return a.ctypes.data


def _remember(memo: dict[Any, _Plan], key: Any, plan: _Plan) -> None:
    if len(memo) >= MAX_PLANS:
        memo.pop(next(iter(memo)), None)  # pop, not del: another thread may have dropped it already
    memo[key] = plan


Storage = tuple[np.ndarray, int, int]
"""Arena or output storage, as ``_aligned`` makes it: (raw array, offset of the aligned start, aligned address)."""


def _recorded(fn: Callable[..., None], record: dict[int, Chunk]) -> Callable[..., None]:
    """``fn`` that also records each chunk's (thread, start, end) by its first index, for ``timeline`` on the
    Python launch loop (its workers are the threads named ``kiln-worker-<i>``: thread i + 1)."""

    def run(*args: Any) -> None:
        start = time.perf_counter()
        fn(*args)
        name = threading.current_thread().name
        thread = int(name.rsplit("-", 1)[1]) + 1 if name.startswith("kiln-worker-") else 0
        record[args[-2]] = (thread, start, time.perf_counter())

    return run


Stage = tuple[Callable[..., None], Callable[[Values], tuple[int, ...]], tuple[Range, ...]]
"""A launch in the Python loop: its function, argument gatherer and chunks."""


def _joined(stages: Sequence[Stage]) -> tuple[Callable[..., None], Callable[[Values], Any], tuple[Range, ...]]:
    """Joined launches as one launch of the Python loop: chunk i runs chunk i of every stage in order. Its chunks
    are the first stage's (the loop needs them distinct to record a timeline; every stage has as many)."""
    fns = [fn for fn, _, _ in stages]
    gathers = [gather for _, gather, _ in stages]
    first = {lo: i for i, (lo, _) in enumerate(stages[0][2])}
    per_stage = [ranges for _, _, ranges in stages]

    def run(*args: Any) -> None:
        *stage_args, lo, _ = args
        i = first[lo]
        for fn, stage, ranges in zip(fns, stage_args, per_stage):
            fn(*stage, *ranges[i])

    return run, lambda vals: tuple(gather(vals) for gather in gathers), stages[0][2]


def _aligned(nbytes: int) -> Storage:
    """Fresh storage of ``nbytes``: (raw array, offset of the aligned start, aligned address)."""
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    base = _address(raw)
    offset = -base % ALIGNMENT
    return raw, offset, base + offset


def _references(storage: Storage) -> int:
    return sys.getrefcount(storage[0])


_UNREFERENCED = _references(_aligned(0))
"""What ``_references`` gives for storage that only its held tuple refers to (measured: it depends on the
interpreter's reference counting)."""


def _free(storage: Storage, nbytes: int) -> bool:
    """Whether held output storage has room for ``nbytes`` and no array made from it is alive."""
    return _references(storage) <= _UNREFERENCED and storage[0].nbytes - storage[1] >= nbytes


class Executable:
    """A callable compiled function: ``exe(*arrays) -> list[np.ndarray]``."""

    def __init__(self, spec: ProgramSpec, kernels: LoadedKernels, pool: ThreadPool | None = None):
        spec.validate()
        self.spec = spec
        self.last_peak_bytes = 0
        self._kernels = kernels  # keeps the code mapped
        self._pool = pool or default_pool()
        self._n_inputs = len(spec.inputs)
        self._input_dtypes = [to_numpy(t.dtype) for t in spec.inputs]
        self._input_shapes = [tuple(t.shape) for t in spec.inputs]
        self._static_shapes = [s if all(isinstance(d, int) for d in s) else None for s in self._input_shapes]
        self._symbols = [n for n, _, _ in spec.symbols]
        self._bounds = spec.symbol_bounds
        self._buffers = {b.id: b for b in spec.buffers}
        returned = [o for o in spec.outputs if self._buffers[o].input is None]
        self._output_buffers = list(dict.fromkeys(returned))
        self._intermediates = [b.id for b in spec.buffers if b.input is None and b.id not in set(returned)]
        self._lifetimes = self._launch_ranges(self._intermediates)
        self._places = {b: i for i, b in enumerate(self._intermediates + self._output_buffers)}
        """Buffer id -> its address's index among the call's storage addresses (after the inputs)."""
        self._arena: tuple[np.ndarray, int, int] | None = None  # (raw, capacity, aligned address)
        self._held_outputs: list[list[Storage]] = [[] for _ in self._output_buffers]
        self._scratch_lock = threading.Lock()  # guards the arena and the held output storage
        self._functions = [self._function(launch, kernels) for launch in spec.launches]
        self._entries = [self._entry(launch, kernels) for launch in spec.launches]
        self._runner = None if env_flag("KILN_PYTHON_RUNNER") else runner()
        """The native runner, or None: launches run from Python (``KILN_PYTHON_RUNNER=1``, or no C compiler)."""
        self._chunk_local = self._chunk_local_buffers() if self._runner is not None else {}
        """Intermediate buffer id -> its ``chunk_span``, for the buffers each thread gets one chunk's slice of."""
        self._plans: dict[tuple[int, ...], _Plan] = {}  # by symbol values
        self._plans_by_shapes: dict[tuple[tuple[int, ...], ...], _Plan] = {}  # by input shapes

    # ------------------------------------------------------------------------------------------- calling

    def __call__(self, *arrays: Any) -> list[np.ndarray]:
        return self._run(arrays, None)

    def profile(self, *arrays: Any) -> tuple[list[np.ndarray], list[float]]:
        """Run once and also return the wall time of each launch in seconds, in launch order (for
        ``KILN_DEBUG=2``; the timing calls stay off the plain call's path)."""
        times: list[float] = []
        return self._run(arrays, times), times

    def timeline(self, *arrays: Any) -> tuple[list[np.ndarray], list[list[Chunk]]]:
        """Run once and also return, per launch, its chunks in order, each ``(thread, start, end)``: the thread
        that ran it (0: a calling thread, 1..: the pool's workers) and its start and end in seconds after the
        call's first chunk started. Says whether the workers took part in a split launch, and when they joined
        (docs/debugging.md)."""
        chunks: list[list[Chunk]] = []
        return self._run(arrays, None, chunks), chunks

    def _run(
        self, arrays: tuple[Any, ...], times: list[float] | None, chunks: list[list[Chunk]] | None = None
    ) -> list[np.ndarray]:
        args, addresses, plan = self._bind(arrays)
        self.last_peak_bytes = plan.peak_bytes
        locked = self._scratch_lock.acquire(blocking=False)
        try:
            # another thread running this Executable holds the arena and the plan's values: this call gets its own
            arena = self._held_arena(plan.arena_bytes) if locked else _aligned(plan.arena_bytes)
            values = plan.values_for(arena[2], locked)
            if locked:
                storages = [self._output_storage(i, need) for i, need in enumerate(plan.output_bytes)]
            else:
                storages = [_aligned(need) for need in plan.output_bytes]
            values[: self._n_inputs] = addresses
            values[plan.outputs_at : plan.outputs_at + len(storages)] = [address for _, _, address in storages]
            if plan.program is not None:
                self._run_native(plan, values, times, chunks)
            else:
                self._run_python(plan, values, times, chunks)
        finally:
            if locked:
                self._scratch_lock.release()
        return [self._output(o, args, storages) for o in plan.outputs]

    def _run_native(
        self, plan: _Plan, values: Values, times: list[float] | None, chunks: list[list[Chunk]] | None
    ) -> None:
        """The whole launch list in one call of the native runner."""
        counts = [len(ranges) for _, _, ranges, stages in plan.launches for _ in range(stages)]
        elapsed = None if times is None else np.zeros(len(counts))
        records = None if chunks is None else np.zeros((sum(counts), 3), dtype=np.int64)
        self._runner.run(  # type: ignore[union-attr]
            self._pool.native(),
            plan.program_address,
            ctypes.addressof(values),
            None if elapsed is None else _address(elapsed),
            None if records is None else _address(records),
        )
        if times is not None:
            times += elapsed.tolist()  # type: ignore[union-attr]
        if records is not None and chunks is not None:
            first = int(records[:, 1].min()) if len(records) else 0
            rows = [(int(t), (s - first) * 1e-9, (e - first) * 1e-9) for t, s, e in records.tolist()]
            ends = np.cumsum(counts).tolist()
            chunks += [rows[end - n : end] for n, end in zip(counts, ends)]

    def _run_python(
        self, plan: _Plan, vals: Values, times: list[float] | None, chunks: list[list[Chunk]] | None
    ) -> None:
        """One ctypes call per launch, split launches through the pool's Python workers."""
        pool = self._pool
        for fn, gather, ranges, stages in plan.launches:
            start = time.perf_counter() if times is not None else 0.0
            record: dict[int, Chunk] = {}  # by each chunk's first index
            run = fn if chunks is None else _recorded(fn, record)
            if len(ranges) == 1:
                run(*gather(vals), *ranges[0])
            else:
                pool.run(run, gather(vals), ranges)
            if times is not None:
                times += [time.perf_counter() - start] + [0.0] * (stages - 1)
            if chunks is not None:  # a joined group's chunks record all its stages at once
                chunks += [[record[lo] for lo, _ in ranges]] * stages
        if chunks:
            first = min((s for launch in chunks for _, s, _ in launch), default=0.0)
            chunks[:] = [[(t, s - first, e - first) for t, s, e in launch] for launch in chunks]

    def peak_bytes(self, **symbols: int) -> int:
        """Bytes of arena and output storage a call with these symbol values uses."""
        missing = set(self._symbols) - symbols.keys()
        if missing:
            raise InputError(f"{self.spec.name}: peak_bytes needs values for {sorted(missing)}")
        key = tuple(symbols[n] for n in self._symbols)
        self._check_bounds(dict(zip(self._symbols, key)))
        return self._plan(key).peak_bytes

    def _held_arena(self, nbytes: int) -> tuple[np.ndarray, int, int]:
        """The Executable's arena, replaced by a larger one when this binding needs more."""
        if self._arena is None or self._arena[1] < nbytes:
            raw, _, address = _aligned(nbytes)
            self._arena = (raw, nbytes, address)
        return self._arena

    def _output_storage(self, index: int, nbytes: int) -> Storage:
        """Held storage of output buffer ``index`` that no result refers to any more, else fresh storage (held in
        place of a free one that is too small, or added while fewer than ``OUTPUT_STORAGES`` are held)."""
        held = self._held_outputs[index]
        for storage in held:
            if _free(storage, nbytes):
                return storage
        fresh = _aligned(nbytes)
        for i, storage in enumerate(held):
            if _free(storage, 0):
                held[i] = fresh
                return fresh
        if len(held) < OUTPUT_STORAGES:
            held.append(fresh)
        return fresh

    def _output(
        self,
        out: tuple[str, int, np.dtype, tuple[int, ...], bool],
        args: list[np.ndarray],
        storages: list[Storage],
    ) -> np.ndarray:
        kind, index, dtype, shape, copy = out
        if kind == "input":
            return args[index].copy()
        raw, offset, _ = storages[index]
        view = np.ndarray(shape, dtype, raw, offset)  # its base is ``raw``, as a slice's view would be
        return view.copy() if copy else view

    # ------------------------------------------------------------------------------------------- binding

    def _bind(self, arrays: Sequence[Any]) -> tuple[list[np.ndarray], list[int], _Plan]:
        """Check the inputs; returns them C-contiguous, their addresses, and the plan for their shapes.

        The plan is memoized by the tuple of input shapes, so a repeated call skips symbol binding.
        """
        if len(arrays) != self._n_inputs:
            raise InputError(f"{self.spec.name} takes {self._n_inputs} inputs, got {len(arrays)}")
        args: list[np.ndarray] = []
        vals: list[int] = []
        for a, dtype in zip(arrays, self._input_dtypes):
            if type(a) is not np.ndarray:
                a = np.asarray(a)
            if a.dtype != dtype:
                i = len(args)
                raise InputError(
                    f"{self.spec.name}: input {i} must have dtype {self.spec.inputs[i].dtype} ({dtype}), got {a.dtype}"
                )
            if not a.flags.c_contiguous:
                a = np.asarray(a, order="C")  # ascontiguousarray would make a 0-d array 1-d
            args.append(a)
            vals.append(_address(a))
        shapes = tuple(a.shape for a in args)
        plan = self._plans_by_shapes.get(shapes)
        if plan is None:
            plan = self._plan(self._bind_symbols(shapes))
            _remember(self._plans_by_shapes, shapes, plan)
        return args, vals, plan

    def _bind_symbols(self, shapes: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
        """Check the input shapes against the spec and return the symbol values they imply, in order."""
        env: dict[str, int] = {}
        for i, (shape, expected) in enumerate(zip(shapes, self._input_shapes)):
            ok = len(shape) == len(expected)
            for d, n in zip(expected, shape):
                if isinstance(d, str):
                    bound = env.setdefault(d, n)
                    if bound != n:
                        raise InputError(
                            f"{self.spec.name}: input {i} has shape {list(shape)}, which sets {d} = {n}, "
                            f"but an earlier input set {d} = {bound}"
                        )
                elif d != n:
                    ok = False
            if not ok:
                raise InputError(
                    f"{self.spec.name}: input {i} must have shape [{', '.join(map(str, expected))}], got {list(shape)}"
                )
        self._check_bounds(env)
        return tuple(env[n] for n in self._symbols)

    def _check_bounds(self, env: Mapping[str, int]) -> None:
        for name, value in env.items():
            lo, hi = self._bounds[name]
            if not lo <= value <= hi:
                raise InputError(f"{self.spec.name}: {name} = {value} is outside its declared bounds [{lo}, {hi}]")

    # ------------------------------------------------------------------------------------------- precomputation

    def _function(self, launch: LaunchSpec, kernels: LoadedKernels) -> Callable[..., None]:
        if launch.kernel not in kernels.addresses:
            raise CompileError(f"{self.spec.name}: kernel @{launch.kernel} is not in the loaded kernels")
        kinds = tuple(kind for kind, _ in launch.args)
        return _prototype(kinds)(kernels.addresses[launch.kernel])

    def _entry(self, launch: LaunchSpec, kernels: LoadedKernels) -> int:
        entry = entry_name(launch.kernel)
        if entry not in kernels.addresses:
            raise CompileError(f"{self.spec.name}: kernel @{launch.kernel} was loaded without its entry @{entry}")
        return kernels.addresses[entry]

    def _groups(self) -> list[list[int]]:
        """The launches as they run: each group a launch and the joined launches after it."""
        groups: list[list[int]] = []
        for k, launch in enumerate(self.spec.launches):
            if launch.joined and groups:
                groups[-1].append(k)
            else:
                groups.append([k])
        return groups

    def _launch_ranges(self, buffers: Sequence[int]) -> list[tuple[int, int] | None]:
        """Per buffer, the first and last step (a launch, or a joined group: its launches run at once) that uses
        it (None: no launch does)."""
        used: dict[int, list[int]] = {}
        for step, group in enumerate(self._groups()):
            for launch in (self.spec.launches[k] for k in group):
                for kind, v in launch.args:
                    if kind == "buf":
                        used.setdefault(v, []).append(step)  # type: ignore[arg-type]
        return [(used[b][0], used[b][-1]) if b in used else None for b in buffers]

    def _chunk_local_buffers(self) -> dict[int, int]:
        """The intermediates marked ``chunk_span`` that only one joined group uses (a spec that says otherwise
        gets whole buffers: the mark is the compiler's, checked here only as far as the launch list goes)."""
        steps = dict(zip(self._intermediates, self._lifetimes))
        groups = self._groups()
        return {b.id: b.chunk_span for b in self.spec.buffers
                if b.chunk_span and (life := steps.get(b.id)) and life[0] == life[1] and len(groups[life[0]]) > 1}

    def _chunks(self, group: Sequence[LaunchSpec], env: Mapping[str, int]) -> list[tuple[Range, ...]]:
        """Per launch of ``group`` (a launch, or joined launches), its chunks: a joined group's on the common grid
        of its core ranges (the gcd of their extents), each launch's chunk c the grid's chunk c scaled by its
        extent over the grid's."""
        if group[0].core_extent is None:
            return [((0, 1),)]
        extents = [max(0, compile_size(launch.core_extent)(env)) for launch in group]  # type: ignore[arg-type]
        grid = math.gcd(*extents)
        if grid == 0:
            return [((0, 0),) for _ in group]
        works = [None if launch.core_work is None else launch.core_work * extent // grid
                 for launch, extent in zip(group, extents)]
        work = None if None in works else sum(works)  # type: ignore[arg-type]
        chunks = self._pool.split(grid, work, joined=len(group) > 1)
        return [tuple((lo * extent // grid, hi * extent // grid) for lo, hi in chunks) for extent in extents]

    def _chunk_slots(
        self, groups: Sequence[Sequence[int]], group_ranges: Sequence[Sequence[tuple[Range, ...]]]
    ) -> dict[int, tuple[int, dict[int, int], int]]:
        """Per chunk-local buffer: the bytes of each thread's slot (the longest chunk's slice, and up to 63 bytes
        before it, where the runner's moved pointer keeps the buffer's alignment), the bytes of it per core
        index of each launch of its group, and the slots (one per pool thread; one when the group is one chunk,
        which the calling thread runs)."""
        local = {}
        for b, span in self._chunk_local.items():
            step = self._lifetimes[self._intermediates.index(b)][0]  # type: ignore[index]
            span_bytes = span * to_numpy(self._buffers[b].dtype).itemsize
            extents = [ranges[-1][1] for ranges in group_ranges[step]]
            if 0 in extents or any(span_bytes % e for e in extents):
                continue  # an empty launch, or not the compiler's span: the whole buffer
            per_index = {k: span_bytes // e for k, e in zip(groups[step], extents)}
            longest = max((hi - lo) * per_index[k] for k, ranges in zip(groups[step], group_ranges[step])
                          for lo, hi in ranges)
            slots = self._pool.size if len(group_ranges[step][0]) > 1 else 1
            local[b] = (align_up(longest + ALIGNMENT - 1, ALIGNMENT), per_index, slots)
        return local

    def _plan(self, key: tuple[int, ...]) -> _Plan:
        if (known := self._plans.get(key)) is not None:
            return known
        env = dict(zip(self._symbols, key))
        n_in, n_places = self._n_inputs, len(self._places)

        def nbytes(b: BufferSpec) -> int:
            n = to_numpy(b.dtype).itemsize
            for d in b.shape:
                n *= env[d] if isinstance(d, str) else d
            return n

        def concrete(shape: Shape) -> tuple[int, ...]:
            return tuple(env[d] if isinstance(d, str) else d for d in shape)

        groups = self._groups()
        group_ranges = [self._chunks([self.spec.launches[k] for k in group], env) for group in groups]
        local = self._chunk_slots(groups, group_ranges)
        sizes = [(local[b][0] * local[b][2] if b in local else nbytes(self._buffers[b])) if self._lifetimes[i] else 0
                 for i, b in enumerate(self._intermediates)]
        offsets, arena_bytes = pack(sizes, [life or (0, 0) for life in self._lifetimes], ALIGNMENT)

        def position(kind: str, v: int | str) -> int:
            if kind == "sym":
                return n_in + n_places + self._symbols.index(v)  # type: ignore[arg-type]
            b = self._buffers[v]  # type: ignore[index]
            return b.input if b.input is not None else n_in + self._places[b.id]

        launches = []
        native = []
        for group, stage_ranges in zip(groups, group_ranges):
            specs = [self.spec.launches[k] for k in group]
            positions = [[position(kind, v) for kind, v in launch.args] for launch in specs]
            stages = [(self._functions[k], _gatherer(p), r) for k, p, r in zip(group, positions, stage_ranges)]
            launches.append((*(stages[0] if len(stages) == 1 else _joined(stages)), len(stages)))
            for i, (k, p, r) in enumerate(zip(group, positions, stage_ranges)):
                slices = [(a, local[v][1][k], local[v][0]) for a, (kind, v) in enumerate(self.spec.launches[k].args)
                          if kind == "buf" and v in local]
                native.append((self._entries[k], p, r, len(group) if i == 0 else 0, slices))

        seen: set[int] = set()
        outputs = []
        for o in self.spec.outputs:
            b = self._buffers[o]
            if b.input is not None:
                outputs.append(("input", b.input, to_numpy(b.dtype), (), True))
                continue
            index = self._output_buffers.index(o)
            outputs.append(("output", index, to_numpy(b.dtype), concrete(b.shape), index in seen))
            seen.add(index)

        output_bytes = [nbytes(self._buffers[o]) for o in self._output_buffers]
        program = None if self._runner is None else program_words(native)
        plan = _Plan(n_in, list(key), offsets, arena_bytes, output_bytes, launches, program, outputs)
        _remember(self._plans, key, plan)
        return plan
