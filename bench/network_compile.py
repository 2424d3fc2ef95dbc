"""Compile time of ResNet-50 (the ONNX backend test's light_resnet50.onnx): where a cold compile goes, cold and
warm-cache loads in fresh processes, and onnxruntime's session start in the same run.

    python bench/network_compile.py [--devices cpu-llvm,cpu-c] [--stages]

Each load runs in a new Python process, so imports count, as they do for a user: ``cold`` with an empty cache
folder, then ``warm`` in another process with the cache the cold one filled. Columns: seconds to import
``kiln.onnx``, to ``kiln.onnx.load`` (import the model, compile or read the cache, load the kernels), to the first
result, and the CPU seconds of the process up to the end of the load (imports included, with its C compiler
children): on a loaded machine the wall time mostly waits for other processes. ``--without-dedupe`` adds a cold load without ``kernel-dedupe``. ``--stages`` also times each pass of a cold compile, the emitter and the
target's compiler in this process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import machine_note, print_table  # noqa: E402

MODEL = "onnx/backend/test/data/light/light_resnet50.onnx"

CHILD = """
import json, resource, sys, time
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
start = time.perf_counter()
import numpy as np
import kiln.onnx
if sys.argv[3] == "without-dedupe":
    from kiln.compiler import registry
    from kiln.compiler.driver import LOWERINGS
    name = LOWERINGS[sys.argv[2]][0]
    registry.PIPELINES[name] = registry.PIPELINES[name].replace("kernel-dedupe,", "")
imported = time.perf_counter()
model = kiln.onnx.load(sys.argv[1], device=sys.argv[2])
loaded, load_cpu = time.perf_counter(), cpu()
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
model(x)
done = time.perf_counter()
spec = model._run.spec
print(json.dumps({"import": imported - start, "load": loaded - imported, "first": done - loaded, "cpu": load_cpu,
                  "launches": len(spec.launches), "kernels": len(spec.kernel_names())}))
"""


def model_path() -> str:
    import onnx

    return str(Path(onnx.__file__).parent.parent / MODEL)


def run_child(device: str, cache_dir: str, variant: str = "default") -> dict:
    env = {**os.environ, "KILN_CACHE_DIR": cache_dir}
    command = [sys.executable, "-c", CHILD, model_path(), device, variant]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def onnxruntime_row() -> list[object]:
    import numpy as np
    import onnxruntime

    start = time.perf_counter()
    session = onnxruntime.InferenceSession(model_path(), providers=["CPUExecutionProvider"])
    loaded = time.perf_counter()
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    session.run(None, {session.get_inputs()[0].name: x})
    return ["onnxruntime", "session", "-", loaded - start, time.perf_counter() - loaded, "-", "-"]


def stage_rows(device: str) -> list[list[object]]:
    """Seconds per stage of one cold compile in this process (imports done first): the ONNX import, parsing, each
    pass, the emitter, the target's compiler with loading."""
    from dataclasses import replace

    from xdsl.passes import PassPipeline

    from kiln.compiler import driver, registry
    from kiln.compiler.module import parse_module
    from kiln.compiler.schedule_reader import read_schedule
    from kiln.lowering.uop_to_target import ConvertUopToTarget
    from kiln.onnx.importer import import_model, load_model
    from kiln.runtime.devices import get_device
    from kiln.runtime.program import KernelsArtifact

    os.environ["KILN_CACHE_DIR"] = tempfile.mkdtemp(prefix="kiln-bench-")
    start = time.perf_counter()
    imported = import_model(load_model(model_path()))
    text = str(imported.module)
    rows: list[list[object]] = [[device, "onnx import + print", time.perf_counter() - start]]
    start = time.perf_counter()
    module = parse_module(text)
    rows.append([device, "parse", time.perf_counter() - start])
    passes = driver.device_pipeline(device)
    marks, schedules = [time.perf_counter()], []

    def after_each(_: object, op: object, upcoming: object) -> None:
        marks.append(time.perf_counter())
        if isinstance(upcoming, ConvertUopToTarget):
            schedules.append(read_schedule(op, imported.function, device))
            marks[-1] = time.perf_counter()  # reading the schedule is not the next pass's time

    PassPipeline(tuple(passes), after_each).apply(registry.make_context(), module)  # calls it before and after each
    rows += [[device, p.name, b - a] for p, a, b in zip(passes, marks[1:], marks[2:])]
    start = time.perf_counter()
    source = registry.get_all_targets()[driver.LOWERINGS[device][1]]()(module)
    rows.append([device, "emit", time.perf_counter() - start])
    start = time.perf_counter()
    get_device(device).load(replace(schedules[-1], kernels=KernelsArtifact(device, source)))
    rows.append([device, "target compiler + load", time.perf_counter() - start])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="cpu-llvm,cpu-c")
    parser.add_argument("--stages", action="store_true")
    parser.add_argument("--without-dedupe", action="store_true", help="also a cold load without kernel-dedupe")
    args = parser.parse_args()
    print(machine_note())
    rows: list[list[object]] = []
    for device in args.devices.split(","):
        runs = [("cold", "default"), ("warm", "default")] + ([("cold, no dedupe", "without-dedupe")] if args.without_dedupe else [])
        with tempfile.TemporaryDirectory(prefix="kiln-bench-") as folder:
            for kind, variant in runs:
                if variant != "default":
                    shutil.rmtree(folder)
                r = run_child(device, folder, variant)
                rows.append([device, kind, r["import"], r["load"], r["first"], r["cpu"], f"{r['kernels']}/{r['launches']}"])
    rows.append(onnxruntime_row())
    print_table("ResNet-50 in a fresh process: seconds", ["device", "cache", "import s", "load s", "first call s", "CPU s to loaded", "kernels/launches"], rows)
    if args.stages:
        stages = [row for device in args.devices.split(",") for row in stage_rows(device)]
        print_table("a cold compile by stage (this process, imports done)", ["device", "stage", "s"], stages)
    print(machine_note())


if __name__ == "__main__":
    main()
