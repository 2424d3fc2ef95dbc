"""Building ptx-dialect ops into an entry: instructions whose result class follows from their opcode,
constants hoisted to the top of the entry (once per value), fresh label names.

Constants and parameter loads go to the entry's prologue, before any branch, so the register they define holds
its value everywhere after it; everything else is appended where the conversion is.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, LocationAttr
from xdsl.ir import Attribute, Operation, SSAValue

from kiln.dialects import ptx
from kiln.dialects.types import is_bool, is_float

_NAME_PART = re.compile(r"[A-Za-z0-9_]+$")


def name_part(hint: str | None) -> str:
    """``_<hint>`` when a value's name can be part of a PTX identifier, else nothing."""
    return f"_{hint}" if hint and _NAME_PART.match(hint) else ""


class PTXBuilder:
    """Appends ptx ops to an entry's block; every op gets ``location``, the location of the uop op being
    converted."""

    def __init__(self, entry: ptx.EntryOp, location: LocationAttr):
        self.block = entry.body.block
        self.location = location
        self._prologue_end: Operation | None = None
        self._constants: dict[tuple[Attribute, int | bytes], SSAValue] = {}
        self._labels = 0

    def append(self, op: Operation) -> Operation:
        op.location = self.location
        self.block.add_op(op)
        return op

    def prologue(self, op: Operation) -> SSAValue:
        """Insert ``op`` (one result) at the end of the prologue; its result."""
        op.location = self.location
        if self._prologue_end is not None:
            self.block.insert_op_after(op, self._prologue_end)
        elif self.block.first_op is not None:
            self.block.insert_op_before(op, self.block.first_op)
        else:
            self.block.add_op(op)
        self._prologue_end = op
        return op.results[0]

    # ---- values

    def inst(self, mnemonic: str, suffix: str, *operands: SSAValue) -> SSAValue:
        """``ptx.<mnemonic> <suffix> operands``: a table instruction; its result register."""
        cls = ptx.INSTRUCTION_OPS[mnemonic]
        return self.append(cls(suffix, operands, ptx.instruction_result(mnemonic, suffix))).results[0]

    def cvt(self, suffix: str, x: SSAValue, kind: str | None = None) -> SSAValue:
        """``cvt.<suffix>`` of ``x``; the result is in the destination type's register class unless ``kind``
        says otherwise (an 8- or 16-bit integer may go to a .b16 register)."""
        _, (dst, _) = ptx.split_opcode(suffix, 2)
        result = ptx.REG[kind or ptx.register_kind(dst)]
        return self.append(ptx.CvtOp(suffix, [x], result)).results[0]

    def mov(self, x: SSAValue, kind: str) -> SSAValue:
        """A copy of ``x`` in a new register of class ``kind`` (same width: reinterprets the bits)."""
        return self.append(ptx.MovOp(x, ptx.REG[kind])).results[0]

    def const(self, number: int | float | bool, t: Attribute) -> SSAValue:
        """A register holding ``number`` as the builtin type ``t`` (i1, i32, i64, f16, bf16, f32, f64),
        defined once per entry in the prologue."""
        key = (t, _key(number, t))
        if key not in self._constants:
            if is_float(t):
                attr: Attribute = FloatAttr(float(number), t)  # type: ignore[arg-type]
            elif is_bool(t):
                attr = IntegerAttr(int(bool(number)), 1)
            else:
                assert isinstance(t, IntegerType)
                attr = IntegerAttr(t.normalized_value(int(number), truncate_bits=True), t)  # type: ignore[arg-type]
            self._constants[key] = self.prologue(ptx.ConstOp(attr))  # type: ignore[arg-type]
        return self._constants[key]

    def reg(self, kind: str) -> SSAValue:
        """A new ``ptx.reg`` register, written by ``assign``."""
        return self.append(ptx.RegOp(kind)).results[0]

    def assign(self, dst: SSAValue, src: SSAValue) -> None:
        self.append(ptx.AssignOp(dst, src))

    # ---- memory and control

    def ld(self, access: str, address: SSAValue, kinds: Sequence[str], guard: SSAValue | None = None) -> list[SSAValue]:
        return list(self.append(ptx.LdOp(access, address, [ptx.REG[k] for k in kinds], guard)).results)

    def st(self, access: str, address: SSAValue, values: Sequence[SSAValue], guard: SSAValue | None = None) -> None:
        self.append(ptx.StOp(access, address, values, guard))

    def fresh_labels(self, stems: Sequence[str], hint: str | None = None) -> list[str]:
        """Label names not used before in this entry, one per stem, with one number: ``<stem><n>[_<hint>]``."""
        self._labels += 1
        return [f"{stem}{self._labels}{name_part(hint)}" for stem in stems]

    def label(self, name: str) -> None:
        self.append(ptx.LabelOp(name))

    def bra(self, target: str, guard: SSAValue | None = None, negated: bool = False) -> None:
        self.append(ptx.BraOp(target, guard, negated))


def _key(number: int | float | bool, t: Attribute) -> int | bytes:
    """What makes two constants of type ``t`` the same register: a float's bits (so -0.0 and 0.0, and the
    NaNs, stay apart; 0 and 0.0 do not), an integer's value."""
    return struct.pack("<d", float(number)) if is_float(t) else int(number)
