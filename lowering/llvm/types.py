"""uop value types -> xDSL llvm-dialect types.

LLVM integers are signless: ``ui32`` and ``i32`` are both ``i32`` (the ops choose signed or unsigned
instructions), ``index`` is ``i64`` (the CPU calling convention), pointers are opaque ``!llvm.ptr``. In memory a
bool is one byte (``kiln.dialects.types.itemsize``), so ``i1`` elements are loaded and stored as ``i8``.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import IndexType, IntegerType, VectorType, i8, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute

from kiln.dialects.alu import element_type, like
from kiln.dialects.types import is_bool, is_float
from kiln.dialects.uop import PtrType


@functools.lru_cache(maxsize=256)
def llvm_type(t: Attribute) -> Attribute:
    """The llvm-dialect type of a uop value or parameter type (lane by lane for ``vector<NxT>``); each built once
    (building a type verifies it: ~20 us for a vector type, asked for by every op of a register tile)."""
    if isinstance(t, PtrType):
        return LLVMPointerType()
    if isinstance(t, VectorType):
        return VectorType(llvm_type(t.get_element_type()), t.get_shape())
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, IntegerType):
        return IntegerType(t.width.data)
    if is_float(t):
        return t
    raise ValueError(f"no LLVM type for {t}")


@functools.lru_cache(maxsize=256)
def memory_type(t: Attribute) -> Attribute:
    """The llvm-dialect type a uop value of type ``t`` has in memory: bools are bytes."""
    return like(t, i8) if is_bool(element_type(t)) else llvm_type(t)
