"""Tensor cores (the ``tc`` opt, ``uop.wmma``, PTX ``mma.sync.aligned.m16n8k16``) end to end.

- Numerics without a GPU: f16/bf16 matmuls go through ``lower-to-kernel,kernel-optimize{target=cuda}`` (the
  heuristic picks ``tc:0:0``) and ``convert-kernel-to-uop{target=cuda}``, and the uop kernels run in the
  uop reference interpreter (``kiln.interpreters.uop``), whose ``uop.wmma`` gathers each warp's fragments with the PTX
  ISA's m16n8k16 table (written there independently of the linearizer's): a wrong lane layout in the
  linearizer gives wrong numbers here (checked by breaking the layout on purpose).
- The same programs through ``lower-to-ptx`` contain ``mma.sync`` and assemble for sm_80 and sm_90 (nvJitLink),
  and where a CUDA GPU exists they run on the ``cuda`` device against the reference interpreter.
- Targets without tensor cores refuse the opt with a reason; the heuristic picks it only on cuda.

The uop structure is FileCheck-tested in test/lowering/kernel_to_uop/tensor_cores.mlir.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from kiln.dialects import kernel as K
from kiln.dialects import uop as U
from kiln.dialects.types import numel, to_numpy
from kiln.lowering.linearize import tensor_core
from kiln.passes.optimize.opts import OptError, Opt
from kiln.passes.optimize.apply import apply_opt
from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.runtime.devices import device_available
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.capabilities.description import get_target
from kiln.targets.ptx import toolchain
from kiln.compiler.driver import compile

from kiln.interpreters.uop import launch

from kernel_ir import count


def matmul(dtype: str, m: int | str, n: int, k: int, batch: str = "", out: str = "") -> str:
    """A graph-level (batched) ``@mm`` of ``dtype`` inputs, computed in ``dtype`` or cast to ``out`` first;
    the batch and a symbolic M range over 1..4."""
    b = f"{batch}x" if batch else ""
    out = out or dtype
    symbols = [s for s in (batch, m) if isinstance(s, str) and s]
    attrs = f" attributes {{graph.dims = #graph.dims<{', '.join(f'{s} = [1, 4]' for s in symbols)}>}}" if symbols else ""
    ta, tb = (f"!graph.tensor<{b}{r}x{c}x{dtype}>" for r, c in ((m, k), (k, n)))
    xa, xb, tc = (f"!graph.tensor<{b}{r}x{c}x{out}>" for r, c in ((m, k), (k, n), (m, n)))
    return f"""func.func @mm(%a: {ta}, %b: {tb}) -> {tc}{attrs} {{
  %xa = graph.cast %a : ({ta}) -> {xa}
  %xb = graph.cast %b : ({tb}) -> {xb}
  %c = graph.matmul %xa, %xb : ({xa}, {xb}) -> {tc}
  func.return %c : {tc}
}}
"""


CASES = {
    "f16_64x64x64": (matmul("f16", 64, 64, 64), {}),
    "bf16_to_f32_32x16x48": (matmul("bf16", 32, 16, 48, out="f32"), {}),
    "bf16_batch_symbolic": (matmul("bf16", 16, 8, 32, batch="B", out="f32"), {"B": 3}),
    "f16_16x8x16": (matmul("f16", 16, 8, 16), {}),
}
EVALUATED = ["bf16_to_f32_32x16x48", "bf16_batch_symbolic", "f16_16x8x16"]
"""The cases small enough for the Python evaluator (a few hundred thousand op executions at most)."""


def to_uop(text: str, opts: str = "") -> ModuleOp:
    """``text`` linearized for cuda, optimized by the heuristic or with ``opts``."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    optimize = f'kernel-optimize{{target=cuda opts="{opts}"}}' if opts else "kernel-optimize{target=cuda}"
    spec = PIPELINES["lower-to-kernel"] + f",{optimize},convert-kernel-to-uop{{target=cuda}},uop-simplify"
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    module.verify()
    return module


def inputs(text: str, symbols: dict[str, int], seed: int = 0) -> list[np.ndarray]:
    """Random inputs of ``@mm`` (values that f16/bf16 hold exactly, so only the sum order differs)."""
    module = Parser(make_context(), text).parse_module()
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    rng = np.random.default_rng(seed)
    types = fn.function_type.inputs.data
    shapes = [tuple(symbols.get(d, d) for d in t.shape) for t in types]  # type: ignore[attr-defined]
    return [(rng.integers(-8, 9, s) / 8).astype(to_numpy(t.element_type)) for s, t in zip(shapes, types)]  # type: ignore[attr-defined]


def evaluate(module: ModuleOp, args: list[np.ndarray], symbols: dict[str, int]) -> list[np.ndarray]:
    """Run ``@mm``'s schedule, every launched uop kernel in the reference evaluator (all warps, all lanes)."""
    kernels = {k.sym_name.data: k for k in module.ops if isinstance(k, U.UopKernelOp)}
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    values: dict = {v: a.reshape(-1) for v, a in zip(fn.body.block.args, args)}
    for op in fn.body.block.ops:
        if isinstance(op, K.SymbolOp):
            values[op.result] = symbols[op.symbol.data]
        elif isinstance(op, K.AllocOp):
            t = op.result.type
            values[op.result] = np.full(numel(t.shape, symbols), np.nan, to_numpy(t.element_type))  # type: ignore[attr-defined]
        elif isinstance(op, K.LaunchOp):
            launch(kernels[op.callee.root_reference.data], [values[a] for a in op.args], symbols)
        elif isinstance(op, func.ReturnOp):
            return [values[v] for v in op.arguments]
    raise AssertionError("no func.return")


def expected(args: list[np.ndarray]) -> np.ndarray:
    a, b = (x.astype(np.float64) for x in args)
    return (a @ b).reshape(-1)


@pytest.mark.parametrize("case", EVALUATED)
def test_the_warp_computes_the_matmul_in_the_mma_lane_layout(case: str) -> None:
    text, symbols = CASES[case]
    module = to_uop(text)
    (kernel,) = [k for k in module.ops if isinstance(k, U.UopKernelOp)]
    assert count(kernel, U.WmmaOp) == 1 and kernel.attributes["opts"].data[0].data == "tc:0:0"  # type: ignore[attr-defined]
    args = inputs(text, symbols)
    (got,) = evaluate(module, args, symbols)
    np.testing.assert_allclose(got.astype(np.float64), expected(args), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(("opts", "wmmas"), [("tc:0:0,local:0:2", 1), ("tc:0:0,upcast:0:2,unroll:0:2,local:1:2", 4)])
def test_opts_after_tc_give_more_tiles_per_warp_or_more_warps(opts: str, wmmas: int) -> None:
    """An upcast of an output axis gives a warp more tiles, an unroll of K more wmmas per iteration into the same
    accumulator, a local range more warps per workgroup (local_size.x = 32 x its size)."""
    text, symbols = matmul("f16", 64, 32, 64, out="f32"), {}
    module = to_uop(text, opts)
    (kernel,) = [k for k in module.ops if isinstance(k, U.UopKernelOp)]
    assert count(kernel, U.WmmaOp) == wmmas
    assert kernel.attributes["local_size"].data[0].value.data == 64  # type: ignore[attr-defined]
    args = inputs(text, symbols)
    (got,) = evaluate(module, args, symbols)
    np.testing.assert_allclose(got.astype(np.float64), expected(args), rtol=1e-6, atol=1e-6)


BIAS_RELU = """
func.func @mm(%a: !graph.tensor<32x32xf16>, %b: !graph.tensor<32x16xf16>, %bias: !graph.tensor<16xf32>)
    -> !graph.tensor<32x16xf32> {
  %xa = graph.cast %a : (!graph.tensor<32x32xf16>) -> !graph.tensor<32x32xf32>
  %xb = graph.cast %b : (!graph.tensor<32x16xf16>) -> !graph.tensor<32x16xf32>
  %c = graph.matmul %xa, %xb : (!graph.tensor<32x32xf32>, !graph.tensor<32x16xf32>) -> !graph.tensor<32x16xf32>
  %d = graph.add %c, %bias : (!graph.tensor<32x16xf32>, !graph.tensor<16xf32>) -> !graph.tensor<32x16xf32>
  %r = graph.relu %d : !graph.tensor<32x16xf32>
  func.return %r : !graph.tensor<32x16xf32>
}
"""


def test_a_fused_epilogue_reads_its_operands_at_each_c_element() -> None:
    """The bias load and the relu after the matmul are instantiated per C element, at that element's column."""
    module = to_uop(BIAS_RELU)
    assert len([k for k in module.ops if isinstance(k, U.UopKernelOp)]) == 1
    a, b, bias = inputs(BIAS_RELU, {})
    (got,) = evaluate(module, [a, b, bias], {})
    want = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    np.testing.assert_allclose(got, want.reshape(-1), rtol=1e-6, atol=1e-6)


def test_a_wrong_lane_layout_gives_wrong_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluator's check has teeth: the A fragment's two k halves swapped (a plausible slip) fails it."""
    a = tensor_core.FRAGMENTS["a"]
    monkeypatch.setitem(tensor_core.FRAGMENTS, "a", a[4:] + a[:4])
    text, symbols = CASES["bf16_to_f32_32x16x48"]
    module = to_uop(text)
    args = inputs(text, symbols)
    (got,) = evaluate(module, args, symbols)
    assert not np.allclose(got.astype(np.float64), expected(args))


# ---------------------------------------------------------------------------------------------
# PTX: mma.sync, assembled for every sm; numerics on a GPU


@pytest.mark.skipif(not toolchain.available()[0], reason=toolchain.available()[1])
@pytest.mark.parametrize("case", list(CASES))
def test_tensor_core_ptx_assembles_for_every_sm(case: str) -> None:
    text, _ = CASES[case]
    spec = lower_program(parse_module(text), "mm", "cuda")
    dtype = "bf16" if "bf16" in case else "f16"
    assert f"mma.sync.aligned.m16n8k16.row.col.f32.{dtype}.{dtype}.f32" in spec.kernels.source
    toolchain.validate(spec.kernels.source)


@pytest.mark.skipif(not device_available("cuda"), reason="no CUDA GPU here")
@pytest.mark.parametrize("case", list(CASES))
def test_tensor_core_matmuls_run_on_cuda_like_the_interpreter(case: str) -> None:
    text, symbols = CASES[case]
    args = inputs(text, symbols, seed=1)
    (want,) = compile(text, "mm", "interp")(*args)
    (got,) = compile(text, "mm", "cuda")(*args)
    tolerance = 1e-2 if want.dtype == np.float16 else 1e-5  # an f16 result rounds once, as the interpreter's
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=tolerance, atol=tolerance)


# ---------------------------------------------------------------------------------------------
# where tensor cores are not


@pytest.mark.parametrize("text", [matmul("f16", 24, 16, 32), matmul("f16", 32, 8, 24), matmul("bf16", "M", 8, 16)])
def test_shapes_the_tensor_core_cannot_tile_are_refused_with_the_reason(text: str) -> None:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), PIPELINES["lower-to-kernel"]).apply(ctx, module)
    (kernel,) = [k for k in module.ops if isinstance(k, K.KernelOp)]
    reason = "0 matmul reduce.s. fit the m16n8k16 tensor core .* constant multiples of 16, 8 and 16"
    with pytest.raises(OptError, match=reason):
        apply_opt(kernel, Opt.parse("tc:0:0"), get_target("cuda"))


@pytest.mark.parametrize("target", ["cpu-llvm", "cpu-c", "webgpu"])
def test_targets_without_tensor_cores_refuse_tc_and_the_heuristic_never_picks_it(target: str) -> None:
    text, _ = CASES["f16_64x64x64"]
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), PIPELINES["lower-to-kernel"]).apply(ctx, module)
    (kernel,) = [k for k in module.ops if isinstance(k, K.KernelOp)]
    with pytest.raises(OptError, match=f"target {target} has no tensor cores"):
        apply_opt(kernel.clone(), Opt.parse("tc:0:0"), get_target(target))
    PassPipeline.parse_spec(get_all_passes(), f"kernel-optimize{{target={target}}}").apply(ctx, module)
    assert "tc:0:0" not in str(kernel.attributes["opts"])
