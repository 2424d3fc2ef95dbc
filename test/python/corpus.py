"""The shared corpus of graph programs that every backend must run with the interpreter's answers.

Each `Program` is graph IR text plus one or more input sets (several bindings of symbolic dims). Programs
are built from templates so that every elementwise op meets every dtype it accepts, on edge values
(0, -0, inf, nan, integer min/max, zero divisors, out-of-range shift amounts), in as few functions as
possible (one compile covers many ops: the suite stays fast).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np

from kiln.dialects import graph as G
from kiln.dialects.types import to_numpy

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

FLOATS = ("f16", "bf16", "f32", "f64")
SIGNED = ("i8", "i16", "i32", "i64")
UNSIGNED = ("ui8", "ui16", "ui32", "ui64")
INTS = SIGNED + UNSIGNED


@dataclass
class Program:
    name: str
    text: str
    function: str
    runs: list[list[np.ndarray]]
    dtypes: frozenset[str] = frozenset({"f32"})
    """dtypes the program uses: a backend skips programs with a dtype it does not support."""
    rtol: float = 1e-5
    atol: float = 1e-6
    tags: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        # Every dtype the program's types mention counts, including results (argmax's i64, say).
        found = {m.group(1) for m in re.finditer(r"!graph\.tensor<(?:[^>]*x)?(\w+)>", self.text)}
        self.dtypes = frozenset(self.dtypes | found)


def _t(shape: tuple, dt: str) -> str:
    return "!graph.tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def _tol(dt: str, reduce: bool = False) -> tuple[float, float]:
    base = {"f16": (2e-3, 1e-3), "bf16": (2e-2, 1e-2), "f32": (2e-5, 1e-6), "f64": (1e-12, 1e-12)}.get(dt, (0.0, 0.0))
    return (base[0] * 10, base[1] * 10) if reduce else base


def edge_values(dt: str) -> np.ndarray:
    """Values that break careless code generation, in the dtype."""
    npdt = to_numpy(dt)
    if dt == "i1":
        return np.array([False, True, True, False], dtype=npdt)
    if dt in FLOATS:
        v = [0.0, -0.0, 1.0, -1.5, 2.5, -3.75, 0.3, 7.0, 100.0, -0.001, np.inf, -np.inf, np.nan]
        return np.array(v, dtype=np.float64).astype(npdt)
    info = np.iinfo(npdt)
    v = [0, 1, 2, 3, 7, 13, info.max, info.max - 1, 100 % (info.max + 1)]
    if info.min < 0:
        v += [-1, -2, -7, info.min, info.min + 1]
    return np.array(v, dtype=object).astype(npdt)


def _rand(rng: np.random.Generator, shape: tuple, dt: str, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    npdt = to_numpy(dt)
    if dt == "i1":
        return rng.random(shape) < 0.5
    if dt in FLOATS:
        return rng.uniform(lo, hi, shape).astype(npdt)
    info = np.iinfo(npdt)
    return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True).astype(npdt)


def _function(name: str, args: list[tuple[str, str]], body: list[str], results: list[tuple[str, str]], dims: str = "") -> str:
    sig = ", ".join(f"{n}: {t}" for n, t in args)
    res = ", ".join(t for _, t in results)
    attrs = f" attributes {{graph.dims = #graph.dims<{dims}>}}" if dims else ""
    lines = [f"func.func @{name}({sig}) -> ({res}){attrs} {{"]
    lines += [f"  {line}" for line in body]
    lines.append(f"  func.return {', '.join(n for n, _ in results)} : {res}")
    lines.append("}")
    return "\n".join(lines)


def _dtype_class(dt: str) -> str:
    return "bool" if dt == "i1" else "float" if dt in FLOATS else "int"


# ---------------------------------------------------------------------------------------------
# elementwise


DOMAIN = {"exp_nonpositive": "%x_nonpositive"}
"""Unary ops defined on part of the line only, and the operand that keeps the edge values there (-|x|)."""


def unary_programs() -> Iterator[Program]:
    for dt in (*FLOATS, *INTS, "i1"):
        names = [n for n, allowed in G.UNARY.items() if _dtype_class(dt) in allowed]
        if not names:
            continue
        x = edge_values(dt)
        t = _t(x.shape, dt)
        b = _t(x.shape, "i1")
        body = [f"%{n} = graph.{n} {DOMAIN.get(n, '%x')} : " + (f"({t}) -> {b}" if n in G.PREDICATES else t) for n in names]
        if any(n in DOMAIN for n in names):  # the edge values folded into an op's domain
            body[:0] = [f"%x_abs = graph.abs %x : {t}", f"%x_nonpositive = graph.neg %x_abs : {t}"]
        results = [(f"%{n}", b if n in G.PREDICATES else t) for n in names]
        text = _function(f"unary_{dt}", [("%x", t)], body, results)
        rtol, atol = _tol(dt)
        yield Program(f"unary_{dt}", text, f"unary_{dt}", [[x]], frozenset({dt}), rtol * 4, atol * 4, frozenset({"elementwise"}))


def binary_programs() -> Iterator[Program]:
    for dt in (*FLOATS, *INTS, "i1"):
        names = [n for n, allowed in G.BINARY.items() if _dtype_class(dt) in allowed] + list(G.COMPARISONS)
        e = edge_values(dt)
        a, b = e.reshape(-1, 1), e
        ta, tb = _t(a.shape, dt), _t(b.shape, dt)
        out_shape = (e.size, e.size)
        body, results = [], []
        for n in names:
            rt = _t(out_shape, "i1" if n in G.COMPARISONS else dt)
            body.append(f"%{n} = graph.{n} %a, %b : ({ta}, {tb}) -> {rt}")
            results.append((f"%{n}", rt))
        if dt != "i1":
            c = _t(out_shape, "i1")
            body.append(f"%sel = graph.where %lt, %a, %b : ({c}, {ta}, {tb}) -> {_t(out_shape, dt)}")
            results.append(("%sel", _t(out_shape, dt)))
        text = _function(f"binary_{dt}", [("%a", ta), ("%b", tb)], body, results)
        rtol, atol = _tol(dt)
        yield Program(f"binary_{dt}", text, f"binary_{dt}", [[a, b]], frozenset({dt}), rtol * 4, atol * 4, frozenset({"elementwise"}))


def cast_programs(universe: tuple[str, ...] = (*FLOATS, *INTS, "i1"), tag: str = "") -> Iterator[Program]:
    """Every dtype of `universe` to every other (finite, in-range values: out-of-range casts are unspecified)."""
    for src in universe:
        vals = np.array([0, 1, 2, 3, 5, 7, 11, 100], dtype=np.float64)
        x = (vals % 2 == 1) if src == "i1" else vals.astype(to_numpy(src))
        t = _t(x.shape, src)
        body, results = [], []
        for dst in universe:
            if dst != src:
                rt = _t(x.shape, dst)
                body.append(f"%to_{dst} = graph.cast %x : ({t}) -> {rt}")
                results.append((f"%to_{dst}", rt))
        name = f"cast{tag}_{src}"
        text = _function(name, [("%x", t)], body, results)
        yield Program(name, text, name, [[x]], frozenset(universe), 1e-2, 1e-2, frozenset({"elementwise"}))


# ---------------------------------------------------------------------------------------------
# reductions and movement


def reduction_programs() -> Iterator[Program]:
    rng = np.random.default_rng(1)
    shape = (3, 4, 5)
    for dt in ("f32", "i32", "f16", "ui8"):
        x = _rand(rng, shape, dt)
        t = _t(shape, dt)
        body, results = [], []
        ops = ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"] + (["mean"] if dt in FLOATS else [])
        for op in ops:
            for axes in ((0,), (1,), (2,), (0, 2), (0, 1, 2)):
                for keep in (False, True):
                    out = tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)
                    name = f"%{op}_{''.join(map(str, axes))}_{int(keep)}"
                    body.append(
                        f"{name} = graph.{op} %x {{axes = array<i64: {', '.join(map(str, axes))}>, keepdims = {str(keep).lower()}}} : ({t}) -> {_t(out, dt)}"
                    )
                    results.append((name, _t(out, dt)))
        text = _function(f"reduce_{dt}", [("%x", t)], body, results)
        rtol, atol = _tol(dt, reduce=True)
        yield Program(f"reduce_{dt}", text, f"reduce_{dt}", [[x]], frozenset({dt}), max(rtol, 1e-5), max(atol, 1e-5), frozenset({"reduce"}))


def movement_program() -> Program:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    t = _t((2, 3, 4), "f32")
    body = [
        f"%r = graph.reshape %x : ({t}) -> {_t((6, 4), 'f32')}",
        f"%p = graph.permute %x {{perm = array<i64: 2, 0, 1>}} : ({t}) -> {_t((4, 2, 3), 'f32')}",
        f"%pr = graph.reshape %p : ({_t((4, 2, 3), 'f32')}) -> {_t((8, 3), 'f32')}",
        f"%e = graph.expand %r : ({_t((6, 4), 'f32')}) -> {_t((2, 6, 4), 'f32')}",
        f"%pad = graph.pad %x {{low = array<i64: 1, 0, 2>, high = array<i64: 0, 2, 1>, value = -5.0 : f32}} : ({t}) -> {_t((3, 5, 7), 'f32')}",
        f"%sh = graph.shrink %pad {{start = array<i64: 0, 1, 1>, limit = array<i64: 3, 5, 7>, step = array<i64: 2, 1, 3>}} : ({_t((3, 5, 7), 'f32')}) -> {_t((2, 4, 2), 'f32')}",
        f"%fl = graph.flip %pad {{axes = array<i64: 0, 2>}} : ({_t((3, 5, 7), 'f32')}) -> {_t((3, 5, 7), 'f32')}",
        f"%fs = graph.shrink %fl {{start = array<i64: 1, 0, 0>, limit = array<i64: 3, 5, 7>}} : ({_t((3, 5, 7), 'f32')}) -> {_t((2, 5, 7), 'f32')}",
        f"%pt = graph.permute %fs {{perm = array<i64: 2, 1, 0>}} : ({_t((2, 5, 7), 'f32')}) -> {_t((7, 5, 2), 'f32')}",
        f"%cc = graph.concat %x, %x, %x {{axis = 1 : i64}} : ({t}, {t}, {t}) -> {_t((2, 9, 4), 'f32')}",
        f"%ccf = graph.flip %cc {{axes = array<i64: 1>}} : ({_t((2, 9, 4), 'f32')}) -> {_t((2, 9, 4), 'f32')}",
        f"%tr = graph.permute %x {{perm = array<i64: 0, 2, 1>}} : ({t}) -> {_t((2, 4, 3), 'f32')}",
        f"%trs = graph.reduce_sum %tr {{axes = array<i64: 1>}} : ({_t((2, 4, 3), 'f32')}) -> {_t((2, 3), 'f32')}",
        f"%pr2 = graph.reshape %pt : ({_t((7, 5, 2), 'f32')}) -> {_t((70,), 'f32')}",
        f"%pr3 = graph.shrink %pr2 {{start = array<i64: 3>, limit = array<i64: 70>, step = array<i64: 7>}} : ({_t((70,), 'f32')}) -> {_t((10,), 'f32')}",
    ]
    results = [("%r", _t((6, 4), "f32")), ("%pr", _t((8, 3), "f32")), ("%e", _t((2, 6, 4), "f32")),
               ("%sh", _t((2, 4, 2), "f32")), ("%pt", _t((7, 5, 2), "f32")), ("%ccf", _t((2, 9, 4), "f32")),
               ("%trs", _t((2, 3), "f32")), ("%pr3", _t((10,), "f32"))]
    text = _function("movement", [("%x", t)], body, results)
    return Program("movement", text, "movement", [[x]], tags=frozenset({"movement"}))


# ---------------------------------------------------------------------------------------------
# composites and models


def _single(name: str, op_text: str, args: list[tuple[str, np.ndarray, str]], rtype: str, dims: str = "",
            runs: list[list[np.ndarray]] | None = None, rtol: float = 1e-4, atol: float = 1e-5) -> Program:
    sig = [(n, t) for n, _, t in args]
    text = _function(name, sig, [f"%r = {op_text}"], [("%r", rtype)], dims)
    return Program(name, text, name, runs or [[a for _, a, _ in args]], rtol=rtol, atol=atol, tags=frozenset({"composite"}))


def composite_programs() -> Iterator[Program]:
    rng = np.random.default_rng(3)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    for (m, k, n) in ((17, 33, 65), (1, 8, 1), (16, 16, 16), (9, 24, 10)):  # 10 columns: 2 x 8 lanes, shifted
        a, b = f(m, k), f(k, n)
        yield _single(f"matmul_{m}x{k}x{n}", f"graph.matmul %a, %b : ({_t((m, k), 'f32')}, {_t((k, n), 'f32')}) -> {_t((m, n), 'f32')}",
                      [("%a", a, _t((m, k), "f32")), ("%b", b, _t((k, n), "f32"))], _t((m, n), "f32"))
    a, b = f(2, 1, 5, 3), f(4, 3, 6)
    yield _single("matmul_batched", f"graph.matmul %a, %b : ({_t((2, 1, 5, 3), 'f32')}, {_t((4, 3, 6), 'f32')}) -> {_t((2, 4, 5, 6), 'f32')}",
                  [("%a", a, _t((2, 1, 5, 3), "f32")), ("%b", b, _t((4, 3, 6), "f32"))], _t((2, 4, 5, 6), "f32"))
    v = f(3)
    yield _single("matmul_vec", f"graph.matmul %a, %v : ({_t((2, 1, 5, 3), 'f32')}, {_t((3,), 'f32')}) -> {_t((2, 1, 5), 'f32')}",
                  [("%a", a, _t((2, 1, 5, 3), "f32")), ("%v", v, _t((3,), "f32"))], _t((2, 1, 5), "f32"))
    yield matvec_program()
    x = f(4, 7) * 3
    for op in ("softmax", "log_softmax", "cumsum"):
        for axis in (0, 1):
            yield _single(f"{op}_{axis}", f"graph.{op} %x {{axis = {axis} : i64}} : ({_t((4, 7), 'f32')}) -> {_t((4, 7), 'f32')}",
                          [("%x", x, _t((4, 7), "f32"))], _t((4, 7), "f32"))
    g, bb = f(7), f(7)
    yield _single("layernorm", f"graph.layernorm %x affine(%g, %b) {{axes = array<i64: 1>}} : ({_t((4, 7), 'f32')}, {_t((7,), 'f32')}, {_t((7,), 'f32')}) -> {_t((4, 7), 'f32')}",
                  [("%x", x, _t((4, 7), "f32")), ("%g", g, _t((7,), "f32")), ("%b", bb, _t((7,), "f32"))], _t((4, 7), "f32"))
    img = f(2, 4, 9, 9)
    for name, w_shape, attrs, out in (
        ("conv_basic", (6, 4, 3, 3), "", (2, 6, 7, 7)),
        ("conv_stride_pad", (6, 4, 3, 3), "{padding = array<i64: 1, 2>, stride = array<i64: 2, 2>}", (2, 6, 5, 6)),
        ("conv_dilated_grouped", (6, 2, 3, 3), "{dilation = array<i64: 2, 2>, groups = 2 : i64}", (2, 6, 5, 5)),
        ("conv_pointwise", (6, 4, 1, 1), "", (2, 6, 9, 9)),
        ("conv_pointwise_strided", (6, 4, 1, 1), "{stride = array<i64: 2, 2>}", (2, 6, 5, 5)),
        ("conv_pad_dilated", (6, 4, 3, 3), "{padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>}", (2, 6, 9, 9)),
        ("conv_depthwise", (4, 1, 3, 3), "{padding = array<i64: 1, 1>, groups = 4 : i64}", (2, 4, 9, 9)),
    ):
        w = f(*w_shape)
        yield _single(name, f"graph.conv2d %x, %w {attrs} : ({_t(img.shape, 'f32')}, {_t(w_shape, 'f32')}) -> {_t(out, 'f32')}",
                      [("%x", img, _t(img.shape, "f32")), ("%w", w, _t(w_shape, "f32"))], _t(out, "f32"))
    yield conv_block_program(rng)
    yield vgg_block_program(rng)
    for op in ("max_pool2d", "avg_pool2d"):
        yield _single(op, f"graph.{op} %x {{kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}} : ({_t(img.shape, 'f32')}) -> {_t((2, 4, 5, 5), 'f32')}",
                      [("%x", img, _t(img.shape, "f32"))], _t((2, 4, 5, 5), "f32"))
    idx = rng.integers(0, 7, (4, 5)).astype(np.int32)
    yield _single("gather", f"graph.gather %x, %i {{axis = 1 : i64}} : ({_t((4, 7), 'f32')}, {_t((4, 5), 'i32')}) -> {_t((4, 5), 'f32')}",
                  [("%x", x, _t((4, 7), "f32")), ("%i", idx, _t((4, 5), "i32"))], _t((4, 5), "f32"))
    yield _single("argmax", f"graph.argmax %x {{axis = 1 : i64}} : ({_t((4, 7), 'f32')}) -> {_t((4,), 'i64')}",
                  [("%x", x, _t((4, 7), "f32"))], _t((4,), "i64"))
    yield _single("argmin_keep", f"graph.argmin %x {{axis = 0 : i64, keepdims = true}} : ({_t((4, 7), 'f32')}) -> {_t((1, 7), 'i32')}",
                  [("%x", x, _t((4, 7), "f32"))], _t((1, 7), "i32"))


def matvec_program() -> Program:
    """A network's last layer, y = x W^T with one row of x and W row-major: the CPU register tile for one
    reuse axis and no vector axis (vector partial sums along k, the rows sharing x's vector)."""
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((1, 64)).astype(np.float32), rng.standard_normal((40, 64)).astype(np.float32)
    tx, tw, twt, ty = _t((1, 64), "f32"), _t((40, 64), "f32"), _t((64, 40), "f32"), _t((1, 40), "f32")
    body = [f"%wt = graph.permute %w {{perm = array<i64: 1, 0>}} : ({tw}) -> {twt}",
            f"%y = graph.matmul %x, %wt : ({tx}, {twt}) -> {ty}"]
    text = _function("matmul_bt_vec", [("%x", tx), ("%w", tw)], body, [("%y", ty)])
    return Program("matmul_bt_vec", text, "matmul_bt_vec", [[x, w]], rtol=1e-4, atol=1e-5, tags=frozenset({"composite"}))


def conv_block_program(rng: np.random.Generator) -> Program:
    """A residual block as a network has it: conv 3x3 + bias + relu, then conv 3x3 + bias + the block's input +
    relu (the bias, relu and residual add fuse into the convolutions' output kernels), and a 7x7/2 stem conv
    large enough that graph-pack-matmul packs its im2col (16*49 x 32*32 f32, 3.2 MB) on CPUs, then as in ResNet
    relu, max pool 3x3/2 (its computed input and its result before the 1x1 conv realized plain) and a 1x1 conv."""
    x, stem_in = rng.standard_normal((1, 8, 10, 10)), rng.standard_normal((1, 16, 64, 64))
    w1, w2, stem_w = (rng.standard_normal(s) * 0.2 for s in ((8, 8, 3, 3), (8, 8, 3, 3), (64, 16, 7, 7)))
    pool_w = rng.standard_normal((16, 64, 1, 1)) * 0.2
    b1, b2 = rng.standard_normal(8), rng.standard_normal(8)
    tx, tw, tb = _t((1, 8, 10, 10), "f32"), _t((8, 8, 3, 3), "f32"), _t((8,), "f32")
    ts, tsw, tso = _t((1, 16, 64, 64), "f32"), _t((64, 16, 7, 7), "f32"), _t((1, 64, 32, 32), "f32")
    tmp, tpw, tpc = _t((1, 64, 16, 16), "f32"), _t((16, 64, 1, 1), "f32"), _t((1, 16, 16, 16), "f32")
    pad = "{padding = array<i64: 1, 1>}"
    body = [
        f"%c1 = graph.conv2d %x, %w1 bias %b1 {pad} : ({tx}, {tw}, {tb}) -> {tx}",
        f"%r1 = graph.relu %c1 : {tx}",
        f"%c2 = graph.conv2d %r1, %w2 bias %b2 {pad} : ({tx}, {tw}, {tb}) -> {tx}",
        f"%s = graph.add %c2, %x : ({tx}, {tx}) -> {tx}",
        f"%y = graph.relu %s : {tx}",
        f"%stem = graph.conv2d %si, %sw {{padding = array<i64: 3, 3>, stride = array<i64: 2, 2>}} : ({ts}, {tsw}) -> {tso}",
        f"%sr = graph.relu %stem : {tso}",
        f"%mp = graph.max_pool2d %sr {{kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}} : ({tso}) -> {tmp}",
        f"%pc = graph.conv2d %mp, %pw : ({tmp}, {tpw}) -> {tpc}",
    ]
    args = [("%x", tx), ("%w1", tw), ("%b1", tb), ("%w2", tw), ("%b2", tb), ("%si", ts), ("%sw", tsw), ("%pw", tpw)]
    text = _function("conv_block", args, body, [("%y", tx), ("%stem", tso), ("%pc", tpc)])
    inputs = [a.astype(np.float32) for a in (x, w1, b1, w2, b2, stem_in, stem_w, pool_w)]
    return Program("conv_block", text, "conv_block", [inputs], rtol=1e-4, atol=1e-4, tags=frozenset({"composite"}))


def vgg_block_program(rng: np.random.Generator) -> Program:
    """VGG's layers: two 3x3 convs, each + bias + relu, then a 2x2 max pool. On CPUs the 58-column rows take the
    flat direct form (graph-conv-to-matmul): each conv's points are its padded input's rows read as one axis,
    the second conv's padded copy reads the first one's sliced output and relu."""
    x = rng.standard_normal((1, 4, 6, 58))
    w1, w2 = rng.standard_normal((8, 4, 3, 3)) * 0.3, rng.standard_normal((8, 8, 3, 3)) * 0.3
    b1, b2 = rng.standard_normal(8), rng.standard_normal(8)
    tx, ty, tp = _t((1, 4, 6, 58), "f32"), _t((1, 8, 6, 58), "f32"), _t((1, 8, 3, 29), "f32")
    tw1, tw2, tb = _t((8, 4, 3, 3), "f32"), _t((8, 8, 3, 3), "f32"), _t((8,), "f32")
    pad = "{padding = array<i64: 1, 1>}"
    body = [
        f"%c1 = graph.conv2d %x, %w1 bias %b1 {pad} : ({tx}, {tw1}, {tb}) -> {ty}",
        f"%r1 = graph.relu %c1 : {ty}",
        f"%c2 = graph.conv2d %r1, %w2 bias %b2 {pad} : ({ty}, {tw2}, {tb}) -> {ty}",
        f"%r2 = graph.relu %c2 : {ty}",
        f"%y = graph.max_pool2d %r2 {{kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>}} : ({ty}) -> {tp}",
    ]
    args = [("%x", tx), ("%w1", tw1), ("%b1", tb), ("%w2", tw2), ("%b2", tb)]
    text = _function("vgg_block", args, body, [("%y", tp)])
    inputs = [a.astype(np.float32) for a in (x, w1, b1, w2, b2)]
    return Program("vgg_block", text, "vgg_block", [inputs], rtol=1e-4, atol=1e-4, tags=frozenset({"composite"}))


def long_reduction_programs() -> Iterator[Program]:
    """Reductions long enough that the GPU heuristic splits them across a workgroup (group_reduce: local memory
    and barriers), followed by elementwise work on the reduced value."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((8, 1024)).astype(np.float32)
    t, r = _t((8, 1024), "f32"), _t((8,), "f32")
    body = [
        f"%s = graph.reduce_sum %x {{axes = array<i64: 1>}} : ({t}) -> {r}",
        f"%m = graph.reduce_max %x {{axes = array<i64: 1>}} : ({t}) -> {r}",
        f"%d = graph.sub %s, %m : ({r}, {r}) -> {r}",
    ]
    text = _function("long_reduce", [("%x", t)], body, [("%d", r), ("%m", r)])
    yield Program("long_reduce", text, "long_reduce", [[x]], rtol=1e-4, atol=1e-4, tags=frozenset({"reduce"}))


def symbolic_programs() -> Iterator[Program]:
    rng = np.random.default_rng(4)
    runs = [[rng.standard_normal((n, 6)).astype(np.float32), rng.standard_normal((6,)).astype(np.float32)] for n in (1, 5, 33)]
    tx, tb = _t(("N", 6), "f32"), _t((6,), "f32")
    body = [
        f"%s = graph.add %x, %b : ({tx}, {tb}) -> {tx}",
        f"%m = graph.reduce_max %s {{axes = array<i64: 1>, keepdims = true}} : ({tx}) -> {_t(('N', 1), 'f32')}",
        f"%d = graph.sub %s, %m : ({tx}, {_t(('N', 1), 'f32')}) -> {tx}",
        f"%t = graph.permute %d {{perm = array<i64: 1, 0>}} : ({tx}) -> {_t((6, 'N'), 'f32')}",
        f"%c = graph.reduce_sum %t {{axes = array<i64: 1>}} : ({_t((6, 'N'), 'f32')}) -> {tb}",
    ]
    text = _function("symbolic", [("%x", tx), ("%b", tb)], body, [("%d", tx), ("%c", tb)], "N = [1, 64]")
    yield Program("symbolic", text, "symbolic", runs, rtol=1e-4, atol=1e-5, tags=frozenset({"symbolic"}))


def row_chain_programs() -> Iterator[Program]:
    """Reductions broadcast back into their consumer, which CPU targets fuse into one kernel when only inner
    loops are broadcast: a mean without keepdims reshaped back, a variance that uses it, a max over two axes;
    a max broadcast along the middle axis (realized) and a sum that is also a result."""
    rng = np.random.default_rng(7)
    runs = [[rng.standard_normal((n, 8, 6)).astype(np.float32)] for n in (1, 3)]
    tx, t2, t3 = _t(("N", 8, 6), "f32"), _t(("N", 8), "f32"), _t(("N", 8, 1), "f32")
    body = [
        f"%s = graph.reduce_sum %x {{axes = array<i64: 2>}} : ({tx}) -> {t2}",
        f"%sk = graph.reshape %s : ({t2}) -> {t3}",
        f"%n = graph.constant 6.000000e+00 : f32 : {_t((), 'f32')}",
        f"%mean = graph.div %sk, %n : ({t3}, {_t((), 'f32')}) -> {t3}",
        f"%c = graph.sub %x, %mean : ({tx}, {t3}) -> {tx}",
        f"%sq = graph.mul %c, %c : ({tx}, {tx}) -> {tx}",
        f"%v = graph.mean %sq {{axes = array<i64: 2>, keepdims = true}} : ({tx}) -> {t3}",
        f"%r = graph.rsqrt %v : {t3}",
        f"%y = graph.mul %c, %r : ({tx}, {t3}) -> {tx}",
        f"%mx = graph.reduce_max %x {{axes = array<i64: 1, 2>, keepdims = true}} : ({tx}) -> {_t(('N', 1, 1), 'f32')}",
        f"%cm = graph.reduce_max %x {{axes = array<i64: 1>, keepdims = true}} : ({tx}) -> {_t(('N', 1, 6), 'f32')}",
        f"%a = graph.sub %y, %mx : ({tx}, {_t(('N', 1, 1), 'f32')}) -> {tx}",
        f"%o = graph.add %a, %cm : ({tx}, {_t(('N', 1, 6), 'f32')}) -> {tx}",
    ]
    text = _function("row_chains", [("%x", tx)], body, [("%o", tx), ("%s", t2)], "N = [1, 16]")
    yield Program("row_chains", text, "row_chains", runs, rtol=1e-4, atol=1e-5, tags=frozenset({"reduce"}))


def concat_programs() -> Iterator[Program]:
    """A DenseNet block (each layer reads the growing concat through scale + relu; a function result is a concat)
    and a SqueezeNet fire module (two relu(conv + b) pieces): concats kept in place where the kernels allow."""
    rng = np.random.default_rng(6)
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)  # noqa: E731
    t = lambda *s: _t(s, "f32")  # noqa: E731
    body = [
        f"%x0 = graph.conv2d %x, %w0 : ({t(1, 3, 8, 8)}, {t(4, 3, 1, 1)}) -> {t(1, 4, 8, 8)}",
        f"%m1 = graph.mul %x0, %s1 : ({t(1, 4, 8, 8)}, {t(4, 1, 1)}) -> {t(1, 4, 8, 8)}",
        f"%a1 = graph.relu %m1 : {t(1, 4, 8, 8)}",
        f"%n1 = graph.conv2d %a1, %w1 {{padding = array<i64: 1, 1>}} : ({t(1, 4, 8, 8)}, {t(4, 4, 3, 3)}) -> {t(1, 4, 8, 8)}",
        f"%c1 = graph.concat %x0, %n1 {{axis = 1 : i64}} : ({t(1, 4, 8, 8)}, {t(1, 4, 8, 8)}) -> {t(1, 8, 8, 8)}",
        f"%m2 = graph.mul %c1, %s2 : ({t(1, 8, 8, 8)}, {t(8, 1, 1)}) -> {t(1, 8, 8, 8)}",
        f"%a2 = graph.relu %m2 : {t(1, 8, 8, 8)}",
        f"%n2 = graph.conv2d %a2, %w2 {{padding = array<i64: 1, 1>}} : ({t(1, 8, 8, 8)}, {t(4, 8, 3, 3)}) -> {t(1, 4, 8, 8)}",
        f"%c2 = graph.concat %x0, %n1, %n2 {{axis = 1 : i64}} : ({t(1, 4, 8, 8)}, {t(1, 4, 8, 8)}, {t(1, 4, 8, 8)}) -> {t(1, 12, 8, 8)}",
        f"%a3 = graph.relu %c2 : {t(1, 12, 8, 8)}",
        f"%sq = graph.conv2d %a3, %w3 : ({t(1, 12, 8, 8)}, {t(2, 12, 1, 1)}) -> {t(1, 2, 8, 8)}",
        f"%e1 = graph.conv2d %sq, %we1 bias %be1 : ({t(1, 2, 8, 8)}, {t(3, 2, 1, 1)}, {t(3)}) -> {t(1, 3, 8, 8)}",
        f"%r1 = graph.relu %e1 : {t(1, 3, 8, 8)}",
        f"%e3 = graph.conv2d %sq, %we3 bias %be3 {{padding = array<i64: 1, 1>}} : ({t(1, 2, 8, 8)}, {t(5, 2, 3, 3)}, {t(5)}) -> {t(1, 5, 8, 8)}",
        f"%r3 = graph.relu %e3 : {t(1, 5, 8, 8)}",
        f"%fire = graph.concat %r1, %r3 {{axis = 1 : i64}} : ({t(1, 3, 8, 8)}, {t(1, 5, 8, 8)}) -> {t(1, 8, 8, 8)}",
        f"%out = graph.neg %fire : {t(1, 8, 8, 8)}",
        # a conv output padded along its points (as for matmul panels), stored in place as its leading slice
        f"%q = graph.conv2d %x, %w0 : ({t(1, 3, 8, 8)}, {t(4, 3, 1, 1)}) -> {t(1, 4, 8, 8)}",
        f"%qf = graph.reshape %q : ({t(1, 4, 8, 8)}) -> {t(1, 4, 64)}",
        f"%qp = graph.pad %qf {{low = array<i64: 0, 0, 0>, high = array<i64: 0, 0, 6>, value = 0.0 : f32}} : ({t(1, 4, 64)}) -> {t(1, 4, 70)}",
        f"%qc = graph.contiguous %qp : {t(1, 4, 70)}",
        f"%qs = graph.shrink %qc {{start = array<i64: 0, 0, 0>, limit = array<i64: 1, 4, 64>}} : ({t(1, 4, 70)}) -> {t(1, 4, 64)}",
        f"%qr = graph.reshape %qs : ({t(1, 4, 64)}) -> {t(1, 4, 8, 8)}",
        f"%c3 = graph.concat %fire, %qr {{axis = 1 : i64}} : ({t(1, 8, 8, 8)}, {t(1, 4, 8, 8)}) -> {t(1, 12, 8, 8)}",
        f"%out3 = graph.neg %c3 : {t(1, 12, 8, 8)}",
    ]
    args = [("%x", (1, 3, 8, 8)), ("%w0", (4, 3, 1, 1)), ("%s1", (4, 1, 1)), ("%w1", (4, 4, 3, 3)), ("%s2", (8, 1, 1)),
            ("%w2", (4, 8, 3, 3)), ("%w3", (2, 12, 1, 1)), ("%we1", (3, 2, 1, 1)), ("%be1", (3,)),
            ("%we3", (5, 2, 3, 3)), ("%be3", (5,))]
    text = _function("concat_in_place", [(n, t(*s)) for n, s in args], body,
                     [("%out", t(1, 8, 8, 8)), ("%c2", t(1, 12, 8, 8)), ("%out3", t(1, 12, 8, 8))])
    yield Program("concat_in_place", text, "concat_in_place", [[f(*s) for _, s in args]], rtol=1e-4, atol=1e-4,
                  tags=frozenset({"movement"}))


def shuffle_unit_program() -> Program:
    """A ShuffleNet unit (grouped 1x1 conv + bias + relu, channel shuffle, depthwise 3x3 + bias, grouped 1x1 +
    the unit's input + relu) and a max pool read by a 1x1 conv: reductions read through reshapes that merge
    their rows (`merged reduce`), the depthwise conv's into the next conv's (panel-padded) columns."""
    rng = np.random.default_rng(7)
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)  # noqa: E731
    t = lambda *s: _t(s, "f32")  # noqa: E731
    x, g1, d = t(1, 8, 14, 14), t(1, 2, 4, 14, 14), t(1, 4, 2, 14, 14)
    body = [
        f"%c1 = graph.conv2d %x, %w1 bias %b1 {{groups = 2 : i64}} : ({x}, {t(8, 4, 1, 1)}, {t(8)}) -> {x}",
        f"%r1 = graph.relu %c1 : {x}",
        f"%g = graph.reshape %r1 : ({x}) -> {g1}",
        f"%gp = graph.permute %g {{perm = array<i64: 0, 2, 1, 3, 4>}} : ({g1}) -> {d}",
        f"%sh = graph.reshape %gp : ({d}) -> {x}",
        f"%dw = graph.conv2d %sh, %wd bias %bd {{padding = array<i64: 1, 1>, groups = 8 : i64}} : ({x}, {t(8, 1, 3, 3)}, {t(8)}) -> {x}",
        f"%c2 = graph.conv2d %dw, %w2 bias %b2 {{groups = 2 : i64}} : ({x}, {t(8, 4, 1, 1)}, {t(8)}) -> {x}",
        f"%s = graph.add %c2, %x : ({x}, {x}) -> {x}",
        f"%y = graph.relu %s : {x}",
        f"%mp = graph.max_pool2d %y {{kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>}} : ({x}) -> {t(1, 8, 7, 7)}",
        f"%z = graph.conv2d %mp, %w3 : ({t(1, 8, 7, 7)}, {t(6, 8, 1, 1)}) -> {t(1, 6, 7, 7)}",
    ]
    args = [("%x", (1, 8, 14, 14)), ("%w1", (8, 4, 1, 1)), ("%b1", (8,)), ("%wd", (8, 1, 3, 3)), ("%bd", (8,)),
            ("%w2", (8, 4, 1, 1)), ("%b2", (8,)), ("%w3", (6, 8, 1, 1))]
    text = _function("shuffle_unit", [(n, t(*s)) for n, s in args], body, [("%y", x), ("%z", t(1, 6, 7, 7))])
    return Program("shuffle_unit", text, "shuffle_unit", [[f(*s) for _, s in args]], rtol=1e-4, atol=1e-4,
                   tags=frozenset({"composite"}))


def example_programs() -> Iterator[Program]:
    rng = np.random.default_rng(5)
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)  # noqa: E731
    yield Program("example_mlp", (EXAMPLES / "mlp.mlir").read_text(), "mlp",
                  [[f(n, 64), f(64, 128), f(128), f(128, 10), f(10)] for n in (1, 7)], rtol=1e-4, atol=1e-4)
    yield Program("example_softmax", (EXAMPLES / "softmax.mlir").read_text(), "softmax", [[f(3, 256)]], rtol=1e-4, atol=1e-6)
    yield Program("example_layernorm", (EXAMPLES / "layernorm.mlir").read_text(), "layernorm",
                  [[f(2, 512), f(512), f(512)]], rtol=1e-4, atol=1e-4)
    yield Program("example_convnet", (EXAMPLES / "convnet.mlir").read_text(), "convnet",
                  [[f(2, 3, 16, 16), f(8, 3, 3, 3), f(8), f(4, 8, 1, 1)]], rtol=1e-4, atol=1e-4)
    yield Program("example_attention", (EXAMPLES / "attention.mlir").read_text(), "attention",
                  [[f(s, 64), f(s, 64), f(s, 64)] for s in (3, 16)], rtol=1e-4, atol=1e-4)


def all_programs() -> list[Program]:
    return [
        *unary_programs(), *binary_programs(), *cast_programs(), *cast_programs(("f32", "i32", "ui32", "i1"), "32"),
        *reduction_programs(), movement_program(),
        *composite_programs(), *long_reduction_programs(), *row_chain_programs(), *symbolic_programs(),
        *concat_programs(), shuffle_unit_program(), *example_programs(),
    ]


def assert_same(got: np.ndarray, want: np.ndarray, rtol: float, atol: float, what: str) -> None:
    """Equal dtype and shape; floats equal within tolerance with NaN where the reference has NaN."""
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind == "f" or want.dtype == np.dtype(ml_dtypes.bfloat16):
        g, w = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)
