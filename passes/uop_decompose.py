"""``uop-decompose{target=...}``: rewrite the ALU ops a target lacks into ops it has.

What a target has is data: ``TargetDescription.is_native(op, dtype)`` (``kiln.capabilities.description``). Every
ALU op that is not native on its operands' dtype is replaced by the ops of its rule below; a rule may use any
op, and ops it emits that the target lacks are decomposed in turn (a rule never needs itself on the same dtype,
directly or not). ALU ops on a float dtype the target does not compute with are computed in f32, with casts
around them (the storage dtype stays); so are exp, exp2, log and log2 on f16 and bf16 that need a rule (one
rounding at the end, as numpy's).

The rules, with their accuracy in f32 (measured against correctly rounded references on a dense grid, with
exp2/log2 correctly rounded; see test/python/test_uop_decompose.py):

- ``rsqrt(x) = recip(sqrt(x))``, ``recip(x) = 1 / x``, ``fma(a, b, c) = a * b + c`` (two roundings).
- On targets with ``reciprocal_divisors`` (the CPUs), a float ``a / d`` whose ``d`` is invariant in the loop
  around it becomes ``a * recip(d)``, ``recip(d)`` emitted once, right after ``d`` (<= 1.5 ulp, 1 more than
  the division, while 1/d is normal).
- ``exp(x) = exp2(t) * (1 + r * ln2)`` with ``t = x * log2(e)`` and ``r`` its rounding error, recovered with
  fma (< 1 ulp; the plain ``exp2(x * log2(e))`` is off by up to 64 ulp for large |x|). Where f32 exp2 is
  software too, f32 exp is software itself, cheaper (below).
- ``log(x) = log2(x) * ln2``.
- ``tanh(x)``: ``x + x^3 * P(x^2)`` (Taylor; 9 terms, f64 20) for |x| < 0.55, else ``±(1 - 2 / (exp(2|x|) + 1))``,
  which cannot overflow (<= 1.4 ulp; f64 ~2 ulp); nan passes through by its bits.
- ``erf(x)``: ``x + x * P(x^2)`` (Taylor, 12 terms) for |x| < 1, else ``±(1 - erfc(|x|))`` with the Numerical
  Recipes Chebyshev fit of erfc (relative error 1.2e-7) (<= 1.4 ulp). f64: Taylor (30 terms) for |x| < 2, else
  erfc by its continued fraction (depth 40) (~3 ulp).
- ``pow(x, y) = exp2(y * log2(|x|))``, log2 by the software rule below (f32, f64), with numpy's special cases: ``y == 0``, ``x == 1`` and ``(-1) ** ±inf``
  give 1; a finite negative x gives nan unless y is an integer (±inf counts as even), and the result is negated
  for odd y; x = ±0 gives 0 or inf by the sign of y, negative for -0.0 and an odd y. Relative error grows with ``|y * log2(x)|`` (about ``|log2(result)|`` units of 2^-24).
- ``sign``: selects on ``0 < x`` and ``x < 0`` (nan stays nan, ±0 gives 0.0 as numpy's).
- ``max``/``min``: selects, propagating nan. ``floor``/``ceil``: ``trunc`` and a correction.
- ``shl``/``shr`` (integers): multiply or divide by ``2^y`` built from the bits of y, with kiln's results for
  shift amounts outside ``[0, width)`` (0, or -1 for a negative signed ``shr``).
- ``idiv``/``mod`` by a constant power of two: shifts and masks with C semantics.

In software from float and integer arithmetic and bit operations: exp2 and log2 on f32 (the CPU targets in
loops without inner loops, libm elsewhere and on f64, see ``LIBM_F64_ONLY`` and ``in_innermost_loops``) and f64
(PTX's ``ex2``/``lg2`` are f32 instructions), sin and cos on f64. exp2 and log2 have no branches (selects only) and no float -> int
conversions (C spells those as saturating calls), so loops of them vectorize; their parameters per dtype are
in ``LAYOUTS``. No rule here uses fma, so nothing depends on whether the target fuses: Horner steps are a mul
and an add, which LLVM (``contract``) and gcc (``-ffp-contract=fast``) fuse where the CPU has FMA (an explicit
fma would be a libm call on a CPU without it). Accuracy in ulps of the dtype, subnormal results included,
against numpy in f64 (f32: the machine code of cpu-llvm and of gcc) or long double (f64: the numpy model of
the ops):

- ``exp2(x) = 2^f * 2^k``: x clamped to ±200 (f64 ±1100; nan stays), ``k`` x rounded to an integer by adding
  and subtracting ``1.5 * 2^p`` (p mantissa bits; LLVM keeps the pair, it folds ``(x + c) - c`` only with
  ``nsz``), ``f = x - k`` (exact) in [-1/2, 1/2], 2^f by its Taylor series (8 terms, f64 14), 2^k built in the
  exponent bits of ``k + 1.5 * 2^p`` as two normal factors 2^floor(k/2) and 2^(k - floor(k/2)), so that a
  subnormal result is rounded once and overflow gives inf. f32 <= 0.9 ulp, f64 <= 1.1; integers give exact
  powers of two.
- ``log2(x) = e + log2(m)``, e and m in [sqrt(1/2), sqrt(2)) from the bits (a subnormal x is scaled by
  2^(p + 2) first); ``log(m) = f - f^2/2 + s (f^2/2 + R(s^2))`` with ``f = m - 1``, ``s = f / (2 + f)`` and R
  the series of atanh (4 terms, f64 11); that becomes log2 in two parts, the leading one with 12 significant
  bits (f64 21) so that its product with a 12-bit (32-bit) 1/ln2 is exact, and is added to e with the rounding
  error of the sum kept (FreeBSD's e_log2.c scheme). ±0 gives -inf, a negative x or nan gives nan, inf gives
  inf. f32 <= 0.8 ulp, f64 <= 0.8; powers of two exact.
- f32 ``exp(x) = e^r * 2^k``: x clamped to ±200 ln2, ``k = round(x * log2(e))`` as above, ``r = x - k ln2``
  with ln2 in two parts, the first of 16 bits so that k times it is exact (Cody-Waite), e^r by a minimax
  polynomial of degree 6 on |r| <= ln2/2 (``EXP_MINIMAX``), times 2^k as for exp2: <= 0.84 ulp (cpu-llvm and gcc
  machine code). About 20% fewer instructions than exp2 and the correction (softmax over 4096x4096 on one
  thread: 22.5 -> 19.5 ms).
- ``exp_nonpositive`` (softmax's ``exp(x - max)``, written by ``graph-decompose``: an argument <= 0 or nan) is
  exp's rule without the clamp from above, the same bits for every such argument (the clamp from below keeps
  -inf -> 0 and the subnormal results; nan passes through the arithmetic). The fact travels as the op itself,
  graph to uop, so no pass has to keep an attribute; where exp is native or libm it is rendered as exp.
- The two powers of two of exp2 and exp come from the bits of ``k + 1.5 * 2^p`` that rounded k, with integer
  ops only (halve, subtract, add the bias, shift): 8 instructions per scaling instead of 11 (softmax's row
  over cached data: 0.78 -> 0.66 ns per element together with the shorter polynomial).
- Through log2, f32 ``log`` <= 1.4 ulp (exp through a software exp2 and the correction was <= 1.3).
- ``sin``/``cos``: ``x = k pi/2 + y`` by Cody-Waite reduction with pi/2 in three parts, the first two of 33 bits
  so that k times each is exact while |k| < 2^20 (|x| < 1.6e6), then Taylor series of sin and cos (to y^17
  and y^16) on |y| <= pi/4, chosen and negated by k mod 4 (<= 2.1 ulp on |x| <= 1e5, <= 1.1 ulp at the doubles
  nearest multiples of pi/2 up to 1.6e6). Beyond |k| = 2^20 the result is that of an argument within half an
  ulp of x (absolute error 1e-9 at 1e7, 1e-4 at 1e12); from |x| = 2^52, where that is noise, and for ±inf and
  nan, the result is nan.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, getcontext
from fractions import Fraction

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    UnitAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from kiln.dialects import uop as U
from kiln.dialects.alu import ALU_OPS, AluOp, element_type, lanes, like
from kiln.dialects.ops.rules import erfc_chebyshev, erfc_fraction
from kiln.dialects.ops.table import OPS as ELEMENTWISE
from kiln.dialects.types import bitwidth, dtype_name, is_float, is_unsigned, to_numpy
from kiln.capabilities.description import LIBM_F64_ONLY, LIBM_ON_F64, LOOP_VECTORIZE, TargetDescription, target_for_pass
from kiln.support.diagnostics import error_at
from kiln.support.statistics import Statistic, removed

getcontext().prec = 50
LOG2E = Fraction(Decimal("1.4426950408889634073599246810018921374266459541530"))
LN2 = Fraction(Decimal("0.69314718055994530941723212145817656807550013436026"))
PI = Fraction(Decimal("3.1415926535897932384626433832795028841971693993751"))
TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

TANH_SMALL = 0.55
ERF_SMALL, ERF_SMALL_F64 = 1.0, 2.0


def _series_terms(value: SSAValue, single: int, double: int) -> int:
    """Terms of a series: enough for f32 (and narrower) or for f64."""
    return double if bitwidth(element_type(value.type)) > 32 else single


@functools.cache
def tanh_taylor(terms: int) -> tuple[float, ...]:
    """Coefficients of x^3, x^5, ... in the Taylor series of tanh: 2^2n (2^2n - 1) B_2n / (2n)!."""
    bernoulli = [Fraction(1)]
    for m in range(1, 2 * terms + 1):
        bernoulli.append(-sum(math.comb(m + 1, k) * bernoulli[k] for k in range(m)) / (m + 1))
    return tuple(
        float(2 ** (2 * n) * (2 ** (2 * n) - 1) * bernoulli[2 * n] / math.factorial(2 * n)) for n in range(2, terms + 1)
    )


def erf_taylor(terms: int) -> tuple[float, ...]:
    """Coefficients of x, x^3, ... in the Taylor series of erf."""
    return tuple((-1) ** n * TWO_OVER_SQRT_PI / (math.factorial(n) * (2 * n + 1)) for n in range(terms))


def compute_dtypes(target: TargetDescription) -> frozenset[str]:
    """The dtypes ``target`` computes with; ALU ops on other float dtypes are computed in f32.

    The description has a single list for storage and arithmetic, so this is ``target.dtypes`` until it says
    which dtypes are storage-only (see the report on ``TargetDescription``)."""
    return target.dtypes


@dataclass(frozen=True)
class UopDecompose(ModulePass):
    """Rewrite ALU ops the target lacks (per its TargetDescription) into ops it has."""

    name = "uop-decompose"

    target: str = "cpu-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_for_pass(self.name, self.target)
        for kernel in [k for k in op.ops if isinstance(k, U.UopKernelOp)]:
            before = [o.name for o in kernel.walk() if isinstance(o, AluOp)]
            decompose_kernel(kernel, target, compute_dtypes(target))
            OPS_DECOMPOSED.bump(removed(before, [o.name for o in kernel.walk() if isinstance(o, AluOp)]))


OPS_DECOMPOSED = Statistic("ops-decomposed", "Number of ALU ops the target cannot run rewritten into ops it can")


def decompose_kernel(kernel: U.UopKernelOp, target: TargetDescription, computable: frozenset[str]) -> None:
    """Rewrite every ALU op of ``kernel`` that ``target`` cannot run; ``computable``: dtypes it computes in.

    Two walks, each over the ops present when it starts (new ops are already legal: a ``Builder`` decomposes what
    it emits): divisions by loop-invariant divisors first, so their reciprocals are decomposed by the second."""
    block = kernel.body.block
    if target.reciprocal_divisors and (divisions := loop_invariant_divisions(block)):
        walk_once(DivideByReciprocal(target, divisions), kernel)
    innermost: set[Operation] = set()
    if target.cpu_cores is not None:
        innermost, tiled = in_innermost_loops(block, target.vector_width("f32"))
        if tiled and not target.vectorizes_loops:
            innermost = set()
    walk_once(DecomposeAlu(target, computable, frozenset(innermost)), kernel)


def walk_once(pattern: RewritePattern, kernel: U.UopKernelOp) -> None:
    """Apply ``pattern`` to each op of ``kernel`` once, in program order; ops it creates are not revisited and
    nothing else is erased (no dead-code elimination: that is ``dce``'s job)."""
    PatternRewriteWalker(pattern, apply_recursively=False).rewrite_region(kernel.body)


@dataclass
class DecomposeAlu(RewritePattern):
    """An ALU op the target cannot run becomes the ops of its rule; one on a float dtype the target does not
    compute with is computed in f32. In ``innermost`` loops of CPU kernels, exp, exp2, log and log2 below f64
    are computed in software (``in_innermost_loops``)."""

    target: TargetDescription
    computable: frozenset[str]
    innermost: frozenset[Operation]

    @functools.cached_property
    def software(self) -> TargetDescription:
        """The target with libm's f64-only functions counted as missing below f64."""
        return dataclasses.replace(self.target, native_dtypes={**self.target.native_dtypes, **LIBM_ON_F64})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        kernel = op.parent_op()
        if isinstance(op, U.ReduceLanesOp) and isinstance(kernel, U.UopKernelOp):
            self._reduce_lanes(op, rewriter)
        if not isinstance(op, AluOp) or not isinstance(kernel, U.UopKernelOp):
            return
        scalar = element_type(op.value_operands[0].type)
        widen = is_float(scalar) and dtype_name(scalar) not in self.computable
        op_target = self.target
        if op.alu_kind in LIBM_F64_ONLY and op in self.innermost and dtype_name(scalar) != "f64":
            op_target = self.software
            if not self.target.vectorizes_loops:
                kernel.attributes[LOOP_VECTORIZE] = UnitAttr()
        if not widen and op_target.is_native(op.alu_kind, dtype_name(scalar)):
            return
        b = Builder(rewriter, op, op_target)
        if widen:
            result = b.in_f32(op.alu_kind, list(op.operands), op.results[0].type)
        else:
            result = b.decompose(op.alu_kind, list(op.operands))
        rewriter.replace(op, [], [result])

    def _reduce_lanes(self, op: U.ReduceLanesOp, rewriter: PatternRewriter) -> None:
        """Where the target does not take ``op`` whole (``TargetDescription.reduces_lanes``, on a dtype its kind is
        native for), its lanes extracted and combined in the op's order: the upper half onto the lower half."""
        kind, scalar = op.reduce_kind, element_type(op.vector.type)
        widen = is_float(scalar) and dtype_name(scalar) not in self.computable
        if self.target.reduces_lanes and not widen and self.target.is_native(kind, dtype_name(scalar)):
            return
        b = Builder(rewriter, op, self.target)
        values = [b.emit(U.ExtractOp(op.vector, k)) for k in range(lanes(op.vector.type))]
        combine = (lambda x, y: b.in_f32(kind, [x, y], scalar)) if widen else (lambda x, y: b.alu(kind, x, y))
        rewriter.replace(op, [], [U.pairwise_lanes(values, combine)])


def in_innermost_loops(block: Block, lanes: int) -> tuple[set[Operation], bool]:
    """The ops of loops that hold no other loop and carry at most ``lanes`` accumulator lanes (one vector's worth,
    not a register tile). On CPU targets exp, exp2, log and log2 there are computed in software
    (``LIBM_F64_ONLY``; on cpu-c, whose compiler runs without its loop vectorizer, the kernel is marked
    ``LOOP_VECTORIZE``); elsewhere they stay libm calls: after a matmul's k loop gcc's loop vectorizer would turn
    that loop into gathers, gcc's SLP over a register tile's copies of the software code compiles for 35 s (exp
    of a 256x256 matmul: 13 ms either way, 2 s to compile with ``expf``), and LLVM's for 4 s (9 ms against 0.23 ms
    without the exp); inside a register tile's k loop (attention's fused softmax feeding its second matmul) the
    loop vectorizer took cpu-c's compile from 0.17 s to 6.7 s. Also says whether some loop is such a tile: as
    ``LOOP_VECTORIZE`` holds for a whole function, cpu-c then keeps libm in all of the kernel."""
    found: set[Operation] = set()
    tiled = False
    open_loops: list[tuple[list[Operation], list[int]]] = []  # (ops, [inner loops, accumulator lanes])
    for op in block.ops:
        if isinstance(op, U.RangeOp):
            if open_loops:
                open_loops[-1][1][0] += 1
            open_loops.append(([], [0, 0]))
        elif isinstance(op, U.EndOp):
            ops, (inner, accumulated) = open_loops.pop()
            tiled |= accumulated > lanes
            if not inner and accumulated <= lanes:
                found.update(ops)
        elif open_loops:
            open_loops[-1][0].append(op)
            if isinstance(op, U.AccSetOp):
                t = op.operands[1].type
                open_loops[-1][1][1] += t.get_shape()[0] if isinstance(t, VectorType) else 1
    return found, tiled


def loop_invariant_divisions(block: Block) -> frozenset[Operation]:
    """The float divisions of ``block`` inside a loop whose divisor is defined before the innermost loop around
    the division."""
    defined: dict[SSAValue, int] = {}
    loops: list[int] = []
    divisions: set[Operation] = set()
    for i, op in enumerate(block.ops):
        defined.update((r, i) for r in op.results)
        if isinstance(op, U.RangeOp):
            loops.append(i)
        elif isinstance(op, U.EndOp):
            loops.pop()
        elif isinstance(op, U.ALU["div"]) and is_float(element_type(op.results[0].type)) and loops:
            if defined.get(op.operands[1], -1) < loops[-1]:
                divisions.add(op)
    return frozenset(divisions)


@dataclass
class DivideByReciprocal(RewritePattern):
    """``a / d`` (one of ``divisions``) becomes ``a * r`` with ``r = 1 / d`` emitted right after ``d``, once per
    divisor: at most 1 ulp more (see ``TargetDescription.reciprocal_divisors``)."""

    target: TargetDescription
    divisions: frozenset[Operation]
    reciprocals: dict[SSAValue, SSAValue] = dataclasses.field(default_factory=dict)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op not in self.divisions:
            return
        a, d = op.operands
        if d not in self.reciprocals:
            at = d.owner.next_op if isinstance(d.owner, Operation) else d.owner.first_op
            self.reciprocals[d] = Builder(rewriter, at, self.target).alu("recip", d)  # type: ignore[arg-type]
        rewriter.replace(op, U.ALU["mul"](a, self.reciprocals[d]))


class Builder:
    """Emits ops before ``at``; an ALU op the target lacks is decomposed by its rule as it is emitted."""

    def __init__(self, rewriter: PatternRewriter, at: Operation, target: TargetDescription):
        self.rewriter, self.at, self.target = rewriter, at, target
        self._active: list[tuple[str, Attribute]] = []

    def emit(self, op: Operation) -> SSAValue:
        op.location = self.at.location  # the line of the op being decomposed
        self.rewriter.insert(op, InsertPoint.before(self.at))
        return op.results[0]

    def const(self, value: float | int, like_value: SSAValue) -> SSAValue:
        """A constant (a splat for vectors) of ``like_value``'s type, rounded to its dtype."""
        t = like_value.type
        scalar = element_type(t)
        number = float(to_numpy(scalar).type(value)) if is_float(scalar) else int(value)
        return self.emit(U.ConstOp.from_number(number, t))

    def alu(self, kind: str, *args: SSAValue) -> SSAValue:
        """``kind`` on ``args`` (a where's condition first, so the last operand has the op's dtype)."""
        if self.target.is_native(kind, dtype_name(element_type(args[-1].type))):
            return self.emit(U.ALU[kind](*args))
        return self.decompose(kind, list(args))

    def decompose(self, kind: str, args: list[SSAValue]) -> SSAValue:
        t = args[-1].type
        rule = rule_for(kind, element_type(t))
        if rule is None or (kind, t) in self._active:
            raise error_at(
                self.at, f"uop.{kind} on {t}: target {self.target.name} does not have it and it has no decomposition"
            )
        self._active.append((kind, t))
        try:
            return rule(self, *args)
        finally:
            self._active.pop()

    def in_f32(self, kind: str, args: list[SSAValue], result_type: Attribute) -> SSAValue:
        """``kind`` computed in f32: float operands widened, a float result narrowed back."""
        wide = [a if element_type(a.type) == i1 else self.emit(U.CastOp(a, like(a.type, Float32Type()))) for a in args]
        result = self.alu(kind, *wide)
        return result if result.type == result_type else self.emit(U.CastOp(result, result_type))

    # helpers for the rules

    def cast(self, x: SSAValue, scalar: Attribute) -> SSAValue:
        return self.emit(U.CastOp(x, like(x.type, scalar)))

    def bitcast(self, x: SSAValue, scalar: Attribute) -> SSAValue:
        return self.emit(U.BitcastOp(x, like(x.type, scalar)))

    def where(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.alu("where", cond, a, b)

    def poly(self, coefficients: tuple[float, ...], x: SSAValue) -> SSAValue:
        """``c0 + c1*x + c2*x^2 + ...`` by Horner's rule."""
        acc = self.const(coefficients[-1], x)
        for c in reversed(coefficients[:-1]):
            acc = self.alu("add", self.alu("mul", acc, x), self.const(c, x))
        return acc

    def split_constant(self, exact: Fraction, like_value: SSAValue) -> tuple[SSAValue, SSAValue]:
        """``exact`` as hi + lo, both of the value's dtype (hi the nearest, lo the rest)."""
        dtype = to_numpy(element_type(like_value.type))
        hi = dtype.type(float(exact))
        return self.const(float(hi), like_value), self.const(float(exact - Fraction(float(hi))), like_value)

    def _magnitude_bits(self, x: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(the bits of |x| as an integer, the bits of +inf): above inf is nan, equal is ±inf."""
        scalar = element_type(x.type)
        width = bitwidth(scalar)
        bits = self.bitcast(x, IntegerType(width))
        magnitude = self.alu("and", bits, self.const((1 << (width - 1)) - 1, bits))
        return magnitude, self.const(INF_BITS[dtype_name(scalar)], bits)

    def is_nan(self, x: SSAValue) -> SSAValue:
        """Whether x is nan, from its bits: GPU compilers may assume ``x != x`` is false."""
        magnitude, inf = self._magnitude_bits(x)
        return self.alu("cmplt", inf, magnitude)

    def is_inf(self, x: SSAValue) -> SSAValue:
        """Whether x is ±inf, from its bits."""
        magnitude, inf = self._magnitude_bits(x)
        return self.alu("cmpeq", magnitude, inf)

    def double(self, x: SSAValue) -> bool:
        """Whether x is wider than f32: series and thresholds of the rules differ for f64."""
        return bitwidth(element_type(x.type)) > 32

    def sign_bit(self, x: SSAValue) -> SSAValue:
        """Whether x's sign bit is set (true for -0.0, which compares equal to 0.0), from its bits."""
        bits = self.bitcast(x, IntegerType(bitwidth(element_type(x.type))))
        return self.alu("cmplt", bits, self.const(0, bits))

    def copysign_of(self, magnitude: SSAValue, x: SSAValue) -> SSAValue:
        """``magnitude`` with the sign of ``x`` (negated where x < 0)."""
        return self.where(self.alu("cmplt", x, self.const(0, x)), self.alu("neg", magnitude), magnitude)


INF_BITS = {"f16": 0x7C00, "bf16": 0x7F80, "f32": 0x7F800000, "f64": 0x7FF0000000000000}
"""The bits of +inf per float dtype: a magnitude above them is a nan."""


def constant_of(value: SSAValue) -> int | float | None:
    """The number a ``uop.const`` (or splat) defines, or None."""
    op = value.owner
    if not isinstance(op, U.ConstOp):
        return None
    attr = op.value
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        return values[0] if len(set(values)) == 1 else None
    return attr.value.data  # type: ignore[union-attr]


def width_of(t: Attribute, target: TargetDescription) -> int:
    scalar = element_type(t)
    return target.index_bits if isinstance(scalar, IndexType) else bitwidth(scalar)


def _signed(t: Attribute) -> bool:
    return not is_unsigned(element_type(t))


# ---------------------------------------------------------------------------------------------
# the rules


def _rsqrt(b: Builder, x: SSAValue) -> SSAValue:
    return b.alu("recip", b.alu("sqrt", x))


def _recip(b: Builder, x: SSAValue) -> SSAValue:
    return b.alu("div", b.const(1, x), x)


def _fma(b: Builder, x: SSAValue, y: SSAValue, z: SSAValue) -> SSAValue:
    return b.alu("add", b.alu("mul", x, y), z)


def _exp(b: Builder, x: SSAValue, upper: bool = True) -> SSAValue:
    if layout_of(x).float_type == F32 and not b.target.is_native("exp2", "f32"):
        return _exp_reduced(b, x, upper)
    hi, lo = b.split_constant(LOG2E, x)
    t = b.alu("mul", x, hi)
    err = b.alu("fma", x, hi, b.alu("neg", t))  # x*hi - t exactly
    err = b.alu("fma", x, lo, err)
    e = b.alu("exp2", t)
    corrected = b.alu("fma", e, b.alu("mul", err, b.const(float(LN2), x)), e)
    # nan where t = ±inf or nan (inf - inf left no error term) or e overflowed (inf times a negative correction)
    return b.where(b.alu("cmpne", corrected, corrected), e, corrected)


def _log(b: Builder, x: SSAValue) -> SSAValue:
    return b.alu("mul", b.alu("log2", x), b.const(float(LN2), x))


def _odd_series(b: Builder, x: SSAValue, rest: SSAValue) -> SSAValue:
    """``x + x * rest`` for an odd series ``x * (1 + rest)``: adding x last keeps the rounding error of the
    series below an ulp of the result."""
    return b.alu("add", x, b.alu("mul", x, rest))


def _tanh(b: Builder, x: SSAValue) -> SSAValue:
    a = b.alu("abs", x)
    one = b.const(1, x)
    e = b.alu("exp", b.alu("mul", a, b.const(2, x)))
    large = b.copysign_of(b.alu("sub", one, b.alu("div", b.const(2, x), b.alu("add", e, one))), x)
    x2 = b.alu("mul", x, x)
    series = tanh_taylor(_series_terms(x, 9, 20))
    small = _odd_series(b, x, b.alu("mul", x2, b.poly(series, x2)))
    result = b.where(b.alu("cmplt", a, b.const(TANH_SMALL, x)), small, large)
    return b.where(b.is_nan(x), x, result)  # exp(nan) need not be nan on a GPU


def _erf(b: Builder, x: SSAValue) -> SSAValue:
    z = b.alu("abs", x)
    one = b.const(1, x)
    double = bitwidth(element_type(x.type)) > 32
    x2 = b.alu("mul", x, x)
    series = erf_taylor(30 if double else 12)
    small = _odd_series(b, x, b.poly((series[0] - 1, *series[1:]), x2))
    erfc = erfc_fraction(b, z) if double else erfc_chebyshev(b, z)
    large = b.copysign_of(b.alu("sub", one, erfc), x)
    return b.where(b.alu("cmplt", z, b.const(ERF_SMALL_F64 if double else ERF_SMALL, x)), small, large)


def _pow(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    zero, one, inf = b.const(0, x), b.const(1, x), b.const(math.inf, x)
    # the software log2 (0.8 ulp) even where the target has one: PTX's lg2.approx is 2^-22 absolute, which y
    # multiplies (0.5 ** 100 was 1e-5 off on an H200)
    log2 = _log2 if dtype_name(element_type(x.type)) in DTYPE_RULES["log2"] else lambda b, v: b.alu("log2", v)
    r = b.alu("exp2", b.alu("mul", y, log2(b, b.alu("abs", x))))
    integral = b.alu("cmpeq", b.alu("trunc", y), y)  # also ±inf, which is even
    odd = b.alu("cmpeq", b.alu("abs", b.alu("mod", y, b.const(2, y))), one)
    # a finite negative base needs an integer exponent; -inf behaves like +inf apart from the sign
    real = b.alu("or", integral, b.alu("cmpeq", x, b.alu("neg", inf)))
    negative_base = b.where(real, b.where(odd, b.alu("neg", r), r), b.const(math.nan, x))
    r = b.where(b.alu("cmplt", x, zero), negative_base, r)
    # 0 ** y by the sign of y and nan in, nan out, without relying on log2(0) = -inf or on nan comparing
    # unequal: GPU shading languages need not honor either
    at_zero = b.where(b.alu("cmplt", y, zero), inf, zero)  # (-0.0) ** odd keeps the sign: -0.0 or -inf
    at_zero = b.where(b.alu("and", b.sign_bit(x), odd), b.alu("neg", at_zero), at_zero)
    r = b.where(b.alu("cmpeq", x, zero), at_zero, r)
    r = b.where(b.is_nan(x), x, b.where(b.is_nan(y), y, r))
    minus_one_to_inf = b.alu("and", b.alu("cmpeq", x, b.alu("neg", one)), b.alu("cmpeq", b.alu("abs", y), inf))
    trivial = b.alu("or", b.alu("or", b.alu("cmpeq", y, zero), b.alu("cmpeq", x, one)), minus_one_to_inf)
    return b.where(trivial, one, r)


def _sign(b: Builder, x: SSAValue) -> SSAValue:
    zero, one = b.const(0, x), b.const(1, x)
    rest = b.where(b.alu("cmpeq", x, zero), zero, x) if is_float(element_type(x.type)) else zero  # nan stays, ±0 is 0
    if _signed(x.type):
        rest = b.where(b.alu("cmplt", x, zero), b.const(-1, x), rest)
    return b.where(b.alu("cmplt", zero, x), one, rest)


def _select_extreme(kind: str) -> Callable[[Builder, SSAValue, SSAValue], SSAValue]:
    def rule(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
        take_y = b.alu("cmplt", x, y) if kind == "max" else b.alu("cmplt", y, x)
        if is_float(element_type(x.type)):  # nan in either operand wins: y when y is nan, else x
            take_y = b.alu("or", take_y, b.is_nan(y))
        return b.where(take_y, y, x)

    return rule


def _floor(b: Builder, x: SSAValue) -> SSAValue:
    t = b.alu("trunc", x)
    return b.where(b.alu("cmplt", x, t), b.alu("sub", t, b.const(1, x)), t)


def _ceil(b: Builder, x: SSAValue) -> SSAValue:
    t = b.alu("trunc", x)
    return b.where(b.alu("cmplt", t, x), b.alu("add", t, b.const(1, x)), t)


def _power_of_two(b: Builder, y: SSAValue, width: int) -> SSAValue:
    """``2^y`` (wrapping at the width) for 0 <= y < width, from the bits of y."""
    if (c := constant_of(y)) is not None:
        return b.const(_wrap(1 << int(c), y.type, b.target), y)
    one, zero = b.const(1, y), b.const(0, y)
    p = one
    for bit in range(max(1, (width - 1).bit_length())):
        is_set = b.alu("cmpne", b.alu("and", y, b.const(1 << bit, y)), zero)
        factor = b.const(_wrap(1 << (1 << bit), y.type, b.target), y)
        p = b.alu("mul", p, b.where(is_set, factor, one))
    return p


def _wrap(value: int, t: Attribute, target: TargetDescription) -> int:
    """``value`` as a two's complement integer of type ``t``."""
    width = width_of(t, target)
    value %= 1 << width
    return value - (1 << width) if _signed(t) and value >= 1 << (width - 1) else value


def _in_shift_range(b: Builder, y: SSAValue, width: int) -> SSAValue:
    inside = b.alu("cmplt", y, b.const(width, y))
    return b.alu("and", b.alu("cmple", b.const(0, y), y), inside) if _signed(y.type) else inside


def _shl(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    width = width_of(x.type, b.target)
    shifted = b.alu("mul", x, _power_of_two(b, y, width))
    return b.where(_in_shift_range(b, y, width), shifted, b.const(0, x))


def _shr(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    width = width_of(x.type, b.target)
    p = _power_of_two(b, y, width)
    if not _signed(x.type):
        return b.where(_in_shift_range(b, y, width), b.alu("idiv", x, p), b.const(0, x))
    negative = b.alu("cmplt", x, b.const(0, x))
    # a negative x shifts as ~(~x >> y); ~x and x >= 0 divide exactly like a shift (2^(width-1) wraps to the
    # most negative value, and dividing a non-negative value by it gives the 0 that the shift gives)
    shifted = b.where(negative, b.alu("not", b.alu("idiv", b.alu("not", x), p)), b.alu("idiv", x, p))
    beyond = b.where(negative, b.const(-1, x), b.const(0, x))
    return b.where(_in_shift_range(b, y, width), shifted, beyond)


def _log2_of_divisor(b: Builder, d: SSAValue, kind: str) -> int:
    c = constant_of(d)
    if c is None or c <= 0 or int(c) & (int(c) - 1):
        raise error_at(
            b.at, f"uop.{kind} by a value that is not a constant power of two: target {b.target.name} has no {kind}"
        )
    return int(c).bit_length() - 1


def _idiv(b: Builder, x: SSAValue, d: SSAValue) -> SSAValue:
    k = _log2_of_divisor(b, d, "idiv")
    shift = b.const(k, x)
    if not _signed(x.type):
        return b.alu("shr", x, shift)
    # C division truncates toward zero: negative x first gets 2^k - 1 added
    sign = b.alu("shr", x, b.const(width_of(x.type, b.target) - 1, x))
    bias = b.alu("and", sign, b.const((1 << k) - 1, x))
    return b.alu("shr", b.alu("add", x, bias), shift)


def _mod(b: Builder, x: SSAValue, d: SSAValue) -> SSAValue:
    k = _log2_of_divisor(b, d, "mod")
    if not _signed(x.type):
        return b.alu("and", x, b.const((1 << k) - 1, x))
    return b.alu("sub", x, b.alu("shl", _idiv(b, x, d), b.const(k, x)))


# ---------------------------------------------------------------------------------------------
# exp2, log2 (f32, f64) and sin, cos (f64) in software

F32, I32, F64, I64 = Float32Type(), IntegerType(32), Float64Type(), IntegerType(64)


@dataclass(frozen=True)
class Layout:
    """An IEEE float type, the integer type of its bits, and the sizes of its software exp2 and log2."""

    float_type: Attribute
    int_type: IntegerType
    mantissa_bits: int
    bias: int
    exp2_clamp: float
    """2^x is inf or 0 beyond it; clamping x keeps k in ``_times_two_to``'s range (|k| <= 2 * (bias - 1))."""
    exp2_terms: int
    """Taylor terms of 2^f on |f| <= 1/2."""
    atanh_terms: int
    """Terms of R(z) = 2z/3 + 2z^2/5 + ... on z = s^2 <= 0.0295."""
    log_hi_bits: int
    """Significant bits of the leading part of log(m); 1/ln2's leading part has the rest, so their product is
    exact."""


LAYOUTS = {
    # 2^x: inf from 128, 0 from -150 down; first Taylor term left out 5e-9; first atanh term left out 2e-9 of log(m)
    "f32": Layout(F32, I32, mantissa_bits=23, bias=127, exp2_clamp=200.0, exp2_terms=8, atanh_terms=4, log_hi_bits=12),
    # 2^x: inf from 1024, 0 from -1075 down; first Taylor term left out 4e-18; first atanh term below 2^-60
    "f64": Layout(F64, I64, mantissa_bits=52, bias=1023, exp2_clamp=1100.0, exp2_terms=14, atanh_terms=11,
                  log_hi_bits=21),
}
"""The float dtypes exp2 and log2 have software rules for (f16 and bf16 use f32's)."""

SIN_COS_TERMS = 8
"""Taylor terms of sin (after y) and of cos (after 1) on |y| <= pi/4: the first ones left out are 1e-19, 2e-18."""
PIO2_CHUNK_BITS = 33
"""Significant bits of the two leading parts of pi/2: k times each is exact while |k| < 2^(53 - 33)."""
SIN_COS_LIMIT = 2.0**52
"""|x| from which f64 sin and cos are nan: doubles there are a unit or more apart, and the reduced argument
would be noise (unbounded noise from 2^54 on)."""


def layout_of(x: SSAValue) -> Layout:
    return LAYOUTS[dtype_name(element_type(x.type))]


def split_bits(value: Fraction, bits: int, parts: int) -> tuple[float, ...]:
    """``value`` > 0 as a sum of ``parts`` doubles, each but the last truncated to ``bits`` significant bits."""
    chunks = []
    for _ in range(parts - 1):
        exponent = value.numerator.bit_length() - value.denominator.bit_length()
        if Fraction(2) ** exponent > value:
            exponent -= 1
        unit = Fraction(2) ** (exponent - bits + 1)
        chunk = math.floor(value / unit) * unit
        chunks.append(float(chunk))
        value -= chunk
    return (*chunks, float(value))


PIO2_PARTS = split_bits(PI / 2, PIO2_CHUNK_BITS, 3)
"""pi/2 to 119 bits: fdlibm's pio2_1, pio2_2 and pio2_2t."""


@functools.cache
def exp2_taylor(terms: int) -> tuple[float, ...]:
    """Coefficients of f^0, f^1, ... in 2^f = exp(f ln2)."""
    return tuple(float(LN2**n / math.factorial(n)) for n in range(terms))


@functools.cache
def atanh_tail(terms: int) -> tuple[float, ...]:
    """Coefficients of z^0, z^1, ... in R(z) / z, where log((1 + s) / (1 - s)) = 2s + s R(s^2)."""
    return tuple(float(Fraction(2, 2 * k + 1)) for k in range(1, terms + 1))


@functools.cache
def sin_taylor() -> tuple[float, ...]:
    """Coefficients of z^0, z^1, ... in (sin(y) - y) / y^3, z = y^2."""
    return tuple(float(Fraction((-1) ** n, math.factorial(2 * n + 1))) for n in range(1, SIN_COS_TERMS + 1))


@functools.cache
def cos_taylor() -> tuple[float, ...]:
    """Coefficients of z^0, z^1, ... in cos(y), z = y^2."""
    return tuple(float(Fraction((-1) ** n, math.factorial(2 * n))) for n in range(SIN_COS_TERMS + 1))


def _shifter(x: SSAValue) -> float:
    """``1.5 * 2^p`` (p mantissa bits): adding it to an |x| < 2^(p - 1) rounds x to an integer (ties to even),
    which the sum's bits then hold in the low bits of its mantissa."""
    return 1.5 * 2.0 ** layout_of(x).mantissa_bits


def _nearest_integer(b: Builder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(k, the bits of ``k + shifter``): x rounded to an integer k for |x| < 2^(p - 1), by adding and subtracting
    the shifter (no ``floor``, which gcc vectorizes only with -fno-trapping-math; LLVM folds ``(x + c) - c`` only
    with ``nsz``, which kiln never sets); the sum's bits are the shifter's plus k, for ``_times_two_to``."""
    shifter = b.const(_shifter(x), x)
    shifted = b.alu("add", x, shifter)
    return b.alu("sub", shifted, shifter), b.bitcast(shifted, layout_of(x).int_type)


def _times_two_to(b: Builder, p: SSAValue, shifted_bits: SSAValue) -> SSAValue:
    """``p * 2^k`` for the integer k whose ``k + shifter`` has the bits ``shifted_bits`` (``_nearest_integer``),
    |k| <= 2 * (bias - 1), by two normal powers of two 2^h and 2^(k - h), h = floor(k / 2): for a normal p the
    first product is exact, so the result is rounded once (to inf, a subnormal or 0 as the case may be). The
    shifter's bits are even, so halving the bits halves k (rounding down) and the powers are built with integer
    adds and shifts in their exponent bits, no float -> int conversion (which C can only spell as a saturating
    call); every intermediate is positive (no signed overflow in C)."""
    layout = layout_of(p)
    bits = layout.mantissa_bits
    half = b.alu("shr", shifted_bits, b.const(1, shifted_bits))  # shifter_bits / 2 + h
    rest = b.alu("sub", shifted_bits, half)  # shifter_bits / 2 + k - h
    offset = b.const(layout.bias - _shifter_bits(layout) // 2, shifted_bits)
    exponent_shift = b.const(bits, shifted_bits)

    def power(halved: SSAValue) -> SSAValue:
        return b.bitcast(b.alu("shl", b.alu("add", halved, offset), exponent_shift), layout.float_type)

    return b.alu("mul", b.alu("mul", p, power(half)), power(rest))


def _shifter_bits(layout: Layout) -> int:
    """The bits of ``1.5 * 2^p`` (``_shifter``): exponent bias + p, the top mantissa bit set."""
    p = layout.mantissa_bits
    return ((layout.bias + p) << p) | (1 << (p - 1))


def _clamp(b: Builder, x: SSAValue, limit: float, upper: bool = True) -> SSAValue:
    """``x`` limited to [-limit, limit] (from below only without ``upper``); nan stays nan."""
    high = b.const(limit, x) if upper else None
    low = b.const(-limit, x)
    if high is not None:
        x = b.where(b.alu("cmplt", high, x), high, x)
    return b.where(b.alu("cmplt", x, low), low, x)


def _exp2(b: Builder, x: SSAValue) -> SSAValue:
    layout = layout_of(x)
    x = _clamp(b, x, layout.exp2_clamp)
    k, shifted_bits = _nearest_integer(b, x)
    return _times_two_to(b, b.poly(exp2_taylor(layout.exp2_terms), b.alu("sub", x, k)), shifted_bits)  # x - k exact


EXP_LN2_PARTS = split_bits(LN2, 16, 2)
"""ln2 as a 16-bit leading part (k times it is exact for |k| < 2^8) and the rest."""
EXP_MINIMAX = (1.0, 1.0, *map(float.fromhex, ("0x1.fffffcp-2", "0x1.55545ap-3", "0x1.55577cp-5", "0x1.125c62p-7",
                                              "0x1.6bb9e6p-10")))
"""Coefficients of r^0 .. r^6 of e^r on |r| <= ln2/2: the first two fixed at 1, the others minimizing the largest
relative error (a linear program on a dense grid, then rounded to f32): 4.9e-9, as the 8 Taylor terms it
replaces (5e-9), one multiply-add fewer."""


def _exp_reduced(b: Builder, x: SSAValue, upper: bool = True) -> SSAValue:
    """f32 ``exp(x) = e^r * 2^k``, ``k = round(x log2(e))``, ``r = x - k ln2`` (Cody-Waite, ln2 in two parts),
    where exp2 is software too: cheaper than ``exp2(t)`` and the correction for t's rounding error. Without
    ``upper`` (``exp_nonpositive``: x <= 0 or nan) the clamp from above is left out: the result for x <= 0 is
    the same bits, as the clamp changes only x > 200 ln2."""
    layout = layout_of(x)
    x = _clamp(b, x, float(layout.exp2_clamp * LN2), upper)
    k, shifted_bits = _nearest_integer(b, b.alu("mul", x, b.const(float(LOG2E), x)))
    hi, lo = (b.const(part, x) for part in EXP_LN2_PARTS)
    r = b.alu("sub", b.alu("sub", x, b.alu("mul", k, hi)), b.alu("mul", k, lo))
    return _times_two_to(b, b.poly(EXP_MINIMAX, r), shifted_bits)


def _exponent_and_mantissa(b: Builder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(e, m) with x = 2^e * m, m in [sqrt(1/2), sqrt(2)), e an integral float, for finite x > 0 (a subnormal x
    is scaled by 2^(p + 2) first)."""
    layout = layout_of(x)
    p, bias = layout.mantissa_bits, layout.bias
    subnormal = b.alu("cmplt", x, b.const(2.0 ** (1 - bias), x))
    bits = b.bitcast(b.where(subnormal, b.alu("mul", x, b.const(2.0 ** (p + 2), x)), x), layout.int_type)
    biased = b.cast(b.alu("shr", bits, b.const(p, bits)), layout.float_type)
    e = b.alu("sub", biased, b.where(subnormal, b.const(bias + p + 2, x), b.const(bias, x)))
    fraction = b.alu("and", bits, b.const((1 << p) - 1, bits))
    m = b.bitcast(b.alu("or", fraction, b.const(bias << p, bits)), layout.float_type)  # [1, 2)
    above = b.alu("cmplt", b.const(math.sqrt(2), m), m)
    m = b.where(above, b.alu("mul", m, b.const(0.5, m)), m)
    return b.alu("add", e, b.where(above, b.const(1, e), b.const(0, e))), m


def _without_low_bits(b: Builder, x: SSAValue, bits: int) -> SSAValue:
    """``x`` with the lowest ``bits`` bits of its mantissa cleared."""
    layout = layout_of(x)
    x_bits = b.bitcast(x, layout.int_type)
    return b.bitcast(b.alu("and", x_bits, b.const(-(1 << bits), x_bits)), layout.float_type)


def _log2(b: Builder, x: SSAValue) -> SSAValue:
    e, m = _exponent_and_mantissa(b, x)
    hi, lo = _log_of_mantissa(b, m)
    return _log2_special_values(b, x, _plus_log2(b, e, hi, lo))


def _log_of_mantissa(b: Builder, m: SSAValue) -> tuple[SSAValue, SSAValue]:
    """log(m) = hi + lo for m in [sqrt(1/2), sqrt(2)), hi of ``log_hi_bits`` significant bits."""
    layout = layout_of(m)
    f = b.alu("sub", m, b.const(1, m))  # exact
    s = b.alu("div", f, b.alu("add", b.const(2, f), f))
    z = b.alu("mul", s, s)
    half_f2 = b.alu("mul", b.const(0.5, f), b.alu("mul", f, f))
    r = b.alu("mul", s, b.alu("add", half_f2, b.alu("mul", z, b.poly(atanh_tail(layout.atanh_terms), z))))
    hi = _without_low_bits(b, b.alu("sub", f, half_f2), layout.mantissa_bits + 1 - layout.log_hi_bits)
    return hi, b.alu("add", b.alu("sub", b.alu("sub", f, hi), half_f2), r)  # f - hi is exact


def _plus_log2(b: Builder, e: SSAValue, hi: SSAValue, lo: SSAValue) -> SSAValue:
    """``e + (hi + lo) / ln2`` for an integral e and hi of ``log_hi_bits`` significant bits."""
    layout = layout_of(e)
    inv_hi, inv_lo = split_bits(LOG2E, layout.mantissa_bits + 1 - layout.log_hi_bits, 2)
    inv_hi, inv_lo = b.const(inv_hi, e), b.const(inv_lo, e)
    log2_hi = b.alu("mul", hi, inv_hi)  # exact
    log2_lo = b.alu("add", b.alu("mul", b.alu("add", lo, hi), inv_lo), b.alu("mul", lo, inv_hi))
    w = b.alu("add", e, log2_hi)
    w_error = b.alu("add", b.alu("sub", e, w), log2_hi)  # exact: |e| >= |log2_hi| unless e is 0
    return b.alu("add", b.alu("add", log2_lo, w_error), w)


def _log2_special_values(b: Builder, x: SSAValue, log2: SSAValue) -> SSAValue:
    """``log2`` where x is finite and > 0 (tested on the bits), else -inf for ±0, inf for inf, nan."""
    bits = b.bitcast(x, layout_of(x).int_type)
    inf_bits = b.const(INF_BITS[dtype_name(element_type(x.type))], bits)
    regular = b.alu("and", b.alu("cmplt", b.const(0, bits), bits), b.alu("cmplt", bits, inf_bits))
    special = b.where(b.alu("cmpeq", bits, inf_bits), b.const(math.inf, x), b.const(math.nan, x))
    special = b.where(b.alu("cmpeq", x, b.const(0, x)), b.const(-math.inf, x), special)
    return b.where(regular, log2, special)


def _quarter_turns(b: Builder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(y, k) with x = k pi/2 + y, |y| <= pi/4 (and a rounding), k integral, by Cody-Waite reduction with pi/2 in
    ``PIO2_PARTS`` (accurate while |k| < 2^20, see the module docstring)."""
    k = b.alu("floor", b.alu("add", b.alu("mul", x, b.const(float(2 / PI), x)), b.const(0.5, x)))
    y = x
    for part in PIO2_PARTS:
        y = b.alu("sub", y, b.alu("mul", k, b.const(part, k)))
    return y, k


def _cos_near_zero(b: Builder, z: SSAValue) -> SSAValue:
    """cos(y) for z = y^2, |y| <= pi/4, as ``w + ((1 - w) - z/2 + z^2 C(z))``, ``w = 1 - z/2``: the rounding
    error of w is added back (fdlibm's k_cos.c)."""
    one, half_z = b.const(1, z), b.alu("mul", z, b.const(0.5, z))
    w = b.alu("sub", one, half_z)
    tail = b.alu("mul", b.alu("mul", z, z), b.poly(cos_taylor()[2:], z))
    return b.alu("add", w, b.alu("add", b.alu("sub", b.alu("sub", one, w), half_z), tail))


def _sin_near_zero(b: Builder, y: SSAValue, z: SSAValue) -> SSAValue:
    """sin(y) for |y| <= pi/4, z = y^2; y itself where z is 0 (keeps the sign of -0)."""
    series = _odd_series(b, y, b.alu("mul", z, b.poly(sin_taylor(), z)))
    return b.where(b.alu("cmpeq", z, b.const(0, z)), y, series)


def _sin_cos_f64(quarter: int) -> Rule:
    """sin (``quarter`` 0) or cos (1: cos(x) = sin(x + pi/2)) of f64 x: the sine or cosine of y chosen and
    negated by the quadrant; nan for nan, ±inf and |x| >= ``SIN_COS_LIMIT``."""

    def rule(b: Builder, x: SSAValue) -> SSAValue:
        y, k = _quarter_turns(b, x)
        z = b.alu("mul", y, y)
        k_int = b.cast(k, I64)
        turns = b.alu("add", k_int, b.const(quarter, k_int))
        zero = b.const(0, turns)
        odd = b.alu("cmpne", b.alu("and", turns, b.const(1, turns)), zero)
        value = b.where(odd, _cos_near_zero(b, z), _sin_near_zero(b, y, z))
        value = b.where(b.alu("cmpne", b.alu("and", turns, b.const(2, turns)), zero), b.alu("neg", value), value)
        inside = b.alu("cmplt", b.alu("abs", x), b.const(SIN_COS_LIMIT, x))
        return b.where(inside, value, b.const(math.nan, x))

    return rule


Rule = Callable[..., SSAValue]
RULES: dict[str, Rule] = {
    "rsqrt": _rsqrt,
    "recip": _recip,
    "fma": _fma,
    "exp": _exp,
    "exp_nonpositive": lambda b, x: _exp(b, x, upper=False),
    "log": _log,
    "tanh": _tanh,
    "erf": _erf,
    "pow": _pow,
    "sign": _sign,
    "max": _select_extreme("max"),
    "min": _select_extreme("min"),
    "floor": _floor,
    "ceil": _ceil,
    "shl": _shl,
    "shr": _shr,
    "idiv": _idiv,
    "mod": _mod,
}
"""Decomposition of each ALU op kind, in terms of other ALU ops (more in ``DECLARED_RULES``)."""

DECLARED_RULES: dict[str, Rule] = {op.name: op.decompose for op in ELEMENTWISE if op.decompose}
"""The rules declared with their op (``kiln.dialects.ops``); on f16 and bf16 they run in f32 (``HALF_IN_F32``),
whose ranges and constants they are written for (``asinh``'s 2^28 is inf in f16)."""

DTYPE_RULES: dict[str, dict[str, Rule]] = {
    "exp2": {"f32": _exp2, "f64": _exp2},
    "log2": {"f32": _log2, "f64": _log2},
    "sin": {"f64": _sin_cos_f64(0)},
    "cos": {"f64": _sin_cos_f64(1)},
}
"""Decompositions that exist for some float dtypes only: op -> dtype -> rule."""

HALF_IN_F32 = frozenset({"exp", "exp_nonpositive", "exp2", "log", "log2"})
"""Ops whose decomposition on f16 and bf16 is the f32 one between casts: rounded once at the end, as numpy's
are, and at the speed of f32 arithmetic (CPUs and PTX compute 16-bit floats in f32 anyway)."""


def _in_f32(kind: str) -> Rule:
    def rule(b: Builder, *args: SSAValue) -> SSAValue:
        t = args[-1].type
        return b.in_f32(kind, list(args), like(t, i1) if ALU_OPS[kind].returns_bool else t)

    return rule


def rule_for(kind: str, scalar: Attribute) -> Rule | None:
    """The decomposition of ALU op ``kind`` on element type ``scalar``, if there is one."""
    if (kind in HALF_IN_F32 or kind in DECLARED_RULES) and is_float(scalar) and bitwidth(scalar) == 16:
        return _in_f32(kind)
    if kind in DTYPE_RULES:
        return DTYPE_RULES[kind].get(dtype_name(scalar))
    return RULES.get(kind) or DECLARED_RULES.get(kind)
