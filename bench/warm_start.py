"""A whole later process, from Python's start to the first result, with the caches warm (issue 12: <= 1 s).

``bench/networks.py``'s "warm-cache first s" starts its clock after kiln's modules are imported; a user's
process pays those too. For each model (``build_model``: the onnx wheel's CNNs with random weights), a child
process fills a fresh cache folder (``kiln.onnx.load`` + one call), then ``--runs`` fresh children each time
``import kiln.onnx``, ``kiln.onnx.load(path)`` and the first call; onnxruntime's fresh process (import, session,
first run) is the baseline, in the same run, the runners' order rotating from one run to the next. The figures
are wall seconds from each child's own start (Python's start-up before the first line is not counted, the same
for both). ``--pyc`` adds kiln children that read every module's bytecode, as a user's install has it, next to
the "kiln" children, which compile kiln's own sources in each process (``PYTHONDONTWRITEBYTECODE``, which this
machine sets) but read the other packages' bytecode: both read it from folders of their own
(``PYTHONPYCACHEPREFIX``), filled by an untimed warm child, so ``__pycache__`` folders in the source tree change
neither. Figures only, nothing asserted.

    .venv/bin/python bench/warm_start.py --models resnet50,bvlc_alexnet,squeezenet --runs 2 --pyc
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def child(runner: str, model: Path, feeds: Path, device: str, env: dict) -> list[str]:
    """One fresh process of ``runner`` on ``model``: its import, load, first-call and total seconds."""
    done = subprocess.run([sys.executable, "-c", CHILD, runner, str(model), str(feeds), device], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{runner} on {model.name} failed: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout.split()


def without_kiln(pyc: Path, into: Path) -> None:
    """Copy the bytecode folder ``pyc`` (``PYTHONPYCACHEPREFIX``'s layout: absolute paths) to ``into``, less
    kiln's own modules (the package's root and subpackages, not a virtual environment inside its folder)."""
    import kiln

    kiln_root = Path(kiln.__file__).resolve().parent
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(pyc, into)
    for entry in (into / kiln_root.relative_to(kiln_root.anchor)).iterdir():
        if not entry.name.startswith("."):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    from networks import build_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,bvlc_alexnet,squeezenet")
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--runs", type=int, default=2, help="warm fresh processes per model and runner")
    parser.add_argument("--pyc", action="store_true", help="also time kiln with its bytecode written")
    args = parser.parse_args()
    print("| model | runner | run | import s | load s | first call s | total s |\n|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "KILN_CACHE_DIR": str(Path(folder) / "cache")}
        runners = {"kiln": ("kiln", env), "onnxruntime": ("onnxruntime", env)}
        if args.pyc:
            with_pyc = {**env, "PYTHONPYCACHEPREFIX": str(Path(folder) / "pyc")}
            with_pyc.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pyc-but-kiln")
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            runners["kiln .pyc"] = ("kiln", with_pyc)
        for name in args.models.split(","):
            model, inputs = build_model(name, Path(folder))
            feeds = model.with_suffix(".npz")
            np.savez(feeds, **inputs)
            start = time.perf_counter()
            child("kiln", model, feeds, args.device, env)
            print(f"| {name} | kiln | cold (fills the cache) | | | | {time.perf_counter() - start:.1f} |")
            if args.pyc:
                child("kiln", model, feeds, args.device, with_pyc)  # writes the .pyc of what a hit imports
                without_kiln(Path(with_pyc["PYTHONPYCACHEPREFIX"]), Path(env["PYTHONPYCACHEPREFIX"]))
            order = list(runners)
            for run in range(1, args.runs + 1):
                for label in order[run % len(order):] + order[:run % len(order)]:
                    runner, runner_env = runners[label]
                    print(f"| {name} | {label} | {run} | "
                          + " | ".join(child(runner, model, feeds, args.device, runner_env)) + " |", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
