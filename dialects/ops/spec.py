"""What one elementwise op declaration says, and the builder its decomposition is written against.

An ``Elementwise`` is the single definition of an op (``kiln.dialects.ops.table`` lists them all): its ALU kind
(``kernel.<name>``/``uop.<name>``), operands and dtype classes, meaning, numpy reference, its ``graph`` op and
``Tensor`` method if it has them, and per target either a ``Native`` rendering or nothing, in which case
``uop-decompose`` rewrites it with ``decompose`` (or a rule of its own). Every table that needs the op is derived
from the declaration; docs/internals.md ("Adding an elementwise op") has the recipe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:  # the declarations are read without xDSL (target descriptions on a cache hit)
    from xdsl.ir import SSAValue

FLOAT, INT, BOOL, INDEX = "float", "int", "bool", "index"
"""Dtype classes: an op says which of these it accepts. ``int`` covers signed and unsigned integers."""

@dataclass(frozen=True)
class Native:
    """The target computes the op itself. ``name`` is what the emitter writes for float operands: a ``<math.h>``
    function (C; ``f`` suffix added for f32), an LLVM intrinsic, a WGSL builtin, or a PTX instruction template
    (``{t}`` is the float type: ``cvt.rni.{t}.{t}``). Without a name the emitter has code for it (operators,
    integer wrapping, NaN-propagating helpers): semantics per signedness and width are code, not data.
    ``dtypes``: the only dtypes it is native for (PTX's ``ex2.approx.f32``); on others it is decomposed."""

    name: str | None = None
    dtypes: frozenset[str] | None = None


CODE = Native()
"""Native, written by the emitter's own code."""


class RuleBuilder(Protocol):
    """What a decomposition may call (``kiln.passes.uop_decompose.Builder`` implements it): each call emits ops
    before the op being rewritten, and an op the target lacks is decomposed in turn."""

    def alu(self, kind: str, *args: SSAValue) -> SSAValue:
        """ALU op ``kind`` (a ``where``'s condition first)."""
        ...

    def const(self, value: float | int, like_value: SSAValue) -> SSAValue:
        """A constant of ``like_value``'s type."""
        ...

    def where(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue: ...

    def poly(self, coefficients: tuple[float, ...] | list[float], x: SSAValue) -> SSAValue:
        """``c0 + c1*x + c2*x^2 + ...`` by Horner's rule."""
        ...

    def is_nan(self, x: SSAValue) -> SSAValue:
        """Whether x is nan, from its bits (GPU compilers may fold ``x != x``)."""
        ...

    def is_inf(self, x: SSAValue) -> SSAValue:
        """Whether x is ±inf, from its bits."""
        ...

    def double(self, x: SSAValue) -> bool:
        """Whether x is wider than f32 (series and thresholds differ for f64)."""
        ...


Rule = Callable[..., "SSAValue"]
"""A decomposition: ``rule(builder, *operands) -> result``."""

TensorKind = str
"""How a ``Tensor`` method applies the op (``kiln.jit.tensor``): "float" (ints promote as ``np.exp`` does),
"rounding" (ints are returned unchanged, as ``np.floor``), "predicate" (bool result; ints give False)."""


@dataclass(frozen=True)
class Elementwise:
    """One elementwise op, declared once."""

    name: str
    """The ALU kind: ``kernel.<name>``, ``uop.<name>``."""
    operands: tuple[str, ...]
    dtypes: frozenset[str]
    """Dtype classes the ALU op accepts."""
    summary: str
    numpy: Callable[..., np.ndarray] | None = None
    """The graph op's meaning on arrays of the compute dtype (f16/bf16 are computed in f32 and rounded once);
    None where the interpreter needs code of its own (numpy floor division with kiln's zero rule, shifts)."""
    graph: str | None = None
    """The ``graph`` op's name (``reciprocal`` for ``recip``); None: no graph op."""
    graph_summary: str | None = None
    """The graph op's meaning where it differs from the ALU op's (``idiv``: floor division, as numpy)."""
    graph_dtypes: frozenset[str] | None = None
    """The graph op's dtype classes (default: ``dtypes`` without index)."""
    graph_lowers_to_alu: bool = True
    """``convert-graph-to-kernel`` writes the graph op as this ALU op (False: code of its own, idiv/mod)."""
    tensor: TensorKind | None = None
    """The ``Tensor`` method of the same name as the graph op, if generated."""
    returns_bool: bool = False
    takes_condition: bool = False
    commutative: bool = False
    c: Native | None = None
    llvm: Native | None = None
    ptx: Native | None = None
    wgsl: Native | None = None
    decompose: Rule | None = None
    """The decomposition in terms of other ops, for targets without a native rendering; None: the op is native
    everywhere it is used, or ``uop-decompose`` has a dtype-specific rule (exp2/log2 bit manipulation)."""

    @property
    def arity(self) -> int:
        return len(self.operands)

    def rendering(self, target: str) -> Native | None:
        """The native rendering on emitter ``target`` ("c" for cpu-c, "llvm" for cpu-llvm, "ptx" for cuda, "wgsl"
        for webgpu), or None (decomposed)."""
        return getattr(self, target)

    @property
    def graph_classes(self) -> frozenset[str]:
        return self.graph_dtypes if self.graph_dtypes is not None else self.dtypes - {INDEX}


__all__ = ["BOOL", "CODE", "Elementwise", "FLOAT", "INDEX", "INT", "Native", "Rule", "RuleBuilder"]
