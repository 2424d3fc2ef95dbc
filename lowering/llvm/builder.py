"""Building xDSL llvm-dialect ops, with the few things that dialect cannot say directly.

xDSL 0.75's llvm dialect has no ``extractelement``, and its ``llvm.select`` and ``llvm.fcmp`` take only scalar
conditions and operands. Kernels stay within upstream ``llvm.*`` ops, so the builder spells those three for
vectors: a lane is read with ``shufflevector`` to a one-lane vector and a ``bitcast`` to the scalar (LLVM folds
it into ``extractelement``); a select on a vector condition is the bit-mask form ``(a & m) | (b & ~m)`` with
``m = sext(cond)`` (InstCombine turns it back into a ``select``); a vector ``fcmp`` is done lane by lane.
Float arithmetic carries the ``contract`` fast-math flag (FMA contraction); the ops whose value an accumulator takes
carry ``reassoc contract``, which LLVM's loop vectorizer needs to vectorize a reduction. Elsewhere it is not
needed, and it cost compile time that grows with the square of a chain of float ops (InstCombine
reassociating it: 15 of 20 s compiling a 6,000-op elementwise chain). Never ``nnan``/``ninf``: NaN and infinity
results must stay right.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from kiln.dialects.alu import element_type, lanes, like
from kiln.dialects.types import bitwidth, is_float
from kiln.support.prototypes import OpPrototypes, Settings, number_key

FAST_MATH = llvm.FastMathAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])
"""The fast-math flags of a float operation that updates an accumulator (a reduction)."""
CONTRACT = llvm.FastMathAttr([FastMathFlag.ALLOW_CONTRACT])
"""The flags of every other float operation."""
EXTREME_STEP = llvm.FastMathAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT, FastMathFlag.NO_SIGNED_ZEROS])
"""The flags of a max or min that updates an accumulator (``kiln.lowering.llvm.alu``)."""

_FLOAT_SUFFIX: dict[type[Attribute], str] = {
    BFloat16Type: "bf16",
    Float16Type: "f16",
    Float32Type: "f32",
    Float64Type: "f64",
}


def mangle(t: Attribute) -> str:
    """The type suffix of an overloaded LLVM intrinsic name: ``f32``, ``i64``, ``v8f32``."""
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{mangle(t.get_element_type())}"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return _FLOAT_SUFFIX[type(t)]


class LLVMBuilder:
    """Appends llvm-dialect ops to ``block`` (which callers move as they open new blocks); allocas go to the
    start of ``entry``. Every op gets ``location``, the location of the uop op being lowered. Ops are built
    through ``OpPrototypes`` (a register tile is thousands of ops of a few kinds), constants' attributes once."""

    def __init__(self, entry: Block, location: LocationAttr):
        self.entry = entry
        self.block = entry
        self.location = location
        self._last_alloca: Operation | None = None
        self._prototypes = OpPrototypes()
        self.fast_math = CONTRACT
        """The flags of the float ops added now (the caller sets ``FAST_MATH`` while lowering a reduction update)."""

    def add(self, op: Operation) -> SSAValue:
        """Append ``op``, which has one result; that result."""
        self.append(op)
        (result,) = op.results
        return result

    def append(self, op: Operation) -> None:
        """Append ``op`` (a store, a branch: an op without results)."""
        self.block.add_op(self._located(op))

    def _located(self, op: Operation) -> Operation:
        op.location = self.location
        return op

    def build(
        self, cls: type[Operation], operands: Sequence[SSAValue], settings: Settings, make: Callable[[], Operation]
    ) -> SSAValue:
        """Append the op ``make()`` builds (``OpPrototypes.build``), which has one result; that result."""
        return self.add(self._prototypes.build(cls, operands, settings, make))

    # ---- constants and memory

    def const(self, t: Attribute, value: int | float) -> SSAValue:
        """A constant of llvm type ``t``; a vector type gets a splat."""
        number = number_key(value)
        return self.build(llvm.ConstantOp, (), (t, number), lambda: llvm.ConstantOp(_constant_attr(t, (number,)), t))

    def const_attr(self, attr: IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr, t: Attribute) -> SSAValue:
        """A constant of llvm type ``t`` with the value of a uop constant's attribute."""
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            return self.const(t, attr.value.data)
        numbers = tuple(number_key(v) for v in attr.get_values())
        return self.build(llvm.ConstantOp, (), (t, numbers), lambda: llvm.ConstantOp(_constant_attr(t, numbers), t))

    def alloca(self, t: Attribute) -> SSAValue:
        """A stack slot for one value of type ``t`` at the start of the entry block (where mem2reg finds it)."""
        one = self._prototypes.build(llvm.ConstantOp, (), (i32, 1), lambda: llvm.ConstantOp(IntegerAttr(1, i32), i32))
        size, alignment = one.results[0], natural_alignment(t)
        slot = self._prototypes.build(
            llvm.AllocaOp, (size,), (t, alignment), lambda: llvm.AllocaOp(size, t, alignment=alignment)
        )
        where = InsertPoint.at_start(self.entry) if self._last_alloca is None else InsertPoint.after(self._last_alloca)
        Rewriter.insert_op([self._located(one), self._located(slot)], where)
        self._last_alloca = slot
        return slot.res

    def gep(self, base: SSAValue, index: SSAValue, element: Attribute, inbounds: bool = True) -> SSAValue:
        """``getelementptr`` of ``base[index]``, ``inbounds`` unless told otherwise."""
        return self.build(
            llvm.GEPOp, (base, index), (element, inbounds),
            lambda: llvm.GEPOp.from_mixed_indices(base, [index], element, inbounds=inbounds),
        )

    def load(self, ptr: SSAValue, t: Attribute, alignment: int) -> SSAValue:
        return self.build(llvm.LoadOp, (ptr,), (t, alignment), lambda: llvm.LoadOp(ptr, t, alignment=alignment))

    def store(self, value: SSAValue, ptr: SSAValue, alignment: int) -> None:
        store = self._prototypes.build(
            llvm.StoreOp, (value, ptr), (alignment,), lambda: llvm.StoreOp(value, ptr, alignment=alignment)
        )
        self.append(store)

    # ---- arithmetic

    def int_op(self, cls: type[Operation], lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """An integer binary op (``llvm.AddOp``, ``llvm.SDivOp``, ...)."""
        return self.build(cls, (lhs, rhs), (), lambda: cls(lhs, rhs))  # type: ignore[call-arg]

    def float_op(
        self, cls: type[Operation], lhs: SSAValue, rhs: SSAValue, flags: llvm.FastMathAttr | None = None
    ) -> SSAValue:
        """A float binary op (``llvm.FAddOp``, ...) with ``flags`` (default: the current fast-math flags)."""
        flags = self.fast_math if flags is None else flags
        return self.build(cls, (lhs, rhs), (flags,), lambda: cls(lhs, rhs, flags))  # type: ignore[call-arg]

    def fneg(self, x: SSAValue) -> SSAValue:
        flags = self.fast_math
        return self.build(llvm.FNegOp, (x,), (flags,), lambda: llvm.FNegOp(x, flags))

    def icmp(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.build(
            llvm.ICmpOp, (lhs, rhs), (predicate,),
            lambda: llvm.ICmpOp(lhs, rhs, IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), 64)),
        )

    def fcmp(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """A float comparison; on vectors lane by lane (xDSL's ``llvm.fcmp`` is scalar only)."""
        if isinstance(lhs.type, VectorType):
            return self.per_lane(i1, lambda a, b: self.fcmp(predicate, a, b), lhs, rhs)
        return self.build(llvm.FCmpOp, (lhs, rhs), (predicate,), lambda: llvm.FCmpOp(lhs, rhs, predicate))

    def select(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """``cond ? lhs : rhs``; a vector condition selects lane by lane through a bit mask."""
        if not isinstance(cond.type, VectorType):
            return self.build(llvm.SelectOp, (cond, lhs, rhs), (), lambda: llvm.SelectOp(cond, lhs, rhs))
        t = lhs.type
        width = bitwidth(element_type(t))
        bits_type = _like(t, IntegerType(width))
        mask = cond if width == 1 else self.cast(llvm.SExtOp, cond, bits_type)
        not_mask = self.int_op(llvm.XOrOp, mask, self.const(bits_type, -1))
        lhs_bits, rhs_bits = (self.cast(llvm.BitcastOp, v, bits_type) if t != bits_type else v for v in (lhs, rhs))
        picked = self.int_op(
            llvm.OrOp,
            self.int_op(llvm.AndOp, lhs_bits, mask),
            self.int_op(llvm.AndOp, rhs_bits, not_mask),
        )
        return picked if t == bits_type else self.cast(llvm.BitcastOp, picked, t)

    def cast(self, cls: type[Operation], x: SSAValue, t: Attribute) -> SSAValue:
        """A conversion op (``llvm.ZExtOp``, ``llvm.SIToFPOp``, ``llvm.BitcastOp``, ...) to llvm type ``t``."""
        return self.build(cls, (x,), (t,), lambda: cls(x, t))  # type: ignore[call-arg]

    def intrinsic(
        self,
        name: str,
        args: Sequence[SSAValue],
        result: Attribute,
        overloads: Sequence[Attribute] | None = None,
        fast_math: bool = False,
    ) -> SSAValue:
        """``llvm.call_intrinsic`` of ``name`` mangled with ``overloads`` (default: the result type), e.g.
        ``intrinsic("llvm.sqrt", [x], f32)`` calls ``llvm.sqrt.f32``."""
        overloads = tuple(overloads) if overloads is not None else (result,)
        flags = self.fast_math if fast_math else None

        def make() -> Operation:
            suffix = ".".join(mangle(t) for t in overloads)
            op = llvm.CallIntrinsicOp(f"{name}.{suffix}", args, [result])
            if flags is not None:
                op.properties["fastmathFlags"] = flags
            return op

        return self.build(llvm.CallIntrinsicOp, tuple(args), (name, result, overloads, flags), make)

    # ---- vectors

    def extract(self, vector: SSAValue, lane: int) -> SSAValue:
        """Lane ``lane`` of ``vector``: a one-lane ``shufflevector`` bitcast to the scalar."""
        one_lane = self.shuffle(vector, (lane,))
        return self.cast(llvm.BitcastOp, one_lane, element_type(vector.type))

    def shuffle(self, vector: SSAValue, picked: tuple[int, ...]) -> SSAValue:
        """The vector of ``vector``'s lanes ``picked``, in that order (a ``shufflevector``)."""
        t = vector.type
        assert isinstance(t, VectorType)
        scalar = t.get_element_type()

        def make() -> Operation:
            mask = DenseArrayBase.from_list(i32, picked)
            return llvm.ShuffleVectorOp(vector, vector, mask, _vector(scalar, len(picked)))

        return self.build(llvm.ShuffleVectorOp, (vector, vector), picked, make)

    def build_vector(self, t: Attribute, elements: Sequence[SSAValue]) -> SSAValue:
        """A vector of llvm type ``t`` whose lane i is ``elements[i]`` (an ``insertelement`` chain; one value in
        every lane, a register tile's broadcast: inserted once and shuffled into every lane)."""
        if len(elements) > 1 and all(e is elements[0] for e in elements):
            first = self.build_vector(t, elements[:1])
            return self.shuffle(first, (0,) * len(elements))
        vector = self.build(llvm.UndefOp, (), (t,), lambda: llvm.UndefOp(t))
        for lane, value in enumerate(elements):
            index = self.const(i32, lane)
            vector = self.build(
                llvm.InsertElementOp, (vector, value, index), (),
                lambda: llvm.InsertElementOp(vector, value, index),  # noqa: B023 (called at once)
            )
        return vector

    def per_lane(
        self, scalar_result: Attribute, fn: Callable[..., SSAValue], *vectors: SSAValue
    ) -> SSAValue:
        """Apply a scalar lowering ``fn`` to each lane of ``vectors``; the results as a vector of
        ``scalar_result``."""
        n = lanes(vectors[0].type)
        results = [fn(*(self.extract(v, lane) for v in vectors)) for lane in range(n)]
        return self.build_vector(_vector(scalar_result, n), results)


@functools.lru_cache(maxsize=4096)
def _constant_attr(t: Attribute, numbers: tuple[int | str, ...]) -> Attribute:
    """The value attribute of an ``llvm.mlir.constant`` of llvm type ``t``: one number (``number_key``), a
    splat on a vector type, or one number per lane. Built once: building an attribute verifies it."""
    scalar = element_type(t)
    values: list[int | float] = [float.fromhex(n) if isinstance(n, str) else n for n in numbers]
    if is_float(scalar):
        values = [float(v) for v in values]
    else:
        assert isinstance(scalar, IntegerType)
        values = [scalar.normalized_value(int(v), truncate_bits=True) for v in values]  # type: ignore[misc]
    if isinstance(t, VectorType):
        return DenseIntOrFPElementsAttr.from_list(t, values)
    (number,) = values
    return FloatAttr(number, scalar) if is_float(scalar) else IntegerAttr(number, scalar)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=256)
def _vector(scalar: Attribute, n: int) -> VectorType:
    return VectorType(scalar, [n])


@functools.lru_cache(maxsize=256)
def _like(t: Attribute, scalar: Attribute) -> Attribute:
    return like(t, scalar)


def natural_alignment(t: Attribute) -> int:
    """LLVM's default alignment of llvm type ``t`` in bytes: its size rounded up to a power of 2."""
    size = max(1, bitwidth(element_type(t)) // 8) * lanes(t)
    return 1 << (size - 1).bit_length()
