"""Single ResNet-50 layers (f32, batch 1): kiln against onnxruntime (2 threads) in the same run.

    python bench/conv.py [--layers stem,1x1_56,...] [--devices cpu-llvm,cpu-c] [--direct] [--repeat 10]
                         [--rounds 16]
    KILN_THREADS=1 python bench/conv.py --ort-threads 1     # one core each

Each layer is one `graph.conv2d` (or pool) for kiln and a one-node ONNX model for onnxruntime. Prints per layer
and runner: median and best time of warm calls, GFLOP/s (of the median; convolutions only), the ratio
onnxruntime time / kiln time, the kiln cold compile time, and the opts chosen per kernel. kiln's results are
checked against onnxruntime's (rtol 1e-3); times are never asserted. ``--direct`` drops graph-conv-to-matmul
(the sliding-window form of graph-decompose), to compare. ``--rounds N`` times the runners of a layer
interleaved, their order rotated each round, ``--repeat`` calls each per round (for a shared machine; it also
prints the CPU share other processes used meanwhile); without it each runner's calls run in one block.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    clean_blas_env, compile_cold_and_cached, machine_note, measure, print_table, without_pass,
)

clean_blas_env()

import numpy as np  # noqa: E402

ORT_THREADS = 2
"""onnxruntime's intra-op threads (the issue's baseline: 2, the cores of the machine the targets were set on)."""


@dataclass(frozen=True)
class Layer:
    """``op`` ("conv", "max_pool" or "avg_pool") on a [1, c, hw, hw] input: ``o`` filters (convs) of size k."""

    name: str
    op: str
    c: int
    hw: int
    o: int
    k: int
    stride: int = 1
    pad: int = 0

    @property
    def out(self) -> int:
        return (self.hw + 2 * self.pad - self.k) // self.stride + 1

    @property
    def flops(self) -> int:
        return 2 * self.o * self.out**2 * self.c * self.k**2 if self.op == "conv" else 0

    def shapes(self) -> tuple[tuple[int, ...], ...]:
        x = (1, self.c, self.hw, self.hw)
        return (x, (self.o, self.c, self.k, self.k)) if self.op == "conv" else (x,)


LAYERS = [
    Layer("stem 7x7/2 3->64 @224", "conv", 3, 224, 64, 7, 2, 3),
    Layer("1x1 64->256 @56", "conv", 64, 56, 256, 1),
    Layer("3x3 64->64 @56", "conv", 64, 56, 64, 3, 1, 1),
    Layer("3x3/2 128->128 @56", "conv", 128, 56, 128, 3, 2, 1),
    Layer("1x1/2 256->512 @56", "conv", 256, 56, 512, 1, 2),
    Layer("1x1 1024->256 @14", "conv", 1024, 14, 256, 1),
    Layer("1x1 512->2048 @7", "conv", 512, 7, 2048, 1),
    Layer("3x3 512->512 @7", "conv", 512, 7, 512, 3, 1, 1),
    Layer("maxpool 3x3/2 64 @112", "max_pool", 64, 112, 64, 3, 2, 1),
    Layer("avgpool 7x7 2048 @7", "avg_pool", 2048, 7, 2048, 7, 7),
]


def _t(shape: tuple[int, ...]) -> str:
    return "!graph.tensor<" + "x".join(map(str, shape)) + "xf32>"


def program(layer: Layer) -> str:
    shapes = layer.shapes()
    y = _t((1, layer.o, layer.out, layer.out))
    args = ", ".join(f"%a{i}: {_t(s)}" for i, s in enumerate(shapes))
    operands = ", ".join(f"%a{i}" for i in range(len(shapes)))
    pads = f"padding = array<i64: {layer.pad}, {layer.pad}>, stride = array<i64: {layer.stride}, {layer.stride}>"
    attrs = pads if layer.op == "conv" else f"kernel = array<i64: {layer.k}, {layer.k}>, {pads}"
    types = ", ".join(_t(s) for s in shapes)
    op = "conv2d" if layer.op == "conv" else f"{layer.op}2d"
    return (f"func.func @layer({args}) -> {y} {{\n  %y = graph.{op} {operands} {{{attrs}}} : ({types}) -> {y}\n"
            f"  func.return %y : {y}\n}}")


def onnx_session(layer: Layer, threads: int):  # noqa: ANN201 (onnxruntime's InferenceSession)
    import onnxruntime as ort
    from onnx import TensorProto, helper

    names = ["x", "w"][: len(layer.shapes())]
    common = {"pads": [layer.pad] * 4, "strides": [layer.stride] * 2, "kernel_shape": [layer.k] * 2}
    node = helper.make_node({"conv": "Conv", "max_pool": "MaxPool", "avg_pool": "AveragePool"}[layer.op], names, ["y"], **common)
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in zip(names, layer.shapes())]
    graph = helper.make_graph([node], layer.op, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return lambda *arrays: session.run(None, dict(zip(names, arrays)))[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="", help="comma-separated name prefixes (default: all)")
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--direct", action="store_true", help="without graph-conv-to-matmul (sliding windows)")
    parser.add_argument("--ort-threads", type=int, default=ORT_THREADS)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=0, help="interleave the runners, order rotated, this many rounds")
    args = parser.parse_args()
    wanted = [w for w in args.layers.split(",") if w]
    layers = [la for la in LAYERS if not wanted or any(la.name.startswith(w) for w in wanted)]
    print(machine_note())
    devices = args.devices.split(",")
    if args.direct:
        for device in devices:
            without_pass(device, "graph-conv-to-matmul")
    rows, chosen = [], []
    rng = np.random.default_rng(0)
    for layer in layers:
        inputs = [rng.standard_normal(s).astype(np.float32) for s in layer.shapes()]
        ort_run = onnx_session(layer, args.ort_threads)
        want = ort_run(*inputs)
        ort = f"onnxruntime x{args.ort_threads}"
        runners, colds = {ort: lambda: ort_run(*inputs)}, {ort: ""}
        for device in devices:
            run, colds[device], _, opts = compile_cold_and_cached(device, program(layer), "layer")
            got = run(*inputs)[0]
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * float(np.abs(want).max()),
                                       err_msg=f"{layer.name} on {device}")
            chosen.append(f"{layer.name} {device}: {'; '.join(opts)}")
            runners[device] = lambda run=run: run(*inputs)
        measured = measure(layer.name, runners, args.rounds, args.repeat)
        gflops = (lambda s: layer.flops / s / 1e9) if layer.flops else (lambda s: "")
        for name, (s, best) in measured.items():
            rows.append([layer.name, name, s * 1e3, best * 1e3, gflops(s), measured[ort][0] / s, colds[name]])
    how = "direct (sliding windows)" if args.direct else "graph-conv-to-matmul"
    print_table(f"ResNet-50 layers, batch 1, f32 ({how}); ratio = onnxruntime time / kiln time",
                ["layer", "runner", "median ms", "best ms", "GFLOP/s", "x onnxruntime", "cold compile s"], rows)
    print("\nopts chosen:\n  " + "\n  ".join(chosen))


if __name__ == "__main__":
    main()
