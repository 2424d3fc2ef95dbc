"""uop scalar types -> PTX register classes and instruction types.

Every kiln dtype has one register form (docs/dialects/ptx.md): i1 is a ``.pred``; integers of 8 to 32 bits
are ``.b32`` registers holding the value sign- or zero-extended to 32 bits (so 32-bit instructions compute on
them, and a result that may leave the type's range is narrowed again with ``cvt``); 64-bit integers are
``.b64``; f16 and bf16 are their bits in ``.b16``; f32 and f64 are ``.f32``/``.f64``. ``index`` is 32 bits on
the cuda target (its description says ``index_bits=32``) and signed.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from kiln.dialects.types import DTYPES, bitwidth, dtype_name, is_bool, is_float, is_unsigned

INDEX_BITS = 32
HALVES = frozenset({DTYPES["f16"], DTYPES["bf16"]})
"""Types PTX has few instructions for: kiln computes most of their ops in f32."""


def value_bits(t: Attribute) -> int:
    """The bits of a uop scalar type on this target (index: 32)."""
    return INDEX_BITS if isinstance(t, IndexType) else bitwidth(t)


def is_signed(t: Attribute) -> bool:
    """A signed integer or index (never a bool or float)."""
    return isinstance(t, IndexType) or (not is_float(t) and not is_bool(t) and not is_unsigned(t))


def is_subword(t: Attribute) -> bool:
    """An 8- or 16-bit integer, kept extended to 32 bits in a ``.b32`` register."""
    return not is_float(t) and not is_bool(t) and value_bits(t) < 32


def reg_kind(t: Attribute) -> str:
    """The register class of a uop scalar type."""
    if is_bool(t):
        return "pred"
    if is_float(t):
        return "b16" if t in HALVES else dtype_name(t)
    return "b64" if value_bits(t) == 64 else "b32"


def int_type(t: Attribute) -> str:
    """The PTX type integer instructions use for a uop integer or index: s32/u32/s64/u64 (8- and 16-bit values
    compute as 32-bit)."""
    return f"{'s' if is_signed(t) else 'u'}{64 if value_bits(t) == 64 else 32}"


def exact_int_type(t: Attribute) -> str:
    """The PTX type of exactly the integer's width (``s8``, ``u16``, ``s32``...): for cvt and memory."""
    return f"{'s' if is_signed(t) else 'u'}{value_bits(t)}"


def float_type(t: Attribute) -> str:
    """The PTX type of a float: f16, bf16, f32, f64."""
    return dtype_name(t)


def memory_type(t: Attribute) -> str:
    """The type of a uop element in memory: a bool is a byte, a half its 16 bits, an integer itself."""
    if is_bool(t):
        return "u8"
    if is_float(t):
        return "b16" if t in HALVES else dtype_name(t)
    return exact_int_type(t)


def const_type(t: Attribute) -> Attribute:
    """The builtin type a ``ptx.const`` of a uop scalar type holds: i1, i32 (every integer of 32 bits or
    less, and index), i64, or the float type."""
    if is_bool(t) or is_float(t):
        return t
    return DTYPES["i64"] if value_bits(t) == 64 else DTYPES["i32"]
