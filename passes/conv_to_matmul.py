"""`graph-conv-to-matmul`: rewrite `graph.conv2d` as a `graph.matmul`, so that the matmul's register tile (and
`graph-pack-matmul`) applies to convolutions, or, for stride-1 convs with few filters on CPUs, as a direct
convolution over a plain padded input. The CPU pipelines run it before `graph-pack-matmul`; on GPUs the
direct form stays (not measured there), though the rewrite is correct on every target.

A convolution is ``y[n, g, o, p] = sum_k W[g, o, k] * cols[n, g, k, p]`` over the taps ``k = (c, kh, kw)`` of the
group and the output points ``p = (oh, ow)``: the filter as an ``[Og, Cg*KH*KW]`` matrix times the input's
sliding windows as a ``[Cg*KH*KW, OH*OW]`` matrix per image and group. The output comes out in NCHW order, so a
bias, relu or residual add fuses into the matmul's output kernel as after any matmul.

- 1x1, stride 1, no padding: ``cols`` is ``x`` viewed as ``[N, G, Cg, H*W]``; no copy (unless the points are
  padded, below).
- Otherwise: im2col. A computed input is first realized plain (``graph.contiguous``): the copy then reads
  one NCHW buffer at each tap instead of recomputing its producer (the previous layer's bias, relu and the
  slice of its padded output) through the windows' index arithmetic, which made the copies of ResNet-50
  ~60 ms each. ``cols`` is the zero-padded input's windows (graph-decompose's movement-op windows)
  permuted to ``[N, G, Cg*KH*KW, OH*OW]`` and made contiguous, so the matmul reads it with unit stride along
  the output points, the axis its register tile vectorizes; `graph-pack-matmul` may then write that copy as
  column panels directly. Points that need padding (below) are padded in a second copy: padded, the points
  range is no longer OH x OW, and the im2col copy divided and took remainders per element (3x3 256 @14:
  4.4 ms for 0.5M elements, one core). Only a B that graph-pack-matmul will copy into panels (whole panels)
  has its points padded; an unpacked one is left to the register tile, which pads its vector axis itself with
  its last vector moved back (no copy, no slice, and the bias, relu or residual add fuse into the matmul).
- CPU targets, stride 1 along the rows and at most 128 filters per group (``_direct_row_padding``): the direct
  form instead of a matmul, graph-decompose's windows times the filter reduced over the taps, over a plain
  zero-padded copy of the input (so its loads are ungated and contiguous along the output rows, the register
  tile's vector axis). It saves the im2col copy (ResNet-50's 3x3 64 @56: 8 MB written and read back, which kept
  the layer from scaling to two cores). Rows shorter than a vector are padded to one; the result is realized.
  An input of elementwise ops over realized values is computed straight into the padded copy.
- CPU targets, stride 1 with wide rows that are not whole register tiles (56 or 112 columns; ``_flat_rows``),
  any number of filters: the direct form over the padded input read as one flat axis (``_flat_direct``), so
  the points of all rows are one vector axis padded only at its end; its ``KW - 1`` extra points per row are
  sliced off. It replaces both the 2-D direct form (rows padded to whole vectors) and the im2col matmul.
- CPU targets: output rows that straddle graph-pack-matmul's panels (56 columns, panels of 16) get zero columns
  up to a multiple of the panel width when the extra matmul work costs less than the copy saved (``_row_padding``):
  the windows read further zeros of the padded input, the panels are then copied straight from them (one copy),
  and the padded result is realized and sliced.
- A pool's result is realized plain before any of these: fused into the copy into graph-pack-matmul's panels,
  the pool's points were found by dividing each panel lane by the row width, so its lanes were not a vector
  (ResNet-50's max pool before the first 1x1 conv; docs/performance.md, "ResNet-50, session 7").
- Depthwise (``Cg == 1``: one input channel per filter) keeps the direct form: a matmul over ``KH*KW`` taps
  has nothing to tile. A computed input is realized plain here too: each of the taps read ShuffleNet's channel
  shuffle, the pad and the previous layer's padded points through their divisions and remainders. On CPU
  targets at unit stride it reads a plain zero-padded copy as the direct form does (the pad's gates made each
  tap a masked load per lane); a strided one keeps the gated loads (padded, its strided lanes ran slower).

Measurements and the choice of layout are in docs/optimizer.md ("Convolutions as matmuls").
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import OpResult, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from kiln.capabilities.description import TargetDescription, target_for_pass
from kiln.dialects import graph
from kiln.dialects.types import TensorType, dtype_name, itemsize
from kiln.passes.graph_decompose import (
    Builder, is_plain, pair, realize_plain, tensor_type, windowed_conv, windows, windows_2d,
)
from kiln.passes.optimize.heuristic import CPU_VECTORS, MAX_PAD_WASTE
from kiln.passes.pack_matmul import computes, packing_pays
from kiln.passes.schedule import ELEMENTWISE
from kiln.support.statistics import Statistic

CONVS_REWRITTEN = Statistic("convs-rewritten", "Number of conv2d ops rewritten as matmuls")


def _realize_shared(rewriter: PatternRewriter, x: SSAValue) -> None:
    """A computed conv input that other ops read too (a residual block's output: the next block's first conv and
    its residual add) is realized once, right after its producer, and every reader reads that copy. Fused, each
    reader recomputed it, and each block's output recomputed the previous block's (docs/performance.md,
    "ResNet-50, session 7"). Left alone when some reader already realizes it, and for a concat: the scheduler
    realizes that one itself, its pieces written in place (Inception's modules feed four convs each)."""
    if is_plain(x) or isinstance(x.owner, graph.ConcatOp) or len(list(x.uses)) < 2:
        return
    if any(isinstance(u.operation, graph.ContiguousOp) for u in x.uses):
        return
    assert isinstance(x, OpResult)
    plain = graph.ContiguousOp.build_op([x], tensor_type(x))
    plain.location = x.owner.location
    rewriter.insert(plain, InsertPoint.after(x.owner))
    rewriter.replace_uses_with_if(x, plain.results[0], lambda use: use.operation is not plain)


def _is_pointwise(op: graph.Conv2dOp) -> bool:
    """A 1x1 filter at stride 1 without padding: the input is already the matrix."""
    kh, kw = tensor_type(op.operands[1]).shape[2:]
    return (kh, kw) == (1, 1) and pair(op, "stride", (1, 1)) == (1, 1) and pair(op, "padding", (0, 0)) == (0, 0)


def _columns(b: Builder, op: graph.Conv2dOp, x: SSAValue, groups: int, extra: int, row_extra: int) -> SSAValue:
    """The convolution's right-hand matrix ``[N, G, Cg*KH*KW, OH*(OW + row_extra) + extra]`` (G left out when 1;
    ``row_extra`` zero columns after each output row, ``extra`` after the last)."""
    n, c = tensor_type(x).shape[:2]
    kh, kw = tensor_type(op.operands[1]).shape[2:]
    oh, ow = tensor_type(op.results[0]).shape[2:]
    lead = (n, groups) if groups > 1 else (n,)
    if _is_pointwise(op):
        cols = b.reshape(x, (*lead, c // groups, oh * ow))  # type: ignore[operator]
    else:
        ph, pw = pair(op, "padding", (0, 0))
        x = realize_plain(b, x)
        stride = pair(op, "stride", (1, 1))
        # the padded columns' windows read further zeros on the right (their results are sliced off): padding the
        # windows themselves instead left their index algebra dividing per element (32 ms for 3x3 64 @56)
        x = b.pad(x, (0, 0, ph, pw), (0, 0, ph, pw + row_extra * stride[1]), 0)
        win = windows_2d(b, x, (kh, kw), stride, pair(op, "dilation", (1, 1)), (oh, ow + row_extra))  # type: ignore[operator]
        win = b.op("permute", win, perm=(0, 1, 2, 4, 3, 5))  # [N, C, KH, KW, OH, OW]
        cols = b.reshape(win, (*lead, c // groups * kh * kw, oh * (ow + row_extra)))  # type: ignore[operator]
        if extra:  # realized before padding: padded, the points are no longer OH x OW and each tap divides
            cols = b.op("contiguous", cols, result=tensor_type(cols))
    if _is_pointwise(op) and not extra:
        return cols
    rank = tensor_type(cols).rank
    cols = b.pad(cols, [0] * rank, [0] * (rank - 1) + [extra], 0)
    return b.op("contiguous", cols, result=tensor_type(cols))


DIRECT_TILE_LOSS = 1 / 8
"""How much slower the direct form's register tile is than the packed matmul's, as a fraction of the matmul: one
vector wide (4 filters x 2 output rows), its vector loads unaligned. The direct form is chosen when the im2col
copy it saves (COPY_FLOPS per element against the matmul's 2 FLOPs per filter) costs at least that: up to 128
filters per group. Measured (docs/performance.md, "The 3x3 64->64 layer, session 8"): 3x3 64 @56 faster direct
on one core and on two; 128 @28 even; 256 @14 and 512 @7 no faster."""


def _direct_row_padding(op: graph.Conv2dOp, filters: int, width: int) -> int | None:
    """Zero columns after each output row of the direct form, or None when the convolution stays an im2col
    matmul. The direct form needs unit stride along the rows (the windows' rows are then the tile's vector loads)
    and at most 128 ``filters`` (DIRECT_TILE_LOSS). A row of at least one vector (``width``) is not padded: the
    optimizer pads the tile's vector axis itself, its last vector moved back to end at the row's end, so its
    loads stay vectors, and the result is a plain NCHW tensor (SqueezeNet's fire modules read their 55x55 rows
    as 3025 points: from rows padded to 64, their concat divided every index; docs/performance.md, "SqueezeNet,
    session 9"). A shorter row is padded to one vector, within MAX_PAD_WASTE."""
    ow = tensor_type(op.results[0]).shape[3]
    if _is_pointwise(op) or pair(op, "stride", (1, 1))[1] != 1 or not isinstance(ow, int):
        return None
    row_extra = -ow % width if ow < width else 0
    if row_extra > MAX_PAD_WASTE * (ow + row_extra) or COPY_FLOPS < DIRECT_TILE_LOSS * 2 * filters:
        return None
    return row_extra


_INDEX_MAPS = (graph.ReshapeOp, graph.PermuteOp, graph.ExpandOp, graph.ShrinkOp, graph.FlipOp, graph.PadOp)


def _elementwise_over_plain(x: SSAValue, limit: int = 32) -> bool:
    """``x`` computes nothing but elementwise ops and index maps of realized values (at most ``limit`` ops): a
    copy of it reads each source element once (no reduction, pool or concat is recomputed per element): a direct
    conv's padded copy computes it instead of reading a realization of it."""
    todo, seen = [x], set()
    while todo:
        v = todo.pop()
        if is_plain(v) or v in seen:
            continue
        seen.add(v)
        op = v.owner
        if len(seen) > limit or not isinstance(op, (*ELEMENTWISE, *_INDEX_MAPS, graph.ConstantOp)):
            return False
        todo.extend(op.operands)
    return True


def _direct(b: Builder, op: graph.Conv2dOp, x: SSAValue, w: SSAValue, row_extra: int) -> SSAValue:
    """The direct form with its bias, [N, O, OH, OW]: the windows of a plain zero-padded copy of ``x`` times the
    filter, reduced over the taps (graph-decompose's form, whose loads are then ungated and contiguous along the
    output rows); with ``row_extra`` columns more per row, read from further zeros and sliced off. A computed
    input is realized before it is padded unless it is elementwise over realized values (then the padded copy
    computes it), and the result (with the bias) is realized: fused, the padded copy computed the previous 1x1
    conv's matmul and the next 1x1 conv's copy into panels this one's reduction, each without a register tile
    (ResNet-50: 40 ms per such kernel)."""
    ph, pw = pair(op, "padding", (0, 0))
    oh, ow = tensor_type(op.results[0]).shape[2:]
    if not _elementwise_over_plain(x):
        x = realize_plain(b, x)
    xp = b.pad(x, (0, 0, ph, pw), (0, 0, ph, pw + row_extra), 0)
    if not is_plain(xp):
        xp = b.op("contiguous", xp, result=tensor_type(xp))
    y = windowed_conv(b, op, xp, w, (oh, ow + row_extra))  # type: ignore[operator]
    if len(op.operands) == 3:
        y = b.op("add", y, b.reshape(b.widen(op.operands[2]), (tensor_type(w).shape[0], 1, 1)))
    y = b.op("contiguous", y, result=tensor_type(y))
    return b.shrink_axis(y, 3, 0, ow, 1) if row_extra else y  # type: ignore[arg-type]


FLAT_ROW_WASTE = 1 / 25
"""At most this fraction of a flat direct conv's points is wasted on the ``KW - 1`` padding columns of each
row (``_flat_rows``): rows of 56 and more for 3x3 filters. VGG-19's 3x3 256 @56, one core, thread CPU time:
35.4 ms flat (its rows read as one axis of 56 x 58 points) against 38.1 ms as the im2col matmul; its 3x3 512
@28 (2 of 28 columns wasted) 38.5 against 37.3 ms (docs/performance.md, "VGG-19, session 10")."""


def _flat_rows(op: graph.Conv2dOp, width: int) -> bool:
    """Whether a stride-1 conv runs in the flat direct form (``_flat_direct``): ungrouped, not 1x1, not a concat's
    piece, and its output rows wider than ``KW - 1`` by FLAT_ROW_WASTE but not whole register tiles (two vectors
    of ``width``), which the 2-D direct form tiles without waste (VGG's 224 columns)."""
    o, cg, kh, kw = tensor_type(op.operands[1]).shape
    ow = tensor_type(op.results[0]).shape[3]
    if int(op.groups.value.data) != 1 or _is_pointwise(op) or not isinstance(ow, int):  # type: ignore[attr-defined]
        return False
    if pair(op, "stride", (1, 1)) != (1, 1) or pair(op, "dilation", (1, 1)) != (1, 1) or _concat_piece(op):
        return False
    return kw - 1 <= FLAT_ROW_WASTE * ow and ow % (width * CPU_VECTORS) != 0  # type: ignore[operator]


def _concat_piece(op: graph.Conv2dOp) -> bool:
    """The conv's output, or an elementwise value of it, is a concat's piece. Its kernel stores a piece in place
    (convert-graph-to-kernel's concat in place); a flat direct conv's sliced output is no such piece, and each
    reader of the concat would select among the pieces (SqueezeNet's fire modules, DenseNet's dense blocks)."""
    stack = [op.results[0]]
    while stack:
        for use in stack.pop().uses:
            if isinstance(use.operation, graph.ConcatOp):
                return True
            if isinstance(use.operation, graph.UnaryOp | graph.BinaryOp | graph.CastOp):
                stack.append(use.operation.results[0])
    return False


def _flat_direct(b: Builder, op: graph.Conv2dOp, x: SSAValue, w: SSAValue, width: int) -> SSAValue:
    """The direct form over the flattened zero-padded input, with its bias, [N, O, OH, OW]. The padded input
    ``xp`` ([N, C, Hp, Wp], Wp = OW + KW - 1) is read as one axis: the output point ``p = oh * Wp + ow`` takes
    tap (kh, kw) at ``p + kh * Wp + kw``, so the points of all rows are one contiguous axis, the register tile's
    vector axis, padded to whole tiles (two vectors) at its end instead of at every row; the ``KW - 1`` points
    per row that run past the row's end (into the next row) are computed and sliced off. Further zero rows at
    the bottom keep the last taps in the buffer. An input that is a view or an epilogue of plain values is
    padded in one copy; one that computes more is realized first (``_direct``)."""
    ph, pw = pair(op, "padding", (0, 0))
    n, c, ih = tensor_type(x).shape[:3]
    o, _, kh, kw = tensor_type(w).shape
    oh, ow = tensor_type(op.results[0]).shape[2:]
    wp = ow + kw - 1  # type: ignore[operator]
    points = oh * wp  # type: ignore[operator]
    padded = points + -points % (width * CPU_VECTORS)
    rows = -(-((kh - 1) * wp + padded + kw - 1) // wp)  # type: ignore[operator]
    if not _elementwise_over_plain(x):
        x = realize_plain(b, x)
    xp = b.pad(x, (0, 0, ph, pw), (0, 0, rows - ph - ih, pw), 0)  # type: ignore[operator]
    xp = b.op("contiguous", xp, result=tensor_type(xp))
    flat = b.reshape(xp, (n, c, rows * wp))
    taps = windows(b, flat, 2, kh, 1, wp, padded + kw - 1)  # [N, C, KH, P + KW - 1]: xp[kh * Wp + q]
    taps = windows(b, taps, 3, kw, 1, 1, padded)  # [N, C, KH, KW, P]: xp[kh * Wp + kw + p]
    taps = b.reshape(b.op("permute", taps, perm=(0, 4, 1, 2, 3)), (n, 1, padded, c, kh, kw))
    y = b.reduce("reduce_sum", b.op("mul", taps, b.reshape(w, (1, o, 1, c, kh, kw))), (3, 4, 5), False)
    if len(op.operands) == 3:
        y = b.op("add", y, b.reshape(b.widen(op.operands[2]), (o, 1)))
    y = b.shrink_axis(b.op("contiguous", y, result=tensor_type(y)), 2, 0, points, 1)
    return b.shrink_axis(b.reshape(y, (n, o, oh, wp)), 3, 0, ow, 1)  # type: ignore[arg-type]


COPY_FLOPS = 32
"""Multiply-adds' FLOPs of the CPU register tile that cost as much as copying one im2col element into panels: the
copy that row padding saves took 0.49 ns per element, the tile runs at ~65 GFLOP/s (one core of the AVX2 host,
3x3 64 @56). Measured (one core, thread CPU time, load 10): 3x3 64 @56 (18 extra FLOPs per element) 5.8 -> 5.0
ms; 3x3/2 128 @56 (37) 4.3 -> 4.6 and 1x1/2 256->512 @56 (146) 4.2 -> 4.9, so those stay unpadded."""


def _row_padding(op: graph.Conv2dOp, rows: int, extra: int, width: int, itemsize: int) -> int:
    """Columns after each output row of an im2col that graph-pack-matmul will copy into panels, when its rows are
    not a multiple of the panel width (CPU_VECTORS vectors) but its points are (``extra`` is 0): the panels are
    then copied straight from the windows (one copy, no division per element; docs/optimizer.md). Only when the
    padded points' extra matmul work (2 x ``rows`` FLOPs per tap) costs less than the copy saved (COPY_FLOPS)
    and wastes at most MAX_PAD_WASTE: ResNet-50's 3x3 64 @56 (56 -> 64 columns)."""
    oh, ow = tensor_type(op.results[0]).shape[2:]
    kh, kw = tensor_type(op.operands[1]).shape[2:]
    taps = tensor_type(op.operands[1]).shape[1] * kh * kw  # type: ignore[operator]
    panel = width * CPU_VECTORS
    row_extra = -ow % panel  # type: ignore[operator]
    padded = oh * (ow + row_extra)  # type: ignore[operator]
    if _is_pointwise(op) or extra or not row_extra or row_extra > MAX_PAD_WASTE * (ow + row_extra):  # type: ignore[operator]
        return 0
    if 2 * rows * row_extra > COPY_FLOPS * ow:  # type: ignore[operator]
        return 0
    return row_extra if packing_pays(rows, taps * padded * itemsize) else 0


def _padding(points: int, width: int) -> int:
    """Zero columns that make ``points`` a multiple of the register tile's CPU_VECTORS vectors when that wastes at
    most MAX_PAD_WASTE (7x7 = 49 -> 64, 14x14 = 196 -> 208), else of one vector: a tile one vector wide keeps
    half the accumulators of two and loads a broadcast per FMA."""
    extra = -points % (width * CPU_VECTORS)
    return extra if extra <= MAX_PAD_WASTE * (points + extra) else -points % width


@dataclass
class ConvToMatmul(RewritePattern):
    """One conv2d as a matmul (the module docstring says which form); the points padded for ``target``."""

    target: TargetDescription

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, graph.Conv2dOp):
            return
        o, cg = tensor_type(op.operands[1]).shape[:2]
        if cg == 1 and self.target.has_threads and pair(op, "stride", (1, 1)) == (1, 1):
            b = Builder(rewriter, op)  # depthwise at unit stride: the direct form over a plain zero-padded input
            y = _direct(b, op, b.widen(op.operands[0]), b.widen(op.operands[1]), 0)
            rewriter.replace(op, [], [b.cast(y, tensor_type(op.results[0]).element_type)])
            return
        if cg == 1:  # depthwise (or single-channel): the direct form, on a plain input
            x = op.operands[0]
            if not is_plain(x):
                op.operands[0] = realize_plain(Builder(rewriter, op), x)
                rewriter.handle_operation_modification(op)
            return
        _realize_shared(rewriter, op.operands[0])
        b = Builder(rewriter, op)
        x, w = b.widen(op.operands[0]), b.widen(op.operands[1])
        if isinstance(x.owner, graph.PoolOp):  # a pool realized plain (module docstring)
            x = realize_plain(b, x)
        width = self.target.vector_width(dtype_name(tensor_type(x).element_type))
        filters = o // int(op.groups.value.data)  # type: ignore[operator]
        direct = _direct_row_padding(op, filters, width) if self.target.has_threads else None
        if self.target.has_threads and _flat_rows(op, width):
            y = _flat_direct(b, op, x, w, width)
        elif direct is not None:
            y = _direct(b, op, x, w, direct)
        else:
            y = self._matmul(b, op, x, w)
            if len(op.operands) == 3:
                y = b.op("add", y, b.reshape(b.widen(op.operands[2]), (o, 1, 1)))
        rewriter.replace(op, [], [b.cast(y, tensor_type(op.results[0]).element_type)])
        CONVS_REWRITTEN.bump()

    def _matmul(self, b: Builder, op: graph.Conv2dOp, x: SSAValue, w: SSAValue) -> SSAValue:
        """The convolution as filters x columns, [N, O, OH, OW]."""
        o, cg = tensor_type(w).shape[:2]
        groups = int(op.groups.value.data)
        n = tensor_type(x).shape[0]
        oh, ow = tensor_type(op.results[0]).shape[2:]
        taps = (cg * tensor_type(w).shape[2] * tensor_type(w).shape[3])  # type: ignore[operator]
        filters = b.reshape(w, (groups, o // groups, taps) if groups > 1 else (o, taps))  # type: ignore[operator]
        points = oh * ow  # type: ignore[operator]
        dtype = dtype_name(tensor_type(x).element_type)
        width = self.target.vector_width(dtype)
        extra = _padding(points, width)
        b_bytes = taps * (points + extra) * itemsize(tensor_type(x).element_type)
        if not packing_pays(o // groups, b_bytes, computed=_is_pointwise(op) and computes(x)):
            extra = 0  # B stays unpacked: the optimizer pads the points (docstring)
        row_extra = _row_padding(op, o // groups, extra, width, itemsize(tensor_type(x).element_type))
        cols = _columns(b, op, x, groups, extra, row_extra)
        columns = oh * (ow + row_extra) + extra  # type: ignore[operator]
        shape = (n, groups, o // groups, columns) if groups > 1 else (n, o, columns)  # type: ignore[operator]
        y = b.op("matmul", filters, cols, result=TensorType(shape, tensor_type(x).element_type))
        if extra or row_extra:  # the padded result realized, then sliced (a bias or relu fuses into the slice)
            y = b.op("contiguous", y, result=tensor_type(y))
            y = b.shrink_axis(y, len(shape) - 1, 0, points, 1) if extra else y
        if row_extra:
            y = b.reshape(y, (n, o, oh, ow + row_extra))  # type: ignore[operator]
            y = b.shrink_axis(y, 3, 0, ow, 1)  # type: ignore[arg-type]
        return b.reshape(y, (n, o, oh, ow))


@dataclass(frozen=True)
class GraphConvToMatmul(ModulePass):
    """Convolutions as matmuls (im2col where the windows overlap, skip or pad)."""

    name = "graph-conv-to-matmul"

    target: str = "cpu-llvm"
    """The target whose vector width the output points are padded to."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvToMatmul(target_for_pass(self.name, self.target))).rewrite_module(op)
