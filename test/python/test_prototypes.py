"""``OpPrototypes``: an op built from a prototype is the op its constructor builds, whatever came before."""

from __future__ import annotations

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import VectorType, f32, i64
from xdsl.ir import Block, Operation, SSAValue

from kiln.lowering.llvm.builder import FAST_MATH
from kiln.support.prototypes import OpPrototypes, number_key

VEC = VectorType(f32, [8])


def gep(ptr: SSAValue, index: SSAValue, inbounds: bool) -> llvm.GEPOp:
    """``ptr[index]`` over f32 elements."""
    return llvm.GEPOp.from_mixed_indices(ptr, [index], f32, inbounds=inbounds)


def _same(a: Operation, b: Operation) -> None:
    assert type(a) is type(b)
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert a.properties == b.properties and a.attributes == b.attributes


def test_later_ops_equal_the_constructors() -> None:
    block = Block(arg_types=[llvm.LLVMPointerType(), VEC, VEC, i64])
    ptr, x, y, n = block.args
    made = OpPrototypes()
    for a, b in [(x, y), (y, x), (x, x)]:
        built = made.build(llvm.FAddOp, (a, b), (FAST_MATH,), lambda a=a, b=b: llvm.FAddOp(a, b, FAST_MATH))
        _same(built, llvm.FAddOp(a, b, FAST_MATH))
    for n_bytes in (4, 32, 4):
        built = made.build(llvm.LoadOp, (ptr,), (VEC, n_bytes), lambda a=n_bytes: llvm.LoadOp(ptr, VEC, alignment=a))
        _same(built, llvm.LoadOp(ptr, VEC, alignment=n_bytes))
    for inbounds in (True, False, True):
        built = made.build(llvm.GEPOp, (ptr, n), (f32, inbounds), lambda b=inbounds: gep(ptr, n, b))
        _same(built, gep(ptr, n, inbounds))


def test_changing_a_built_op_leaves_the_next_alone() -> None:
    block = Block(arg_types=[f32])
    (x,) = block.args
    made = OpPrototypes()
    first = made.build(llvm.FAddOp, (x, x), (), lambda: llvm.FAddOp(x, x))
    first.properties["fastmathFlags"] = FAST_MATH
    first.attributes["mark"] = FAST_MATH
    second = made.build(llvm.FAddOp, (x, x), (), lambda: llvm.FAddOp(x, x))
    _same(second, llvm.FAddOp(x, x))


def test_operands_out_of_order_are_refused() -> None:
    block = Block(arg_types=[f32, f32])
    x, y = block.args
    with pytest.raises(AssertionError, match="not built from its operands"):
        OpPrototypes().build(llvm.FSubOp, (x, y), (), lambda: llvm.FSubOp(y, x))


def test_number_keys_keep_signed_zeros_apart() -> None:
    assert number_key(0.0) != number_key(-0.0)
    assert number_key(True) == number_key(1) == 1
    assert number_key(2.5) == (2.5).hex()
