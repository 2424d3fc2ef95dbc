"""kiln on an NVIDIA GPU against PyTorch (cuBLAS / cuDNN) on the same GPU, in the same run.

    python bench/gpu_kernels.py [--only matmul_f32_4096,...] [--repeat 20]

Per case: kiln's kernel time (the program's launches alone, CUDA events, inputs already on the GPU:
``CUDAProgram.time_launches``), kiln's whole-call time (copies in and out included), torch's kernel time (CUDA
events; TF32 off, so f32 products are f32 FMAs on both sides), TFLOP/s or GB/s of the medians, the ratio torch
time / kiln kernel time, and the cold compile time. kiln's results are checked against torch's; times are never
asserted. Needs a CUDA GPU, cuda-python and torch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note, print_table  # noqa: E402

import numpy as np  # noqa: E402


@dataclass(frozen=True)
class Case:
    """A one-function program, its numpy inputs' shapes and dtype, the torch computation and the work done."""

    name: str
    text: str
    shapes: tuple[tuple[int, ...], ...]
    dtype: str
    torch_fn: Callable
    flops: float = 0.0
    bytes: float = 0.0
    rtol: float = 1e-3


def _t(shape: tuple[int, ...], dt: str) -> str:
    return f"!graph.tensor<{'x'.join(map(str, shape))}x{dt}>"


def matmul(n: int, dt: str) -> Case:
    t = _t((n, n), dt)
    text = f"func.func @f(%a: {t}, %b: {t}) -> {t} {{\n  %r = graph.matmul %a, %b : ({t}, {t}) -> {t}\n  func.return %r : {t}\n}}"
    return Case(f"matmul_{dt}_{n}", text, ((n, n), (n, n)), dt, lambda a, b: a @ b, flops=2.0 * n**3,
                rtol=2e-2 if dt == "f16" else 1e-3)


def conv3x3(batch: int, c: int, hw: int) -> Case:
    x, w, y = _t((batch, c, hw, hw), "f32"), _t((c, c, 3, 3), "f32"), _t((batch, c, hw, hw), "f32")
    text = (f"func.func @f(%x: {x}, %w: {w}) -> {y} {{\n"
            f"  %r = graph.conv2d %x, %w {{padding = array<i64: 1, 1>}} : ({x}, {w}) -> {y}\n"
            f"  func.return %r : {y}\n}}")

    def fn(a, b):
        import torch

        return torch.nn.functional.conv2d(a, b, padding=1)

    return Case(f"conv3x3_{batch}x{c}x{hw}", text, ((batch, c, hw, hw), (c, c, 3, 3)), "f32", fn,
                flops=2.0 * batch * c * c * 9 * hw * hw)


def softmax(rows: int, cols: int) -> Case:
    t = _t((rows, cols), "f32")
    text = (f"func.func @f(%x: {t}) -> {t} {{\n  %r = graph.softmax %x {{axis = 1 : i64}} : ({t}) -> {t}\n"
            f"  func.return %r : {t}\n}}")

    def fn(a):
        import torch

        return torch.softmax(a, dim=1)

    return Case(f"softmax_{rows}x{cols}", text, ((rows, cols),), "f32", fn, bytes=8.0 * rows * cols)


def relu_fma(n: int) -> Case:
    t = _t((n,), "f32")
    text = (f"func.func @f(%a: {t}, %b: {t}, %c: {t}) -> {t} {{\n  %m = graph.mul %a, %b : ({t}, {t}) -> {t}\n"
            f"  %s = graph.add %m, %c : ({t}, {t}) -> {t}\n  %r = graph.relu %s : {t}\n  func.return %r : {t}\n}}")

    def fn(a, b, c):
        import torch

        return torch.relu(a * b + c)

    return Case(f"relu_fma_{n}", text, ((n,), (n,), (n,)), "f32", fn, bytes=16.0 * n)


CASES = [matmul(1024, "f32"), matmul(4096, "f32"), matmul(4096, "f16"), conv3x3(8, 64, 56), softmax(4096, 4096),
         relu_fma(1 << 24)]


def torch_seconds(fn: Callable, args: list, repeat: int) -> list[float]:
    import torch

    fn(*args)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    seconds = []
    for _ in range(repeat):
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        seconds.append(start.elapsed_time(end) / 1e3)
    return seconds


def run_case(case: Case, repeat: int) -> list:
    import torch

    from kiln.compiler.driver import compile_program
    from kiln.compiler.module import parse_module
    from kiln.runtime.devices import get_device

    rng = np.random.default_rng(0)
    np_dtype = np.float16 if case.dtype == "f16" else np.float32
    arrays = [rng.standard_normal(s).astype(np_dtype) for s in case.shapes]
    started = time.perf_counter()
    program = get_device("cuda").load(compile_program(parse_module(case.text), "f", "cuda"))
    (got,) = program(*arrays)
    compile_s = time.perf_counter() - started
    tensors = [torch.from_numpy(a).cuda() for a in arrays]
    want = case.torch_fn(*tensors).float().cpu().numpy()
    error = np.abs(got.astype(np.float32) - want).max() / max(np.abs(want).max(), 1e-30)
    status = "ok" if error <= case.rtol else f"WRONG (relative error {error:.1e})"
    kernel = statistics.median(program.time_launches(*arrays, repeat=repeat))
    calls = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        program(*arrays)
        calls.append(time.perf_counter() - t0)
    reference = statistics.median(torch_seconds(case.torch_fn, tensors, repeat))
    work = f"{case.flops / kernel / 1e12:.1f} TFLOP/s" if case.flops else f"{case.bytes / kernel / 1e9:.0f} GB/s"
    return [case.name, kernel * 1e3, statistics.median(calls) * 1e3, reference * 1e3, work, reference / kernel,
            compile_s, status]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(machine_note())
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}")
    wanted = set(filter(None, args.only.split(",")))
    rows = []
    for case in CASES:
        if wanted and case.name not in wanted:
            continue
        try:
            rows.append(run_case(case, args.repeat))
        except Exception as e:  # one failing case must not hide the others' figures
            rows.append([case.name, "", "", "", "", "", "", f"FAILED: {type(e).__name__}: {str(e)[:300]}"])
        print(rows[-1], flush=True)
    print_table("kiln cuda against torch on the same GPU; ratio = torch kernel time / kiln kernel time",
                ["case", "kiln kernels ms", "kiln call ms", "torch ms", "kiln rate", "x torch", "compile s", "check"],
                rows)


if __name__ == "__main__":
    main()
