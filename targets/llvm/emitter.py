"""``-t llvm``: the LLVM IR text of the ``llvm.func`` ops of a module.

This translates exactly the llvm-dialect ops that ``convert-uop-to-llvm`` produces to ``llvmlite.ir``. xDSL's own
translator (``xdsl.backend.llvm.convert``) is not enough for them: it has no ``bf16`` type and raises on the
fast-math flags of ``llvm.call_intrinsic``, which is how kernels call every intrinsic. Other top-level ops (the
schedule ``func.func``) are skipped; an llvm op inside a function that is not handled here is a located error,
never silently dropped. The module keeps llvmlite's placeholder triple: the toolchain retargets it to the host.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

import llvmlite.ir as ir
import ml_dtypes
import numpy as np
from llvmlite.ir.types import _BaseFloatType  # pyright: ignore[reportPrivateUsage]
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from kiln.lowering.uop_to_llvm import NO_LOOP_VECTORIZE
from kiln.support.diagnostics import error_at
from kiln.targets.loaded import entry_name


class BFloatType(_BaseFloatType):
    """LLVM's ``bfloat`` (llvmlite has no bf16 type); constants are written ``0xRXXXX`` (the 16 raw bits)."""

    null = "0xR0000"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value: float) -> str:
        bits = int(np.array(value, dtype=ml_dtypes.bfloat16).view(np.uint16))
        return f"0xR{bits:04X}"


BFloatType._create_instance()

_FLOAT_TYPES: dict[type[Attribute], ir.Type] = {
    BFloat16Type: BFloatType(),
    Float16Type: ir.HalfType(),
    Float32Type: ir.FloatType(),
    Float64Type: ir.DoubleType(),
}


def llvm_type(t: Attribute, op: Operation) -> ir.Type:
    """The llvmlite type of an llvm-dialect type; ``op`` is what an unsupported type is reported against."""
    converted = _llvmlite_type(t)
    if converted is None:
        raise error_at(op, f"cannot emit LLVM IR for type {t}")
    return converted


@functools.lru_cache(maxsize=256)
def _llvmlite_type(t: Attribute) -> ir.Type | None:
    """``llvm_type``, None where there is none; converted once per type (every op of a kernel asks)."""
    if isinstance(t, IntegerType):
        return ir.IntType(t.width.data)
    if type(t) in _FLOAT_TYPES:
        return _FLOAT_TYPES[type(t)]
    if isinstance(t, VectorType) and t.get_num_dims() == 1 and not t.get_num_scalable_dims():
        element = _llvmlite_type(t.get_element_type())
        return None if element is None else ir.VectorType(element, t.get_shape()[0])
    if isinstance(t, llvm.LLVMPointerType):
        return ir.PointerType(addrspace=t.addr_space.data if isinstance(t.addr_space, IntAttr) else 0)
    if isinstance(t, llvm.LLVMVoidType):
        return ir.VoidType()
    return None


def _bit_pattern(value: int, t: ir.IntType) -> int | bool:
    """``value`` as LLVM prints an integer constant of type ``t``: signed (ui32 4294967295 is i32 -1), and i1 as
    a bool (llvmlite prints it false/true)."""
    if t.width == 1:
        return bool(value & 1)
    return _signless(t.width).normalized_value(value, truncate_bits=True)  # type: ignore[return-value]


@functools.lru_cache(maxsize=64)
def _signless(width: int) -> IntegerType:
    return IntegerType(width)


def _constant(op: llvm.ConstantOp) -> ir.Constant:
    constant = _constant_value(op.result.type, op.value)
    if constant is None:
        raise error_at(op, f"cannot emit the constant {op.value} of type {op.result.type}")
    return constant


@functools.lru_cache(maxsize=4096)
def _constant_value(type_attr: Attribute, value: Attribute) -> ir.Constant | None:
    """The llvmlite constant of an ``llvm.mlir.constant``, None where there is none; made once per type and value
    (xDSL's float attributes compare by their bits, so -0.0 and 0.0 stay apart)."""
    t = _llvmlite_type(type_attr)
    if t is None:
        return None
    if isinstance(value, IntegerAttr):
        return ir.Constant(t, _bit_pattern(value.value.data, t))
    if isinstance(value, FloatAttr):
        return ir.Constant(t, value.value.data)
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, ir.VectorType):
        values = list(value.get_values())
        if isinstance(t.element, ir.IntType):
            values = [_bit_pattern(int(v), t.element) for v in values]
        return ir.Constant(t, values)
    return None


@functools.lru_cache(maxsize=1024)
def _array_values(attr: Attribute) -> tuple[int, ...]:
    """The numbers of a ``DenseArrayBase`` (a GEP's constant indices, a shuffle mask), unpacked once."""
    return tuple(attr.iter_values())  # type: ignore[attr-defined]


_INT_BINARY: dict[type[Operation], str] = {
    llvm.AddOp: "add",
    llvm.SubOp: "sub",
    llvm.MulOp: "mul",
    llvm.UDivOp: "udiv",
    llvm.SDivOp: "sdiv",
    llvm.URemOp: "urem",
    llvm.SRemOp: "srem",
    llvm.AndOp: "and_",
    llvm.OrOp: "or_",
    llvm.XOrOp: "xor",
    llvm.ShlOp: "shl",
    llvm.LShrOp: "lshr",
    llvm.AShrOp: "ashr",
}
"""Integer ops by llvmlite builder method. Overflow/exact flags, which kiln never sets, are not carried over:
dropping them only removes assumptions, so the result stays correct."""

_FLOAT_BINARY: dict[type[Operation], str] = {
    llvm.FAddOp: "fadd",
    llvm.FSubOp: "fsub",
    llvm.FMulOp: "fmul",
    llvm.FDivOp: "fdiv",
    llvm.FRemOp: "frem",
}

_CASTS: dict[type[Operation], str] = {
    llvm.TruncOp: "trunc",
    llvm.ZExtOp: "zext",
    llvm.SExtOp: "sext",
    llvm.SIToFPOp: "sitofp",
    llvm.FPExtOp: "fpext",
    llvm.FPTruncOp: "fptrunc",
    llvm.BitcastOp: "bitcast",
}

_ICMP: dict[str, tuple[str, bool]] = {
    "eq": ("==", True),
    "ne": ("!=", True),
    "slt": ("<", True),
    "sle": ("<=", True),
    "sgt": (">", True),
    "sge": (">=", True),
    "ult": ("<", False),
    "ule": ("<=", False),
    "ugt": (">", False),
    "uge": (">=", False),
}
"""icmp predicate -> (llvmlite comparison, signed)."""

_FCMP_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _flags(op: Operation) -> list[str]:
    """The fast-math flags of ``op`` as LLVM keywords, sorted (as llvmlite prints them on calls): the IR text is
    the object cache key, so it must not depend on set iteration order."""
    attr = op.properties.get("fastmathFlags")
    return sorted(f.value for f in attr.data) if isinstance(attr, llvm.FastMathAttr) else []


class _FunctionEmitter:
    """Emits the body of one ``llvm.func`` into an ``ir.Function``: blocks, block arguments as phis, ops."""

    def __init__(self, func: llvm.FuncOp, fn: ir.Function):
        self.func = func
        self.fn = fn
        self.values: dict[SSAValue, ir.Value] = {}
        self.blocks: dict[Block, ir.Block] = {}
        self.builder = ir.IRBuilder()

    def emit(self) -> None:
        blocks = list(self.func.body.blocks)
        for block in blocks:
            self.blocks[block] = self.fn.append_basic_block(block.name_hint or ("entry" if block is blocks[0] else ""))
        for arg, fn_arg in zip(blocks[0].args, self.fn.args, strict=True):
            fn_arg.name = arg.name_hint or ""
            self.values[arg] = fn_arg
        for block in blocks[1:]:
            self.builder.position_at_end(self.blocks[block])
            for arg in block.args:
                self.values[arg] = self.builder.phi(llvm_type(arg.type, self.func), arg.name_hint or "")
        for block in _dominators_first(blocks):
            self.builder.position_at_end(self.blocks[block])
            for op in block.ops:
                self.emit_op(op)

    def get(self, value: SSAValue) -> ir.Value:
        return self.values[value]

    def type_of(self, op: Operation, value: SSAValue) -> ir.Type:
        return llvm_type(value.type, op)

    def define(self, op: Operation, value: ir.Value) -> None:
        self.values[op.results[0]] = value

    def name(self, op: Operation) -> str:
        return (op.results[0].name_hint or "") if op.results else ""

    def emit_op(self, op: Operation) -> None:
        b, get = self.builder, self.get
        kind = type(op)
        if kind in _INT_BINARY:
            self.define(op, getattr(b, _INT_BINARY[kind])(get(op.operands[0]), get(op.operands[1]), self.name(op)))
        elif kind in _FLOAT_BINARY:
            method = getattr(b, _FLOAT_BINARY[kind])
            self.define(op, method(get(op.operands[0]), get(op.operands[1]), self.name(op), flags=_flags(op)))
        elif kind in _CASTS:
            method = getattr(b, _CASTS[kind])
            self.define(op, method(get(op.operands[0]), self.type_of(op, op.results[0]), self.name(op)))
        elif handler := _HANDLERS.get(kind):
            handler(self, op)
        else:
            raise error_at(op, f"the LLVM IR emitter does not handle '{op.name}'")

    def branch_to(self, op: Operation, dest: Block, args: tuple[SSAValue, ...]) -> ir.Block:
        """Add this block's incoming values to ``dest``'s phis; the llvmlite block to branch to."""
        for phi_arg, value in zip(dest.args, args, strict=True):
            phi = self.values[phi_arg]
            assert isinstance(phi, ir.PhiInstr)
            phi.add_incoming(self.get(value), self.builder.block)
        return self.blocks[dest]


def _dominators_first(blocks: list[Block]) -> list[Block]:
    """The blocks in reverse post-order from the entry (every value is translated before its uses, whatever the
    layout order), then the unreachable ones."""
    seen = {blocks[0]}
    post_order: list[Block] = []
    stack = [(blocks[0], _successors(blocks[0]))]  # iterative: a kernel can have thousands of blocks
    while stack:
        block, successors = stack[-1]
        successor = next((s for s in successors if s not in seen), None)
        if successor is None:
            post_order.append(block)
            stack.pop()
        else:
            seen.add(successor)
            stack.append((successor, _successors(successor)))
    return post_order[::-1] + [b for b in blocks if b not in seen]


def _successors(block: Block) -> Iterator[Block]:
    terminator = block.last_op
    return iter(terminator.successors if terminator is not None else ())


def _icmp(e: _FunctionEmitter, op: llvm.ICmpOp) -> None:
    cmp, signed = _ICMP[llvm.ICmpPredicateFlag.from_int(op.predicate.value.data).value]
    method = e.builder.icmp_signed if signed else e.builder.icmp_unsigned
    e.define(op, method(cmp, e.get(op.lhs), e.get(op.rhs), e.name(op)))


def _fcmp(e: _FunctionEmitter, op: llvm.FCmpOp) -> None:
    predicate = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value.lstrip("_")
    if predicate[1:] in _FCMP_SYMBOLS:
        ordered = predicate[0] == "o"
        predicate = _FCMP_SYMBOLS[predicate[1:]]
    else:  # ord, uno, false, true: the same word for both methods
        ordered = True
    method = e.builder.fcmp_ordered if ordered else e.builder.fcmp_unordered
    e.define(op, method(predicate, e.get(op.lhs), e.get(op.rhs), e.name(op), flags=_flags(op)))


def _select(e: _FunctionEmitter, op: llvm.SelectOp) -> None:
    e.define(op, e.builder.select(e.get(op.cond), e.get(op.lhs), e.get(op.rhs), e.name(op), flags=_flags(op)))


def _fneg(e: _FunctionEmitter, op: llvm.FNegOp) -> None:
    e.define(op, e.builder.fneg(e.get(op.arg), e.name(op), flags=_flags(op)))


def _call_intrinsic(e: _FunctionEmitter, op: llvm.CallIntrinsicOp) -> None:
    if op.op_bundle_operands:
        raise error_at(op, "the LLVM IR emitter does not handle operand bundles")
    args = [e.get(a) for a in op.args]
    result = e.type_of(op, op.ress) if op.ress is not None else ir.VoidType()
    fnty = ir.FunctionType(result, [a.type for a in args])
    name = op.intrin.data
    module = e.fn.module
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, fnty, name)
    elif fn.function_type != fnty:
        raise error_at(op, f"intrinsic {name} called as {fnty}, but it was declared as {fn.function_type}")
    call = e.builder.call(fn, args, "" if op.ress is None else e.name(op), fastmath=_flags(op))
    if op.ress is not None:
        e.define(op, call)


def _alloca(e: _FunctionEmitter, op: llvm.AllocaOp) -> None:
    slot = e.builder.alloca(llvm_type(op.elem_type, op), size=e.get(op.size), name=e.name(op))
    slot.type = ir.PointerType()  # llvmlite types it `T*`; every other pointer in the module is an opaque `ptr`
    if op.alignment is not None:
        slot.align = op.alignment.value.data
    e.define(op, slot)


def _load(e: _FunctionEmitter, op: llvm.LoadOp) -> None:
    align = op.alignment.value.data if op.alignment is not None else None
    if op.ordering.value.data != 0:
        raise error_at(op, "the LLVM IR emitter does not handle atomic loads")
    e.define(op, e.builder.load(e.get(op.ptr), e.name(op), align=align, typ=e.type_of(op, op.dereferenced_value)))


def _store(e: _FunctionEmitter, op: llvm.StoreOp) -> None:
    if (op.ordering is not None and op.ordering.value.data != 0) or op.volatile_ is not None:
        raise error_at(op, "the LLVM IR emitter does not handle atomic or volatile stores")
    store = e.builder.store(e.get(op.value), e.get(op.ptr))
    if op.alignment is not None:
        store.align = op.alignment.value.data


def _gep(e: _FunctionEmitter, op: llvm.GEPOp) -> None:
    dynamic = iter(op.ssa_indices)
    indices = [
        e.get(next(dynamic)) if i == llvm.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), i)
        for i in _array_values(op.rawConstantIndices)
    ]
    source = llvm_type(op.elem_type, op)
    e.define(op, e.builder.gep(e.get(op.ptr), indices, op.inbounds is not None, e.name(op), source_etype=source))


def _insertelement(e: _FunctionEmitter, op: llvm.InsertElementOp) -> None:
    e.define(op, e.builder.insert_element(e.get(op.vector), e.get(op.value), e.get(op.index), e.name(op)))


def _shufflevector(e: _FunctionEmitter, op: llvm.ShuffleVectorOp) -> None:
    mask_values = list(_array_values(op.mask))
    mask = ir.Constant(ir.VectorType(ir.IntType(32), len(mask_values)), mask_values)
    e.define(op, e.builder.shuffle_vector(e.get(op.v1), e.get(op.v2), mask, e.name(op)))


def _br(e: _FunctionEmitter, op: llvm.BrOp) -> None:
    branch = e.builder.branch(e.branch_to(op, op.successor, op.arguments))
    if NO_LOOP_VECTORIZE in op.attributes:
        branch.set_metadata("llvm.loop", _no_loop_vectorize(e.fn.module))


def _no_loop_vectorize(module: ir.Module) -> ir.MDValue:
    """Loop metadata ``!{self, !{"llvm.loop.vectorize.enable", i1 0}}`` (a loop ID's first operand is itself);
    one node per module, shared by the loops it marks (llvmlite caches it by its original operands)."""
    off = module.add_metadata([ir.MetaDataString(module, "llvm.loop.vectorize.enable"), ir.Constant(ir.IntType(1), 0)])
    loop = module.add_metadata([off, off])
    loop.operands = (loop, off)
    return loop


def _cond_br(e: _FunctionEmitter, op: llvm.CondBrOp) -> None:
    then_block = e.branch_to(op, op.then_block, op.then_arguments)
    else_block = e.branch_to(op, op.else_block, op.else_arguments)
    e.builder.cbranch(e.get(op.cond), then_block, else_block)


def _return(e: _FunctionEmitter, op: llvm.ReturnOp) -> None:
    if op.arg is None:
        e.builder.ret_void()
    else:
        e.builder.ret(e.get(op.arg))


_HANDLERS: dict[type[Operation], Callable[[_FunctionEmitter, Operation], None]] = {
    llvm.ConstantOp: lambda e, op: e.define(op, _constant(op)),  # type: ignore[arg-type]
    llvm.UndefOp: lambda e, op: e.define(op, ir.Constant(e.type_of(op, op.results[0]), ir.Undefined)),
    llvm.ICmpOp: _icmp,
    llvm.FCmpOp: _fcmp,
    llvm.SelectOp: _select,
    llvm.FNegOp: _fneg,
    llvm.CallIntrinsicOp: _call_intrinsic,
    llvm.AllocaOp: _alloca,
    llvm.LoadOp: _load,
    llvm.StoreOp: _store,
    llvm.GEPOp: _gep,
    llvm.InsertElementOp: _insertelement,
    llvm.ShuffleVectorOp: _shufflevector,
    llvm.BrOp: _br,
    llvm.CondBrOp: _cond_br,
    llvm.ReturnOp: _return,
}  # type: ignore[assignment]

_ARG_FLAGS = {"llvm.noalias": "noalias"}
"""Parameter attributes carried over from ``arg_attrs`` (kiln marks buffer pointers noalias); others are errors."""


def _declare(func: llvm.FuncOp, module: ir.Module) -> ir.Function:
    fty = func.function_type
    fnty = ir.FunctionType(
        llvm_type(fty.output, func), [llvm_type(t, func) for t in fty.inputs.data], var_arg=fty.is_variadic
    )
    fn = ir.Function(module, fnty, func.sym_name.data)
    if (linkage := func.linkage.linkage.data) != "external":
        fn.linkage = linkage
    for arg, attrs in zip(fn.args, func.arg_attrs.data if func.arg_attrs else ()):
        for key in attrs.data:
            if key not in _ARG_FLAGS:
                raise error_at(func, f"the LLVM IR emitter does not handle the parameter attribute '{key}'")
            arg.add_attribute(_ARG_FLAGS[key])
    return fn


_I64 = ir.IntType(64)


def _follows_cpu_convention(fn: ir.Function) -> bool:
    """An exported kernel of the CPU calling convention: pointers and i64, the last two i64 (its core slice)."""
    types = fn.function_type.args
    return (
        fn.linkage in ("", "external")
        and len(types) >= 2
        and types[-2:] == (_I64, _I64)
        and all(t == _I64 or isinstance(t, ir.PointerType) for t in types)
    )


def _declare_entry(kernel: ir.Function, module: ir.Module) -> ir.Function:
    """``kernel``'s uniform entry ``void (ptr args, i64 lo, i64 hi)`` (``kiln.targets.loaded.entry_name``),
    declared right after it so that the two stay in one unit (``split_units``)."""
    return ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.PointerType(), _I64, _I64]), entry_name(kernel.name))


def _emit_entry(kernel: ir.Function, entry: ir.Function) -> None:
    """Load each argument from its pointer-sized slot and tail-call the kernel (never inlined: one copy of its
    code)."""
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    slots, lo, hi = entry.args
    slots.name, lo.name, hi.name = "args", "lo", "hi"
    args = []
    for i, t in enumerate(kernel.function_type.args[:-2]):
        slot = b.gep(slots, [ir.Constant(_I64, i)], inbounds=True, source_etype=ir.PointerType())
        args.append(b.load(slot, typ=t, align=8))
    b.call(kernel, [*args, lo, hi], tail=True, attrs=("noinline",))
    b.ret_void()


def to_llvmlite(module: ModuleOp) -> ir.Module:
    """The ``llvm.func`` ops of ``module`` as an llvmlite module; everything else in the module is skipped. Each
    kernel of the CPU calling convention also gets its uniform entry (``_declare_entry``)."""
    out = ir.Module()
    declared = []
    for func in module.ops:
        if isinstance(func, llvm.FuncOp):
            fn = _declare(func, out)
            entry = _declare_entry(fn, out) if func.body.blocks and _follows_cpu_convention(fn) else None
            declared.append((func, fn, entry))
    for func, fn, entry in declared:
        if func.body.blocks:
            _FunctionEmitter(func, fn).emit()
        if entry is not None:
            _emit_entry(fn, entry)
    return out


def emit(module: ModuleOp) -> str:
    """LLVM IR text of every ``llvm.func`` in ``module`` (the ``-t llvm`` target)."""
    return str(to_llvmlite(module))
