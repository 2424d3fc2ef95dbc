"""Whole networks: the nine CNNs of the onnx wheel (random weights) and an attention block, kiln (cpu-llvm,
cpu-c) against onnxruntime and tinygrad, measured in the same run.

    python bench/networks.py [--models squeezenet,resnet50,attention|all] [--devices cpu-llvm,cpu-c]
                             [--runners kiln,onnxruntime,tinygrad] [--rounds 3] [--repeat 5] [--timeout 3600]

The models are onnx/backend/test/data/light/*.onnx (1x3x224x224) with each weight that the light files fill by
ConstantOfShape replaced by a random initializer (``kiln.onnx.random_weights``, seed 0), and an attention block
(8 heads x 512 x 64: MatMul, scale, Softmax, MatMul). One model file and one input per model serve every runner.

Every runner runs in child processes of its own, twice: the first with an empty compile cache (kiln:
KILN_CACHE_DIR, tinygrad: CACHEDB, both a fresh temporary folder), the second with the cache that run filled.
Both compile a tiny program first (kiln) or import their packages before the clock starts, so module imports
count in neither. The second processes of all runners of a model stay alive together and are timed interleaved:
``--rounds`` rounds, each runner's ``--repeat`` calls in turn (after one untimed call and a pause), the order
rotated every round, as ``harness.rotated_timings`` does in one process. Timed one runner after another, each
runner saw another state of a shared machine: the attention block read 0.90x onnxruntime here where
bench/kernels.py's interleaved rounds read 1.09x minutes later (docs/performance.md, "Attention's chunk-local
buffers and networks.py's attention row, session 13"). Per model and runner the table has:

- median ms: the median of the ``--rounds`` x ``--repeat`` warm calls (second process);
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
A runner that fails on a model is reported in the table's notes and skipped. Per model the output says what
share of the machine's CPU time other processes took while the calls were timed. Figures only, nothing asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (  # noqa: E402
    SETTLE_S, blas_note, busy_seconds, clean_blas_env, machine_note, markdown_table, warm_up_compiler)

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


def child(runner: str, device: str, model: Path, inputs: Path, out: Path, serve: bool) -> None:
    """Load ``model`` and time the first result; print the figures as one JSON line. A cold child then saves the
    outputs to ``out`` and ends. A serving child (``serve``) then answers the parent's lines on stdin: ``time N``
    (a pause, one untimed call, N timed calls: their seconds and this process's CPU seconds) and ``end`` (save
    the outputs, report the peak RSS)."""
    feeds = dict(np.load(inputs))
    start = {"kiln": start_kiln, "onnxruntime": start_onnxruntime, "tinygrad": start_tinygrad}[runner]
    call, compile_s, first_s, outputs = start(model, feeds, device)
    figures = {"compile_s": compile_s, "first_s": first_s}
    if serve:
        print(RESULT + json.dumps(figures), flush=True)
        for line in sys.stdin:
            command, *count = line.split()
            if command == "end":
                break
            time.sleep(SETTLE_S)
            call()
            cpu = sum(os.times()[:2])
            times = []
            for _ in range(int(count[0])):
                t = time.perf_counter()
                call()
                times.append(time.perf_counter() - t)
            print(RESULT + json.dumps({"times": times, "cpu_s": sum(os.times()[:2]) - cpu}), flush=True)
        figures = {}
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


class Child:
    """A runner's child process on one model; ``result`` waits for its next JSON line (None and why on failure)."""

    def __init__(self, runner: str, device: str, model: Path, inputs: Path, out: Path, serve: bool, env: dict,
                 timeout: float, folder: Path):
        command = [sys.executable, __file__, "--child", runner, device, str(model), str(inputs), str(out),
                   "serve" if serve else "cold"]
        self.timeout = timeout
        self.stderr = tempfile.TemporaryFile("w+", dir=folder)
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True)
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.last = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            if line.startswith(RESULT):
                self.lines.put(line[len(RESULT):])
            elif line.strip():
                self.last = line.strip()
        self.lines.put(None)

    def send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")  # type: ignore[union-attr]
            self.process.stdin.flush()  # type: ignore[union-attr]
        except OSError:
            pass  # it ended: result() says why

    def result(self) -> tuple[dict | None, str]:
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            return None, f"timed out after {self.timeout:.0f} s"
        if line is not None:
            return json.loads(line), ""
        self.process.wait()
        self.stderr.seek(0)
        lines = [ln for ln in self.stderr.read().splitlines() if ln.strip()] or [self.last]
        return None, (lines[-1] if lines[-1] else f"exit status {self.process.returncode}")[:200]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.stderr.close()


def start(runner: str, device: str, model: Path, inputs: Path, folder: Path, timeout: float):
    """A runner's cold process (compile figures), then its second process, started and left serving: (cold
    figures, the serving child, its first figures) or (None, why, None)."""
    env = dict(os.environ)
    cache = Path(tempfile.mkdtemp(prefix=f"{runner}-{device}-", dir=folder))
    env["KILN_CACHE_DIR"] = str(cache)
    env["CACHEDB"] = str(cache / "tinygrad.db")
    env["DEV"] = "CPU"
    out = folder / f"{model.stem}-{runner}-{device}.npz"
    cold_child = Child(runner, device, model, inputs, out, False, env, timeout, folder)
    cold, why = cold_child.result()
    cold_child.close()
    if cold is None:
        return None, why, None
    serving = Child(runner, device, model, inputs, out, True, env, timeout, folder)
    warm, why = serving.result()
    if warm is None:
        serving.close()
        return None, f"second process: {why}", None
    return cold, serving, warm


def interleaved(children: dict, rounds: int, calls: int) -> tuple[dict, dict, float | None]:
    """Per runner, its ``rounds`` x ``calls`` call times, the order of the runners rotated every round; the
    runners that failed meanwhile (and why); and the share of the machine's CPU time that other processes took
    while the calls ran (harness.rotated_timings)."""
    names = list(children)
    times: dict = {n: [] for n in names}
    failed: dict = {}
    busy = own = wall = 0.0
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            if name in failed:
                continue
            cpu, start = busy_seconds(), time.perf_counter()
            children[name].send(f"time {calls}")
            figures, why = children[name].result()
            busy, wall = busy + busy_seconds() - cpu, wall + time.perf_counter() - start
            if figures is None:
                failed[name] = why
                continue
            times[name] += figures["times"]
            own += figures["cpu_s"]
    share = max(0.0, busy - own) / ((os.cpu_count() or 1) * wall) if busy and wall else None
    return times, failed, share


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
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of timed calls")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per runner per round")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per child process")
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        runner, device, model, inputs, out, mode = args.child
        return child(runner, device, Path(model), Path(inputs), Path(out), mode == "serve")
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
            started, cold_figures = {}, {}
            for runner, device in configs:
                print(f"{name} {runner} {device} ...", file=sys.stderr, flush=True)
                cold, serving, warm = start(runner, device, model, inputs, folder, args.timeout)
                if cold is None:
                    notes.append(f"{name}, {runner} {device}: failed: {serving}")
                    continue
                started[(runner, device)], cold_figures[(runner, device)] = serving, (cold, warm)
            times, failed, share = interleaved(started, args.rounds, args.repeat)
            print(f"{name}: other processes used {'an unknown share' if share is None else f'{share:.0%}'} of the "
                  "CPU time while it was timed", file=sys.stderr, flush=True)
            reference, ort_s = None, None
            for (runner, device), serving in started.items():
                serving.send("end")
                last, why = serving.result() if (runner, device) not in failed else (None, failed[(runner, device)])
                serving.close()
                if last is None:
                    notes.append(f"{name}, {runner} {device}: failed: {why}")
                    continue
                cold, warm = cold_figures[(runner, device)]
                median_s = sorted(times[(runner, device)])[len(times[(runner, device)]) // 2]
                saved = np.load(folder / f"{name}-{runner}-{device}.npz")
                outputs = [saved[f"arr_{i}"] for i in range(len(saved.files))]
                if runner == "onnxruntime":
                    reference, ort_s = outputs, median_s
                ratio = ort_s / median_s if ort_s else None
                if ratio and runner != "onnxruntime":
                    ratios.setdefault((runner, device), []).append(ratio)
                rows.append([name, runner, device, median_s * 1e3, f"{ratio:.3g}" if ratio else "-",
                             f"{cold['compile_s']:.3g}" if cold["compile_s"] is not None else "-",
                             cold["first_s"], warm["first_s"], round(cold["peak_mib"]), round(last["peak_mib"]),
                             "reference" if runner == "onnxruntime" else check(outputs, reference)])
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
