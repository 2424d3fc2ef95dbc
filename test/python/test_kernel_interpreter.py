"""The kernel-level reference interpreter (``kiln.interpreters.kernel``), the schedule runner it shares with the uop
interpreter, and the dispatcher (``kiln.interpreters.run``): the semantics of docs/dialects/kernel.md on small
hand-written kernels."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.dialects import kernel as K
from kiln.interpreters.graph import InterpretError
from kiln.interpreters.kernel import run_kernel
from kiln.interpreters.run import level_of, run_module
from kiln.support.errors import InputError

from kernel_ir import PAD, parse_kernel


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


SUM_ROWS = """
kernel.kernel @sum_rows(%x: !kernel.buffer<Nx3xf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [0, 8]>, symbols = ["N"]} {
  %c3 = kernel.const 3 : index
  %i = kernel.range %N global
  %k = kernel.range %c3 %KIND
  %i3 = kernel.mul %i, %c3 : index
  %idx = kernel.add %i3, %k : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce %OP %v over %k : f32
  kernel.store %out[%i], %s
}
"""


@pytest.mark.parametrize("kind", ["reduce", "unroll", "group_reduce"])
@pytest.mark.parametrize(("op", "numpy"), [("add", np.sum), ("mul", np.prod), ("max", np.max), ("min", np.min)])
def test_reduce_combines_over_its_ranges_whatever_their_kind(kind: str, op: str, numpy) -> None:
    x = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    out = np.zeros(4, np.float32)
    run_kernel(parse_kernel(SUM_ROWS.replace("%KIND", kind).replace("%OP", op)), [x.reshape(-1), out, 4])
    np.testing.assert_array_equal(out, numpy(x, axis=1))


EMPTY_REDUCE = """
kernel.kernel @empty(%out: !kernel.buffer<2xf32>) attributes {symbols = []} {
  %c0 = kernel.const 0 : index
  %c2 = kernel.const 2 : index
  %i = kernel.range %c2 global
  %k = kernel.range %c0 reduce
  %one = kernel.const 1.0 : f32
  %s = kernel.reduce %OP %one over %k : f32
  kernel.store %out[%i], %s
}
"""


@pytest.mark.parametrize(("op", "identity"), [("add", 0.0), ("mul", 1.0), ("max", -np.inf), ("min", np.inf)])
def test_a_reduce_over_an_empty_range_gives_the_identity(op: str, identity: float) -> None:
    out = np.zeros(2, np.float32)
    run_kernel(parse_kernel(EMPTY_REDUCE.replace("%OP", op)), [out])
    np.testing.assert_array_equal(out, [identity, identity])


CONSTANT_SUM = """
kernel.kernel @count(%out: !kernel.buffer<1xi32>) attributes {symbols = []} {
  %c0 = kernel.const 0 : index
  %c7 = kernel.const 7 : index
  %k = kernel.range %c7 reduce
  %one = kernel.const 1 : i32
  %s = kernel.reduce add %one over %k : i32
  kernel.store %out[%c0], %s
}
"""


def test_a_value_that_does_not_depend_on_the_range_is_combined_once_per_point() -> None:
    out = np.zeros(1, np.int32)
    run_kernel(parse_kernel(CONSTANT_SUM), [out])
    assert out[0] == 7


def test_a_gated_load_reads_zero_where_its_gate_is_false_even_out_of_bounds() -> None:
    x, out = np.arange(1, 11, dtype=np.float32), np.full(12, np.nan, np.float32)
    run_kernel(parse_kernel(PAD), [x, out])
    np.testing.assert_array_equal(out, [0, *x, 0])


def test_an_ungated_access_out_of_bounds_fails() -> None:
    ungated = PAD.replace("%x[%src], %valid : f32", "%x[%src] : f32")
    with pytest.raises(InterpretError, match="out of bounds"):
        run_kernel(parse_kernel(ungated), [np.zeros(10, np.float32), np.zeros(12, np.float32)])


GATED_STORE = """
kernel.kernel @evens(%out: !kernel.buffer<6xi32>) attributes {symbols = []} {
  %c6 = kernel.const 6 : index
  %c2 = kernel.const 2 : index
  %c0 = kernel.const 0 : index
  %i = kernel.range %c6 global
  %r = kernel.mod %i, %c2 : index
  %even = kernel.cmpeq %r, %c0 : index
  %v = kernel.cast %i : index -> i32
  kernel.store %out[%i], %v, %even
}
"""


def test_a_gated_store_writes_only_where_its_gate_holds() -> None:
    out = np.full(6, -1, np.int32)
    run_kernel(parse_kernel(GATED_STORE), [out])
    np.testing.assert_array_equal(out, [0, -1, 2, -1, 4, -1])


C_DIVISION = """
kernel.kernel @cdiv(%a: !kernel.buffer<4xi32>, %b: !kernel.buffer<4xi32>, %q: !kernel.buffer<4xi32>, %r: !kernel.buffer<4xi32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %i = kernel.range %c4 global
  %x = kernel.load %a[%i] : i32
  %y = kernel.load %b[%i] : i32
  %d = kernel.idiv %x, %y : i32
  %m = kernel.mod %x, %y : i32
  kernel.store %q[%i], %d
  kernel.store %r[%i], %m
}
"""


def test_integer_division_truncates_toward_zero_as_in_c() -> None:
    a, b = np.array([7, -7, 7, -7], np.int32), np.array([2, 2, -2, -2], np.int32)
    q, r = np.zeros(4, np.int32), np.zeros(4, np.int32)
    run_kernel(parse_kernel(C_DIVISION), [a, b, q, r])
    np.testing.assert_array_equal(q, [3, -3, -3, 3])
    np.testing.assert_array_equal(r, [1, -1, 1, -1])


SOFTMAX = """
func.func @softmax(%x: !graph.tensor<Nx16xf32>) -> !graph.tensor<Nx16xf32> attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %y = graph.softmax %x {axis = 1 : i64} : (!graph.tensor<Nx16xf32>) -> !graph.tensor<Nx16xf32>
  func.return %y : !graph.tensor<Nx16xf32>
}
"""


def lowered(text: str, pipeline: str) -> ModuleOp:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), PIPELINES[pipeline]).apply(ctx, module)
    return module


def test_one_entry_point_runs_every_level() -> None:
    x = np.random.default_rng(0).standard_normal((3, 16)).astype(np.float32)
    want = np.exp(x - x.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    for pipeline, level in (("lower-to-kernel", "kernel"), ("lower-to-uop", "uop")):
        module = lowered(SOFTMAX, pipeline)
        assert level_of(module, "softmax") == level
        np.testing.assert_allclose(run_module(module, "softmax", [x])[0], want, rtol=1e-5)
    assert level_of(parse(SOFTMAX), "softmax") == "graph"
    np.testing.assert_allclose(run_module(parse(SOFTMAX), "softmax", [x])[0], want, rtol=1e-5)


def test_allocations_in_one_slot_share_memory() -> None:
    """A memory plan that puts two live buffers in one slot gives wrong numbers (and a good one does not)."""
    x = np.random.default_rng(1).standard_normal((3, 16)).astype(np.float32)
    module = lowered(SOFTMAX, "lower-to-kernel")
    allocs = [op for op in module.walk() if isinstance(op, K.AllocOp)]
    assert len({op.slot.value.data for op in allocs if op.slot is not None}) > 1
    want = run_module(module, "softmax", [x])[0]
    for op in allocs:
        op.slot = IntegerAttr(0, 64)
    assert not np.allclose(run_module(module, "softmax", [x])[0], want, equal_nan=True)


PARTIAL = """
kernel.kernel @half(%out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %i = kernel.range %c2 global
  %v = kernel.const 1.0 : f32
  kernel.store %out[%i], %v
}
func.func @f() -> !kernel.buffer<4xf32> {
  %t = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @half(%t) : !kernel.buffer<4xf32>
  func.return %t : !kernel.buffer<4xf32>
}
"""


def test_memory_no_kernel_wrote_reads_as_nan() -> None:
    (out,) = run_module(parse(PARTIAL), "f", [])
    assert out[:2].tolist() == [1.0, 1.0] and np.isnan(out[2:]).all()


def test_inputs_are_checked_against_the_schedule_signature() -> None:
    module = lowered(SOFTMAX, "lower-to-kernel")
    with pytest.raises(InputError, match="expected shape"):
        run_module(module, "softmax", [np.zeros((3, 15), np.float32)])
