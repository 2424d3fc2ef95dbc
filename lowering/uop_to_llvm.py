"""``convert-uop-to-llvm``: every ``uop.kernel`` becomes an ``llvm.func`` with the CPU calling convention.

``void name(ptr noalias p0, ..., i64 sym, ..., i64 core_start, i64 core_end)`` (docs/internals.md): parameters
in ``uop.param`` index order (buffers as opaque pointers, ``index`` as i64), then this thread's slice of the
``core_extent`` range. ``noalias`` is a promise the memory planner keeps: the buffers of one launch never
overlap. The kernel's attributes (``symbols``, ``core_extent``, ``core_work``, ...) are copied onto the
``llvm.func`` as discardable attributes for the runtime; the emitter ignores them. Other ops of the module (the
schedule ``func.func``) are left alone.

The linear uop block becomes a CFG:

- ``uop.range %lo, %hi`` / ``uop.end``: a branch to a header block whose argument is the counter (a phi in
  LLVM IR), ``icmp slt`` against ``%hi``, the body, and a latch adding 1; ``uop.end`` continues in the exit block.
- ``uop.if`` / ``uop.endif``: ``cond_br`` around the guarded ops.
- accumulators: an ``alloca`` in the entry block, a store where ``uop.define_acc`` stands, loads and stores for
  ``acc_get``/``acc_set`` (SROA/mem2reg turn them into registers). A loop that sets several accumulators itself
  is a register tile's reduce loop: its latch carries ``{kiln.no_loop_vectorize}``, which the emitter writes as
  ``llvm.loop.vectorize.enable = false``. The tile arrives as vector accumulators and vector ALU (the
  linearizer's ``vector_alu``), which become broadcast-FMAs; left on, LLVM's loop vectorizer vectorized the
  reduce loop itself instead on AVX2 hosts (znver3: k by 8, the accumulators spilled, a 512 matmul 10x slower
  than numpy).
- loads and stores: ``getelementptr inbounds`` + ``load``/``store`` aligned to the element size (a vector access
  reads N consecutive elements). A gated load branches around the load and merges the value or 0 in a block
  argument, so nothing is read where the gate is false (not even from an empty buffer); a gated store branches.
  ``uop.prefetch``: ``llvm.prefetch`` of a plain ``getelementptr`` (the element may lie outside the buffer).
- ALU ops and casts: `kiln.lowering.llvm.alu` and `kiln.lowering.llvm.casts`. Float ops carry ``contract``; an
  op whose value is written to an accumulator (the reduction's update) also ``reassoc`` (`kiln.lowering.llvm.builder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, UnitAttr, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from kiln.dialects import uop
from kiln.dialects.alu import AluOp, element_type, lanes
from kiln.dialects.types import itemsize
from kiln.lowering.llvm.alu import alu_table
from kiln.lowering.llvm.builder import CONTRACT, FAST_MATH, LLVMBuilder, natural_alignment
from kiln.lowering.llvm.casts import lower_bitcast, lower_cast
from kiln.lowering.llvm.types import llvm_type, memory_type
from kiln.lowering.uop_to_target import ConvertUopToTarget
from kiln.support.diagnostics import error_at
from kiln.support.locations import inherit_locations

CORE_ARGS = ("core_start", "core_end")
"""The trailing i64 parameters of every CPU kernel: the half-open slice of the ``core_extent`` range."""


@dataclass(frozen=True)
class ConvertUopToLLVM(ConvertUopToTarget):
    """Lower uop kernels to llvm.func ops (CPU calling convention, LLVM loops, intrinsics)."""

    name = "convert-uop-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.ops if isinstance(k, uop.UopKernelOp)]:
            func = lower_kernel(kernel)
            op.body.block.insert_op_before(func, kernel)
            kernel.detach()
            kernel.erase()


def lower_kernel(kernel: uop.UopKernelOp) -> llvm.FuncOp:
    """The ``llvm.func`` for one ``uop.kernel``."""
    params = kernel.params()
    arg_types = [llvm_type(p.result.type) for p in params] + [i64] * len(CORE_ARGS)
    entry = _KernelBody.new_block("entry", tuple(arg_types))
    for arg, name in zip(entry.args, [p.result.name_hint for p in params] + list(CORE_ARGS)):
        arg.name_hint = name
    arg_attrs = [
        DictionaryAttr({"llvm.noalias": UnitAttr()} if isinstance(p.result.type, uop.PtrType) else {})
        for p in params
    ] + [DictionaryAttr({})] * len(CORE_ARGS)
    body = _KernelBody(Region(entry), LLVMBuilder(entry, kernel.location))
    body.lower(kernel.body.block)
    func = llvm.FuncOp(
        kernel.sym_name.data,
        llvm.LLVMFunctionType(arg_types, llvm.LLVMVoidType()),
        linkage=llvm.LinkageAttr("external"),
        body=body.region,
        other_props={"arg_attrs": ArrayAttr(arg_attrs)},
        extra_attrs=dict(kernel.attributes),
    )
    func.location = kernel.location
    inherit_locations(func)
    return func


NO_LOOP_VECTORIZE = "kiln.no_loop_vectorize"
"""Latch attribute: LLVM's loop vectorizer must leave this loop alone (a register tile's reduce loop)."""


@dataclass
class _Range:
    """An open ``uop.range``: where its latch branches back to and where ``uop.end`` continues."""

    header: Block
    after: Block
    counter: SSAValue
    accumulators: set[SSAValue] = field(default_factory=set)
    """The accumulators set in this loop's own body (not in a nested loop)."""


@dataclass
class _KernelBody:
    """Walks the uop block in order, building the CFG: ``b.block`` is where the next op goes."""

    region: Region
    b: LLVMBuilder
    values: dict[SSAValue, SSAValue] = field(default_factory=dict)
    scopes: list[_Range | Block] = field(default_factory=list)
    """Open brackets: a ``_Range`` for ``uop.range``, the join block for ``uop.if``."""

    def lower(self, block: Block) -> None:
        for op in block.ops:
            self.b.location = op.location
            handler = _LOWERINGS.get(type(op))
            if handler is not None:
                handler(self, op)
            elif isinstance(op, AluOp):
                self.alu(op)
            else:
                why = _WHY_NOT.get(type(op), "convert-uop-to-llvm does not know this op")
                raise error_at(op, f"{op.name} cannot be lowered to LLVM for the CPU: {why}")
        self.b.append(llvm.ReturnOp())

    def get(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def define(self, op: Operation, value: SSAValue) -> None:
        """``value`` stands for the result of ``op`` from now on (and takes its name if it has none)."""
        if not value.name_hint:
            value.name_hint = op.results[0].name_hint
        self.values[op.results[0]] = value

    @staticmethod
    def new_block(name: str, arg_types: tuple[Attribute, ...] = ()) -> Block:
        """A block named ``name`` in the printed IR (and in the LLVM IR labels)."""
        block = Block(arg_types=arg_types)
        block.name_hint = name
        return block

    def open_block(self, block: Block) -> None:
        """Append ``block`` to the function and continue there."""
        self.region.add_block(block)
        self.b.block = block

    # ---- structure

    def param(self, op: uop.ParamOp) -> None:
        self.values[op.result] = self.b.entry.args[op.index.value.data]

    def special(self, op: uop.SpecialOp) -> None:
        name = op.special.data
        if name not in CORE_ARGS:
            raise error_at(op, f"uop.special {name} is a GPU id; CPU kernels only have core_start and core_end")
        args = self.b.entry.args
        self.values[op.result] = args[len(args) - len(CORE_ARGS) + CORE_ARGS.index(name)]

    def range(self, op: uop.RangeOp) -> None:
        name = op.result.name_hint or "range"
        header = self.new_block(f"{name}_loop", (i64,))
        body, after = self.new_block(f"{name}_body"), self.new_block(f"{name}_end")
        counter = header.args[0]
        counter.name_hint = op.result.name_hint
        self.b.append(llvm.BrOp(header, self.get(op.lo)))
        self.open_block(header)
        more = self.b.icmp("slt", counter, self.get(op.hi))
        self.b.append(llvm.CondBrOp(more, body, [], after, []))
        self.open_block(body)
        self.values[op.result] = counter
        self.scopes.append(_Range(header, after, counter))

    def end(self, op: uop.EndOp) -> None:
        loop = self.scopes.pop()
        assert isinstance(loop, _Range)  # the uop verifier checked the nesting
        latch = llvm.BrOp(loop.header, self.b.int_op(llvm.AddOp, loop.counter, self.b.const(i64, 1)))
        if len(loop.accumulators) > 1:
            latch.attributes[NO_LOOP_VECTORIZE] = UnitAttr()
        self.b.append(latch)
        self.open_block(loop.after)

    def if_(self, op: uop.IfOp) -> None:
        then, join = self.new_block("then"), self.new_block("endif")
        self.b.append(llvm.CondBrOp(self.get(op.cond), then, [], join, []))
        self.open_block(then)
        self.scopes.append(join)

    def endif(self, op: uop.EndIfOp) -> None:
        join = self.scopes.pop()
        assert isinstance(join, Block)
        self.b.append(llvm.BrOp(join))
        self.open_block(join)

    # ---- memory

    def address(self, ptr: SSAValue, index: SSAValue) -> SSAValue:
        pointee = ptr.type.element_type  # type: ignore[attr-defined]
        return self.b.gep(self.get(ptr), self.get(index), memory_type(pointee))

    def load(self, op: uop.LoadOp) -> None:
        t = op.result.type
        if op.gate is None:
            self.define(op, self.read(op.ptr, op.index, t))
            return
        then, merge = self.new_block("load"), self.new_block("loaded", (llvm_type(t),))
        self.b.append(llvm.CondBrOp(self.get(op.gate), then, [], merge, [self.b.const(llvm_type(t), 0)]))
        self.open_block(then)
        self.b.append(llvm.BrOp(merge, self.read(op.ptr, op.index, t)))
        self.open_block(merge)
        self.define(op, merge.args[0])

    def read(self, ptr: SSAValue, index: SSAValue, t: Attribute) -> SSAValue:
        """Load a value of uop type ``t`` at ``ptr[index]``; bools are stored as bytes."""
        stored = memory_type(t)
        value = self.b.load(self.address(ptr, index), stored, itemsize(element_type(t)))
        return value if stored == llvm_type(t) else self.b.icmp("ne", value, self.b.const(stored, 0))

    def store(self, op: uop.StoreOp) -> None:
        continue_at = None
        if op.gate is not None:
            then, continue_at = self.new_block("store"), self.new_block("stored")
            self.b.append(llvm.CondBrOp(self.get(op.gate), then, [], continue_at, []))
            self.open_block(then)
        t = op.value.type
        value = self.get(op.value)
        if memory_type(t) != llvm_type(t):
            value = self.b.cast(llvm.ZExtOp, value, memory_type(t))
        self.b.store(value, self.address(op.ptr, op.index), itemsize(element_type(t)))
        if continue_at is not None:
            self.b.append(llvm.BrOp(continue_at))
            self.open_block(continue_at)

    def prefetch(self, op: uop.PrefetchOp) -> None:
        """``llvm.prefetch`` for reading into all cache levels (locality 3: ``prefetcht0`` on x86). The address
        is a plain ``getelementptr``, not ``inbounds``: the prefetched element may lie outside the buffer."""
        pointee = memory_type(op.ptr.type.element_type)  # type: ignore[attr-defined]
        address = self.b.gep(self.get(op.ptr), self.get(op.index), pointee, inbounds=False)
        read, locality, data = (self.b.const(i32, n) for n in (0, 3, 1))
        self.b.append(llvm.CallIntrinsicOp("llvm.prefetch.p0", [address, read, locality, data], []))

    # ---- accumulators

    def define_acc(self, op: uop.DefineAccOp) -> None:
        t = llvm_type(op.init.type)
        slot = self.b.alloca(t)
        slot.name_hint = op.result.name_hint
        self.b.store(self.get(op.init), slot, natural_alignment(t))
        self.values[op.result] = slot

    def acc_get(self, op: uop.AccGetOp) -> None:
        t = llvm_type(op.result.type)
        self.define(op, self.b.load(self.get(op.acc), t, natural_alignment(t)))

    def acc_set(self, op: uop.AccSetOp) -> None:
        loop = next((s for s in reversed(self.scopes) if isinstance(s, _Range)), None)
        if loop is not None:
            loop.accumulators.add(op.acc)
        self.b.store(self.get(op.value), self.get(op.acc), natural_alignment(llvm_type(op.value.type)))

    # ---- values

    def const(self, op: Operation) -> None:
        self.define(op, self.b.const_attr(op.value, llvm_type(op.results[0].type)))  # type: ignore[attr-defined]

    def vectorize(self, op: uop.VectorizeOp) -> None:
        self.define(op, self.b.build_vector(llvm_type(op.result.type), [self.get(e) for e in op.elements]))

    def extract(self, op: uop.ExtractOp) -> None:
        self.define(op, self.b.extract(self.get(op.vector), op.lane.value.data))

    def reduce_lanes(self, op: uop.ReduceLanesOp) -> None:
        """The upper half of the lanes combined onto the lower half (two ``shufflevector``s and the ALU op on
        vectors half as wide) until one lane is left: the op's order, in log2(N) vector steps."""
        t = op.vector.type
        scalar, n, v = element_type(t), lanes(t), self.get(op.vector)
        while n > 1:
            n //= 2
            halves = [self.b.shuffle(v, tuple(range(k, k + n))) for k in (0, n)]
            if n == 1:
                halves = [self.b.cast(llvm.BitcastOp, h, scalar) for h in halves]
            v = alu_table(scalar)[op.reduce_kind](self.b, halves)
        self.define(op, v)

    def cast(self, op: Operation) -> None:
        (x,) = op.operands
        self.define(op, lower_cast(self.b, self.get(x), x.type, op.results[0].type))

    def bitcast(self, op: Operation) -> None:
        self.define(op, lower_bitcast(self.b, self.get(op.operands[0]), op.results[0].type))

    def alu(self, op: AluOp) -> None:
        lowering = alu_table(op.value_operands[0].type).get(op.alu_kind)
        if lowering is None:
            raise error_at(
                op,
                f"{op.name} on {op.value_operands[0].type} has no LLVM lowering; "
                "run uop-decompose{target=cpu-llvm} first",
            )
        updates_accumulator = any(isinstance(use.operation, uop.AccSetOp) for use in op.results[0].uses)
        self.b.fast_math = FAST_MATH if updates_accumulator else CONTRACT
        self.define(op, lowering(self.b, [self.get(v) for v in op.operands]))
        self.b.fast_math = CONTRACT


_LOWERINGS: dict[type[Operation], Callable[[_KernelBody, Operation], None]] = {
    uop.ParamOp: _KernelBody.param,
    uop.SpecialOp: _KernelBody.special,
    uop.RangeOp: _KernelBody.range,
    uop.EndOp: _KernelBody.end,
    uop.IfOp: _KernelBody.if_,
    uop.EndIfOp: _KernelBody.endif,
    uop.LoadOp: _KernelBody.load,
    uop.StoreOp: _KernelBody.store,
    uop.PrefetchOp: _KernelBody.prefetch,
    uop.DefineAccOp: _KernelBody.define_acc,
    uop.AccGetOp: _KernelBody.acc_get,
    uop.AccSetOp: _KernelBody.acc_set,
    uop.ConstOp: _KernelBody.const,
    uop.VectorizeOp: _KernelBody.vectorize,
    uop.ExtractOp: _KernelBody.extract,
    uop.ReduceLanesOp: _KernelBody.reduce_lanes,
    uop.CastOp: _KernelBody.cast,
    uop.BitcastOp: _KernelBody.bitcast,
}  # type: ignore[dict-item]

_WHY_NOT: dict[type[Operation], str] = {
    uop.DefineLocalOp: "the CPU has no workgroup-local memory",
    uop.BarrierOp: "the CPU has no workgroups to synchronize",
    uop.WmmaOp: "the CPU has no tensor-core instructions",
}
