"""``-t c``: every ``cstyle.func`` of a module as one self-contained C11 translation unit.

The unit holds the includes it needs, the prelude helpers the kernels call (``kiln_*``: only the ones used, and
what they use), and one ``void`` function per kernel, each followed by its uniform entry (``_entry``); no
``main``. It compiles with ``cc -std=c11 -Wall -Wextra -Werror``: unused parameters are marked ``(void)name;`` and values nobody reads are not printed.

Expressions are printed inline where that keeps the meaning: a literal always; any other value with exactly
one use in the same block, if it is pure or, for a load or a variable read, if nothing between it and the
statement that prints it could change what it reads (a store for a load, an assignment to its variable for a
read, any loop or if for both; loop bounds never inline a read, since C re-evaluates them). Everything else
becomes a named local, ``float v = ...;``. Operands are parenthesized by C precedence, and wherever gcc's
``-Wparentheses`` would ask for it. An integer literal is cast to its type where C would otherwise compute in
``int``: as the left operand of a shift, or when both operands of an operator are literals.

Vectors (``vector<8xf32>``, ``vector<8xi32>``) are gcc/clang vector extension types, ``typedef float kiln_f32x8
__attribute__((vector_size(32)))``: operators work lane by lane, a comparison gives a lane mask (``kiln_i32x8``
of -1 and 0), a cast to another vector type of the same size keeps the bits, ``(kiln_f32x8){a, ...}`` builds one,
``v[k]`` reads a lane. A vector load or store goes through ``kiln_f32x8_u``, the same type with the alignment of
an element and ``may_alias`` (as gcc's own ``_mm256_loadu_ps``): ``*(const kiln_f32x8_u *)(p + i)`` reads
``p[i]`` to ``p[i + 7]`` wherever they are. ``kiln_where_f32x8`` selects lanes by a mask with bit operations
(C has no vector ``?:``) and ``kiln_max_f32x8`` picks lanes with it. Vector helpers pass
vectors by value between inlined static functions, so gcc's ``-Wpsabi`` note (the ABI of a 32-byte vector
argument without AVX) is switched off for the unit.

Storage types: ``kiln_bf16`` is ``uint16_t``; ``kiln_f16`` is ``_Float16`` where the compiler has it
(``__FLT16_MAX__``) and ``uint16_t`` otherwise or when ``KILN_NO_FLOAT16`` is defined; the conversion helpers
round to nearest even either way. The helpers assume IEEE floats (C Annex F) and no ``-ffast-math``.

The module's schedule (``func.func``) is host code and is not part of the unit; any other top-level op, and any
op inside a function that has no C form, is a located error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, VectorType
from xdsl.dialects.func import FuncOp as HostFuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from kiln.dialects import cstyle
from kiln.dialects.types import DTYPES, bitwidth, dtype_name, is_float, is_unsigned
from kiln.capabilities.description import LOOP_VECTORIZE
from kiln.targets.source import BodyPrinter, Names, Piece, Prelude
from kiln.support.diagnostics import error_at
from kiln.targets.loaded import entry_name

C_TYPES: dict[str, str] = {
    "i1": "_Bool", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "ui8": "uint8_t", "ui16": "uint16_t", "ui32": "uint32_t", "ui64": "uint64_t",
    "f16": "kiln_f16", "bf16": "kiln_bf16", "f32": "float", "f64": "double",
}  # fmt: skip
"""The C spelling of each scalar type (f16 and bf16 are typedefs of the prelude)."""

I64 = DTYPES["i64"]
INTEGER_TYPES = ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")


MAX_INLINE_DEPTH = 32
"""The deepest nesting of inlined operations in one printed expression."""


def c_type_name(t: Attribute) -> str:
    if isinstance(t, VectorType):
        return f"kiln_{cstyle.vector_tag(t)}"
    return C_TYPES[dtype_name(t)]


def emit(module: ModuleOp) -> str:
    """The C translation unit of all ``cstyle.func`` ops of ``module``."""
    functions: list[str] = []
    prelude = _Prelude()
    for op in module.ops:
        if isinstance(op, cstyle.FuncOp):
            functions.append(_FunctionPrinter(op, prelude).render() + _entry(op))
        elif op.name == "uop.kernel":
            raise error_at(op, "uop.kernel reached the C emitter: run convert-uop-to-cstyle first")
        elif not isinstance(op, HostFuncOp):
            raise error_at(op, f"{op.name} is not a cstyle.func: the C emitter cannot emit it")
    names = ", ".join(op.sym_name.data for op in module.ops if isinstance(op, cstyle.FuncOp))
    header = f"// kiln -t c: {names or 'no kernels'}\n"
    return header + prelude.render() + "\n" + "\n".join(functions)


def _entry(func: cstyle.FuncOp) -> str:
    """The kernel's uniform entry ``void name__entry(void **args, int64_t lo, int64_t hi)``
    (``kiln.targets.loaded.entry_name``): its arguments from pointer-sized slots, a buffer as its pointer, an
    int64 as the slot's bits. Only for functions of the CPU calling convention (pointers and int64, the last two
    int64); any other function gets none."""
    types = [arg.type for arg in func.params]
    pointers = [isinstance(t, cstyle.PtrType) for t in types]
    if len(types) < 2 or types[-2:] != [I64, I64] or not all(p or t == I64 for p, t in zip(pointers, types)):
        return ""
    args = [f"args[{i}]" if p else f"(int64_t)(intptr_t)args[{i}]" for i, p in enumerate(pointers[:-2])]
    name = func.sym_name.data
    call = f"{name}({', '.join([*args, 'lo', 'hi'])});"
    return f"void {entry_name(name)}(void **args, int64_t lo, int64_t hi) {{ {call} }}\n"


# ---------------------------------------------------------------------------------------------
# the prelude: includes, storage typedefs and kiln_* helpers, each emitted only when used


_F16_TYPEDEF = """\
#if defined(__FLT16_MAX__) && !defined(KILN_NO_FLOAT16)
#define KILN_HAS_FLOAT16 1
typedef _Float16 kiln_f16;
#else
typedef uint16_t kiln_f16; /* IEEE half bits */
#endif"""

_F64_TO_F32_ODD = """\
/* f64 -> f32 rounding to odd: rounding that again to a narrower type gives the correctly rounded result */
static inline float kiln_f64_to_f32_odd(double x) {
  float f = (float)x;
  if ((double)f != x && x == x) {
    union { float f; uint32_t u; } v = { f };
    if (x > 0 ? (double)f > x : (double)f < x) v.u -= 1u; /* rounded away from zero: step back */
    v.u |= 1u;
    f = v.f;
  }
  return f;
}"""

_BF16_TO_F32 = """\
static inline float kiln_bf16_to_f32(kiln_bf16 x) {
  union { uint32_t u; float f; } v = { (uint32_t)x << 16 };
  return v.f;
}"""

_F32_TO_BF16 = """\
static inline kiln_bf16 kiln_f32_to_bf16(float x) { /* round to nearest even; nan stays a (quiet) nan */
  union { float f; uint32_t u; } v = { x };
  if ((v.u & 0x7fffffffu) > 0x7f800000u) return (kiln_bf16)((v.u >> 16) | 0x40u);
  return (kiln_bf16)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
}"""

_F16_TO_F32 = """\
static inline float kiln_f16_to_f32(kiln_f16 x) {
#ifdef KILN_HAS_FLOAT16
  return (float)x;
#else
  uint32_t sign = (uint32_t)(x & 0x8000u) << 16, e = (x >> 10) & 0x1fu, m = x & 0x3ffu;
  union { uint32_t u; float f; } v;
  if (e == 0x1fu) v.u = sign | 0x7f800000u | (m << 13); /* inf, nan */
  else if (e != 0) v.u = sign | ((e + 112u) << 23) | (m << 13);
  else { v.f = (float)m * 0x1p-24f; v.u |= sign; } /* zero, subnormal */
  return v.f;
#endif
}"""

_F32_TO_F16 = """\
static inline kiln_f16 kiln_f32_to_f16(float x) { /* round to nearest even */
#ifdef KILN_HAS_FLOAT16
  return (kiln_f16)x;
#else
  union { float f; uint32_t u; } v = { x };
  uint32_t sign = (v.u >> 16) & 0x8000u, a = v.u & 0x7fffffffu;
  if (a > 0x7f800000u) return (kiln_f16)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* nan */
  if (a >= 0x477ff000u) return (kiln_f16)(sign | 0x7c00u); /* from 65520 up: inf */
  if (a >= 0x38800000u) { /* normal: rebias the exponent, round off 13 bits */
    uint32_t r = a - 0x38000000u;
    return (kiln_f16)(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  if (a < 0x33000000u) return (kiln_f16)sign; /* below 2^-25: zero */
  uint32_t m = (a & 0x7fffffu) | 0x800000u, s = 126u - (a >> 23); /* subnormal: 14 <= s <= 24 */
  uint32_t q = m >> s, rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
  q += rem > half || (rem == half && (q & 1u));
  return (kiln_f16)(sign | q);
#endif
}"""

_F64_TO_F16 = """\
static inline kiln_f16 kiln_f64_to_f16(double x) {
#ifdef KILN_HAS_FLOAT16
  return (kiln_f16)x;
#else
  return kiln_f32_to_f16(kiln_f64_to_f32_odd(x));
#endif
}"""

_F64_TO_I64 = """\
static inline int64_t kiln_f64_to_i64(double x) { /* truncate; nan -> 0; saturate */
  return x != x ? 0 : x <= -0x1p63 ? INT64_MIN : x >= 0x1p63 ? INT64_MAX : (int64_t)x;
}"""

_F64_TO_UI64 = """\
static inline uint64_t kiln_f64_to_ui64(double x) { /* from 2^63 up: saturate; below: wrap the int64_t */
  return x >= 0x1p64 ? UINT64_MAX : x >= 0x1p63 ? (uint64_t)x : (uint64_t)kiln_f64_to_i64(x);
}"""


def _float_helpers() -> dict[str, Piece]:
    """NaN-propagating ``max``/``min`` (``a`` where ``a`` is NaN or wins the comparison, else ``b``), in two
    spellings of one meaning for gcc. ``kiln_max_f32`` chooses with a bit mask, not ``?:``: gcc turns a float
    ``?:`` of two comparisons into branches, which its SLP vectorizer cannot pack, while the mask form becomes
    vector compares, or and and (a relu epilogue of 8 upcast lanes: 4 ymm instructions instead of 8
    compare-and-branch pairs). A reduction's accumulator (``acc = max(acc, x)`` in a loop) is a loop-carried
    chain that gcc vectorizes in neither form, and there the mask's 8 dependent integer steps per element are
    slower than ``kiln_running_max_f32``: a ``maxss`` and a branch on ``a``'s NaN that is always predicted
    (16M floats on one thread: 2-3x faster than the mask, 1.5x faster than ``a != a || a > b ? a : b``)."""
    out: dict[str, Piece] = {}
    for t in ("f32", "f64"):
        c, u = C_TYPES[t], "uint32_t" if t == "f32" else "uint64_t"
        for kind, op in (("max", ">"), ("min", "<")):
            out[f"kiln_{kind}_{t}"] = Piece(
                f"static inline {c} kiln_{kind}_{t}({c} a, {c} b) {{\n"
                f"  union {{ {c} f; {u} u; }} x = {{ a }}, y = {{ b }};\n"
                f"  {u} pick_a = ({u})0 - ({u})((a != a) | (a {op} b));\n"
                f"  x.u = (x.u & pick_a) | (y.u & ~pick_a);\n"
                f"  return x.f;\n}}"
            )
            out[f"kiln_running_{kind}_{t}"] = Piece(
                f"static inline {c} kiln_running_{kind}_{t}({c} a, {c} b) {{\n"
                f"  {c} m = a {op} b ? a : b; /* {kind}ss: b where either is nan */\n"
                f"  return a != a ? a : m;\n}}"
            )
    return out


def _vector_pieces() -> dict[str, Piece]:
    """Per vector type: the value typedef and the unaligned access typedef (``_u``), all before the helpers;
    then ``kiln_where`` (a bit select by a comparison's lane mask) and, for floats, NaN-propagating
    ``max``/``min`` (the scalar helpers' bit-mask choice, with the comparisons' all-ones lane masks)."""
    out: dict[str, Piece] = {"KILN_VECTORS": Piece(_VECTORS)}
    for v in cstyle.vector_types():
        name = c_type_name(v)
        element = c_type_name(v.get_element_type())
        size = cstyle.vector_bits(v) // 8
        out[name] = Piece(
            f"typedef {element} {name} __attribute__((vector_size({size})));\n"
            f"typedef {element} {name}_u __attribute__((vector_size({size}), aligned(sizeof({element})), may_alias));",
            ("KILN_VECTORS",),
        )
    for v in cstyle.vector_types():
        name, tag, mask = c_type_name(v), cstyle.vector_tag(v), c_type_name(cstyle.mask_type(v))
        out[f"kiln_where_{tag}"] = Piece(
            f"static inline {name} kiln_where_{tag}({mask} m, {name} a, {name} b) {{\n"
            f"  return ({name})((({mask})a & m) | (({mask})b & ~m));\n}}",
            (name, mask),
        )
        if not is_float(v.get_element_type()):
            continue
        for kind, op in (("max", ">"), ("min", "<")):
            out[f"kiln_{kind}_{tag}"] = Piece(
                f"static inline {name} kiln_{kind}_{tag}({name} a, {name} b) {{\n"
                f"  return kiln_where_{tag}((a != a) | (a {op} b), a, b);\n}}",
                (f"kiln_where_{tag}",),
            )
        for kind in cstyle.REDUCED_KINDS:
            out[f"kiln_reduce_{kind}_{tag}"] = _reduce_piece(kind, v)
    return out


def _reduce_piece(kind: str, v: VectorType) -> Piece:
    """``kiln_reduce_max_f32x16``: the lanes of a vector combined pairwise, the upper half onto the lower half
    until one lane is left (4 vector steps for 16 lanes, where a chain over the lanes is 15 dependent scalar
    steps, and kiln's NaN-propagating scalar max is ~10 instructions each). Without ``__builtin_shufflevector``
    (gcc before 12) the same pairs of lanes, as scalars. A sum so combined rounds differently from a chain, as
    cpu-llvm's reassociated sums do; max and min give the same value (a nan if any lane is one)."""
    name, tag, element = c_type_name(v), cstyle.vector_tag(v), v.get_element_type()
    helpers = (f"kiln_{kind}_{tag}", f"kiln_{kind}_{dtype_name(element)}")

    def combine(a: str, b: str) -> str:
        return f"({a} + {b})" if kind == "add" else f"{helpers[1]}({a}, {b})"

    n = v.get_shape()[0]
    steps, half = [], n // 2
    while half >= 1:
        upper = ", ".join(str(half + k % half) for k in range(n))
        shuffled = f"__builtin_shufflevector(v, v, {upper})"
        steps.append(f"  v = v + {shuffled};\n" if kind == "add" else f"  v = {helpers[0]}(v, {shuffled});\n")
        half //= 2
    lanes = [f"v[{k}]" for k in range(n)]
    while len(lanes) > 1:
        half = len(lanes) // 2
        lanes = [combine(lanes[k], lanes[k + half]) for k in range(half)]
    return Piece(
        f"static inline {c_type_name(element)} kiln_reduce_{kind}_{tag}({name} v) {{\n"
        f"#ifdef KILN_HAS_SHUFFLEVECTOR\n{''.join(steps)}  return v[0];\n#else\n  return {lanes[0]};\n#endif\n}}",
        ("KILN_HAS_SHUFFLEVECTOR", name) if kind == "add" else ("KILN_HAS_SHUFFLEVECTOR", *helpers),
    )


_HAS_SHUFFLEVECTOR = """\
#ifdef __has_builtin
#if __has_builtin(__builtin_shufflevector)
#define KILN_HAS_SHUFFLEVECTOR 1
#endif
#endif"""

_VECTORS = """\
#pragma GCC diagnostic ignored "-Wpsabi" /* vectors pass by value only between inlined static helpers */"""


def _int_helpers(t: str) -> dict[str, Piece]:
    """Division, remainder and shifts of one integer type, defined for every operand."""
    c, w = C_TYPES[t], bitwidth(DTYPES[t])
    u = "uint64_t" if w == 64 else "uint32_t"
    signed = not is_unsigned(DTYPES[t])

    def fn(name: str, body: str) -> tuple[str, Piece]:
        return name, Piece(f"static inline {c} {name}({c} a, {c} b) {{ return {body}; }}")

    if signed:
        idiv = f"b == 0 ? 0 : b == -1 ? ({c})(0 - ({u})a) : ({c})(a / b)"
        mod = f"b == 0 || b == -1 ? 0 : ({c})(a % b)"
        shr = f"({u})b >= {w} ? (a < 0 ? -1 : 0) : ({c})(a >> b)"
    else:
        idiv = f"b == 0 ? 0 : ({c})(a / b)"
        mod = f"b == 0 ? 0 : ({c})(a % b)"
        shr = f"({u})b >= {w} ? 0 : ({c})(a >> b)"
    shl = f"({u})b >= {w} ? 0 : ({c})(({u})a << b)"
    return dict(
        (fn(f"kiln_idiv_{t}", idiv), fn(f"kiln_mod_{t}", mod), fn(f"kiln_shl_{t}", shl), fn(f"kiln_shr_{t}", shr))
    )


_LOOP_VECTORIZE = """\
#if defined(__GNUC__) && !defined(__clang__)
#define KILN_LOOP_VECTORIZE __attribute__((optimize("tree-loop-vectorize")))
#else
#define KILN_LOOP_VECTORIZE
#endif"""

PRELUDE: dict[str, Piece] = {
    "KILN_LOOP_VECTORIZE": Piece(_LOOP_VECTORIZE),
    "KILN_HAS_SHUFFLEVECTOR": Piece(_HAS_SHUFFLEVECTOR),
    "kiln_bf16": Piece("typedef uint16_t kiln_bf16; /* bfloat16 bits */"),
    "kiln_f16": Piece(_F16_TYPEDEF),
    "kiln_f64_to_f32_odd": Piece(_F64_TO_F32_ODD),
    "kiln_bf16_to_f32": Piece(_BF16_TO_F32, ("kiln_bf16",)),
    "kiln_f32_to_bf16": Piece(_F32_TO_BF16, ("kiln_bf16",)),
    "kiln_f64_to_bf16": Piece(
        "static inline kiln_bf16 kiln_f64_to_bf16(double x) { return kiln_f32_to_bf16(kiln_f64_to_f32_odd(x)); }",
        ("kiln_f32_to_bf16", "kiln_f64_to_f32_odd"),
    ),
    "kiln_f16_to_f32": Piece(_F16_TO_F32, ("kiln_f16",)),
    "kiln_f32_to_f16": Piece(_F32_TO_F16, ("kiln_f16",)),
    "kiln_f64_to_f16": Piece(_F64_TO_F16, ("kiln_f32_to_f16", "kiln_f64_to_f32_odd")),
    "kiln_f64_to_i64": Piece(_F64_TO_I64),
    "kiln_f64_to_ui64": Piece(_F64_TO_UI64, ("kiln_f64_to_i64",)),
    **_float_helpers(),
    **_vector_pieces(),
    **{name: piece for t in INTEGER_TYPES for name, piece in _int_helpers(t).items()},
}
"""Every prelude definition by name, in an order where each comes after what it needs."""

_LITERAL_MACROS = ("INFINITY", "NAN", "HUGE_VAL")
"""<math.h> macros the emitter prints for infinite and nan literals."""


class _Prelude(Prelude):
    """What the functions printed so far need before them: headers and prelude pieces."""

    def __init__(self) -> None:
        super().__init__(PRELUDE)
        self.headers: set[str] = {"stdint.h"}

    def use_type(self, t: Attribute) -> None:
        if t in cstyle.STORAGE_ONLY or isinstance(t, VectorType):
            self.use(c_type_name(t))

    def use_function(self, f: cstyle.CFunction) -> None:
        if f.header is not None:
            self.headers.add(f.header)
        else:
            self.use(f.name)
        for t in (*f.params, f.result):
            self.use_type(t)

    def render(self) -> str:
        includes = "".join(f"#include <{h}>\n" for h in sorted(self.headers))
        return includes + self.definitions()


# ---------------------------------------------------------------------------------------------
# expressions: text with a C precedence

PRIMARY, UNARY, MUL, ADD, SHIFT, REL, EQ, BAND, BXOR, BOR, LAND, LOR, COND = 16, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3
_PRECEDENCE = {
    "*": MUL, "/": MUL, "%": MUL, "+": ADD, "-": ADD, "<<": SHIFT, ">>": SHIFT,
    "<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ, "&": BAND, "^": BXOR, "|": BOR, "&&": LAND, "||": LOR,
}  # fmt: skip


@dataclass(frozen=True)
class _Expr:
    text: str
    precedence: int


def _wrap(e: _Expr, parenthesize: bool) -> str:
    return f"({e.text})" if parenthesize else e.text


def _binary(operator: str, lhs: _Expr, rhs: _Expr) -> _Expr:
    p = _PRECEDENCE[operator]
    if p in (MUL, ADD):
        left, right = lhs.precedence < p, rhs.precedence <= p
    elif p in (REL, EQ):  # `a + b < c` reads well; `a < b == c` draws -Wparentheses
        left, right = lhs.precedence <= REL, rhs.precedence <= REL
    else:  # shifts, bitwise and logical operators: gcc wants any operator operand parenthesized
        left, right = lhs.precedence < UNARY, rhs.precedence < UNARY
    return _Expr(f"{_wrap(lhs, left)} {operator} {_wrap(rhs, right)}", p)


def _unary(operator: str, operand: _Expr) -> _Expr:
    parenthesize = operand.precedence < UNARY or operand.text.startswith(("-", "+"))
    return _Expr(operator + _wrap(operand, parenthesize), UNARY)


def _conditional(cond: _Expr, a: _Expr, b: _Expr) -> _Expr:
    # clang's -Wparentheses asks for an arithmetic, shift or bitwise condition in parentheses (`(a & b) ? x : y`)
    wrap_cond = cond.precedence <= COND or cond.precedence in (MUL, ADD, SHIFT, BAND, BXOR, BOR)
    return _Expr(f"{_wrap(cond, wrap_cond)} ? {_wrap(a, a.precedence <= COND)} : "
                 f"{_wrap(b, b.precedence <= COND)}", COND)  # fmt: skip


def _literal(value: IntegerAttr | FloatAttr, prelude: _Prelude) -> _Expr:
    t = value.type
    if isinstance(value, FloatAttr):
        x = value.value.data
        if np.isfinite(x):
            text = str(np.float32(x)) + "f" if t == DTYPES["f32"] else repr(float(x))
        else:
            prelude.headers.add("math.h")
            if np.isnan(x):
                text = "NAN" if t == DTYPES["f32"] else "(double)NAN"
            else:
                text = ("-" if x < 0 else "") + ("INFINITY" if t == DTYPES["f32"] else "HUGE_VAL")
        return _Expr(text, UNARY if text.startswith("-") else PRIMARY)
    n = value.value.data
    if dtype_name(t) == "i1":
        return _Expr("1" if n else "0", PRIMARY)
    if -(2**31) <= n < 2**31:
        text = str(n)
    elif n == -(2**63):
        text = "INT64_MIN"
    elif n < 2**32 and is_unsigned(t):
        text = f"{n}u"
    else:
        text = f"UINT64_C({n})" if is_unsigned(t) else f"INT64_C({n})"
    return _Expr(text, UNARY if text.startswith("-") else PRIMARY)


# ---------------------------------------------------------------------------------------------
# functions

_C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if inline int long
    register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
    _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t INT64_C UINT64_C INT64_MIN INT64_MAX
    UINT64_MAX""".split()
)
_RESERVED = _C_KEYWORDS | set(cstyle.LIBRARY) | set(PRELUDE) | set(_LITERAL_MACROS) | {"main"}
_DEFAULT_NAMES = {
    cstyle.LoadOp: "val", cstyle.ReadOp: "cur", cstyle.DeclOp: "acc", cstyle.CastOp: "cast",
    cstyle.BitcastOp: "bits", cstyle.CallOp: "alu", cstyle.BinaryOp: "alu", cstyle.UnaryOp: "alu",
    cstyle.SelectOp: "alu", cstyle.ForOp: "ridx", cstyle.VectorOp: "vec", cstyle.ExtractOp: "lane",
}  # fmt: skip


def _may_change(op: Operation, read: cstyle.LoadOp | cstyle.ReadOp) -> bool:
    """Whether ``read`` could see another value after ``op`` than before it."""
    if isinstance(op, cstyle.ForOp | cstyle.IfOp):
        return True
    if isinstance(read, cstyle.LoadOp):
        return isinstance(op, cstyle.StoreOp)
    return isinstance(op, cstyle.AssignOp) and op.var == read.var


class _Names(Names):
    """C identifiers for one function's values: the IR names made C identifiers (``int`` -> ``int_``)."""

    def identifier(self, hint: str) -> str:
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        if hint[:1].isdigit():
            hint = "v" + hint
        if self._reserved(hint):
            hint += "_"
        return "" if self._reserved(hint) else hint

    @staticmethod
    def _reserved(name: str) -> bool:
        return name in _RESERVED or name.startswith(("kiln_", "__")) or bool(re.match(r"_[A-Z]", name))


class _FunctionPrinter(BodyPrinter):
    """Prints one ``cstyle.func``: plans which values are inlined, names the rest, writes the statements."""

    LANGUAGE, EXPRESSIONS, DEFAULT_NAMES = "C", cstyle.EXPRESSION_OPS, _DEFAULT_NAMES

    def __init__(self, func: cstyle.FuncOp, prelude: _Prelude):
        if func.flavour.data != "c":
            raise error_at(func, f"the C emitter prints flavour 'c' functions, not '{func.flavour.data}'")
        self.func = func
        self.prelude = prelude
        self.names = _Names()
        self.lines: list[str] = []
        self.inline: set[Operation] = set()
        self._plan(func.body.block)

    def render(self) -> str:
        params = []
        for arg in self.func.params:
            params.append(f"{self._declarator(arg.type)}{self.names.define(arg, 'arg')}")
        prefix = ""
        if LOOP_VECTORIZE in self.func.attributes:  # gcc's loop vectorizer for this function (uop-decompose)
            self.prelude.use("KILN_LOOP_VECTORIZE")
            prefix = "KILN_LOOP_VECTORIZE "
        self.lines.append(f"{prefix}void {self.func.sym_name.data}({', '.join(params)}) {{")
        self.lines.extend(f"  (void){self.names[arg]};" for arg in self.func.params if arg.first_use is None)
        self._block(self.func.body.block, 1)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    # -- planning -------------------------------------------------------------------------------

    def _plan(self, block: Block) -> None:
        """Choose the inlined expressions of ``block`` (and of nested blocks): see the module docstring."""
        ops = list(block.ops)
        position = {op: k for k, op in enumerate(ops)}
        printed_at: dict[Operation, Operation] = {}  # inlined op -> the op of this block whose text holds it
        for op in reversed(ops):
            for region in op.regions:
                self._plan(region.block)
            if isinstance(op, cstyle.LiteralOp):
                self.inline.add(op)
                continue
            if not isinstance(op, cstyle.EXPRESSION_OPS) or not op.results[0].has_one_use():
                continue
            user = op.results[0].get_user_of_unique_use()
            assert user is not None
            if user.parent_block() is not block:
                continue
            point = printed_at.get(user, user)
            if isinstance(op, cstyle.LoadOp | cstyle.ReadOp):
                between = ops[position[op] + 1 : position[point]]
                if isinstance(point, cstyle.ForOp) or any(_may_change(o, op) for o in between):
                    continue
            self.inline.add(op)
            printed_at[op] = point
        self._bound_nesting(ops)

    def _bound_nesting(self, ops: list[Operation]) -> None:
        """Name every inlined value that would nest deeper than `MAX_INLINE_DEPTH`: a chain of thousands of
        single-use ops would otherwise be one expression that C compilers reject (clang's bracket depth is 256)
        and the printer would recurse through. Naming a value keeps its meaning: it is computed where it stands,
        which is no later than where its text was printed."""
        depth: dict[Operation, int] = {}
        for op in ops:
            if isinstance(op, cstyle.LiteralOp) or op not in self.inline:
                continue
            d = 1 + max((depth.get(v.owner, 0) for v in op.operands if isinstance(v.owner, Operation)), default=0)
            if d > MAX_INLINE_DEPTH:
                self.inline.discard(op)
            else:
                depth[op] = d

    # -- statements -----------------------------------------------------------------------------

    def _statement(self, op: Operation, depth: int) -> None:
        if isinstance(op, cstyle.StoreOp) and isinstance(op.value.type, VectorType):
            self._line(depth, f"{self._vector_access(op.ptr, op.index, op.value.type)} = {self._text(op.value)};")
        elif op not in self.inline:
            super()._statement(op, depth)

    def _text(self, value: SSAValue) -> str:
        return self._operand(value).text

    def _loop(self, op: cstyle.ForOp) -> str:  # type: ignore[override]
        t = c_type_name(op.counter.type)
        i = self.names.define(op.counter, _DEFAULT_NAMES[cstyle.ForOp])
        lo, hi = self._operand(op.lo), self._operand(op.hi)
        return f"{t} {i} = {lo.text}; {i} < {_wrap(hi, hi.precedence <= REL)}; {i}++"

    def _binding(self, name: str, t: Attribute, value: str, mutable: bool) -> str:
        return f"{self._value_type(t)} {name} = {value};"

    def _expression_text(self, op: Operation) -> str:
        return self._expression(op).text

    # -- expressions ----------------------------------------------------------------------------

    def _operand(self, value: SSAValue) -> _Expr:
        owner = value.owner
        if isinstance(owner, Operation) and owner in self.inline:
            return self._expression(owner)
        return _Expr(self.names[value], PRIMARY)

    def _expression(self, op: Operation) -> _Expr:
        match op:
            case cstyle.LiteralOp():
                return _literal(op.value, self.prelude)  # type: ignore[arg-type]
            case cstyle.BinaryOp():
                lhs = self._operand(op.lhs)
                if _is_int_literal(op.lhs) and (op.operator.data in ("<<", ">>") or _is_int_literal(op.rhs)):
                    lhs = self._typed(lhs, op.lhs.type)  # else C computes in int, whatever the IR type
                return _binary(op.operator.data, lhs, self._operand(op.rhs))
            case cstyle.UnaryOp():
                return _unary(op.operator.data, self._operand(op.operand))
            case cstyle.SelectOp():
                return _conditional(self._operand(op.cond), self._operand(op.lhs), self._operand(op.rhs))
            case cstyle.CastOp():
                operand = self._operand(op.input)
                return _Expr(f"({self._value_type(op.result.type)}){_wrap(operand, operand.precedence < UNARY)}", UNARY)
            case cstyle.BitcastOp():
                return self._bitcast(op)
            case cstyle.CallOp():
                self.prelude.use_function(op.function)
                args = ", ".join(self._operand(a).text for a in op.args)
                return _Expr(f"{op.callee.data}({args})", PRIMARY)
            case cstyle.LoadOp() if isinstance(op.result.type, VectorType):
                t = self._value_type(op.result.type)
                vector = _Expr(f"({t}){self._vector_access(op.ptr, op.index, op.result.type)}", UNARY)
                if op.gate is None:
                    return vector
                return _conditional(self._operand(op.gate), vector, _Expr(f"({t}){{0}}", PRIMARY))
            case cstyle.LoadOp():
                self.prelude.use_type(op.result.type)
                element = _Expr(f"{self.names[op.ptr]}[{self._operand(op.index).text}]", PRIMARY)
                if op.gate is None:
                    return element
                return _conditional(self._operand(op.gate), element, _Expr("0", PRIMARY))
            case cstyle.VectorOp():
                elements = ", ".join(self._operand(e).text for e in op.elements)
                return _Expr(f"({self._value_type(op.result.type)}){{{elements}}}", PRIMARY)
            case cstyle.ExtractOp():
                vector = self._operand(op.vector)
                return _Expr(f"{_wrap(vector, vector.precedence < PRIMARY)}[{op.lane.data}]", PRIMARY)
            case cstyle.ReadOp():
                return _Expr(self.names[op.var], PRIMARY)
        raise error_at(op, f"the C emitter cannot emit {op.name}")

    def _vector_access(self, ptr: SSAValue, index: SSAValue, t: Attribute) -> str:
        """``*(kiln_f32x8_u *)(p + i)``: the vector of consecutive elements from ``p[i]``, of any alignment."""
        const = "const " if isinstance(ptr.type, cstyle.PtrType) and ptr.type.is_const else ""
        offset = self._operand(index)
        address = self.names[ptr] if offset.text == "0" else f"{self.names[ptr]} + {_wrap(offset, offset.precedence <= ADD)}"
        return f"*({const}{self._value_type(t)}_u *)({address})"

    def _typed(self, literal: _Expr, t: Attribute) -> _Expr:
        """An integer literal with the C type of ``t`` (a bare one is an ``int``)."""
        if t == DTYPES["i32"]:
            return literal
        return _Expr(f"({self._value_type(t)}){literal.text}", UNARY)

    def _bitcast(self, op: cstyle.BitcastOp) -> _Expr:
        src, dst = op.input.type, op.result.type
        operand = self._operand(op.input)
        if isinstance(src, VectorType):  # a cast between vector types of one size keeps the bits
            return _Expr(f"({self._value_type(dst)}){_wrap(operand, operand.precedence < UNARY)}", UNARY)
        if not _is_c_integer(src) or not _is_c_integer(dst):  # a float is involved: reinterpret through a union
            union = f"union {{ {self._value_type(src)} from; {self._value_type(dst)} to; }}"
            return _Expr(f"({union}){{ {operand.text} }}.to", PRIMARY)
        return _Expr(f"({self._value_type(dst)}){_wrap(operand, operand.precedence < UNARY)}", UNARY)

    # -- types ----------------------------------------------------------------------------------

    def _value_type(self, t: Attribute) -> str:
        self.prelude.use_type(t)
        return c_type_name(t)

    def _declarator(self, t: Attribute) -> str:
        """The type part of a parameter declaration, ending where the name starts."""
        if isinstance(t, cstyle.PtrType):
            const = "const " if t.is_const else ""
            restrict = "restrict " if t.is_restrict else ""
            return f"{const}{self._value_type(t.element_type)} *{restrict}"
        return self._value_type(t) + " "


def _is_int_literal(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(owner, cstyle.LiteralOp) and isinstance(owner.value, IntegerAttr)


def _is_c_integer(t: Attribute) -> bool:
    """An integer type in C (kiln_bf16 is uint16_t; kiln_f16 may be _Float16)."""
    return not is_float(t) or dtype_name(t) == "bf16"

