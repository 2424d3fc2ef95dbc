"""The register tile as vector uops (lowering/linearize/vector_alu.py): what packs into vector ops, what stays
scalar, and that the result computes the same on the uop interpreter and on every device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import VectorType

from kiln.compiler.driver import compile
from kiln.dialects import uop as U
from kiln.dialects.alu import AluOp, is_vector
from kiln.interpreters.uop import launch
from kiln.runtime.devices import device_available

from kernel_ir import linearize, ops_of

TILE = """
kernel.kernel @tile(%a: !kernel.buffer<5x6xf32>, %b: !kernel.buffer<6x8xf32>, %bias: !kernel.buffer<8xf32>,
                    %out: !kernel.buffer<5x8xf32>) attributes {symbols = []} {
  %c0 = kernel.const 0.0 : f32
  %c5 = kernel.const 5 : index
  %c6 = kernel.const 6 : index
  %c8 = kernel.const 8 : index
  %c4 = kernel.const 4 : index
  %c2 = kernel.const 2 : index
  %i = kernel.range %c5 global
  %j = kernel.range %c2 global
  %u = kernel.range %c4 upcast
  %k = kernel.range %c6 reduce
  %j4 = kernel.mul %j, %c4 : index
  %col = kernel.add %j4, %u : index
  %i6 = kernel.mul %i, %c6 : index
  %ia = kernel.add %i6, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %col : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %bv = kernel.load %bias[%col] : f32
  %sb = kernel.add %s, %bv : f32
  %r = kernel.max %sb, %c0 : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %col : index
  kernel.store %out[%io], %r
}
"""
"""relu(a @ b + bias) with 4 output columns per thread: 4 accumulators, bias and relu per lane."""

SIN = """
kernel.kernel @ex(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<8xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %two = kernel.const 2.0 : f32
  %i = kernel.range %c2 global
  %u = kernel.range %c4 upcast
  %i4 = kernel.mul %i, %c4 : index
  %idx = kernel.add %i4, %u : index
  %v = kernel.load %x[%idx] : f32
  %e = kernel.sin %v : f32
  %d = kernel.mul %e, %two : f32
  %r = kernel.add %d, %v : f32
  kernel.store %out[%idx], %r
}
"""
"""``sin(x) * 2 + x`` over 4 upcast lanes: sin has no vector form here."""


def _vector_alu(kernel: U.UopKernelOp) -> list[str]:
    return [op.alu_kind for op in ops_of(kernel) if isinstance(op, AluOp) and is_vector(op.results[0].type)]


def test_the_tile_is_one_vector_accumulator_with_vector_alu() -> None:
    k = linearize(TILE)
    (acc,) = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]
    assert acc.results[0].type == U.AccType(VectorType(acc.operands[0].type.get_element_type(), [4]))  # type: ignore[attr-defined]
    assert sorted(_vector_alu(k)) == ["add", "add", "max", "mul"]  # k step: mul, add; after: bias add, relu
    assert not [op for op in ops_of(k) if isinstance(op, AluOp) and op.results[0].type == acc.operands[0].type.get_element_type()]  # type: ignore[attr-defined]
    (store,) = [op for op in ops_of(k) if isinstance(op, U.StoreOp)]
    assert isinstance(store.value.owner, AluOp)  # the relu's vector, not a uop.vectorize of lanes
    rng = np.random.default_rng(0)
    a, b, bias = (rng.standard_normal(s).astype(np.float32) for s in ((5, 6), (6, 8), (8,)))
    out = np.zeros((5, 8), np.float32)
    launch(k, [a.reshape(-1), b.reshape(-1), bias, out.reshape(-1)])
    np.testing.assert_allclose(out, np.maximum(a @ b + bias, 0), rtol=1e-5, atol=1e-6)


def test_without_vector_alu_the_lanes_stay_scalar() -> None:
    from xdsl.parser import Parser

    from kiln.compiler.registry import make_context
    from kiln.lowering.kernel_to_uop import ConvertKernelToUop

    ctx = make_context()
    module = Parser(ctx, TILE).parse_module()
    ConvertKernelToUop(target="cpu-llvm", vector_alu=False).apply(ctx, module)
    (k,) = module.ops
    assert isinstance(k, U.UopKernelOp)
    assert sum(isinstance(op, U.DefineAccOp) for op in ops_of(k)) == 4 and not _vector_alu(k)


def test_lanes_through_an_op_without_a_vector_form_are_gathered() -> None:
    k = linearize(SIN)
    assert _vector_alu(k) == ["mul", "add"]  # sin stays scalar, its lanes gathered into the vector mul
    assert sum(isinstance(op, AluOp) and op.alu_kind == "sin" for op in ops_of(k)) == 4
    x, out = np.linspace(-2, 2, 8, dtype=np.float32), np.zeros(8, np.float32)
    launch(k, [x, out])
    np.testing.assert_allclose(out, np.sin(x) * 2 + x, rtol=1e-6)


MLP = """
func.func @f(%x: !graph.tensor<7x40xf32>, %w: !graph.tensor<40x24xf32>, %b: !graph.tensor<24xf32>) -> !graph.tensor<7x24xf32> {
  %h = graph.matmul %x, %w : (!graph.tensor<7x40xf32>, !graph.tensor<40x24xf32>) -> !graph.tensor<7x24xf32>
  %hb = graph.add %h, %b : (!graph.tensor<7x24xf32>, !graph.tensor<24xf32>) -> !graph.tensor<7x24xf32>
  %r = graph.relu %hb : !graph.tensor<7x24xf32>
  func.return %r : !graph.tensor<7x24xf32>
}
"""
"""A matmul layer whose register tile is padded in both directions (7 rows, 24 columns)."""


@pytest.mark.parametrize("device", ["cpu-llvm", "cpu-c", "webgpu"])
def test_a_padded_tile_matches_the_interpreter(device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((7, 40), (40, 24), (24,))]
    (want,) = compile(MLP, "f", "interp")(*inputs)
    (got,) = compile(MLP, "f", device)(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


QKT = """
kernel.kernel @qkt(%q: !kernel.buffer<3x8xf32>, %k: !kernel.buffer<3x8xf32>, %out: !kernel.buffer<3x3xf32>)
    attributes {symbols = []} {
  %c1 = kernel.const 1 : index
  %c2 = kernel.const 2 : index
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %scale = kernel.const 0.5 : f32
  %i = kernel.range %c3 global
  %j = kernel.range %c4 upcast
  %kk = kernel.range %c2 reduce
  %ku = kernel.range %c4 unroll
  %in = kernel.cmplt %j, %c3 : index
  %last = kernel.sub %c3, %c1 : index
  %jc = kernel.min %j, %last : index
  %k4 = kernel.mul %kk, %c4 : index
  %kx = kernel.add %k4, %ku : index
  %i8 = kernel.mul %i, %c8 : index
  %iq = kernel.add %i8, %kx : index
  %x = kernel.load %q[%iq] : f32
  %j8 = kernel.mul %jc, %c8 : index
  %ik = kernel.add %j8, %kx : index
  %y = kernel.load %k[%ik] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %kk : f32
  %t = kernel.reduce add %s over %ku : f32
  %r = kernel.mul %t, %scale : f32
  %i3 = kernel.mul %i, %c3 : index
  %io = kernel.add %i3, %jc : index
  kernel.store %out[%io], %r, %in
}
"""
"""q @ k^T as attention's first kernel is scheduled: 4 columns padded from 3 (so each column's store is gated
and stored lane by lane), k split into a loop of 2 and 4 unrolled lanes summed after it."""


def test_unrolled_k_lanes_are_vector_accumulators_made_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    from kiln.lowering.linearize.vector_alu import AluVectorizer

    packed = []
    pack = AluVectorizer._accumulators
    monkeypatch.setattr(AluVectorizer, "_accumulators", lambda self, *a: packed.append(pack(self, *a)) or packed[-1])
    k = linearize(QKT)
    accs = [op for op in ops_of(k) if isinstance(op, U.DefineAccOp)]
    assert len(accs) == 4 and all(is_vector(a.results[0].type.value_type) for a in accs)  # type: ignore[attr-defined]
    assert not any(packed)  # the instantiator made them vectors: nothing left for vector_alu to pack
    rng = np.random.default_rng(5)
    q, kk = (rng.standard_normal((3, 8)).astype(np.float32) for _ in range(2))
    out = np.zeros((3, 3), np.float32)
    launch(k, [q.reshape(-1), kk.reshape(-1), out.reshape(-1)])
    np.testing.assert_allclose(out, q @ kk.T * 0.5, rtol=1e-5, atol=1e-6)


def instantiated(text: str, device: str) -> tuple[Any, dict[str, Any]]:
    """The linearizer's ``Instantiator`` for the kernel ``text`` on ``device``, and the kernel's values by name."""
    from kiln.capabilities.description import target_for_pass
    from kiln.lowering.linearize.instantiate import Instantiator

    from kernel_ir import parse_kernel

    kernel = parse_kernel(text)
    values = {v.name_hint: v for op in kernel.body.block.ops for v in op.results}
    return Instantiator(kernel, target_for_pass("convert-kernel-to-uop", device)), values


def test_index_slopes_along_the_row_range_come_from_the_kernel_ops() -> None:
    """A row's accesses are one vector access without making each lane's index where the kernel's index math
    grows by 1 along the row's range (``Instantiator._slope``); a clamp or another step leaves the symbolic
    proof over the lanes to decide."""
    inst, values = instantiated(TILE, "cpu-llvm")
    u = values["u"]
    assert [inst._slope(values[n], u) for n in ("col", "ib", "io", "ia", "j4")] == [1, 1, 1, 0, 0]
    inst, values = instantiated(QKT, "cpu-llvm")
    assert inst._slope(values["jc"], values["j"]) is None  # min(j, 2): a padded column's clamp
    assert inst._slope(values["j8"], values["j"]) is None
    assert [inst._slope(values[n], values["ku"]) for n in ("kx", "iq", "ik")] == [1, 1, 1]


CHUNKED = """
kernel.kernel @chunked(%x: !kernel.buffer<10xf32>, %out: !kernel.buffer<10xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c8 = kernel.const 8 : index
  %j = kernel.range %c2 upcast
  %u = kernel.range %c8 upcast
  %j8 = kernel.mul %j, %c8 : index
  %col = kernel.add %j8, %u : index
  %lane = kernel.mod %col, %c8 : index
  %chunk = kernel.sub %col, %lane : index
  %start = kernel.min %chunk, %c2 : index
  %index = kernel.add %start, %lane : index
  %wrapped = kernel.mod %u, %c2 : index
  %v = kernel.load %x[%index] : f32
  kernel.store %out[%index], %v
}
"""
"""10 columns as two chunks of 8, the second shifted back to start at 2 (how padto + upcast cover a padded
column range): along ``u`` the index steps by 1, though it goes through a ``mod`` and a ``min``."""


def test_a_chunked_padded_index_steps_by_one_along_its_lanes() -> None:
    inst, values = instantiated(CHUNKED, "cpu-c")
    u = values["u"]
    assert [inst._slope(values[n], u) for n in ("lane", "chunk", "start", "index")] == [1, 0, 0, 1]
    assert inst._slope(values["wrapped"], u) is None  # u mod 2 wraps within u's range
    k = linearize(CHUNKED, "cpu-c")
    assert [op.result.type for op in ops_of(k) if isinstance(op, U.LoadOp)] == [VectorType(k.params()[0].result.type.element_type, [8])] * 2  # type: ignore[attr-defined]
    x, out = np.arange(10, dtype=np.float32), np.zeros(10, np.float32)
    launch(k, [x, out])
    np.testing.assert_array_equal(out, x)

