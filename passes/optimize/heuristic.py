"""The default choice of opts: rules over a kernel's shape, its accesses' strides and the target description.

The rules and the measurements behind them are in docs/optimizer.md ("The heuristic"). In short:

- **register tiles** (kernels with a reduce and an output axis it varies along that some reduced load does not
  move along, as in a matmul): upcast the axis the store and loads walk contiguously by two vectors (one if it
  is shorter), padding it when that wastes little, and an axis with register reuse by as many rows as half
  the vector registers hold at that width, at most 8 (AVX-512: 8 x 2 vectors, AVX2: 4 x 2, 8 x 1; GPUs: 4
  and 4; on CPUs a symbolic one, a JIT batch, is padded to that many first); on CPUs, with no such contiguous
  axis (a transposed B, as q k^T), two reuse axes by 8, or with one reuse axis only (a matvec ``x W^T``) a
  vector of partial sums along k and the rows;
- on CPU targets whose compiler does not vectorize loops itself (``vectorizes_loops`` false: cpu-c), otherwise:
  **each reduction over a contiguous axis** gets a vector of partial sums, and **the contiguous output axis** a
  vector of lanes (LLVM vectorizes the plain loops better: the rows of a softmax fused into one kernel get no
  opts there);
- **copy kernels on CPUs** walk their output in the store's order (``swap``);
- **CPU cores**: the runtime splits the outermost global range; when that one is too short, or too short to
  split about evenly (7 panels on 2 cores), ``thread`` splits a longer one instead;
- **GPU**: tensor cores for f16/bf16 matmuls, grouped reductions for small outputs (both only where the
  linearizer implements them), reduce unrolling, and workgroups of up to 128 threads.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IndexType

from kiln.dialects import kernel as K
from kiln.dialects.types import dtype_name, itemsize
from kiln.passes.optimize.apply import MAX_EXPANSION, MAX_UNROLL, apply_opt
from kiln.passes.optimize.opts import Opt, OptError, OptOp
from kiln.passes.optimize.space import (
    AxisKind,
    Strides,
    axes,
    const_size,
    dependencies,
    expansion,
    kind,
    loop_iterations,
    ranges,
    reduce_axes,
)
from kiln.capabilities.tensor_cores import tensor_cores
from kiln.capabilities.description import TargetDescription

CPU_VECTORS = 2
"""Vectors along the contiguous axis of a CPU register tile (the width of `graph-pack-matmul`'s panels)."""
MAX_TILE_ROWS = 8
"""Rows of a register tile at most (AVX-512's 8 x 2 vectors; more rows cost a broadcast load per FMA). A tile
without a vector axis (q k^T) is 8 x 8 scalars on any host: attention's scores on AVX2 (load 12) took 148 ms
with 8 columns, 50 ms with 4 x 8 and 39-46 ms with 8 x 8, spills and all."""
GPU_TILE = 4
MAX_LANE_STRIDE = 2
"""A reduce kernel without register reuse (a pool) upcasts its contiguous output axis by a vector even when its
loads step up to this many elements per lane (stride-2 windows: the lanes' loads stay within two vectors). The
max pool 3x3/2 64 @112 of ResNet-50 (cpu-llvm, load 1.3): 3.7 ms median scalar, 0.35 ms with OW upcast by 8.
CPU targets only: not measured on GPUs."""
MAX_STRIDED_LANES = 8
"""At most this many lanes for an output axis whose loads step more than 1 element per lane: LLVM's SLP vectorizer
packs 8 such stride-2 loads as whole-vector loads and a permute, but 16 (AVX-512) as gathers. SqueezeNet's max
pool 3x3/2 64 @111 -> 55 (cpu-llvm, znver4, 2 cores, load ~2): 16 lanes 0.43 ms fastest, 8 lanes 0.089 ms,
onnxruntime 0.084 (docs/performance.md, "SqueezeNet, session 9")."""
SHORT_LANES = 64
"""An elementwise kernel's innermost contiguous range of at most this many elements is upcast by a vector on
cpu-llvm too (``short_lanes``): graph-pack-matmul's panel rows (32 f32 on AVX-512). Longer ranges are left to
LLVM's loop vectorizer, which handles them (a flat relu over 200K elements: 0.017 ms, as fast as a copy)."""
MAX_PAD_WASTE = 0.25
"""Pad an axis to a multiple of the vector width only if at most this fraction of the work is padding."""
MAX_TILE_PAD_WASTE = 0.5
"""The same for the vector axis of a CPU register tile: its alternative is one scalar accumulator per column, so a
narrow output is worth padding further. The MLP's 256x512 @ 512x10 layer (cpu-llvm, load 13-14): 815 us median
with 4 rows of 10 scalar columns, 294 us padded to 2 vectors of 8 (``padto:1:16``); on AVX-512, where 10 columns
are shorter than one vector, 8 rows of 10 scalar columns took 558 us at best, padded to one vector of 16 (the
same opt) 100 us (load 2.3), by 2 vectors of 8 lanes (``upcast_lanes``) 33 us against 58 (load 3.5)."""
GPU_LOCAL_THREADS = 128
"""Threads per workgroup. On an H200 (session 11, CUDA events, one process per variant): relu(a*b+c) over 16M f32
(one global axis, all threads on x) 0.324 ms in blocks of 32, 0.089 of 128, 0.077 of 256, 0.082 of 512; but
softmax 1024x1024 0.031 ms with 128 against 0.033 with 256, and 4096x4096 (rows ungrouped) 0.36 against 0.43."""
GROUP_OUTPUT_LIMIT = 16384
"""GPU reductions with at most this many outputs get a grouped (workgroup-parallel) reduce: one thread per output
leaves a GPU idle below its resident threads (an H200 holds 132 x 2048 = 270k; 16384 outputs x GROUP_SIZE fill
it). Softmax 4096x4096 on an H200: 0.36 ms with a thread per row (the limit was tinygrad's 2048), 0.23 grouped;
above 4096 outputs not measured."""
GROUP_SIZE = 16
MIN_GROUPED_REDUCE = 256
"""...and a reduce at least this long (16 threads with 16 or more elements each); shorter ones stay in a thread."""
MIN_THREAD_WORK = 1 << 16
"""Below this many loads, stores and ALU ops a kernel is not worth a ``thread`` split."""
MAX_CORE_IMBALANCE = 1.05
"""The busiest core's share of the outermost global range over an even share, above which ``thread`` splits a
range the cores divide evenly instead. The 1x1 1024->256 conv at 14x14 (AVX-512: 7 panels of 32 points) ran 4
panels on one core and 3 on the other (8/7 = 1.14); the 256 filters split 128 / 128."""


STRIP_BYTES = 256 << 10
"""B's bytes inside a register tile's row loop above which its columns go outside its rows (a quarter of the
L2 of the AVX2 host, as graph-pack-matmul's threshold)."""
MIN_NARROW_LANES = 4
"""The narrowest vector ``upcast_lanes`` takes below the width (an SSE register of f32)."""


def upcast_lanes(size: int, width: int, max_waste: float, narrow: bool) -> int:
    """Lanes of the vector to upcast an axis of ``size`` points by (0: none): ``width`` when it divides ``size``
    or padding to it wastes at most ``max_waste``, else the widest narrower vector of at least MIN_NARROW_LANES
    lanes that ``size`` holds once and pads to within the limit; with ``narrow`` (no register reuse, or a window
    sliding along the axis) also where padding to ``width`` is too much for an axis of at least one vector.
    Padding moves the last vector back (``rewrite.pad``), so every load and store along the lanes stays a
    vector: ShuffleNet's depthwise 3x3 at 14x14 (14 columns) and the MLP head's 10 columns (AVX-512) go by 8
    lanes, 2 vectors of which the second starts at column 6 or 2 (docs/performance.md, "Narrow lanes, session 9").
    (Before padding moved the last vector back, a padded axis was clamped (``min(r, size - 1)``) in every load,
    whose lanes were then no vector: DenseNet's 3x3 128->32 at 28x28, AVX-512, one core: 1.27 ms by 4 lanes,
    0.64 ms padded to 32 and shifted.)"""
    lanes = width
    while lanes >= min(width, MIN_NARROW_LANES):
        padded = -(-size // lanes) * lanes
        if lanes <= size and (padded - size) / padded <= max_waste:
            return lanes
        if lanes == width and size >= width and not narrow:
            return 0
        lanes //= 2
    return 0


def _bytes_along(load: K.LoadOp, inner: list[K.RangeOp], strides: Strides) -> int:
    """The bytes ``load`` reads as the ranges ``inner`` run (symbolic ones at 1)."""
    moving = [r for r in inner if strides.stride(load, r) != 0]
    return itemsize(load.results[0].type) * math.prod(const_size(r) or 1 for r in moving)


def core_imbalance(size: int, cores: int) -> float:
    """The busiest of ``cores`` cores' share of ``size`` equal pieces over an even share (1.0: even)."""
    return math.ceil(size / cores) * cores / size if size else 1.0


def cpu_accumulators(target: TargetDescription) -> int:
    """Accumulator registers of a CPU register tile: half the vector registers, the other half holding the
    loaded vectors of B and the broadcasts of A of the k steps LLVM's unrolling interleaves. AVX-512's 32 give
    8 rows x 2 vectors; AVX2's 16 give 4 x 2, where 8 x 2 spilled accumulators at every k and ran 1.1-1.5x
    slower (ResNet-50 convs, docs/optimizer.md)."""
    return max(2, target.vector_registers // 2)


def heuristic_opts(kernel: K.KernelOp, target: TargetDescription) -> list[Opt]:
    """Choose opts for ``kernel`` and apply them to it (in place); returns them in order."""
    tuner = _Tuner(kernel, target)
    if target.has_local:
        tuner.gpu()
    else:
        tuner.cpu()
    return tuner.applied


class _Tuner:
    def __init__(self, kernel: K.KernelOp, target: TargetDescription):
        self.kernel, self.target = kernel, target
        self.applied: list[Opt] = []
        stores = [op for op in kernel.body.block.ops if isinstance(op, K.StoreOp)]
        self.dtype = stores[0].value.type if stores else None
        self.width = target.vector_width(dtype_name(self.dtype)) if self.dtype is not None else 1

    def attempt(self, op: OptOp, r: K.RangeOp, amount: int) -> bool:
        """Apply ``op`` on range ``r``; False (kernel unchanged) when it is illegal."""
        numbered = reduce_axes(self.kernel) if op in (OptOp.UNROLL, OptOp.GROUP, OptOp.GROUPTOP) else axes(self.kernel)
        opt = Opt(op, numbered.index(r), amount)
        try:
            apply_opt(self.kernel, opt, self.target)
        except OptError:
            return False
        self.applied.append(opt)
        return True

    # -- analysis ---------------------------------------------------------------------------

    def outputs(self) -> list[K.RangeOp]:
        return [r for r in ranges(self.kernel) if kind(r) in (AxisKind.GLOBAL, AxisKind.LOOP)]

    def reduces(self) -> list[K.RangeOp]:
        return [r for r in ranges(self.kernel) if kind(r) == AxisKind.REDUCE]

    def vector_axis(self, strides: Strides, load_stride: int = 1) -> K.RangeOp | None:
        """The innermost output axis that every store walks contiguously, and every load that moves along it
        walks contiguously too (so upcast lanes become vector loads and stores); with ``load_stride`` > 1, the
        loads may step that many elements per lane (a strided pool's or convolution's windows)."""
        stores = [a for a in strides.accesses if isinstance(a, K.StoreOp)]
        for r in reversed(self.outputs()):
            if stores and all(strides.stride(s, r) == 1 for s in stores) and all(
                strides.stride(a, r) in range(load_stride + 1) for a in strides.accesses
            ):
                return r
        return None

    def reduce_ops(self) -> list[K.ReduceOp]:
        return [op for op in self.kernel.body.block.ops if isinstance(op, K.ReduceOp)]

    def tiled_outputs(self) -> set[K.RangeOp]:
        """The output axes some reduction's result varies along (a matmul's rows and columns): upcasting one
        copies the reduction into a register tile. A reduction fused in front of its consumer (softmax's row
        max) does not vary along the consumer's inner axes; upcasting those copies only the consumer."""
        deps = dependencies(self.kernel)
        found = set().union(*(deps[op] - set(op.ranges) for op in self.reduce_ops()))
        return {r for r in self.outputs() if r.result in found}

    def reuse_axis(
        self, strides: Strides, exclude: tuple[K.RangeOp | None, ...], symbolic: bool, vector: K.RangeOp | None = None
    ) -> K.RangeOp | None:
        """A tiled output axis along which some load that the reduce walks stays put: upcasting it reuses
        that load from a register. The one with the most such loads; on ties, one along which a load that walks
        the ``vector`` axis stays put (each loaded vector then serves every row, as B's in a matmul, where a
        broadcast load staying put serves only its lanes), then the innermost; never one of a single point (a batch of
        1: nothing to upcast); a symbolic one only when ``symbolic`` (it will be padded)."""
        reduced = self.reduces()
        loads = [a for a in strides.accesses if isinstance(a, K.LoadOp) and any(strides.stride(a, k) != 0 for k in reduced)]
        vector_loads = [a for a in loads if vector is not None and strides.stride(a, vector) != 0]
        tiled = self.tiled_outputs()
        best, best_key = None, (0, False)
        for r in reversed(self.outputs()):
            if r in exclude or r not in tiled or const_size(r) == 1 or (const_size(r) is None and not symbolic):
                continue  # a unit range (a batch of 1) cannot be upcast: it would take the place of a real reuse axis
            count = sum(1 for a in loads if strides.stride(a, r) == 0)
            key = (count, any(strides.stride(a, r) == 0 for a in vector_loads))
            if key[0] and key > best_key:
                best, best_key = r, key
        return best

    def slides(self, strides: Strides, r: K.RangeOp) -> bool:
        """Does some load move along output range ``r`` as it moves along a reduce range (a conv's or pool's
        window: ``ow + kw``)?"""
        return any(
            strides.stride(a, r) not in (None, 0) and any(strides.stride(a, k) == strides.stride(a, r) for k in self.reduces())
            for a in strides.accesses if isinstance(a, K.LoadOp)
        )

    # -- shared steps -----------------------------------------------------------------------

    def upcast_vector(
        self, r: K.RangeOp, vectors: int, max_waste: float = MAX_PAD_WASTE, narrow: bool = False, width: int = 0,
        short: bool = False,
    ) -> int:
        """Upcast ``r`` by ``vectors`` vectors of ``upcast_lanes`` lanes (of at most ``width``, default: the
        target's): a range of one vector's lanes, then (when ``vectors`` > 1 and it divides) a range counting the
        vectors, so each vector access is the lanes of one range. An axis that is no multiple of the lanes is
        padded to one (its last vector moved back, its loads still vectors: ``rewrite.pad``); with ``short``, an
        axis that no vector of at least MIN_NARROW_LANES fits is padded up to one of ``width`` on the same terms
        (its lanes clamped). An axis shorter than ``width`` goes by narrower lanes only with ``narrow`` or
        ``short``. Returns the vectors upcast (0: none)."""
        width = width or self.width
        size = const_size(r)
        if size is None or size < width and not (narrow or short):
            return 0
        lanes = upcast_lanes(size, width, max_waste, narrow)
        if not lanes and short and size < width and (width - size) / width <= max_waste:
            lanes = width
        if not lanes or size % lanes and not self.attempt(OptOp.PADTO, r, lanes):
            return 0
        if not self.attempt(OptOp.UPCAST, r, lanes):
            return 0
        return vectors if vectors > 1 and self.upcast_divisor(r, (vectors,)) else 1

    def upcast_divisor(self, r: K.RangeOp, amounts: tuple[int, ...]) -> bool:
        size = const_size(r)
        return size is not None and any(size % a == 0 and self.attempt(OptOp.UPCAST, r, a) for a in amounts if a <= size)

    def upcast_padded(self, r: K.RangeOp, amount: int) -> bool:
        """Pad symbolic ``r`` to a multiple of ``amount`` and upcast it by that (at most ``amount - 1`` points
        are padding); nothing when the upcast would exceed the expansion limit."""
        if expansion(self.kernel) * amount > MAX_EXPANSION:
            return False
        return self.attempt(OptOp.PADTO, r, amount) and self.attempt(OptOp.UPCAST, r, amount)

    def register_tile(
        self, vectors: int, accumulators: int, max_rows: int, pad_rows: bool = False,
        max_waste: float = MAX_PAD_WASTE, second_reuse: bool = False, lane_stride: int = 1, pad_short: bool = False,
    ) -> bool:
        """In a kernel with a reduce, upcast the vector axis if the reduce varies along it (by ``vectors``
        vectors when another axis brings register reuse, else by one) and that reuse axis by as many rows as
        ``accumulators`` registers hold at the vectors upcast, at most ``max_rows`` (else by a half, a quarter;
        a symbolic axis padded to that many when ``pad_rows``; a vector axis shorter than a vector upcast by
        narrower lanes, or padded up to one, when ``pad_short``); with ``second_reuse`` and no vector axis, a
        second reuse axis by as many; with neither a vector nor a reuse axis, an output axis whose loads step at
        most ``lane_stride`` per lane by one vector; whether anything was tiled."""
        if not self.reduces():
            return False
        strides = Strides(self.kernel)
        v = self.vector_axis(strides)
        v = v if v in self.tiled_outputs() else None
        u = self.reuse_axis(strides, (v,), pad_rows, v)
        if v is None and u is None and lane_stride > 1:  # no reuse, strided windows (a 3x3/2 pool): lanes of outputs
            v = self.vector_axis(strides, lane_stride)
            v = v if v in self.tiled_outputs() else None
        # no vector axis (every output axis walks some reduced load with a stride, as k in q k^T): a second
        # reuse axis makes the tile two-dimensional, each load then serving a row or a column of the tile
        second = self.reuse_axis(strides, (u,), False) if second_reuse and v is None and u is not None else None
        if second_reuse and v is None and u is not None and second is None:
            # one reuse axis and no vector axis (a matvec x W^T, W row-major): each row's loads walk the reduce
            # contiguously, so its sum is a vector of partial sums, and the rows share x's vector load
            upcast = int(self.partial_sums())
            matvec = upcast > 0
        else:
            matvec = False
            narrow = v is not None and (u is None or self.slides(strides, v))
            strided = v is not None and any((strides.stride(a, v) or 0) > 1 for a in strides.accesses)
            width = min(self.width, MAX_STRIDED_LANES) if strided else self.width
            upcast = (self.upcast_vector(v, vectors if u is not None else 1, max_waste, narrow, width, pad_short)
                      if v is not None else 0)
        rows = min(max_rows, accumulators // max(upcast, 1))
        reuse_rows = tuple(n for n in (rows, rows // 2, rows // 4) if n >= 2)
        if matvec and (size := const_size(u)):
            # its rows are the core range: fewer rows per tile where that leaves a range the cores divide
            # (1000 rows: 125 tiles of 8 ran on one core, 0.12 ms; 250 of 4 on two, 0.06 ms)
            cores = self.target.cpu_cores or 1
            reuse_rows = tuple(sorted(reuse_rows, key=lambda n: (size // n) % cores != 0))
        if u is not None and const_size(u) is None:
            return self.upcast_padded(u, rows) or upcast > 0
        if upcast == 1 and u is not None and second_reuse:
            # one vector wide (a direct convolution's output row): a second reuse axis takes 2 of the rows, so each
            # tap loads 2 vectors and 4 broadcasts for 8 FMAs instead of 1 and 8 (or 8 and 1)
            pair = self.reuse_axis(strides, (u, v), False)
            if pair is not None and (const_size(pair) or 1) % 2 == 0 and rows >= 4 and \
                    self.upcast_divisor(u, tuple(n // 2 for n in reuse_rows if n >= 4)):
                return self.upcast_divisor(pair, (2,))
        tiled = upcast > 0
        if second is not None:
            tiled = self.upcast_divisor(second, reuse_rows) or tiled
        return (u is not None and self.upcast_divisor(u, reuse_rows)) or tiled

    # -- CPU --------------------------------------------------------------------------------

    def cpu(self) -> None:
        self.store_order()
        self.transpose_lanes()
        tiled = self.register_tile(CPU_VECTORS, cpu_accumulators(self.target), MAX_TILE_ROWS, pad_rows=True,
                                   max_waste=MAX_TILE_PAD_WASTE, second_reuse=True, lane_stride=MAX_LANE_STRIDE,
                                   pad_short=True)
        if tiled:
            self.column_strips_outside()
        if not tiled and not self.target.vectorizes_loops:
            self.partial_sums()
            self.vector_lanes()
        elif not tiled and not self.reduces():
            self.short_lanes()
        self.cores()

    def column_strips_outside(self) -> None:
        """A register tile whose rows come outside its columns reads all of B once per row tile: when B is not
        packed (its rows N elements apart) and its part inside the row loop is larger than STRIP_BYTES, each
        k step of each tile touches a new line far from the last, from L3 or DRAM. The column range then goes
        outside the rows, so each column strip of B (K x the tile's width) stays in L2 while every row tile
        uses it. A packed B (panels read front to back) keeps the order: not measured better. DenseNet's 3x3 growth convs (32 x 1152 x 3136, B unpacked since
        32 rows are below graph-pack-matmul's threshold) read their 14 MB im2col 8 times."""
        strides = Strides(self.kernel)
        reduced = self.reduces()
        loads = [a for a in strides.accesses if isinstance(a, K.LoadOp) and any(strides.stride(a, k) != 0 for k in reduced)]
        order = ranges(self.kernel)
        outer = [r for r in order if kind(r) == AxisKind.GLOBAL and (const_size(r) or 1) > 1]
        for i, rows in enumerate(outer):
            inner = order[order.index(rows) + 1 :]
            for cols in outer[i + 1 :]:
                b = [a for a in loads if strides.stride(a, rows) == 0 and strides.stride(a, cols) != 0 and self.strided(a, strides)]
                if b and any(strides.stride(a, cols) == 0 for a in loads) and max(
                    _bytes_along(a, inner, strides) for a in b
                ) > STRIP_BYTES:
                    self.attempt(OptOp.SWAP, rows, axes(self.kernel).index(cols))
                    return

    def strided(self, load: K.LoadOp, strides: Strides) -> bool:
        """Does ``load`` step further than a register tile's width along some reduce range (a row-major B, whose
        rows lie N elements apart, not a packed panel read front to back)?"""
        return any((strides.stride(load, k) or 0) > CPU_VECTORS * self.width for k in self.reduces())

    def store_order(self) -> None:
        """A copy kernel (one store, no reduce) walks its output in the store's order: global ranges sorted by
        falling store stride (``swap``s). convert-graph-to-kernel orders them for the loads; an im2col copy then
        wrote its 576 rows a 56-element segment at a time, each row a write stream."""
        stores = [op for op in self.kernel.body.block.ops if isinstance(op, K.StoreOp)]
        if len(stores) != 1 or self.reduces():
            return
        for i in range(len(ranges(self.kernel))):
            strides = Strides(self.kernel)
            order = [r for r in ranges(self.kernel) if kind(r) == AxisKind.GLOBAL]
            if i >= len(order) or any(strides.stride(stores[0], r) is None for r in order):
                return
            key = {r: strides.stride(stores[0], r) or 0 for r in order}
            first = max(order[i:], key=lambda r: key[r])
            if key[first] > key[order[i]]:
                self.attempt(OptOp.SWAP, order[i], axes(self.kernel).index(first))

    def transpose_lanes(self) -> None:
        """A transposing copy (one store, no reduce; the store walks its innermost range contiguously, every
        load that moves along it steps further than a vector) upcasts that range by a vector: vector stores,
        each lane loaded on its own. Left to itself, LLVM unrolls that short range and vectorizes the next one
        with the loads contiguous and the stores scattered (AVX-512 `vscatterqps`, 8 lanes per instruction):
        attention's copy of k^T (8 x 64 x 512) took 0.27 ms on one znver4 core, 0.14 ms with the lanes upcast
        (docs/performance.md, "Attention, session 9")."""
        stores = [op for op in self.kernel.body.block.ops if isinstance(op, K.StoreOp)]
        order = [r for r in ranges(self.kernel) if kind(r) == AxisKind.GLOBAL]
        if len(stores) != 1 or self.reduces() or not order or self.width < 2:
            return
        strides = Strides(self.kernel)
        inner = order[-1]
        moving = [s for a in strides.accesses if isinstance(a, K.LoadOp) and (s := strides.stride(a, inner)) != 0]
        far = all(s is not None and abs(s) > self.width for s in moving)
        if strides.stride(stores[0], inner) == 1 and moving and far:
            self.upcast_vector(inner, 1)

    def partial_sums(self) -> bool:
        """Each reduction along a contiguous axis gets a vector of partial sums (for targets whose compiler
        does not vectorize the plain loop itself, and for a matvec's register tile): its innermost range along
        which every load it walks is contiguous is upcast by a vector. Whether any was."""
        if self.width < 2:
            return False
        found = False
        i = 0
        while i < len(reduces := self.reduce_ops()):  # anew each time: an upcast rebuilds the kernel
            strides = Strides(self.kernel)
            for v in reversed(reduces[i].ranges):
                r = v.owner
                assert isinstance(r, K.RangeOp)
                loads = [a for a in strides.accesses if isinstance(a, K.LoadOp) and strides.stride(a, r) != 0]
                contiguous = loads and all(strides.stride(a, r) == 1 for a in loads)
                if kind(r) == AxisKind.REDUCE and contiguous and self.upcast_divisor(r, (self.width,)):
                    found = True
                    break
            i += 1
        return found

    def vector_lanes(self) -> None:
        """The output axis every access walks contiguously is upcast by one vector (for targets whose compiler
        does not vectorize loops itself: its SLP vectorizer packs the lanes). Not in a kernel that only moves
        data: gcc makes a memcpy of the plain loop."""
        computes = any(not isinstance(op, K.ConstOp | K.RangeOp | K.LoadOp | K.StoreOp)
                       and not all(isinstance(r.type, IndexType) for r in op.results) for op in self.kernel.body.block.ops)
        if computes and self.width >= 2 and (v := self.vector_axis(Strides(self.kernel))) is not None:
            self.upcast_vector(v, 1)

    def short_lanes(self) -> None:
        """An elementwise kernel that computes along a short innermost range every access walks contiguously (at
        most SHORT_LANES elements, whole vectors: a relu fused into the copy into graph-pack-matmul's 32-wide
        panels) upcasts it by a vector, on targets whose compiler vectorizes loops too. LLVM left that loop
        scalar around its NaN-propagating max: ResNet-50's relu into the panels of a 1x1 conv (64 x 56 x 56,
        cpu-llvm, two cores) 0.083 -> 0.020 ms, the plain copy 0.019 (docs/performance.md, "ResNet-50's
        elementwise kernels, session 10")."""
        v = self.vector_axis(Strides(self.kernel))
        if v is None or v is not ranges(self.kernel)[-1]:
            return
        size = const_size(v)
        if size and size <= SHORT_LANES and size % self.width == 0:
            self.vector_lanes()

    def cores(self) -> None:
        """Make sure the range the runtime splits across cores is long enough to split, and splits about evenly
        (a short range the cores do not divide, as 7 panels on 2 cores, leaves one core idle for a panel)."""
        cores = self.target.cpu_cores or 1
        globals_ = [r for r in ranges(self.kernel) if kind(r) == AxisKind.GLOBAL]
        first = const_size(globals_[0]) if globals_ else None
        if cores < 2 or first is None or self.work() < MIN_THREAD_WORK:
            return
        if first >= cores and core_imbalance(first, cores) <= MAX_CORE_IMBALANCE:
            return
        # an uneven split is cured only where no reduce is recomputed: a reduce fused in front of its consumer
        # (softmax's row max and sum) does not vary along the consumer's columns, and split along them it would
        # run whole on every core (3 softmax rows split 2:1 beat 3 rows' reductions on each of 2 cores)
        recomputed = set(self.outputs()) - self.tiled_outputs() if first >= cores and self.reduces() else set()
        for r in sorted(globals_[1:], key=lambda r: -(const_size(r) or 0)):
            if r not in recomputed and (const_size(r) or 0) >= 2 * cores and self.attempt(OptOp.THREAD, r, cores):
                return

    def work(self) -> int:
        """An upper bound of the loads, stores and ALU ops the kernel executes (symbolic sizes counted as 1)."""
        points = math.prod(const_size(r) or 1 for r in ranges(self.kernel))
        return points * sum(1 for op in self.kernel.body.block.ops if not isinstance(op, K.ConstOp | K.RangeOp))

    # -- GPU --------------------------------------------------------------------------------

    def gpu(self) -> None:
        from kiln.passes.optimize.tensor_cores import matching_tensor_cores

        if matching_tensor_cores(self.kernel, self.target) and linearizer_supports(self.target, "tensor_core"):
            self.tensor_core()
            return
        self.fit_loop_limit()
        if self.grouped_reduce():
            return
        self.register_tile(1, GPU_TILE, GPU_TILE)
        self.unroll()
        self.workgroup()

    def tensor_core(self) -> None:
        """The first matching matmul on the target's first tensor core."""
        opt = Opt(OptOp.TC, 0, 0)
        apply_opt(self.kernel, opt, self.target)
        self.applied.append(opt)

    def fit_loop_limit(self) -> None:
        """Split the longest constant reduce range over a workgroup's threads until one invocation's loops fit the
        target's ``max_loop_iterations`` (lavapipe silently stops a longer loop); kernel-optimize refuses a kernel
        that still does not fit."""
        limit = self.target.max_loop_iterations
        while limit is not None and loop_iterations(self.kernel) > limit:
            reduced = [r for r in self.reduces() if const_size(r)]
            if not reduced or not self.split_over_threads(max(reduced, key=lambda r: const_size(r) or 0)):
                return

    def split_over_threads(self, r: K.RangeOp) -> bool:
        """``grouptop`` of ``r`` by the most threads a workgroup takes, padding ``r`` to a multiple first."""
        amount = self.target.max_workgroup_size or 1
        while amount >= GROUP_SIZE:
            size = const_size(r) or 0
            if size % amount == 0 or self.attempt(OptOp.PADTO, r, amount):
                r = max((x for x in self.reduces() if const_size(x)), key=lambda x: const_size(x) or 0)
                if self.attempt(OptOp.GROUPTOP, r, amount):
                    return True
            amount //= 2
        return False

    def grouped_reduce(self) -> bool:
        reduced = self.reduces()
        outputs = math.prod(const_size(r) or 1 << 20 for r in self.outputs())
        if not reduced or outputs > GROUP_OUTPUT_LIMIT or (const_size(reduced[-1]) or 0) < MIN_GROUPED_REDUCE:
            return False
        if not linearizer_supports(self.target, "group_reduce"):
            return False
        return self.attempt(OptOp.GROUPTOP, reduced[-1], GROUP_SIZE)

    def unroll(self) -> None:
        """Unroll the innermost reduce loop: fully when short, else by 4."""
        reduced = self.reduces()
        if not reduced:
            return
        r = reduced[-1]
        size = const_size(r) or 0
        if 2 <= size <= MAX_UNROLL:
            self.attempt(OptOp.UNROLL, r, 0)
        elif size % 4 == 0:
            self.attempt(OptOp.UNROLL, r, 4)

    def workgroup(self) -> None:
        """Workgroup dimensions on the innermost global axes: up to 32 threads along x, the rest on y; a kernel
        with one such axis puts the whole budget on x (blocks of one warp leave half an NVIDIA SM idle: it holds
        at most 32 blocks)."""
        budget = GPU_LOCAL_THREADS
        globals_ = [r for r in ranges(self.kernel) if kind(r) == AxisKind.GLOBAL and const_size(r) != 1]
        x_choices = (32, 16, 8, 4, 2) if len(globals_) > 1 else tuple(1 << i for i in range(budget.bit_length() - 1, 0, -1))
        for r, choices in zip(reversed(globals_), (x_choices, (4, 2))):
            size = const_size(r)
            for amount in choices:
                if size is not None and amount <= budget and size % amount == 0 and self.attempt(OptOp.LOCAL, r, amount):
                    budget //= amount
                    break


def linearizer_supports(target: TargetDescription, feature: str) -> bool:
    """Whether ``convert-kernel-to-uop`` implements ``feature`` ("group_reduce" or "tensor_core") for
    ``target``: the heuristic must not choose opts the next pass cannot lower. Declared from the description
    (group reductions need workgroup memory and barriers; tensor cores need the target's mma shapes), and
    checked against the linearizer itself for every target by ``kiln.compiler.probes`` in the tests."""
    if feature == "group_reduce":
        return target.has_local
    if feature == "tensor_core":
        return bool(tensor_cores(target))
    raise ValueError(f"unknown linearizer feature '{feature}'")
