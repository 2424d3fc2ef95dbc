"""convert-kernel-to-uop: the structure of linearized kernels, and their meaning.

Meaning is checked by running the ``uop.kernel`` with the uop reference interpreter (``kiln.interpreters.uop``)
against numpy, on the CPU mapping split across "threads" and on the GPU mappings by running every workgroup
of the launch, its threads in lockstep from barrier to barrier with shared local memory.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, VectorType
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp, is_vector
from kiln.dialects.types import BufferType, numel, to_numpy
from kiln.lowering.kernel_to_uop import ConvertKernelToUop
from kiln.compiler.registry import make_context
from kiln.interpreters.uop import launch

from kernel_ir import PAD, count, linearize, ops_of

# ---------------------------------------------------------------------------------------------
# helpers


def depth_of(kernel: U.UopKernelOp) -> dict[Operation, int]:
    """How many brackets enclose each op."""
    depth, out = 0, {}
    for op in ops_of(kernel):
        if isinstance(op, U.EndOp | U.EndIfOp):
            depth -= 1
        out[op] = depth
        if isinstance(op, U.RangeOp | U.IfOp):
            depth += 1
    return out


def defining(kernel: U.UopKernelOp, name: str) -> Operation:
    (op,) = [op for op in ops_of(kernel) if op.results and op.results[0].name_hint == name]
    return op


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# kernels

ELEMENTWISE = """
kernel.kernel @add_bias(%x: !kernel.buffer<Nx8xf32>, %b: !kernel.buffer<8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %j : index
  %xi = kernel.load %x[%idx] : f32
  %bj = kernel.load %b[%j] : f32
  %s = kernel.add %xi, %bj : f32
  %e = kernel.exp %s : f32
  kernel.store %out[%idx], %e
}
"""

MATMUL = """
kernel.kernel @dense(%x: !kernel.buffer<Nx16xf32>, %w: !kernel.buffer<16x8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c16 reduce
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %zero = kernel.const 0.0 : f32
  %r = kernel.max %s, %zero : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %r
}
"""

SOFTMAX = """
kernel.kernel @softmax(%x: !kernel.buffer<Nx8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c8 reduce
  %i8 = kernel.mul %i, %c8 : index
  %ik = kernel.add %i8, %k : index
  %xk = kernel.load %x[%ik] : f32
  %m = kernel.reduce max %xk over %k : f32
  %d = kernel.sub %xk, %m : f32
  %e = kernel.exp %d : f32
  %s = kernel.reduce add %e over %k : f32
  %ij = kernel.add %i8, %j : index
  %xj = kernel.load %x[%ij] : f32
  %dj = kernel.sub %xj, %m : f32
  %ej = kernel.exp %dj : f32
  %r = kernel.div %ej, %s : f32
  kernel.store %out[%ij], %r
}
"""

NESTED = """
kernel.kernel @sum_of_max(%x: !kernel.buffer<4x6x5xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c6 = kernel.const 6 : index
  %c5 = kernel.const 5 : index
  %c30 = kernel.const 30 : index
  %i = kernel.range %c4 global
  %j = kernel.range %c6 reduce
  %k = kernel.range %c5 reduce
  %i30 = kernel.mul %i, %c30 : index
  %j5 = kernel.mul %j, %c5 : index
  %a = kernel.add %i30, %j5 : index
  %idx = kernel.add %a, %k : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %k : f32
  %s = kernel.reduce add %m over %j : f32
  kernel.store %out[%i], %s
}
"""

UPCAST_MATMUL = """
kernel.kernel @tiled(%a: !kernel.buffer<6x8xf32>, %b: !kernel.buffer<8x16xf32>, %out: !kernel.buffer<6x16xf32>)
    attributes {symbols = [], opts = ["upcast(1,4)", "unroll(0,4)"]} {
  %c16 = kernel.const 16 : index
  %c6 = kernel.const 6 : index
  %c4 = kernel.const 4 : index
  %c2 = kernel.const 2 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c6 global
  %j = kernel.range %c4 global
  %u = kernel.range %c4 upcast
  %k = kernel.range %c2 reduce
  %v = kernel.range %c4 unroll
  %j4 = kernel.mul %j, %c4 : index
  %jj = kernel.add %j4, %u : index
  %k4 = kernel.mul %k, %c4 : index
  %kk = kernel.add %k4, %v : index
  %i8 = kernel.mul %i, %c8 : index
  %ia = kernel.add %i8, %kk : index
  %k16 = kernel.mul %kk, %c16 : index
  %ib = kernel.add %k16, %jj : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k, %v : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %jj : index
  kernel.store %out[%io], %s
}
"""


def _matmul_inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return f32(n, 16, seed=1), f32(16, 8, seed=2), np.zeros((n, 8), np.float32)


# ---------------------------------------------------------------------------------------------
# CPU structure and meaning


def test_elementwise() -> None:
    k = linearize(ELEMENTWISE)
    assert k.attributes["core_extent"].data == "N"  # type: ignore[union-attr]
    assert [p.index.value.data for p in ops_of(k) if isinstance(p, U.ParamOp)] == [0, 1, 2, 3]
    core = [op for op in ops_of(k) if isinstance(op, U.SpecialOp)]
    assert [s.special.data for s in core] == ["core_start", "core_end"]
    loops = [op for op in ops_of(k) if isinstance(op, U.RangeOp)]
    assert loops[0].lo == core[0].result and loops[0].hi == core[1].result
    assert len(loops) == 2
    x, b, out = f32(5, 8), f32(8, seed=3), np.zeros((5, 8), np.float32)
    launch(k, [x.reshape(-1), b, out.reshape(-1), 5], {"N": 5})
    np.testing.assert_allclose(out, np.exp(x + b), rtol=1e-6)


def test_matmul_accumulator_and_hoisting() -> None:
    k = linearize(MATMUL)
    depth = depth_of(k)
    acc = next(op for op in ops_of(k) if isinstance(op, U.DefineAccOp))
    loop_k = defining(k, "k")
    assert ops_of(k).index(acc) < ops_of(k).index(loop_k) and depth[acc] == depth[loop_k] == 2
    # index math of the i row is computed once per i, outside the j and k loops; a[k] reads inside k
    assert depth[defining(k, "i16")] == 1 and depth[defining(k, "ia")] == 3
    assert depth[defining(k, "io")] == 2  # the output index does not depend on k
    gets = [op for op in ops_of(k) if isinstance(op, U.AccGetOp)]
    assert [depth[g] for g in gets] == [3, 2]  # read inside the loop to update, after it for the result
    assert k.attributes["core_work"].value.data == 8 * (16 * 7 + 3) + 2  # type: ignore[union-attr]
    x, w, out = _matmul_inputs(7)
    launch(k, [x.reshape(-1), w.reshape(-1), out.reshape(-1), 7], {"N": 7})
    np.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)


def test_dependent_reduces_over_one_range_get_two_loops() -> None:
    k = linearize(SOFTMAX)
    loops = [op.results[0].name_hint for op in ops_of(k) if isinstance(op, U.RangeOp)]
    assert loops == ["i", "k", "k", "j"]  # max over k, then sum over k, both hoisted out of j
    x, out = f32(3, 8), np.zeros((3, 8), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1), 3], {"N": 3})
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


def test_independent_reduces_over_one_range_share_a_loop() -> None:
    k = linearize(
        """
kernel.kernel @stats(%x: !kernel.buffer<4x8xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c4 global
  %k = kernel.range %c8 reduce
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %k : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k : f32
  %m = kernel.reduce max %v over %k : f32
  %r = kernel.sub %m, %s : f32
  kernel.store %out[%i], %r
}"""
    )
    assert count(k, U.RangeOp) == 2 and count(k, U.DefineAccOp) == 2 and count(k, U.LoadOp) == 1
    x, out = f32(4, 8), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_allclose(out, x.max(axis=1) - x.sum(axis=1), rtol=1e-5)


def test_nested_reduce() -> None:
    k = linearize(NESTED)
    depth = depth_of(k)
    accs = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]
    assert [depth[a] for a in accs] == [1, 2]  # the max accumulator restarts for every j
    x, out = f32(4, 6, 5), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_allclose(out, x.max(axis=2).sum(axis=1), rtol=1e-5)


def test_reduce_used_by_alu_ops_before_store() -> None:
    k = linearize(MATMUL)
    s = defining(k, "s")
    relu = next(op for op in ops_of(k) if isinstance(op, AluOp) and op.alu_kind == "max")
    assert relu.operands[0] == s.results[0]


def test_gated_load_keeps_its_gate() -> None:
    k = linearize(PAD)
    (load,) = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert load.gate is not None
    x, out = f32(10), np.full(12, 7, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, np.pad(x, 1))


def test_upcast_and_unroll_are_expanded_and_vectorized() -> None:
    k = linearize(UPCAST_MATMUL)
    assert count(k, U.RangeOp) == 3  # i, j and k: no loop for the upcast and unroll ranges
    (acc,) = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]  # the 4 upcast lanes, one vector
    assert acc.results[0].type == U.AccType(VectorType(acc.operands[0].type.get_element_type(), [4]))  # type: ignore[attr-defined]
    vector_alu = [op for op in ops_of(k) if isinstance(op, AluOp) and is_vector(op.results[0].type)]
    assert len(vector_alu) == 8  # a mul and an add per unrolled k step, on the rows of b
    vector_loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp) and is_vector(op.result.type)]
    assert len(vector_loads) == 5  # a: 4 unrolled k lanes; b: 4 rows of 4 upcast lanes
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert store.value.type == VectorType(store.ptr.type.element_type, [4])  # type: ignore[union-attr]
    a, b, out = f32(6, 8), f32(8, 16, seed=4), np.zeros((6, 16), np.float32)
    launch(k, [a.reshape(-1), b.reshape(-1), out.reshape(-1)])
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-6)


def test_non_consecutive_lanes_stay_scalar() -> None:
    k = linearize(
        """
kernel.kernel @strided(%x: !kernel.buffer<16xf32>, %out: !kernel.buffer<16xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c2 global
  %u = kernel.range %c4 upcast
  %u2 = kernel.mul %u, %c2 : index
  %idx = kernel.add %u2, %i : index
  %i8 = kernel.mul %i, %c8 : index
  %o = kernel.add %i8, %u : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %out[%o], %v
}"""
    )
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert len(loads) == 4 and not any(is_vector(op.result.type) for op in loads)
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]  # the output lanes are consecutive
    assert is_vector(store.value.type)
    x, out = f32(16), np.zeros(16, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out[[0, 1, 2, 3, 8, 9, 10, 11]], x[[0, 2, 4, 6, 1, 3, 5, 7]])


def test_a_reduce_of_gathered_lanes_keeps_scalar_accumulators() -> None:
    """A stride-2 max pool's row: its loads are not consecutive, so the row instantiation leaves the reduce lane
    by lane (scalar accumulators, as vector_alu leaves gathers) and stores the gathered results as one vector."""
    k = linearize(
        """
kernel.kernel @pool(%x: !kernel.buffer<2x16xf32>, %out: !kernel.buffer<2x4xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %i = kernel.range %c2 global
  %u = kernel.range %c4 upcast
  %w = kernel.range %c2 reduce
  %u2 = kernel.mul %u, %c2 : index
  %i16 = kernel.mul %i, %c16 : index
  %row = kernel.add %i16, %u2 : index
  %idx = kernel.add %row, %w : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %w : f32
  %i4 = kernel.mul %i, %c4 : index
  %o = kernel.add %i4, %u : index
  kernel.store %out[%o], %m
}"""
    )
    accs = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]
    assert len(accs) == 4 and not any(is_vector(op.operands[0].type) for op in accs)
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert is_vector(store.value.type)
    x, out = f32(32), np.zeros(8, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, x.reshape(2, 8, 2)[:, :4].max(axis=-1).reshape(-1))


def test_reduce_over_unroll_only_combines_copies() -> None:
    k = linearize(
        """
kernel.kernel @sum4(%x: !kernel.buffer<3x4xi32>, %out: !kernel.buffer<3xi32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c3 global
  %v = kernel.range %c4 unroll
  %i4 = kernel.mul %i, %c4 : index
  %idx = kernel.add %i4, %v : index
  %xv = kernel.load %x[%idx] : i32
  %s = kernel.reduce mul %xv over %v : i32
  kernel.store %out[%i], %s
}"""
    )
    assert count(k, U.DefineAccOp) == 0 and count(k, U.RangeOp) == 1
    x, out = np.arange(1, 13, dtype=np.int32).reshape(3, 4), np.zeros(3, np.int32)
    launch(k, [x.reshape(-1), out])
    np.testing.assert_array_equal(out, x.prod(axis=1))


def test_store_runs_once_per_point_of_its_own_ranges() -> None:
    k = linearize(
        """
kernel.kernel @two_outputs(%x: !kernel.buffer<3x4xf32>, %rows: !kernel.buffer<3x4xf32>, %cols: !kernel.buffer<4xf32>)
    attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c3 global
  %j = kernel.range %c4 global
  %i4 = kernel.mul %i, %c4 : index
  %idx = kernel.add %i4, %j : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %rows[%idx], %v
  %w = kernel.load %x[%j] : f32
  kernel.store %cols[%j], %w
}"""
    )
    depth = depth_of(k)
    stores = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert sorted(depth[s] for s in stores) == [1, 2]  # cols[j] is not inside the i loop
    x, rows, cols = f32(3, 4), np.zeros((3, 4), np.float32), np.zeros(4, np.float32)
    launch(k, [x.reshape(-1), rows.reshape(-1), cols])
    np.testing.assert_array_equal(rows, x)
    np.testing.assert_array_equal(cols, x[0])


def test_reduce_identities() -> None:
    template = """
kernel.kernel @r(%x: !kernel.buffer<5xT>, %out: !kernel.buffer<1xT>) attributes {{symbols = []}} {{
  %c0 = kernel.const 0 : index
  %c5 = kernel.const 5 : index
  %k = kernel.range %c5 reduce
  %v = kernel.load %x[%k] : T
  %s = kernel.reduce {kind} %v over %k : T
  kernel.store %out[%c0], %s
}}"""
    cases = {
        ("max", "f32"): np.max,
        ("min", "f32"): np.min,
        ("mul", "f32"): np.prod,
        ("max", "i32"): np.max,
        ("min", "ui8"): np.min,
    }
    for (kind, t), reference in cases.items():
        k = linearize(template.format(kind=kind).replace("T", t))
        assert k.attributes["core_extent"].data == "1"  # type: ignore[union-attr]
        dtype = to_numpy(t)
        x = (np.arange(5) * 37 % 11 + 1).astype(dtype) * (-1 if dtype.kind == "f" else 1)
        out = np.zeros(1, dtype)
        launch(k, [x, out])
        assert out[0] == reference(x), (kind, t)


# ---------------------------------------------------------------------------------------------
# GPU mappings


@pytest.mark.parametrize("target", ["webgpu", "cuda"])
def test_gpu_matmul(target: str) -> None:
    k = linearize(MATMUL, target)
    assert "core_extent" not in k.attributes
    assert [s.data for s in k.attributes["global_size"].data] == ["1", "N", "1"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [8, 1, 1]  # type: ignore[union-attr]
    assert count(k, U.RangeOp) == 1 and count(k, U.IfOp) == 0  # only the reduce loops; 8 | 8: no guard
    x, w, out = _matmul_inputs(5)
    launch(k, [x.reshape(-1), w.reshape(-1), out.reshape(-1), 5], {"N": 5})
    np.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)


def test_gpu_guard_for_partial_workgroups() -> None:
    k = linearize(
        """
kernel.kernel @scale(%x: !kernel.buffer<Nxf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 1000]>, symbols = ["N"]} {
  %i = kernel.range %N global
  %v = kernel.load %x[%i] : f32
  %two = kernel.const 2.0 : f32
  %r = kernel.mul %v, %two : f32
  kernel.store %out[%i], %r
}""",
        "webgpu",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["ceildiv(N, 64)", "1", "1"]  # type: ignore[union-attr]
    (guard,) = [op for op in ops_of(k) if isinstance(op, U.IfOp)]
    depth = depth_of(k)
    assert all(depth[op] == 1 for op in ops_of(k) if isinstance(op, U.LoadOp | U.StoreOp))
    assert isinstance(guard.cond.owner, AluOp) and guard.cond.owner.alu_kind == "cmplt"
    x, out = f32(70), np.zeros(70, np.float32)
    launch(k, [x, out, 70], {"N": 70})
    np.testing.assert_array_equal(out, 2 * x)


def test_gpu_grid_dim_split() -> None:
    k = linearize(
        """
kernel.kernel @big(%x: !kernel.buffer<16777216xf32>, %out: !kernel.buffer<16777216xf32>) attributes {symbols = []} {
  %n = kernel.const 16777216 : index
  %i = kernel.range %n global
  %v = kernel.load %x[%i] : f32
  %e = kernel.neg %v : f32
  kernel.store %out[%i], %e
}""",
        "webgpu",
    )
    cols, rows, z = (int(s.data) for s in k.attributes["global_size"].data)  # type: ignore[union-attr]
    assert z == 1 and max(cols, rows) <= 65535 and cols * rows * 64 >= 2**24
    assert (cols, rows) == (52429, 5)
    specials = {op.special.data for op in ops_of(k) if isinstance(op, U.SpecialOp)}
    assert specials == {"group_id.x", "group_id.y", "local_id.x"}
    assert count(k, U.IfOp) == 1  # 5 * 52429 * 64 overshoots 2^24


def test_gpu_more_than_three_global_ranges_merge() -> None:
    k = linearize(
        """
kernel.kernel @dims4(%x: !kernel.buffer<Nx3x5x7xf32>, %out: !kernel.buffer<Nx3x5x7xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 10]>, symbols = ["N"]} {
  %c3 = kernel.const 3 : index
  %c5 = kernel.const 5 : index
  %c7 = kernel.const 7 : index
  %c105 = kernel.const 105 : index
  %c35 = kernel.const 35 : index
  %a = kernel.range %N global
  %b = kernel.range %c3 global
  %c = kernel.range %c5 global
  %d = kernel.range %c7 global
  %t0 = kernel.mul %a, %c105 : index
  %t1 = kernel.mul %b, %c35 : index
  %t2 = kernel.mul %c, %c7 : index
  %s0 = kernel.add %t0, %t1 : index
  %s1 = kernel.add %s0, %t2 : index
  %idx = kernel.add %s1, %d : index
  %v = kernel.load %x[%idx] : f32
  %e = kernel.neg %v : f32
  kernel.store %out[%idx], %e
}""",
        "webgpu",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["1", "5", "N*3"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [7, 1, 1]  # type: ignore[union-attr]
    x, out = f32(2, 3, 5, 7), np.zeros((2, 3, 5, 7), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1), 2], {"N": 2})
    np.testing.assert_array_equal(out, -x)


def test_gpu_local_ranges_become_thread_ids() -> None:
    k = linearize(
        """
kernel.kernel @loc(%x: !kernel.buffer<64xf32>, %out: !kernel.buffer<64xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c4 = kernel.const 4 : index
  %g = kernel.range %c4 global
  %l = kernel.range %c16 local
  %g16 = kernel.mul %g, %c16 : index
  %i = kernel.add %g16, %l : index
  %v = kernel.load %x[%i] : f32
  %r = kernel.abs %v : f32
  kernel.store %out[%i], %r
}""",
        "cuda",
    )
    assert [s.data for s in k.attributes["global_size"].data] == ["4", "1", "1"]  # type: ignore[union-attr]
    assert [n.value.data for n in k.attributes["local_size"].data] == [16, 1, 1]  # type: ignore[union-attr]
    x, out = f32(64), np.zeros(64, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, np.abs(x))


SLIDING = """
kernel.kernel @windows(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<5x4xf32>) attributes {symbols = []} {
  %c5 = kernel.const 5 : index
  %c4 = kernel.const 4 : index
  %i = kernel.range %c5 global
  %u = kernel.range %c4 upcast
  %idx = kernel.add %i, %u : index
  %i4 = kernel.mul %i, %c4 : index
  %o = kernel.add %i4, %u : index
  %v = kernel.load %x[%idx] : f32
  kernel.store %out[%o], %v
}"""


@pytest.mark.parametrize(("target", "vector_loads"), [("cpu-llvm", 1), ("cuda", 0), ("webgpu", 0)])
def test_vector_accesses_on_gpus_must_be_aligned(target: str, vector_loads: int) -> None:
    k = linearize(SLIDING, target)  # x[i + u] starts anywhere; out[i*4 + u] at multiples of 4
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    assert sum(is_vector(op.result.type) for op in loads) == vector_loads
    assert all(is_vector(op.value.type) for op in ops_of(k) if isinstance(op, U.StoreOp))
    x, out = f32(8), np.zeros((5, 4), np.float32)
    launch(k, [x, out.reshape(-1)])
    np.testing.assert_array_equal(out, np.lib.stride_tricks.sliding_window_view(x, 4)[:5])


def test_lanes_wider_than_one_vector_become_several_vector_accesses() -> None:
    k = linearize(
        """
kernel.kernel @wide(%x: !kernel.buffer<3x8xf32>, %out: !kernel.buffer<3x8xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c3 global
  %u = kernel.range %c8 upcast
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %u : index
  %v = kernel.load %x[%idx] : f32
  %r = kernel.neg %v : f32
  kernel.store %out[%idx], %r
}""",
        "webgpu",
    )
    loads = [op for op in ops_of(k) if isinstance(op, U.LoadOp)]
    stores = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert len(loads) == len(stores) == 2  # 8 lanes of f32: two vec4 on webgpu
    assert all(is_vector(op.result.type) for op in loads) and all(is_vector(op.value.type) for op in stores)
    x, out = f32(3, 8), np.zeros((3, 8), np.float32)
    launch(k, [x.reshape(-1), out.reshape(-1)])
    np.testing.assert_array_equal(out, -x)


def _random_args(text: str, symbols: dict[str, int]) -> list:
    """Random contents for every buffer argument of the kernel in ``text``, symbol values for index ones."""
    (kernel,) = [op for op in Parser(make_context(), text).parse_module().ops if isinstance(op, K.KernelOp)]
    names = iter(s.data for s in kernel.attributes["symbols"].data)  # type: ignore[union-attr]
    rng = np.random.default_rng(7)
    args: list = []
    for arg in kernel.args:
        if isinstance(arg.type, BufferType):
            values = rng.standard_normal(numel(arg.type.shape, symbols)) * 8
            args.append(values.astype(to_numpy(arg.type.element_type)))
        else:
            args.append(symbols[next(names)])
    return args


@pytest.mark.parametrize("target", ["cpu-llvm", "webgpu"])
@pytest.mark.parametrize(
    ("text", "symbols"),
    [(ELEMENTWISE, {"N": 5}), (MATMUL, {"N": 3}), (SOFTMAX, {"N": 2}), (NESTED, {}), (PAD, {}), (UPCAST_MATMUL, {}), (SLIDING, {})],
    ids=["elementwise", "matmul", "softmax", "nested", "pad", "upcast", "sliding"],
)
def test_uop_simplify_keeps_the_meaning(text: str, symbols: dict[str, int], target: str) -> None:
    plain, simplified = linearize(text, target), linearize(text, target, simplify=True)
    results = []
    for kernel in (plain, simplified):
        args = _random_args(text, symbols)
        launch(kernel, args, symbols)
        results.append(args)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("kind", "target"),
    [("local", "cpu-llvm"), ("group_reduce", "cpu-c"), ("thread", "webgpu"), ("thread", "cuda")],
)
def test_unsupported_range_kinds_fail_loudly(kind: str, target: str) -> None:
    reduce_ = kind == "group_reduce"
    text = f"""
kernel.kernel @k(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<8xf32>) attributes {{symbols = []}} {{
  %c8 = kernel.const 8 : index
  %c0 = kernel.const 0 : index
  %i = kernel.range %c8 {kind}
  %v = kernel.load %x[%i] : f32
  {"%s = kernel.reduce add %v over %i : f32" if reduce_ else ""}
  kernel.store %out[{"%c0" if reduce_ else "%i"}], {"%s" if reduce_ else "%v"}
}}"""
    with pytest.raises(PassFailedException, match=f"range kind {kind} not supported on target {target}"):
        linearize(text, target)


def test_unknown_target() -> None:
    with pytest.raises(PassFailedException, match="unknown target 'tpu'"):
        ConvertKernelToUop(target="tpu").apply(make_context(), ModuleOp([]))


def test_splatted_constants_keep_the_sign_of_zero() -> None:
    """Vector constants are built once per (type, value): -0.0 and 0.0 are equal floats with equal hashes, and
    must still be two constants."""
    from kiln.lowering.linearize.nodes import _splat
    from xdsl.dialects.builtin import f32

    t = VectorType(f32, [4])
    negative, positive = _splat(t, -0.0), _splat(t, 0.0)
    assert np.signbit(negative.get_values()[0]) and not np.signbit(positive.get_values()[0])
    assert _splat(t, -0.0) is negative
