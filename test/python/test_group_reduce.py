"""Grouped reductions (``group_reduce`` ranges) in the linearizer: partials in local memory, a barrier, a combine.

Hand-written kernel-level IR in the form the optimizer's ``group``/``grouptop`` opts produce (see
``kiln/lowering/linearize/group.py``) is linearized for webgpu and cuda and

- run by the uop reference interpreter, ``kiln.interpreters.uop`` (workgroups in lockstep from barrier to barrier, which
  also checks that every thread reaches the same barriers) against numpy;
- run end to end on the ``webgpu`` device (lavapipe here) as a ``ProgramSpec`` whose schedule launches the
  kernel, with the sizes the brief names (a 64x1000 row sum);
- lowered to PTX and assembled for every supported sm with nvJitLink (and run where a CUDA GPU exists).

The structure (define_local, barrier, gated store) is checked by test/lowering/kernel_to_uop/group_reduce.mlir.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.types import BufferType, to_numpy
from kiln.compiler.probes import probe_linearizer
from kiln.passes.optimize.heuristic import linearizer_supports
from kiln.compiler.registry import PIPELINES, make_context
from kiln.runtime.devices import device_available, get_device
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.capabilities.description import get_target

from kiln.interpreters.uop import launch

from kernel_ir import count, linearize, ops_of

GPU_TARGETS = ["webgpu", "cuda"]

# ---------------------------------------------------------------------------------------------
# kernels: ROWS is replaced by the number of rows (small for the evaluator, real on the device)

ROW_SUM = """
kernel.kernel @row_sum(%x: !kernel.buffer<ROWSx1000xf32>, %out: !kernel.buffer<ROWSxf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c32 = kernel.const 32 : index
  %c1000 = kernel.const 1000 : index
  %i = kernel.range %rows global
  %k = kernel.range %c32 reduce
  %g = kernel.range %c32 group_reduce
  %k32 = kernel.mul %k, %c32 : index
  %col = kernel.add %k32, %g : index
  %valid = kernel.cmplt %col, %c1000 : index
  %row = kernel.mul %i, %c1000 : index
  %idx = kernel.add %row, %col : index
  %v = kernel.load %x[%idx], %valid : f32
  %s = kernel.reduce add %v over %k, %g : f32
  kernel.store %out[%i], %s
}"""
"""Each of 32 threads sums the columns g, g+32, ... (< 1000) of one row: 1024 points, gated to 1000."""

ROW_MAX = """
kernel.kernel @row_max(%x: !kernel.buffer<ROWSx1000xf32>, %out: !kernel.buffer<ROWSxf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c8 = kernel.const 8 : index
  %c125 = kernel.const 125 : index
  %c1000 = kernel.const 1000 : index
  %i = kernel.range %rows global
  %g = kernel.range %c8 group_reduce
  %k = kernel.range %c125 reduce
  %g125 = kernel.mul %g, %c125 : index
  %col = kernel.add %g125, %k : index
  %row = kernel.mul %i, %c1000 : index
  %idx = kernel.add %row, %col : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %g, %k : f32
  kernel.store %out[%i], %m
}"""
"""A grouptop split: thread g takes the contiguous columns 125g .. 125g+124."""

RMS = """
kernel.kernel @rms(%x: !kernel.buffer<ROWSx256xf32>, %out: !kernel.buffer<ROWSxf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c4 = kernel.const 4 : index
  %c64 = kernel.const 64 : index
  %c256 = kernel.const 256 : index
  %n = kernel.const 256.0 : f32
  %eps = kernel.const 1.0e-06 : f32
  %i = kernel.range %rows global
  %k = kernel.range %c4 reduce
  %g = kernel.range %c64 group_reduce
  %k64 = kernel.mul %k, %c64 : index
  %col = kernel.add %k64, %g : index
  %row = kernel.mul %i, %c256 : index
  %idx = kernel.add %row, %col : index
  %v = kernel.load %x[%idx] : f32
  %sq = kernel.mul %v, %v : f32
  %s = kernel.reduce add %sq over %k, %g : f32
  %mean = kernel.div %s, %n : f32
  %shifted = kernel.add %mean, %eps : f32
  %r = kernel.rsqrt %shifted : f32
  kernel.store %out[%i], %r
}"""
"""The reduce feeds elementwise ops (div, add, rsqrt) before the store."""

SYMBOLIC = """
kernel.kernel @sym_sum(%x: !kernel.buffer<ROWSxNx32xf32>, %out: !kernel.buffer<ROWSxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 4096]>, symbols = ["N"]} {
  %rows = kernel.const ROWS : index
  %c32 = kernel.const 32 : index
  %i = kernel.range %rows global
  %k = kernel.range %N reduce
  %g = kernel.range %c32 group_reduce
  %iN = kernel.mul %i, %N : index
  %ik = kernel.add %iN, %k : index
  %base = kernel.mul %ik, %c32 : index
  %idx = kernel.add %base, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k, %g : f32
  kernel.store %out[%i], %s
}"""
"""A reduce of symbolic length N*32: each thread loops over N."""

UPCAST = """
kernel.kernel @upcast_rows(%x: !kernel.buffer<ROWSx2x64xf32>, %out: !kernel.buffer<ROWSx2xf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %rows global
  %u = kernel.range %c2 upcast
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %i2 = kernel.mul %i, %c2 : index
  %row = kernel.add %i2, %u : index
  %r64 = kernel.mul %row, %c64 : index
  %k16 = kernel.mul %k, %c16 : index
  %a = kernel.add %r64, %k16 : index
  %idx = kernel.add %a, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k, %g : f32
  kernel.store %out[%row], %s
}"""
"""Two rows per workgroup (an upcast lane each): two partials per thread, one barrier."""

MATVEC = """
kernel.kernel @tile(%x: !kernel.buffer<ROWSx64xf32>, %w: !kernel.buffer<64x8xf32>, %out: !kernel.buffer<ROWSx8xf32>)
    attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %rows global
  %jg = kernel.range %c2 global
  %jl = kernel.range %c4 local
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %jg4 = kernel.mul %jg, %c4 : index
  %j = kernel.add %jg4, %jl : index
  %g4 = kernel.mul %g, %c4 : index
  %kk = kernel.add %g4, %k : index
  %i64 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i64, %kk : index
  %k8 = kernel.mul %kk, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k, %g : f32
  %i8 = kernel.mul %i, %c8 : index
  %o = kernel.add %i8, %j : index
  kernel.store %out[%o], %s
}"""
"""A 16x4 workgroup: g (x) splits the reduce, the local range jl (y) picks the output column."""

VARIANCE = """
kernel.kernel @variance(%x: !kernel.buffer<ROWSx64xf32>, %out: !kernel.buffer<ROWSxf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c4 = kernel.const 4 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %n = kernel.const 64.0 : f32
  %i = kernel.range %rows global
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %i64 = kernel.mul %i, %c64 : index
  %k16 = kernel.mul %k, %c16 : index
  %a = kernel.add %i64, %k16 : index
  %idx = kernel.add %a, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k, %g : f32
  %mean = kernel.div %s, %n : f32
  %d = kernel.sub %v, %mean : f32
  %d2 = kernel.mul %d, %d : f32
  %ss = kernel.reduce add %d2 over %k, %g : f32
  %var = kernel.div %ss, %n : f32
  kernel.store %out[%i], %var
}"""
"""A grouped reduce whose value uses another grouped reduce's result (in every thread)."""

LOOPED = """
kernel.kernel @looped(%x: !kernel.buffer<ROWSx3x64xi32>, %out: !kernel.buffer<ROWSx3xi32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %c192 = kernel.const 192 : index
  %i = kernel.range %rows global
  %j = kernel.range %c3 loop
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %i192 = kernel.mul %i, %c192 : index
  %j64 = kernel.mul %j, %c64 : index
  %k16 = kernel.mul %k, %c16 : index
  %a = kernel.add %i192, %j64 : index
  %b = kernel.add %a, %k16 : index
  %idx = kernel.add %b, %g : index
  %v = kernel.load %x[%idx] : i32
  %s = kernel.reduce min %v over %k, %g : i32
  %i3 = kernel.mul %i, %c3 : index
  %o = kernel.add %i3, %j : index
  kernel.store %out[%o], %s
}"""
"""An i32 min inside a sequential loop: the local buffer is reused per iteration (barrier after the combine)."""

MANY_ROWS = """
kernel.kernel @many_rows(%x: !kernel.buffer<Nx16xf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 100000]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %i = kernel.range %N global
  %g = kernel.range %c16 group_reduce
  %i16 = kernel.mul %i, %c16 : index
  %idx = kernel.add %i16, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce max %v over %g : f32
  kernel.store %out[%i], %s
}"""
"""Up to 100000 rows: more workgroups than webgpu's 65535 per grid axis, so the launch overshoots and guards."""


TWO_GROUPS = """
kernel.kernel @two_groups(%x: !kernel.buffer<ROWSx64xf32>, %out: !kernel.buffer<ROWSxf32>) attributes {symbols = []} {
  %rows = kernel.const ROWS : index
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %rows global
  %g1 = kernel.range %c4 group_reduce
  %k = kernel.range %c2 reduce
  %g2 = kernel.range %c8 group_reduce
  %i64 = kernel.mul %i, %c64 : index
  %a = kernel.mul %g1, %c16 : index
  %b = kernel.mul %k, %c8 : index
  %ab = kernel.add %a, %b : index
  %col = kernel.add %ab, %g2 : index
  %idx = kernel.add %i64, %col : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %g1, %k, %g2 : f32
  kernel.store %out[%i], %s
}"""
"""Two group ranges: an 8x4 workgroup reduces one row; the combine loops over both."""


@dataclass(frozen=True)
class Case:
    text: str
    reference: Callable[..., np.ndarray]
    """numpy: the inputs (in argument order, shaped) -> the output."""
    symbols: dict[str, int]
    rows: int = 2
    """Rows for the reference evaluator (the device runs ``device_rows``)."""
    device_rows: int = 64

    def kernel_text(self, rows: int) -> str:
        return self.text.replace("ROWS", str(rows))


def _variance(x: np.ndarray) -> np.ndarray:
    return ((x - x.mean(axis=1, keepdims=True)) ** 2).mean(axis=1)


CASES = {
    "row_sum": Case(ROW_SUM, lambda x: x.sum(axis=1), {}),
    "row_max": Case(ROW_MAX, lambda x: x.max(axis=1), {}),
    "rms": Case(RMS, lambda x: 1 / np.sqrt((x * x).mean(axis=1) + 1e-6), {}),
    "symbolic": Case(SYMBOLIC, lambda x: x.sum(axis=(1, 2)), {"N": 3}),
    "upcast": Case(UPCAST, lambda x: x.sum(axis=2), {}),
    "matvec": Case(MATVEC, lambda x, w: x @ w, {}),
    "variance": Case(VARIANCE, _variance, {}),
    "looped": Case(LOOPED, lambda x: x.min(axis=2), {}),
    "many_rows": Case(MANY_ROWS, lambda x: x.max(axis=1), {"N": 5}),
    "two_groups": Case(TWO_GROUPS, lambda x: x.sum(axis=1), {}),
}


def _kernel_op(text: str) -> K.KernelOp:
    (kernel,) = [op for op in Parser(make_context(), text).parse_module().ops if isinstance(op, K.KernelOp)]
    return kernel


def _inputs(text: str, symbols: dict[str, int], seed: int = 0) -> tuple[list[np.ndarray], tuple[int, ...], np.dtype]:
    """Random inputs for every buffer argument but the last (the output), shaped; and the output's shape and dtype."""
    rng = np.random.default_rng(seed)
    buffers = [a.type for a in _kernel_op(text).args if isinstance(a.type, BufferType)]
    shape = lambda t: tuple(d if isinstance(d, int) else symbols[d] for d in t.shape)  # noqa: E731
    inputs = [(rng.standard_normal(shape(t)) * 8).astype(to_numpy(t.element_type)) for t in buffers[:-1]]
    return inputs, shape(buffers[-1]), to_numpy(buffers[-1].element_type)


TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}
"""Sums combine in another order than numpy's."""


# ---------------------------------------------------------------------------------------------
# the reference evaluator


@pytest.mark.parametrize("target", GPU_TARGETS)
@pytest.mark.parametrize("name", CASES)
def test_grouped_reduce_computes_the_reduce(name: str, target: str) -> None:
    case = CASES[name]
    text = case.kernel_text(case.rows)
    k = linearize(text, target)
    assert count(k, U.BarrierOp) >= 1 and count(k, U.IfOp) == 0
    inputs, out_shape, dtype = _inputs(text, case.symbols)
    out = np.zeros(out_shape, dtype)
    launch(k, [a.reshape(-1) for a in inputs] + [out.reshape(-1)] + list(case.symbols.values()), case.symbols)
    np.testing.assert_allclose(out, case.reference(*inputs), **TOLERANCE)


def test_uop_simplify_keeps_the_meaning() -> None:
    case = CASES["matvec"]
    text = case.kernel_text(case.rows)
    inputs, out_shape, dtype = _inputs(text, {})
    outs = []
    for simplify in (False, True):
        out = np.zeros(out_shape, dtype)
        launch(linearize(text, "webgpu", simplify=simplify), [a.reshape(-1) for a in inputs] + [out.reshape(-1)])
        outs.append(out)
    np.testing.assert_array_equal(*outs)


def test_partials_of_upcast_lanes_share_one_buffer_and_barrier() -> None:
    k = linearize(CASES["upcast"].kernel_text(2), "webgpu")
    (local,) = [op for op in ops_of(k) if isinstance(op, U.DefineLocalOp)]
    assert local.size.value.data == 2 * 16  # two lanes x 16 threads
    assert count(k, U.BarrierOp) == 1
    local_stores = [op for op in ops_of(k) if isinstance(op, U.StoreOp) and op.ptr == local.result]
    barrier = next(op for op in ops_of(k) if isinstance(op, U.BarrierOp))
    assert len(local_stores) == 2 and all(ops_of(k).index(s) < ops_of(k).index(barrier) for s in local_stores)


def test_dependent_grouped_reduces_use_separate_buffers() -> None:
    k = linearize(CASES["variance"].kernel_text(2), "cuda")
    assert count(k, U.DefineLocalOp) == 2 and count(k, U.BarrierOp) == 2


def test_a_grouped_reduce_in_a_loop_waits_before_the_buffer_is_reused() -> None:
    k = linearize(CASES["looped"].kernel_text(2), "webgpu")
    ops = ops_of(k)
    barriers = [n for n, op in enumerate(ops) if isinstance(op, U.BarrierOp)]
    combine_end = max(n for n, op in enumerate(ops) if isinstance(op, U.EndOp) and op.range.name_hint == "g")
    loop_end = next(n for n, op in enumerate(ops) if isinstance(op, U.EndOp) and op.range.name_hint == "j")
    assert len(barriers) == 2 and combine_end < barriers[1] < loop_end


def test_store_is_gated_to_the_first_thread_of_the_group_dimension_only() -> None:
    k = linearize(CASES["matvec"].kernel_text(2), "webgpu")
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp) and not op.ptr.type.local]  # type: ignore[attr-defined]
    gate = store.gate.owner  # the store depends on jl (local_id.y): only local_id.x (g) must be 0
    assert isinstance(gate, U.ALU["cmpeq"])
    assert gate.operands[0].owner.special.data == "local_id.x"  # type: ignore[union-attr]


def test_out_of_range_workgroups_reach_the_barriers_and_write_nothing() -> None:
    k = linearize(MANY_ROWS, "webgpu")
    sizes = [s.data for s in k.attributes["global_size"].data]  # type: ignore[union-attr]
    assert sizes[1] == "ceildiv(N, 65535)"  # two grid axes: the grid overshoots, so there is a guard ...
    assert count(k, U.IfOp) == 0  # ... as gates, not a bracket around the barrier
    (load,) = [op for op in ops_of(k) if isinstance(op, U.LoadOp) and not op.ptr.type.local]  # type: ignore[attr-defined]
    assert load.gate is not None
    x = np.random.default_rng(1).standard_normal((5, 16)).astype(np.float32)
    out = np.full(8, 7.0, np.float32)  # room for rows 5..7, which the extra workgroups must not write
    launch(k, [x.reshape(-1), out, 5], {"N": 5}, grid=(8, 1, 1))
    np.testing.assert_array_equal(out[:5], x.max(axis=1))
    np.testing.assert_array_equal(out[5:], 7.0)


# ---------------------------------------------------------------------------------------------
# errors


WIDE = """
kernel.kernel @wide(%x: !kernel.buffer<32x256xf32>, %out: !kernel.buffer<32xf32>) attributes {symbols = []} {
  %c32 = kernel.const 32 : index
  %c256 = kernel.const 256 : index
  %u = kernel.range %c32 upcast
  %g = kernel.range %c256 group_reduce
  %u256 = kernel.mul %u, %c256 : index
  %idx = kernel.add %u256, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %g : f32
  kernel.store %out[%u], %s
}"""


def test_partials_must_fit_the_targets_local_memory() -> None:
    k = linearize(WIDE, "cuda")  # 32 lanes x 256 threads x 4 bytes = 32 KiB: within cuda's 48 KiB
    assert [op.size.value.data for op in ops_of(k) if isinstance(op, U.DefineLocalOp)] == [32 * 256]
    with pytest.raises(PassFailedException, match="need 32768 bytes of workgroup-local memory .*; target webgpu has 16384"):
        linearize(WIDE, "webgpu")


def test_cpu_targets_reject_group_reduce_ranges() -> None:
    for target in ("cpu-llvm", "cpu-c"):
        with pytest.raises(PassFailedException, match="group_reduce not supported on target .*workgroup-local memory"):
            linearize(CASES["row_sum"].kernel_text(2), target)


def test_the_optimizer_probe_sees_the_support() -> None:
    assert probe_linearizer(get_target("webgpu"), "group_reduce")
    assert probe_linearizer(get_target("cuda"), "group_reduce")
    assert not probe_linearizer(get_target("cpu-llvm"), "group_reduce")


@pytest.mark.parametrize("target", ["cpu-llvm", "cpu-c", "webgpu", "cuda"])
@pytest.mark.parametrize("feature", ["group_reduce", "tensor_core"])
def test_declared_linearizer_features_match_the_linearizer(target: str, feature: str) -> None:
    """The heuristic reads what the linearizer supports from the description; the linearizer must agree."""
    assert linearizer_supports(get_target(target), feature) == probe_linearizer(get_target(target), feature)


# ---------------------------------------------------------------------------------------------
# on the devices: a module whose schedule launches the kernel, lowered from convert-kernel-to-uop on


def program_module(text: str) -> str:
    """``text`` (one kernel.kernel, its last buffer argument the output) and a schedule ``@f`` that allocates
    the output, launches the kernel on its inputs and symbols and returns the output."""
    kernel = _kernel_op(text)
    name = kernel.sym_name.data
    buffers = [a.type for a in kernel.args if isinstance(a.type, BufferType)]
    symbols = [s.data for s in kernel.attributes["symbols"].data]  # type: ignore[union-attr]
    dims = kernel.attributes.get("graph.dims")
    params = ", ".join(f"%a{n}: {t}" for n, t in enumerate(buffers[:-1]))
    args = [f"%a{n}" for n in range(len(buffers) - 1)] + ["%out"] + [f"%{s}" for s in symbols]
    types = [str(t) for t in buffers] + ["index"] * len(symbols)
    lines = [f"func.func @f({params}) -> {buffers[-1]} attributes {{{'graph.dims = ' + str(dims) if dims else ''}}} {{"]
    lines += [f'  %{s} = kernel.symbol "{s}" : index' for s in symbols]
    lines += [
        f"  %out = kernel.alloc {{slot = 0 : i64}} : {buffers[-1]}",
        f"  kernel.launch @{name}({', '.join(args)}) : {', '.join(types)}",
        f"  func.return %out : {buffers[-1]}",
        "}",
    ]
    return text + "\n" + "\n".join(lines) + "\n"


def lower_for(device: str, text: str):  # noqa: ANN201 - a ProgramSpec
    convert = {"webgpu": "convert-uop-to-wgsl", "cuda": "convert-uop-to-ptx"}[device]
    pipeline = f"convert-kernel-to-uop{{target={device}}},uop-simplify,uop-decompose{{target={device}}},{convert}"
    return lower_program(parse_module(program_module(text)), "f", device, pipeline)


def _device_case(name: str) -> tuple[Case, str, list[np.ndarray]]:
    case = CASES[name]
    symbols = {"N": 65537} if name == "many_rows" else case.symbols  # 65537 rows: 2 x 32769 workgroups, 1 beyond
    text = case.kernel_text(case.device_rows)
    inputs, _, _ = _inputs(text, symbols, seed=3)
    return case, text, inputs


@pytest.mark.skipif(not device_available("webgpu"), reason="no webgpu device")
@pytest.mark.parametrize("name", CASES)
def test_runs_on_webgpu(name: str) -> None:
    case, text, inputs = _device_case(name)
    spec = lower_for("webgpu", text)
    assert "workgroupBarrier()" in spec.kernels.source and "var<workgroup>" in spec.kernels.source
    (out,) = get_device("webgpu").load(spec)(*inputs)
    np.testing.assert_allclose(out, case.reference(*inputs), **TOLERANCE)


ROW_SUM_GRAPH = """
func.func @f(%x: !graph.tensor<64x1000xf32>) -> !graph.tensor<64xf32> {
  %r = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (!graph.tensor<64x1000xf32>) -> !graph.tensor<64xf32>
  func.return %r : !graph.tensor<64xf32>
}"""


@pytest.mark.skipif(not device_available("webgpu"), reason="no webgpu device")
@pytest.mark.parametrize("opts", ["padto:1:32,group:0:32", "padto:1:32,grouptop:0:32", "padto:1:64,group:0:16,upcast:0:2"])
def test_the_optimizers_group_opts_run_on_webgpu(opts: str) -> None:
    """The contract from the other side: kernel-optimize's group/grouptop output, linearized and run."""
    lower = "convert-kernel-to-uop{target=webgpu},uop-simplify,uop-decompose{target=webgpu},convert-uop-to-wgsl"
    pipeline = f'{PIPELINES["lower-to-kernel"]},kernel-optimize{{target=webgpu opts="{opts}"}},{lower}'
    spec = lower_program(parse_module(ROW_SUM_GRAPH), "f", "webgpu", pipeline)
    assert "workgroupBarrier()" in spec.kernels.source
    x = np.random.default_rng(5).standard_normal((64, 1000)).astype(np.float32)
    (out,) = get_device("webgpu").load(spec)(x)
    np.testing.assert_allclose(out, x.sum(axis=1), **TOLERANCE)


def _nvjitlink_missing() -> bool:
    try:
        from cuda.bindings import nvjitlink  # noqa: F401
    except ImportError:
        return True
    return False


@pytest.mark.skipif(_nvjitlink_missing(), reason="nvJitLink (cuda-bindings) is not installed")
@pytest.mark.parametrize("name", CASES)
def test_ptx_assembles(name: str) -> None:
    from kiln.targets.ptx.toolchain import validate

    _, text, _ = _device_case(name)
    source = lower_for("cuda", text).kernels.source
    assert "bar.sync 0;" in source and ".shared" in source
    validate(source)


@pytest.mark.skipif(not device_available("cuda"), reason="no CUDA GPU here")
@pytest.mark.parametrize("name", CASES)
def test_runs_on_cuda(name: str) -> None:
    case, text, inputs = _device_case(name)
    (out,) = get_device("cuda").load(lower_for("cuda", text))(*inputs)
    np.testing.assert_allclose(out, case.reference(*inputs), **TOLERANCE)
