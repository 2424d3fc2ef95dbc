"""Optimization ops (tinygrad's OptOps) and their text form.

An ``Opt`` is one rewrite of a kernel's iteration space: ``op:axis:arg`` (``upcast:0:4``), or just ``nolocals``.
The same text is what a kernel's ``opts`` attribute records and what ``kernel-optimize{opts="..."}`` takes
(comma-separated), so a recorded list replays as it is. Axis numbers are explained in ``space.py`` and
docs/optimizer.md: each opt's axis refers to the kernel as the opts before it left it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.utils.str_enum import StrEnum

from kiln.support.errors import KilnError


class OptOp(StrEnum):
    UPCAST = "upcast"  # register tile (vector code); on a reduce axis: that many partial accumulators
    UNROLL = "unroll"  # unroll a reduce loop into one accumulator
    LOCAL = "local"  # GPU: a workgroup dimension
    GROUP = "group"  # GPU: split a reduce over workgroup threads, strided (coalesced)
    GROUPTOP = "grouptop"  # GPU: the same, a contiguous chunk per thread
    THREAD = "thread"  # CPU: split an output axis into chunks for the cores
    PADTO = "padto"  # round an axis up to a multiple, masking the extra points
    SWAP = "swap"  # exchange two global axes (changes loop order / grid mapping)
    NOLOCALS = "nolocals"  # GPU: leave the workgroup shape to the launch mapping
    TC = "tc"  # GPU: compute a matmul tile with tensor cores


class OptError(KilnError):
    """An opt cannot be applied to this kernel; the message says why."""


@dataclass(frozen=True)
class Opt:
    op: OptOp
    axis: int | None = None
    arg: int | None = None

    def __str__(self) -> str:
        if self.axis is None:
            return self.op.value
        return f"{self.op.value}:{self.axis}:{self.arg}"

    @staticmethod
    def parse(text: str) -> Opt:
        """``upcast:0:4`` or ``nolocals``; raises OptError with what is wrong."""
        name, *numbers = text.strip().split(":")
        try:
            op = OptOp(name)
        except ValueError:
            raise OptError(f"unknown opt '{name}' in '{text}' (expected one of {', '.join(o.value for o in OptOp)})") from None
        if op == OptOp.NOLOCALS:
            if numbers:
                raise OptError(f"'{text}': nolocals takes no axis or argument")
            return Opt(op)
        if len(numbers) != 2 or not all(_is_int(n) for n in numbers):
            raise OptError(f"'{text}': expected {op.value}:<axis>:<amount> with two integers")
        axis, arg = (int(n) for n in numbers)
        if axis < 0 or arg < 0:
            raise OptError(f"'{text}': axis and amount must not be negative")
        return Opt(op, axis, arg)


def _is_int(s: str) -> bool:
    return s.isdigit() or (s.startswith("-") and s[1:].isdigit())


def parse_opts(text: str) -> list[Opt]:
    """A comma-separated list of opts (empty text: no opts)."""
    return [Opt.parse(part) for part in text.split(",") if part.strip()]


def format_opts(opts: list[Opt]) -> str:
    return ",".join(map(str, opts))
