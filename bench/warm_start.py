"""A whole later process, from Python's start to the first result, with the caches warm (issue 12: <= 1 s).

``bench/networks.py``'s "warm-cache first s" starts its clock after kiln's modules are imported; a user's
process pays those too. For each model (``build_model``: the onnx wheel's CNNs with random weights), a child
process fills a fresh cache folder (``kiln.onnx.load`` + one call), then ``--runs`` fresh children each time
``import kiln.onnx``, ``kiln.onnx.load(path)`` and the first call; onnxruntime's fresh process (import, session,
first run) is the baseline, in the same run. The figures are wall seconds from each child's own start (Python's
start-up before the first line is not counted, the same for both). Figures only, nothing asserted.

    .venv/bin/python bench/warm_start.py --models resnet50,bvlc_alexnet,squeezenet --runs 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import sys, time
start = time.perf_counter()
import numpy as np
feeds = dict(np.load(sys.argv[3]))
if sys.argv[1] == "kiln":
    import kiln.onnx
    imported = time.perf_counter()
    model = kiln.onnx.load(sys.argv[2], device=sys.argv[4])
    loaded = time.perf_counter()
    model(**feeds)
else:
    import onnxruntime as ort
    imported = time.perf_counter()
    session = ort.InferenceSession(sys.argv[2], providers=["CPUExecutionProvider"])
    loaded = time.perf_counter()
    session.run(None, feeds)
done = time.perf_counter()
print(f"{imported - start:.2f} {loaded - imported:.2f} {done - loaded:.2f} {done - start:.2f}")
"""


def child(runner: str, model: Path, inputs: Path, device: str, env: dict) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CHILD, runner, str(model), str(inputs), device], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{runner} on {model.name} failed: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout.split()


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    from networks import build_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,bvlc_alexnet,squeezenet")
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--runs", type=int, default=2, help="warm fresh processes per model and runner")
    args = parser.parse_args()
    print("| model | runner | run | import s | load s | first call s | total s |\n|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "KILN_CACHE_DIR": str(Path(folder) / "cache")}
        for name in args.models.split(","):
            model, inputs = build_model(name, Path(folder))
            np.savez(Path(folder) / f"{name}.npz", **inputs)
            feeds = Path(folder) / f"{name}.npz"
            start = time.perf_counter()
            child("kiln", model, feeds, args.device, env)
            print(f"| {name} | kiln | cold (fills the cache) | | | | {time.perf_counter() - start:.1f} |")
            for runner in ("kiln", "onnxruntime"):
                for run in range(1, args.runs + 1):
                    print(f"| {name} | {runner} | {run} | " + " | ".join(child(runner, model, feeds, args.device, env))
                          + " |", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
