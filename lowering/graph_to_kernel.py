"""`convert-graph-to-kernel`: one `kernel.kernel` per realized value, and the schedule that runs them.

The decisions were made by `graph-mark-realize` (the `graph.realize` attribute); this pass only
translates. A kernel computes its realized value at every point of fresh `global` ranges over the value's
shape. Producers that are not realized are inlined by *indexing* them (tinygrad's rangeify): movement ops
transform the index polynomials (with validity conditions for pad/concat), elementwise ops apply to the
indexed operands, reductions open `reduce` ranges, and realized values and function arguments are loaded.
An output range that the indexing only divides and takes modulo by a constant (a matmul reading a B packed by
`graph-pack-matmul`) is rebuilt as two ranges, panel and lane, so the kernel has plain strides.

Concats are kept in place where they can be (``kiln.lowering.concat_in_place``): a realized piece's kernel stores
into its slice of the concat's buffer, and reads of the concat are plain loads from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f32,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects import graph as G
from kiln.dialects import kernel as K
from kiln.dialects.ops.table import OPS as ELEMENTWISE
from kiln.dialects.types import DIMS_KEY, BufferType, DimsAttr, TensorType, dtype_name, is_float, is_unsigned
from kiln.lowering.concat_in_place import Slot, plan_slots
from kiln.lowering.kernel_builder import Cond, KernelBuilder
from kiln.support import symbolic as S
from kiln.support.trampoline import Walk, run
from kiln.support.symbolic import Expr
from kiln.support.locations import fused_location, inherit_locations, is_known
from kiln.support.statistics import Statistic

INDEX = IndexType()

UNARY_ALU = {op.graph: op.name for op in ELEMENTWISE if op.graph and op.graph_lowers_to_alu and op.arity == 1}
"""Graph op -> the ALU op it is (``reciprocal`` -> ``recip``), from the op declarations."""
BINARY_ALU = {op.graph: op.name for op in ELEMENTWISE if op.graph and op.graph_lowers_to_alu and op.arity == 2}
COMPARE_ALU = {"lt": ("cmplt", False), "le": ("cmple", False), "gt": ("cmplt", True), "ge": ("cmple", True),
               "eq": ("cmpeq", False), "ne": ("cmpne", False)}
REDUCE_KIND = {"graph.reduce_sum": K.ReduceKind.ADD, "graph.mean": K.ReduceKind.ADD,
               "graph.reduce_prod": K.ReduceKind.MUL, "graph.reduce_max": K.ReduceKind.MAX,
               "graph.reduce_min": K.ReduceKind.MIN}
NARROW_FLOATS = ("f16", "bf16")
"""Float dtypes whose sums and products accumulate in f32 (rounded once at the end), as the interpreter does:
a thousand f16 steps of 0.1 would otherwise drift by 5%, and partial sums (unroll, upcast, grouped reductions)
inherit the reduce's dtype."""


def _ints(attr: Attribute | None) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values()) if isinstance(attr, DenseArrayBase) else ()


def _int(attr: Attribute | None) -> int:
    return int(attr.value.data) if attr is not None else 0  # type: ignore[attr-defined]


def _row_major_strides(shape: list[Expr]) -> list[Expr]:
    strides: list[Expr] = []
    acc: Expr = S.const(1)
    for d in reversed(shape):
        strides.append(acc)
        acc = acc * d
    return list(reversed(strides))


def linearize(idx: list[Expr], shape: list[Expr]) -> Expr:
    """The row-major flat index of ``idx``; a reshape of a reshape's ``(x // c) * c + x % c`` recombines to x."""
    return sum((i * s for i, s in zip(idx, _row_major_strides(shape))), S.const(0))


def delinearize(flat: Expr, shape: list[Expr]) -> list[Expr]:
    """The per-dim indices of an in-bounds row-major flat index (the outermost needs no remainder)."""
    out: list[Expr] = []
    for i, (d, s) in enumerate(zip(shape, _row_major_strides(shape))):
        q = S.fdiv(flat, s)
        out.append(q if i == 0 else S.fmod(q, d))
    return out


def _prod(xs: list[Expr]) -> Expr:
    """The product of index expressions (1 for none)."""
    out: Expr = S.const(1)
    for x in xs:
        out = out * x
    return out


def _merge_runs(rank: int, merged: frozenset[int]) -> list[list[int]]:
    """The output dims grouped into runs: d and d+1 share a run when d is in ``merged``."""
    groups: list[list[int]] = []
    for d in range(rank):
        if d and d - 1 in merged:
            groups[-1].append(d)
        else:
            groups.append([d])
    return groups


@dataclass
class _KernelEmitter:
    """Emits one kernel: the value of `root` at every point of its output ranges."""

    realized: dict[SSAValue, str]
    symbols: dict[str, tuple[int, int]]
    slots: dict[SSAValue, Slot] = field(default_factory=dict)
    """Values that lie in a slice of a host concat's buffer (concat in place)."""
    b: KernelBuilder = field(init=False)
    _memo: dict[tuple, SSAValue] = field(default_factory=dict)
    _next_range: int = 0
    _output_ranges: dict[SSAValue, tuple[int, Expr]] = field(default_factory=dict)
    """Output range -> (dim, size), for the dims built as one range."""
    sources: list[Attribute] = field(default_factory=list)
    """The locations of the graph ops computed in the kernel, producers first."""

    def __post_init__(self) -> None:
        self.b = KernelBuilder(self.symbols)

    def dims(self, t: TensorType) -> list[Expr]:
        return [self.b.dim(d) for d in t.shape]

    def new_range(self, size: Expr, kind: K.AxisKind) -> tuple[Expr, SSAValue]:
        rid = self._next_range
        self._next_range += 1
        return self.b.range(rid, size, kind)

    # -- the kernel ------------------------------------------------------------------------------
    def build(self, root: SSAValue, out_key: object, splits: dict[int, int] | None = None,
              merged: frozenset[int] = frozenset()) -> None:
        """The kernel of `root`. `merged` (dims d) builds dims d and d+1 as one range over both (row-major, so
        the flat index is the same), for a convolution's output rows and columns that its matmul reads as one
        axis; a run of merged dims is keyed by its first dim. `splits` (output dim -> w) builds that dim as two
        ranges, size/w panels of w; the panel ranges come first (outermost), so one panel is reused by every
        point of the others."""
        t: TensorType = root.type  # type: ignore[assignment]
        shape = self.dims(t)
        out_key, out_type, out_index = out_key, t, lambda idx: linearize(idx, shape)
        out_gate: tuple[Cond, ...] = ()
        if (slot := self.slots.get(root)) is not None and slot.piece:  # stored into its slice of the host's buffer
            out_key, out_type, out_index = slot.host, slot.host.type, lambda idx: self._slot_index(slot, idx, shape)
        out = self.b.buffer(out_key, BufferType(out_type.shape, out_type.element_type), "output")  # type: ignore[attr-defined]
        self.b.output_key = out_key
        groups = _merge_runs(len(shape), merged)
        sizes = {g[0]: _prod([shape[d] for d in g]) for g in groups}
        splits = splits or {}
        panels = {d: self.new_range(S.fdiv(sizes[d], w), K.AxisKind.GLOBAL)[0] * w for d, w in splits.items()}
        idx: list[Expr] = []
        for g in groups:
            if g[0] in panels:
                p = panels[g[0]] + self.new_range(S.const(splits[g[0]]), K.AxisKind.GLOBAL)[0]
            else:
                p, rv = self.new_range(sizes[g[0]], K.AxisKind.GLOBAL)
                self._output_ranges[rv] = (g[0], sizes[g[0]])
            idx += delinearize(p, [shape[d] for d in g])
        # A function result that is an argument is copied (its kernel is a load and a store).
        v = self.load(root, tuple(idx), ()) if isinstance(root, BlockArgument) else run(self.compute(root, tuple(idx), ()))
        if slot is not None and slot.piece and slot.valid is not None:  # only the leading slice the concat reads
            out_gate = tuple((p, S.const(0), S.const(n)) for p, n, d in zip(idx, slot.valid, t.shape) if n != d)
        # the store index folds for the stored slice (j // 14 % 14 is j // 14 for j < 196)
        self.b.store(out, out_index(list(_narrowed(tuple(idx), out_gate))), v, self.b.condition(out_gate))

    def _slot_index(self, slot: Slot, idx: list[Expr] | tuple[Expr, ...], shape: list[Expr]) -> Expr:
        """The flat index in the host's buffer of element `idx` of a value of `shape` in `slot`."""
        if slot.via is not None:  # stored as the concat's operand reshapes it (a leading slice of it)
            valid = [S.const(n) for n in slot.valid] if slot.valid is not None else shape
            idx = delinearize(linearize(list(idx), valid), self.dims(slot.via))
        moved = [p + slot.offset if d == slot.axis else p for d, p in enumerate(idx)]
        return linearize(moved, self.dims(slot.host.type))  # type: ignore[arg-type]

    def divisions(self) -> int:
        """How many index divisions and remainders the kernel computes."""
        return sum(1 for op in self.b.block.ops if op.name in ("kernel.idiv", "kernel.mod"))

    def range_splits(self) -> dict[int, int]:
        """Output dims (-> w) whose range the kernel divides and takes modulo by one constant w, a proper divisor
        of its constant size (a panel-packed operand read back through permute/reshape). Built as two ranges,
        the div/mod become plain strides, which vectorize."""
        divisors: dict[SSAValue, set[object]] = {}
        for op in self.b.block.ops:
            if op.name in ("kernel.idiv", "kernel.mod") and op.operands[0] in self._output_ranges:
                w = op.operands[1].owner
                divisors.setdefault(op.operands[0], set()).add(w.value.value.data if isinstance(w, K.ConstOp) else None)
        splits: dict[int, int] = {}
        for rv, ws in divisors.items():
            d, size = self._output_ranges[rv]
            w = next(iter(ws))
            if len(ws) == 1 and isinstance(w, int) and isinstance(size, S.Const) and 1 < w < size.value and size.value % w == 0:
                splits[d] = w
        return splits

    # -- values ----------------------------------------------------------------------------------
    # The descent from a kernel's root through its inlined producers is one call per op, so the methods that
    # descend are generators driven by `kiln.support.trampoline.run` (a call is `x = yield self.value(...)`):
    # a chain of thousands of ops needs no Python stack, and the kernel's ops are emitted in the same order.
    def value(self, v: SSAValue, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        """The element of `v` at `idx`; loads are gated by `gate` (the index may be out of bounds where
        the gate is false)."""
        if isinstance(v, BlockArgument) or v in self.realized or v in self.slots:
            return self.load(v, idx, gate)
        return (yield self.compute(v, idx, gate))

    def load(self, v: SSAValue, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> SSAValue:
        if (slot := self.slots.get(v)) is not None:
            t = slot.host.type
            buf = self.b.buffer(slot.host, BufferType(t.shape, t.element_type), "concat in place")  # type: ignore[attr-defined]
            return self.b.load(buf, self._slot_index(slot, idx, self.dims(v.type)), self.b.condition(gate))  # type: ignore[arg-type]
        t: TensorType = v.type  # type: ignore[assignment]
        reason = "arg" if isinstance(v, BlockArgument) else self.realized[v]
        buf = self.b.buffer(v, BufferType(t.shape, t.element_type), reason)
        return self.b.load(buf, linearize(list(idx), self.dims(t)), self.b.condition(gate))

    def compute(self, v: SSAValue, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        key = (v, idx, gate)
        if key not in self._memo:
            op = v.owner
            assert isinstance(op, Operation)
            mark = self.b.unclaimed.mark()
            self._memo[key] = yield self._emit_op(op, v.type, idx, gate)  # type: ignore[arg-type]
            self.b.unclaimed.claim(mark, op.location)
            self.sources.append(op.location)
        return self._memo[key]

    def _emit_op(self, op: Operation, t: TensorType, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        b, dt = self.b, t.element_type
        short = op.name.removeprefix("graph.")
        if isinstance(op, G.BinaryOp | G.WhereOp):
            args = []
            for o in op.operands:
                args.append((yield self.value(o, self._broadcast_index(o.type, t, idx), gate)))  # type: ignore[arg-type]
            return self._elementwise(short, args, op.operands[0].type.element_type)  # type: ignore[attr-defined]
        if isinstance(op, G.UnaryOp):
            return self._unary(short, (yield self.value(op.operands[0], idx, gate)), dt)
        if isinstance(op, G.ConstantOp):
            return self._constant(op, t, idx)
        if isinstance(op, G.IotaOp):
            return b.cast(b.index(idx[_int(op.axis) % t.rank]), dt)
        if isinstance(op, G.CastOp):
            return b.cast((yield self.value(op.input, idx, gate)), dt)
        if isinstance(op, G.BitcastOp):
            return b.bitcast((yield self.value(op.input, idx, gate)), dt)
        if isinstance(op, G.ContiguousOp):
            return (yield self.value(op.input, idx, gate))
        if op.name in REDUCE_KIND:
            return (yield self._reduce(op, idx, gate))
        if isinstance(op, G.GatherOp):
            return (yield self._gather(op, idx, gate))
        if isinstance(op, G.ConcatOp):
            return (yield self._concat(op, t, idx, gate))
        if isinstance(op, G.PadOp):
            return (yield self._pad(op, idx, gate))
        src = op.operands[0]
        return (yield self.value(src, self._move_index(op, src.type, t, idx), gate))  # type: ignore[arg-type]

    # -- elementwise -------------------------------------------------------------------------
    def _broadcast_index(self, ot: TensorType, rt: TensorType, idx: tuple[Expr, ...]) -> tuple[Expr, ...]:
        pad = rt.rank - ot.rank
        return tuple(S.const(0) if d == 1 and rt.shape[k + pad] != 1 else idx[k + pad] for k, d in enumerate(ot.shape))

    def _unary(self, name: str, x: SSAValue, dt: Attribute) -> SSAValue:
        b = self.b
        if name in UNARY_ALU:
            return b.alu(UNARY_ALU[name], x)
        if name == "relu":
            return b.alu("max", x, b.const(0, dt))
        if name == "sigmoid":
            return b.alu("recip", b.alu("add", b.const(1.0, dt), b.alu("exp", b.alu("neg", x))))
        if name == "gelu":
            half_x = b.alu("mul", x, b.const(0.5, dt))
            e = b.alu("erf", b.alu("mul", x, b.const(0.7071067811865476, dt)))
            return b.alu("mul", half_x, b.alu("add", b.const(1.0, dt), e))
        raise DiagnosticException(f"graph.{name} cannot be lowered to a kernel")

    def _elementwise(self, name: str, args: list[SSAValue], operand_dt: Attribute) -> SSAValue:
        b = self.b
        if name == "where":
            return b.alu("where", *args)
        if name in BINARY_ALU:
            return b.alu(BINARY_ALU[name], *args)
        if name in COMPARE_ALU:
            kind, swap = COMPARE_ALU[name]
            return b.alu(kind, *(reversed(args) if swap else args))
        if name in ("idiv", "mod"):
            return self._floor_divmod(name, args[0], args[1], operand_dt)
        raise DiagnosticException(f"graph.{name} cannot be lowered to a kernel")

    def _floor_divmod(self, name: str, x: SSAValue, y: SSAValue, dt: Attribute) -> SSAValue:
        """numpy `//` and `%` from C-style idiv/mod: adjust when the remainder's sign differs from the
        divisor's; integer division by zero gives 0; floats follow numpy's npy_divmod."""
        b = self.b
        zero = b.const(0, dt)
        if is_float(dt):
            r = b.alu("mod", x, y)
            fix = b.alu("and", b.alu("cmpne", r, zero), b.alu("cmpne", b.alu("cmplt", r, zero), b.alu("cmplt", y, zero)))
            if name == "mod":  # a zero remainder takes the divisor's sign (numpy's npy_divmod)
                m = b.alu("where", fix, b.alu("add", r, y), r)
                signed_zero = b.alu("where", b.alu("cmplt", y, zero), b.const(-0.0, dt), zero)
                return b.alu("where", b.alu("cmpeq", m, zero), signed_zero, m)
            q = b.alu("div", b.alu("sub", x, r), y)
            q = b.alu("where", fix, b.alu("sub", q, b.const(1.0, dt)), q)
            fq = b.alu("floor", q)
            fq = b.alu("where", b.alu("cmplt", b.const(0.5, dt), b.alu("sub", q, fq)), b.alu("add", fq, b.const(1.0, dt)), fq)
            return b.alu("where", b.alu("cmpeq", y, zero), b.alu("div", x, y), fq)
        is_zero = b.alu("cmpeq", y, zero)
        safe = b.alu("where", is_zero, b.const(1, dt), y)
        q, r = b.alu("idiv", x, safe), b.alu("mod", x, safe)
        if not is_unsigned(dt):
            fix = b.alu("and", b.alu("cmpne", r, zero), b.alu("cmpne", b.alu("cmplt", r, zero), b.alu("cmplt", safe, zero)))
            q = b.alu("where", fix, b.alu("sub", q, b.const(1, dt)), q)
            r = b.alu("where", fix, b.alu("add", r, safe), r)
        return b.alu("where", is_zero, zero, q if name == "idiv" else r)

    def _constant(self, op: G.ConstantOp, t: TensorType, idx: tuple[Expr, ...]) -> SSAValue:
        b, dt = self.b, t.element_type
        v = op.value
        if isinstance(v, FloatAttr | IntegerAttr):
            return b.const(v.value.data, dt)
        assert isinstance(v, DenseIntOrFPElementsAttr)
        values = [x.value.data if hasattr(x, "value") else x for x in v.get_values()]  # type: ignore[union-attr]
        if len(set(values)) == 1:
            return b.const(values[0], dt)
        if len(values) > G.DENSE_INLINE_LIMIT:
            raise DiagnosticException(
                f"graph.constant with {len(values)} distinct elements: dense constants above {G.DENSE_INLINE_LIMIT} "
                "elements must be function arguments"
            )
        flat = b.index(linearize(list(idx), self.dims(t)))
        out = b.const(values[-1], dt)
        for i in range(len(values) - 2, -1, -1):
            out = b.alu("where", b.alu("cmpeq", flat, b.const(i, INDEX)), b.const(values[i], dt), out)
        return out

    # -- reductions and gathers ------------------------------------------------------------------
    def _reduce(self, op: Operation, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        x = op.operands[0]
        xt: TensorType = x.type  # type: ignore[assignment]
        axes = _ints(op.properties.get("axes"))
        if not axes:
            return (yield self.value(x, idx, gate))
        kind, dt = REDUCE_KIND[op.name], xt.element_type
        acc_dt = f32 if kind in (K.ReduceKind.ADD, K.ReduceKind.MUL) and dtype_name(dt) in NARROW_FLOATS else dt
        dims = self.dims(xt)
        count: Expr = S.const(1)
        for d in axes:
            count = count * dims[d]
        if isinstance(count, S.Const) and count.value == 0:
            if op.name == "graph.mean":  # 0 / 0, folded here: WGSL rejects a constant expression giving NaN
                return self.b.const(float("nan"), dt)
            red = self._empty_reduce(kind, acc_dt)
        else:
            red = yield self._reduce_over(op, kind, acc_dt, idx, gate)
        if op.name == "graph.mean":
            red = self.b.alu("div", red, self.b.cast(self.b.index(count), acc_dt))
        return self.b.cast(red, dt) if acc_dt != dt else red

    def _reduce_over(
        self, op: Operation, kind: K.ReduceKind, acc_dt: Attribute, idx: tuple[Expr, ...], gate: tuple[Cond, ...]
    ) -> Walk[SSAValue]:
        """The reduction's operand, in ``acc_dt``, reduced over fresh ``reduce`` ranges of its axes."""
        x = op.operands[0]
        axes = _ints(op.properties.get("axes"))
        keep = bool(_int(op.properties.get("keepdims")))
        out_iter = iter(idx)
        in_idx: list[Expr] = []
        ranges: list[SSAValue] = []
        for d, size in enumerate(self.dims(x.type)):  # type: ignore[arg-type]
            if d in axes:
                r, rv = self.new_range(size, K.AxisKind.REDUCE)
                ranges.append(rv)
                in_idx.append(r)
                if keep:
                    next(out_iter)
            else:
                in_idx.append(next(out_iter))
        v = yield self.value(x, tuple(in_idx), gate)
        return self.b.reduce(kind, self.b.cast(v, acc_dt) if v.type != acc_dt else v, ranges)

    def _empty_reduce(self, kind: K.ReduceKind, dt: Attribute) -> SSAValue:
        """A reduction over no elements is its identity (sum 0, product 1), as in numpy; the verifier rejects
        max and min. No range of size 0 is opened: nothing below the graph level meets an empty loop."""
        if kind == K.ReduceKind.ADD:
            return self.b.const(0, dt)
        if kind == K.ReduceKind.MUL:
            return self.b.const(1, dt)
        raise DiagnosticException(f"a {kind.value} reduction over no elements has no value")

    def _gather(self, op: G.GatherOp, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        xt: TensorType = op.input.type  # type: ignore[assignment]
        axis = _int(op.axis) % xt.rank
        where_ = self.b.cast((yield self.value(op.indices, idx, gate)), INDEX)
        n = self.dims(xt)[axis]
        pos = self.b.value_var(where_, 0, max(0, n.vmax - 1))
        src_idx = tuple(pos if d == axis else p for d, p in enumerate(idx))
        # An out-of-range index reads nothing (gives 0) rather than out of bounds.
        return (yield self.value(op.input, src_idx, gate + ((pos, S.const(0), n),)))

    # -- movement -------------------------------------------------------------------------------
    def _pad(self, op: G.PadOp, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        xt: TensorType = op.input.type  # type: ignore[assignment]
        low = _ints(op.low)
        src_idx = tuple(p - lo for p, lo in zip(idx, low))
        conds = tuple((p, S.const(0), n) for p, n, lo, hi in zip(src_idx, self.dims(xt), low, _ints(op.high)) if lo or hi)
        inner = yield self.value(op.input, _narrowed(src_idx, conds), gate + conds)
        valid = self.b.condition(conds)
        if valid is None:
            return inner
        return self.b.alu("where", valid, inner, self.b.const(op.value.value.data, xt.element_type))  # type: ignore[attr-defined]

    def _concat(self, op: G.ConcatOp, t: TensorType, idx: tuple[Expr, ...], gate: tuple[Cond, ...]) -> Walk[SSAValue]:
        axis = _int(op.axis) % t.rank
        pieces: list[tuple[SSAValue | None, SSAValue]] = []
        offset = 0
        for x in op.inputs:
            n = x.type.shape[axis]  # type: ignore[attr-defined]
            local = idx[axis] - offset
            cond: Cond = (local, S.const(0), S.const(n))
            src_idx = tuple(local if d == axis else p for d, p in enumerate(idx))
            valid = self.b.condition((cond,))
            pieces.append((valid, (yield self.value(x, src_idx, gate + (cond,)))))
            offset += n
        out = pieces[-1][1]
        for valid, val in reversed(pieces[:-1]):
            out = val if valid is None else self.b.alu("where", valid, val, out)
        return out

    def _move_index(self, op: Operation, st: TensorType, rt: TensorType, idx: tuple[Expr, ...]) -> tuple[Expr, ...]:
        """The source index of a reshape/expand/permute/shrink/flip at result index `idx`."""
        if isinstance(op, G.ReshapeOp):
            return tuple(delinearize(linearize(list(idx), self.dims(rt)), self.dims(st)))
        if isinstance(op, G.ExpandOp):
            return self._broadcast_index(st, rt, idx)
        if isinstance(op, G.PermuteOp):
            out: list[Expr] = [S.const(0)] * st.rank
            for i, p in enumerate(_ints(op.perm)):
                out[p] = idx[i]
            return tuple(out)
        if isinstance(op, G.ShrinkOp):
            start = _ints(op.start)
            step = _ints(op.step) or (1,) * st.rank
            return tuple(p * s + s0 for p, s0, s in zip(idx, start, step))
        if isinstance(op, G.FlipOp):
            axes = _ints(op.axes)
            dims = self.dims(st)
            return tuple(dims[d] - 1 - p if d in axes else p for d, p in enumerate(idx))
        raise DiagnosticException(f"'{op.name}' cannot be lowered to a kernel (run graph-decompose first)")


def _narrowed(idx: tuple[Expr, ...], conds: tuple[Cond, ...]) -> tuple[Expr, ...]:
    """``idx`` read only where ``conds`` hold (a pad's valid region; loads below are gated by them): a variable
    ``v`` that a condition ``lo <= v + c < hi`` (constants) bounds more tightly than its range is replaced by the
    same variable with the tighter bounds, so the index arithmetic below folds for the valid region (a conv's
    output padded to a multiple of 8 read back as rows and columns: ``x // 3025`` is 0, ``x // 55 % 55`` is
    ``x // 55``). Where the conditions fail the index may differ; nothing is read there."""
    mapping: dict[S.Var, S.Var] = {}
    for expr, lo, hi in conds:
        terms, c = S.linear(expr)
        if not (isinstance(lo, S.Const) and isinstance(hi, S.Const) and len(terms) == 1):
            continue
        (v, coeff), = terms.items()
        if coeff != 1 or not isinstance(v, S.Var):
            continue
        now = mapping.get(v, v)
        vlo, vhi = max(now.lo, lo.value - c), min(now.hi, hi.value - 1 - c)
        if (vlo, vhi) != (now.lo, now.hi) and vlo <= vhi:
            mapping[v] = S.Var(v.name, vlo, vhi, v.order, v.below)
    return tuple(S.substitute(p, mapping) for p in idx) if mapping else idx


def _emit(realized: dict[SSAValue, str], symbols: dict[str, tuple[int, int]], root: SSAValue, key: object,
          slots: dict[SSAValue, Slot]) -> _KernelEmitter:
    """The kernel of ``root``, with its output ranges chosen: adjacent static output dims are merged into one range
    where that adds no index division (a convolution computed as a matmul reads its output rows and columns as one
    axis: merged, that axis is contiguous, and `graph-pack-matmul`'s panels split it; an elementwise kernel over
    14x14 or 28x28 points, a residual add after a conv, walks 196 or 784 contiguous elements instead of rows of
    14 or 28, which LLVM vectorizes with a scalar remainder per row: 5x slower, docs/performance.md "ResNet-50's
    elementwise kernels, session 10"); then dims only divided by a constant are split into panel and lane ranges
    (``range_splits``)."""
    em = _KernelEmitter(realized, symbols, slots)
    em.build(root, key)
    merged: frozenset[int] = frozenset()
    shape = root.type.shape  # type: ignore[attr-defined]
    for d in reversed(range(len(shape) - 1)):
        if not (isinstance(shape[d], int) and isinstance(shape[d + 1], int) and shape[d] > 1 and shape[d + 1] > 1):
            continue
        trial = _KernelEmitter(realized, symbols, slots)
        trial.build(root, key, merged=merged | {d})
        if trial.divisions() <= em.divisions():
            em, merged = trial, merged | {d}
    if splits := em.range_splits():
        em = _KernelEmitter(realized, symbols, slots)
        em.build(root, key, splits, merged)
    return em


def _has_no_elements(t: TensorType) -> bool:
    """A static dim of size 0: the value is empty, so it gets a buffer and no kernel (every launch of one would
    run no iteration, and its index arithmetic would divide by the zero extents)."""
    return any(d == 0 for d in t.shape)


def _kernel_name(fn: str, i: int, body: Block) -> str:
    """`<function>_r<i>` for a kernel with a reduction, `<function>_e<i>` for an elementwise one."""
    has_reduce = any(isinstance(o, K.ReduceOp) for o in body.ops)
    return f"{fn}_{'r' if has_reduce else 'e'}{i}"


KERNELS_FORMED = Statistic("kernels-formed", "Number of kernel.kernel ops formed")
OPS_FUSED = Statistic("ops-fused", "Number of graph ops computed inside another op's kernel")


class ConvertGraphToKernel(ModulePass):
    """Translate each graph function into kernels (one per realized value) and a schedule function."""

    name = "convert-graph-to-kernel"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graph_ops = sum(1 for o in op.walk() if o.name.startswith("graph."))
        kernels = sum(1 for o in op.ops if isinstance(o, K.KernelOp))
        for fn in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            if fn.is_declaration or not any(isinstance(t, TensorType) for t in fn.function_type.inputs.data + fn.function_type.outputs.data):
                continue
            self._convert(op, fn)
        formed = sum(1 for o in op.ops if isinstance(o, K.KernelOp)) - kernels
        KERNELS_FORMED.bump(formed)
        OPS_FUSED.bump(max(0, graph_ops - sum(1 for o in op.walk() if o.name.startswith("graph.")) - formed))

    def _convert(self, module: ModuleOp, fn: func.FuncOp) -> None:
        dims_attr = fn.attributes.get(DIMS_KEY)
        symbols = dims_attr.bounds if isinstance(dims_attr, DimsAttr) else {}
        body = fn.body.blocks.first
        assert body is not None
        realized: dict[SSAValue, str] = {}  # in program order, so kernels launch after their producers
        for o in body.ops:
            why = o.attributes.get(G.REALIZE_ATTR)
            if isinstance(why, StringAttr):
                realized[o.results[0]] = why.data
        ret = body.last_op
        assert isinstance(ret, func.ReturnOp)
        outputs: list[SSAValue] = list(ret.operands)
        # Function results that are arguments still need their own output buffer: a copy kernel.
        roots: list[tuple[SSAValue, object]] = [(v, v) for v in realized]
        roots += [(v, ("copy", i)) for i, v in enumerate(outputs) if isinstance(v, BlockArgument)]

        slots = plan_slots(body, realized)
        kernels: list[tuple[K.KernelOp | BufferType, list[object], list[str], object]] = []
        for i, (root, key) in enumerate(roots):
            slot = slots.get(root)
            if _has_no_elements(root.type) or (slot is not None and slot.host is root):  # type: ignore[arg-type]
                # no kernel: an empty value, or a host concat whose pieces store into its buffer
                kernels.append((BufferType(root.type.shape, root.type.element_type), [], [], key))  # type: ignore[attr-defined]
                continue
            if slot is not None and slot.piece and slot.host not in {k for *_, k in kernels}:
                host = slot.host.type  # the host's buffer, allocated before its first piece's kernel
                kernels.append((BufferType(host.shape, host.element_type), [], [], slot.host))  # type: ignore[attr-defined]
            em = _emit(realized, symbols, root, key, slots)
            block, keys, reasons, syms = em.b.finish()
            attrs: dict[str, Attribute] = {
                "inputs": ArrayAttr([StringAttr(r) for r in reasons]),
                "symbols": ArrayAttr([StringAttr(s) for s in syms]),
            }
            if symbols:
                attrs[DIMS_KEY] = DimsAttr.from_dict(symbols)
            name = _kernel_name(fn.sym_name.data, i, block)
            kop = K.KernelOp(name, [a.type for a in block.args], Region(block), attrs)
            # The kernel keeps the source lines of the graph ops it computes (fused), so later errors about it
            # point there; its ops that no one graph op made (ranges, the output's store) take the kernel's.
            location = fused_location(em.sources)
            kop.location = location if is_known(location) else fn.location
            inherit_locations(kop)
            kernels.append((kop, keys, syms, key))

        schedule = self._schedule(fn, kernels, outputs, symbols)
        schedule.location = fn.location
        inherit_locations(schedule)
        for kop, *_ in kernels:
            if isinstance(kop, K.KernelOp):
                module.body.block.insert_op_before(kop, fn)
        Rewriter.replace_op(fn, schedule)

    def _schedule(self, fn: func.FuncOp, kernels, outputs: list[SSAValue], symbols) -> func.FuncOp:
        in_types = [BufferType(t.shape, t.element_type) for t in fn.function_type.inputs.data]  # type: ignore[attr-defined]
        out_types = [BufferType(t.shape, t.element_type) for t in fn.function_type.outputs.data]  # type: ignore[attr-defined]
        block = Block(arg_types=in_types)
        old_args = fn.body.blocks.first.args  # type: ignore[union-attr]
        buffers: dict[object, SSAValue] = {old: new for old, new in zip(old_args, block.args)}
        sym_vals: dict[str, SSAValue] = {}
        for kop, keys, syms, out_key in kernels:
            if not isinstance(kop, K.KernelOp):
                # a buffer with no kernel: a value with no elements, or a host concat (allocated once, before
                # its first piece)
                if out_key not in buffers:
                    alloc = K.AllocOp(kop)
                    block.add_op(alloc)
                    buffers[out_key] = alloc.result
                continue
            if keys[0] in buffers and keys[0] is not out_key:  # a concat piece: it stores into its host's buffer
                buffers[out_key] = buffers[keys[0]]
            else:
                alloc = K.AllocOp(kop.args[0].type)  # type: ignore[arg-type]
                alloc.location = kop.location
                block.add_op(alloc)
                buffers[out_key] = alloc.result
            for s in syms:
                if s not in sym_vals:
                    sym = K.SymbolOp(s)
                    block.add_op(sym)
                    sym_vals[s] = sym.result
            launch = K.LaunchOp(kop.sym_name.data, [buffers[k] for k in keys] + [sym_vals[s] for s in syms])
            launch.location = kop.location
            block.add_op(launch)
        results = [buffers[("copy", i)] if isinstance(v, BlockArgument) else buffers[v] for i, v in enumerate(outputs)]
        ret = func.ReturnOp(*results)
        ret.location = fn.body.blocks.first.last_op.location  # type: ignore[union-attr]
        block.add_op(ret)
        new = func.FuncOp(fn.sym_name.data, (in_types, out_types), Region(block), visibility=fn.sym_visibility)
        for k, v in fn.attributes.items():
            new.attributes[k] = v
        return new
