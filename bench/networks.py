"""Whole networks: the nine CNNs of the onnx wheel (random weights) and an attention block, kiln (cpu-llvm,
cpu-c) against onnxruntime and tinygrad, measured in the same run.

    python bench/networks.py [--models squeezenet,resnet50,attention|all] [--devices cpu-llvm,cpu-c]
                             [--runners kiln,onnxruntime,tinygrad] [--repeat 5] [--timeout 3600]

The models are onnx/backend/test/data/light/*.onnx (1x3x224x224) with each weight that the light files fill by
ConstantOfShape replaced by a random initializer (``kiln.onnx.random_weights``, seed 0), and an attention block
(8 heads x 512 x 64: MatMul, scale, Softmax, MatMul). One model file and one input per model serve every runner.

Every runner runs in child processes of its own, twice: the first with an empty compile cache (kiln:
KILN_CACHE_DIR, tinygrad: CACHEDB, both a fresh temporary folder), the second with the cache that run filled.
Both compile a tiny program first (kiln) or import their packages before the clock starts, so module imports
count in neither. Per model and runner the table has:

- median ms: the median of ``--repeat`` warm calls (second process; after one warm-up call and a pause);
- x ort: onnxruntime's median / the runner's (above 1: faster than onnxruntime), and its geometric mean;
- compile s: kiln's import + compile, onnxruntime's session creation (first process); tinygrad compiles
  during its first call, so it has none;
- cold first s / warm-cache first s: from reading the model file to the first output in hand, in the first and
  the second process;
- peak MiB: the process's RSS high-water mark (VmHWM), of the first process (compiling) and the second
  (running from the cache);
- check: the outputs against onnxruntime's, rtol 1e-3 and atol 1e-4 x the output's largest magnitude.

onnxruntime runs with intra_op_num_threads=2 (its CPU provider), kiln with its default threads (one per usable
core: 2 here), tinygrad with DEV=CPU under TinyJit (captured on the second call; the timed calls replay it).
A runner that fails on a model is reported in the table's notes and skipped. Figures only, nothing asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import blas_note, clean_blas_env, machine_note, markdown_table, timings, warm_up_compiler  # noqa: E402

clean_blas_env()

import numpy as np  # noqa: E402

CNNS = ["squeezenet", "bvlc_alexnet", "zfnet512", "resnet50", "shufflenet", "inception_v1", "inception_v2",
        "densenet121", "vgg19"]
MODELS = [*CNNS, "attention"]
RUNNERS = ["kiln", "onnxruntime", "tinygrad"]
ORT_THREADS = 2
RESULT = "NETWORKS-RESULT "
HEADER = ["model", "runner", "device", "median ms", "x ort", "compile s", "cold first s", "warm-cache first s",
          "peak MiB compiling", "peak MiB cached", "check"]


def build_model(name: str, folder: Path) -> tuple[Path, dict[str, np.ndarray]]:
    """Write model ``name`` to ``folder`` and draw its inputs (seed 0)."""
    import onnx

    from kiln.onnx.random_weights import with_random_weights

    if name == "attention":
        model = attention_model()
    else:
        light = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / f"light_{name}.onnx"
        model = with_random_weights(onnx.load(str(light)), seed=0)
    path = folder / f"{name}.onnx"
    onnx.save(model, str(path))
    weights = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(0)
    inputs = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
              for i in model.graph.input if i.name not in weights}
    return path, inputs


def attention_model(heads: int = 8, seq: int = 512, dim: int = 64):
    """softmax(q @ k^T / sqrt(dim)) @ v over ``heads`` heads, as an ONNX graph (opset 17)."""
    from onnx import TensorProto, helper, numpy_helper

    shape = [heads, seq, dim]
    scale = numpy_helper.from_array(np.array(1 / math.sqrt(dim), np.float32), "scale")
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"]),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["weights"], axis=-1),
        helper.make_node("MatMul", ["weights", "v"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes, "attention", [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n in "qkv"],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, shape)], [scale])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


# --- child processes: one runner, one model, one cache state -----------------------------------------------------


def child(runner: str, device: str, model: Path, inputs: Path, out: Path, repeat: int) -> None:
    """Load ``model``, time the first result (and, when ``repeat`` > 0, warm calls), save the outputs to ``out``
    and print the figures as one JSON line."""
    feeds = dict(np.load(inputs))
    start = {"kiln": start_kiln, "onnxruntime": start_onnxruntime, "tinygrad": start_tinygrad}[runner]
    call, compile_s, first_s, outputs = start(model, feeds, device)
    figures = {"compile_s": compile_s, "first_s": first_s}
    if repeat:
        figures["median_s"] = timings(call, repeat)[0]
    np.savez(out, *outputs)
    figures["peak_mib"] = peak_rss_mib()
    print(RESULT + json.dumps(figures), flush=True)


def peak_rss_mib() -> float:
    """This process's RSS high-water mark. Linux's VmHWM belongs to the address space exec made; getrusage's
    ru_maxrss survives exec, so in a child it is at least the parent's RSS when it forked."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def start_kiln(model: Path, feeds: dict, device: str):
    import kiln.onnx

    warm_up_compiler(device)
    start = time.perf_counter()
    compiled = kiln.onnx.load(str(model), device=device)  # through the import cache, as a user's load
    compile_s = time.perf_counter() - start
    outputs = compiled(**feeds)
    first_s = time.perf_counter() - start
    return (lambda: compiled(**feeds)), compile_s, first_s, outputs


def start_onnxruntime(model: Path, feeds: dict, device: str):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = ORT_THREADS
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    start = time.perf_counter()
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    compile_s = time.perf_counter() - start
    outputs = session.run(None, feeds)
    first_s = time.perf_counter() - start
    return (lambda: session.run(None, feeds)), compile_s, first_s, outputs


def start_tinygrad(model: Path, feeds: dict, device: str):
    from tinygrad import Device, Tensor, TinyJit
    from tinygrad.nn.onnx import OnnxRunner

    start = time.perf_counter()
    runner = OnnxRunner(model)
    names = runner.graph_outputs

    @TinyJit
    def step(**tensors):
        results = runner(tensors)
        return [results[n].realize() for n in names]

    tensors = {k: Tensor(v).realize() for k, v in feeds.items()}
    outputs = [t.numpy() for t in step(**tensors)]
    first_s = time.perf_counter() - start

    def call() -> None:
        step(**tensors)
        Device[Device.DEFAULT].synchronize()

    return call, None, first_s, outputs


# --- the parent: models x runners, the table ---------------------------------------------------------------------


def run_child(runner: str, device: str, model: Path, inputs: Path, out: Path, repeat: int, env: dict,
              timeout: float) -> tuple[dict | None, str]:
    """The child's figures, or None and why it failed (its last line of output)."""
    command = [sys.executable, __file__, "--child", runner, device, str(model), str(inputs), str(out), str(repeat)]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    for line in done.stdout.splitlines():
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT):]), ""
    lines = [ln for ln in (done.stderr + done.stdout).splitlines() if ln.strip()]
    return None, (lines[-1] if lines else f"exit status {done.returncode}")[:200]


def measure(runner: str, device: str, model: Path, inputs: Path, folder: Path, repeat: int, timeout: float):
    """Both processes of one runner on one model: (figures, outputs) or (None, why)."""
    env = dict(os.environ)
    cache = Path(tempfile.mkdtemp(prefix=f"{runner}-{device}-", dir=folder))
    env["KILN_CACHE_DIR"] = str(cache)
    env["CACHEDB"] = str(cache / "tinygrad.db")
    env["DEV"] = "CPU"
    out = folder / f"{model.stem}-{runner}-{device}.npz"
    cold, why = run_child(runner, device, model, inputs, out, 0, env, timeout)
    if cold is None:
        return None, why
    warm, why = run_child(runner, device, model, inputs, out, repeat, env, timeout)
    if warm is None:
        return None, f"second process: {why}"
    outputs = np.load(out)
    figures = {"compile_s": cold["compile_s"], "cold_first_s": cold["first_s"], "warm_first_s": warm["first_s"],
               "median_s": warm["median_s"], "cold_peak_mib": cold["peak_mib"], "peak_mib": warm["peak_mib"]}
    return figures, [outputs[f"arr_{i}"] for i in range(len(outputs.files))]


def check(got: list[np.ndarray], want: list[np.ndarray] | None) -> str:
    if want is None:
        return "not checked"
    if len(got) != len(want):
        return f"WRONG: {len(got)} outputs, onnxruntime {len(want)}"
    for g, w in zip(got, want):
        scale = float(np.abs(w).max())
        if g.shape != w.shape or not np.allclose(g, w, rtol=1e-3, atol=1e-4 * scale):
            return f"WRONG: max error {np.abs(g - w).max() / scale:.1e} of max" if g.shape == w.shape else "WRONG shape"
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="all", help=f"comma-separated, of: {', '.join(MODELS)} (default all)")
    parser.add_argument("--devices", default="cpu-llvm,cpu-c", help="kiln's devices")
    parser.add_argument("--runners", default=",".join(RUNNERS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        runner, device, model, inputs, out, repeat = args.child
        return child(runner, device, Path(model), Path(inputs), Path(out), int(repeat))
    models = MODELS if args.models == "all" else args.models.split(",")
    runners = args.runners.split(",")
    for name, known in [*((m, MODELS) for m in models), *((r, RUNNERS) for r in runners)]:
        if name not in known:
            sys.exit(f"error: unknown '{name}' (known: {', '.join(known)})")
    print(machine_note())
    print(blas_note())
    configs = [(r, d) for r in runners for d in (args.devices.split(",") if r == "kiln" else ["cpu"])]
    configs.sort(key=lambda c: c[0] != "onnxruntime")  # onnxruntime first: it is the reference
    rows, notes, ratios = [], [], {}
    with tempfile.TemporaryDirectory(prefix="kiln-networks-") as tmp:
        folder = Path(tmp)
        for name in models:
            model, feeds = build_model(name, folder)
            inputs = folder / f"{name}-inputs.npz"
            np.savez(inputs, **feeds)
            reference, ort_s = None, None
            for runner, device in configs:
                print(f"{name} {runner} {device} ...", file=sys.stderr, flush=True)
                figures, outputs = measure(runner, device, model, inputs, folder, args.repeat, args.timeout)
                if figures is None:
                    notes.append(f"{name}, {runner} {device}: failed: {outputs}")
                    continue
                if runner == "onnxruntime":
                    reference, ort_s = outputs, figures["median_s"]
                ratio = ort_s / figures["median_s"] if ort_s else None
                if ratio and runner != "onnxruntime":
                    ratios.setdefault((runner, device), []).append(ratio)
                rows.append([name, runner, device, figures["median_s"] * 1e3, f"{ratio:.3g}" if ratio else "-",
                             f"{figures['compile_s']:.3g}" if figures["compile_s"] is not None else "-",
                             figures["cold_first_s"], figures["warm_first_s"], round(figures["cold_peak_mib"]),
                             round(figures["peak_mib"]), "reference" if runner == "onnxruntime" else check(outputs, reference)])
                print(markdown_table(HEADER, rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)  # a long run's partial results
            (folder / f"{name}.onnx").unlink()
    print("\n" + markdown_table(HEADER, rows))
    if ratios:
        print("\ngeometric mean of x ort (onnxruntime ms / runner ms) over the models each runner ran:")
        for (runner, device), values in ratios.items():
            mean = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"- {runner} {device}: {mean:.3g} ({len(values)} models)")
    for note in notes:
        print(f"- {note}")
    print(f"\n{machine_note()} (at the end)")


if __name__ == "__main__":
    main()
