"""Single kernels through ``@kiln.jit`` against onnxruntime and numpy, measured in the same run.

    python bench/kernels.py [--device cpu-llvm] [--threads 2] [--repeat 20] [--rounds 8] [--only matmul256,softmax,...]

Cases: matmuls 256^2 and 512^2, ``relu(a*b+c)`` over 16M floats, an MLP (256x784 -> 512 relu -> 10), softmax over
4096x4096 (last axis) and attention (8 heads x 512 x 64: ``softmax(q k^T / 8) v``). onnxruntime runs the same
computation as a small ONNX graph (built with ``onnx.helper``) with ``--threads`` intra-op threads and its default
optimizations; kiln runs the traced function on its default thread pool (``KILN_THREADS`` sets its size). Each
call's result is dropped before the next call, as in a loop that consumes it. "x ort" = onnxruntime's median /
kiln's median (above 1: kiln is faster). Results are checked against numpy; times are never asserted.

By default each runner is timed in turn (numpy, onnxruntime, kiln). ``--rounds N`` interleaves them instead: N
rounds of ``--repeat`` calls each, the order rotated every round, with the share of CPU time other processes took
(``harness.rotated_timings``). On a shared machine only the interleaved ratios compare: timed in turn, the
attention case read 1.19x where bench/networks.py read 0.71x for the same kernels (docs/performance.md,
"Attention graph and softmax, session 8").
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import blas_note, clean_blas_env, machine_note, measure, print_table  # noqa: E402

clean_blas_env()

import numpy as np  # noqa: E402


@dataclass
class Case:
    """One kernel: its inputs, the numpy reference, the kiln function and the ONNX nodes computing output ``y``."""

    inputs: dict[str, np.ndarray]
    numpy: Callable[..., np.ndarray]
    kiln: Callable[..., object]
    onnx_nodes: list[tuple]
    """(op_type, inputs, outputs, attributes) for ``onnx.helper.make_node``."""
    flops: int


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def cases(rng: np.random.Generator) -> dict[str, Case]:
    def normal(*shape: int, scale: float = 1.0) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    def matmul(n: int) -> Case:
        return Case({"a": normal(n, n), "b": normal(n, n)}, lambda a, b: a @ b, lambda a, b: a @ b,
                    [("MatMul", ["a", "b"], ["y"], {})], 2 * n**3)

    n = 1 << 24
    mlp_in = {"x": normal(256, 784), "w1": normal(784, 512, scale=0.05), "b1": normal(512),
              "w2": normal(512, 10, scale=0.05), "b2": normal(10)}
    attention_in = {name: normal(8, 512, 64) for name in ("q", "k", "v")}
    return {
        "matmul256": matmul(256),
        "matmul512": matmul(512),
        "elementwise": Case(
            {"a": normal(n), "b": normal(n), "c": normal(n)},
            lambda a, b, c: np.maximum(a * b + c, 0),
            lambda a, b, c: (a * b + c).relu(),
            [("Mul", ["a", "b"], ["m"], {}), ("Add", ["m", "c"], ["s"], {}), ("Relu", ["s"], ["y"], {})],
            2 * n,
        ),
        "mlp": Case(
            mlp_in,
            lambda x, w1, b1, w2, b2: np.maximum(x @ w1 + b1, 0) @ w2 + b2,
            lambda x, w1, b1, w2, b2: (x @ w1 + b1).relu() @ w2 + b2,
            [("MatMul", ["x", "w1"], ["h"], {}), ("Add", ["h", "b1"], ["hb"], {}), ("Relu", ["hb"], ["r"], {}),
             ("MatMul", ["r", "w2"], ["o"], {}), ("Add", ["o", "b2"], ["y"], {})],
            2 * 256 * (784 * 512 + 512 * 10),
        ),
        "softmax": Case({"x": normal(4096, 4096)}, _softmax, lambda x: x.softmax(-1),
                        [("Softmax", ["x"], ["y"], {"axis": -1})], 5 * 4096 * 4096),
        "attention": Case(
            attention_in,
            lambda q, k, v: _softmax(q @ k.transpose(0, 2, 1) / 8) @ v,
            lambda q, k, v: ((q @ k.transpose(0, 2, 1)) / 8).softmax(-1) @ v,
            [("Transpose", ["k"], ["kt"], {"perm": [0, 2, 1]}), ("MatMul", ["q", "kt"], ["s"], {}),
             ("Div", ["s", "eight"], ["sc"], {}), ("Softmax", ["sc"], ["p"], {"axis": -1}),
             ("MatMul", ["p", "v"], ["y"], {})],
            2 * 2 * 8 * 512 * 512 * 64,
        ),
    }


def onnxruntime_runner(case: Case, want: np.ndarray, threads: int) -> Callable[[], list]:
    """A session running ``case``'s nodes with ``threads`` intra-op threads; feeds bound once."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    def info(name: str, shape: tuple[int, ...]) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))

    nodes = [helper.make_node(op, ins, outs, **attrs) for op, ins, outs, attrs in case.onnx_nodes]
    eight = helper.make_tensor("eight", TensorProto.FLOAT, [], [8.0])
    uses_eight = any("eight" in ins for _, ins, _, _ in case.onnx_nodes)
    graph = helper.make_graph(nodes, "g", [info(k, v.shape) for k, v in case.inputs.items()], [info("y", want.shape)],
                              initializer=[eight] if uses_eight else [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feeds = dict(case.inputs)
    return lambda: session.run(None, feeds)


def check(name: str, runner: str, got: np.ndarray, want: np.ndarray) -> None:
    error = float(np.abs(got - want).max() / max(1.0, float(np.abs(want).max())))
    if not error < 1e-4:
        raise SystemExit(f"{name}: {runner} is wrong (relative error {error:.2e})")


def launch_count(launches: list) -> str:
    """The program's launches, with how many of them run joined to the launch before (one barrier for the group)."""
    joined = sum(1 for launch in launches if launch.joined)
    return f"{len(launches)} ({joined})" if joined else str(len(launches))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime's intra-op threads")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=0, help="interleave the runners, order rotated, this many rounds")
    parser.add_argument("--only", default=None, help="comma-separated case names")
    args = parser.parse_args()

    import kiln

    table = cases(np.random.default_rng(0))
    names = args.only.split(",") if args.only else list(table)
    if unknown := [n for n in names if n not in table]:
        raise SystemExit(f"unknown case(s) {unknown}; expected some of {', '.join(table)}")
    print(machine_note())
    print(blas_note())
    rows = []
    for name in names:
        case = table[name]
        arrays = list(case.inputs.values())
        want = case.numpy(*arrays)
        ort_run = onnxruntime_runner(case, want, args.threads)
        check(name, "onnxruntime", ort_run()[0], want)
        fn = kiln.jit(case.kiln, device=args.device)
        tensors = [kiln.Tensor(a, device=args.device) for a in arrays]
        check(name, "kiln", fn(*tensors).numpy(), want)
        runners = {"numpy": lambda: case.numpy(*arrays), "onnxruntime": ort_run, f"kiln {args.device}": lambda: fn(*tensors)}
        measured = measure(name, runners, args.rounds, args.repeat)
        ort_s = measured["onnxruntime"][0]
        launches = launch_count(fn.compiled[0].program.launches) if fn.compiled[0].program else ""
        for runner, (s, best) in measured.items():
            rows.append([name, runner, s * 1e3, best * 1e3, case.flops / s / 1e9, ort_s / s,
                         launches if runner.startswith("kiln") else ""])
    print_table(
        f"single kernels; x ort = onnxruntime median / runner median; onnxruntime {args.threads} threads",
        ["kernel", "runner", "median ms", "best ms", "GFLOP/s", "x ort", "launches (joined)"],
        rows,
    )


if __name__ == "__main__":
    main()
