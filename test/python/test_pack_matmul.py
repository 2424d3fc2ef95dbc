"""Matmuls that read a B packed by graph-pack-matmul give numpy's answer on the CPU backends.

The pass packs only large matmuls by default; here its size threshold is lowered (``min-bytes=0``) so small,
cheap matmuls take the packed path: static, batched, fused with a consumer, and with symbolic dims; and convs
whose panels are copied straight from the im2col windows (checked against the interpreter).
"""

from __future__ import annotations

import numpy as np
import pytest

from kiln.compiler.registry import PIPELINES
from kiln.runtime.device_cpu import load_kernels
from kiln.runtime.devices import device_available
from kiln.compiler.driver import LOWERINGS, lower_program
from kiln.compiler.module import parse_module
from kiln.runtime.program import Executable

DEVICES = ["cpu-llvm", "cpu-c"]


def _t(shape: tuple[int | str, ...], dtype: str = "f32") -> str:
    return "!graph.tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def _matmul(a: tuple, b: tuple, out: tuple, dtype: str = "f32", dims: str = "", relu_bias: bool = False) -> str:
    ta, tb, tr = _t(a, dtype), _t(b, dtype), _t(out, dtype)
    attrs = f" attributes {{graph.dims = #graph.dims<{dims}>}}" if dims else ""
    body = f"  %r = graph.matmul %a, %b : ({ta}, {tb}) -> {tr}\n"
    args = f"%a: {ta}, %b: {tb}"
    if relu_bias:
        tc = _t(out[-1:], dtype)
        args += f", %c: {tc}"
        body = body.replace("%r =", "%m =")
        body += f"  %s = graph.add %m, %c : ({tr}, {tc}) -> {tr}\n  %r = graph.relu %s : {tr}\n"
    return f"func.func @mm({args}) -> {tr}{attrs} {{\n{body}  func.return %r : {tr}\n}}"


CASES = {
    # name: (program, input shapes)
    "f32": (_matmul((64, 96), (96, 128), (64, 128)), [(64, 96), (96, 128)]),
    "f64": (_matmul((64, 40), (40, 64), (64, 64), "f64"), [(64, 40), (40, 64)]),
    "batched_a": (_matmul((4, 16, 72), (72, 64), (4, 16, 64)), [(4, 16, 72), (72, 64)]),
    "batched_b": (_matmul((2, 64, 48), (2, 48, 64), (2, 64, 64)), [(2, 64, 48), (2, 48, 64)]),
    "bias_relu": (_matmul((64, 80), (80, 64), (64, 64), relu_bias=True), [(64, 80), (80, 64), (64,)]),
    "symbolic": (_matmul(("M", "K"), ("K", 64), ("M", 64), dims="M = [64, 256], K = [1, 300]"), [(100, 37), (37, 64)]),
}


def _compile(device: str, text: str) -> Executable:
    pipeline = PIPELINES[LOWERINGS[device][0]].replace(
        f"graph-pack-matmul{{target={device}}}", f"graph-pack-matmul{{target={device} min-bytes=0}}"
    )
    spec = lower_program(parse_module(text), "mm", device, pipeline)
    return Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CASES)
def test_packed_matmul_matches_numpy(name: str, device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    text, shapes = CASES[name]
    dtype = np.float64 if "xf64>" in text else np.float32
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    run = _compile(device, text)
    assert len(run.spec.launches) == 2, "B was not packed (one kernel copies B into panels, one multiplies)"
    want = inputs[0] @ inputs[1]
    if name == "bias_relu":
        want = np.maximum(want + inputs[2], 0)
    np.testing.assert_allclose(run(*inputs)[0], want, rtol=1e-4, atol=1e-4)


def _conv(x: tuple, w: tuple, out: tuple, attrs: str, bias_relu: bool = False) -> str:
    tx, tw, ty, tb = _t(x), _t(w), _t(out), _t(w[:1])
    if not bias_relu:
        return (f"func.func @mm(%a: {tx}, %b: {tw}) -> {ty} {{\n  %r = graph.conv2d %a, %b {attrs} : ({tx}, {tw}) -> {ty}\n"
                f"  func.return %r : {ty}\n}}")
    return (f"func.func @mm(%a: {tx}, %b: {tw}, %c: {tb}) -> {ty} {{\n"
            f"  %y = graph.conv2d %a, %b bias %c {attrs} : ({tx}, {tw}, {tb}) -> {ty}\n"
            f"  %r = graph.relu %y : {ty}\n  func.return %r : {ty}\n}}")


CONVS = {
    # name: (program, input shapes, kernels): the im2col's output columns a multiple of the panel width (16 or 32
    # f32) are packed straight from the windows (one copy, then the matmul); rows of 12 columns straddle panels and
    # keep the im2col copy before the panel copy (16 rows: 192 columns, whole panels of either width). 256 filters: stride-1 convs with at most 128 take the direct form
    "conv_3x3_32_columns": (_conv((1, 3, 34, 34), (256, 3, 3, 3), (1, 256, 32, 32), ""), [(1, 3, 34, 34), (256, 3, 3, 3)], 2),
    "conv_7x7_stride_2": (_conv((1, 3, 64, 64), (64, 3, 7, 7), (1, 64, 32, 32),
                                "{padding = array<i64: 3, 3>, stride = array<i64: 2, 2>}"), [(1, 3, 64, 64), (64, 3, 7, 7)], 2),
    "conv_straddling": (_conv((1, 4, 18, 14), (256, 4, 3, 3), (1, 256, 16, 12), ""), [(1, 4, 18, 14), (256, 4, 3, 3)], 3),
    # 56 columns at stride 2 and 64 filters: graph-conv-to-matmul pads each output row to 64 columns so the panels
    # are copied from the windows; the padded result is sliced (with the bias and relu) in a third kernel
    "conv_row_padded": (_conv((1, 16, 112, 112), (64, 16, 3, 3), (1, 64, 56, 56), "{padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}"),
                        [(1, 16, 112, 112), (64, 16, 3, 3)], 3),
    "conv_row_padded_bias_relu": (_conv((1, 16, 112, 112), (64, 16, 3, 3), (1, 64, 56, 56),
                                        "{padding = array<i64: 1, 1>, stride = array<i64: 2, 2>}", True),
                                  [(1, 16, 112, 112), (64, 16, 3, 3), (64,)], 3),
    # the direct form (stride 1, 64 filters, 28 columns): the padded input's copy, the conv with its bias
    "conv_direct": (_conv((1, 16, 28, 28), (64, 16, 3, 3), (1, 64, 28, 28), "{padding = array<i64: 1, 1>}"),
                    [(1, 16, 28, 28), (64, 16, 3, 3)], 2),
    # wide rows (56, 60 columns): the flat direct form, the padded input's copy, the conv over its rows as one axis
    # of points (with the bias), then the points past each row's end sliced off (with the relu)
    "conv_flat": (_conv((1, 16, 56, 56), (64, 16, 3, 3), (1, 64, 56, 56), "{padding = array<i64: 1, 1>}"),
                  [(1, 16, 56, 56), (64, 16, 3, 3)], 3),
    "conv_flat_bias_relu": (_conv((1, 16, 60, 60), (64, 16, 3, 3), (1, 64, 60, 60), "{padding = array<i64: 1, 1>}", True),
                            [(1, 16, 60, 60), (64, 16, 3, 3), (64,)], 3),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CONVS)
def test_packed_conv_matches_interpreter(name: str, device: str) -> None:
    if not device_available(device):
        pytest.skip(f"{device} is not available here")
    from kiln.compiler.driver import compile

    text, shapes, kernels = CONVS[name]
    rng = np.random.default_rng(2)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    run = _compile(device, text)
    assert len(run.spec.launches) == kernels, [launch.kernel for launch in run.spec.launches]
    want = compile(text, "mm", "interp")(*inputs)[0]
    np.testing.assert_allclose(run(*inputs)[0], want, rtol=1e-4, atol=1e-4)
