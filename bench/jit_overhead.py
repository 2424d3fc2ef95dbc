"""What ``@kiln.jit`` costs per call, and what the disk cache saves on the first call.

    python bench/jit_overhead.py [--device cpu-llvm] [--calls 2000]

1. Replay overhead: a 1-kernel and a 10-kernel function on tiny tensors (so the kernels take ~no time), called
   through the JIT, through the device's ``Executable`` directly, and as a bare loop of ctypes calls of the
   same loaded kernels on preallocated buffers (the floor). Reported in µs per call and per launch.
2. First call of the MLP training step of examples/jit_mlp.py in a fresh process: with an empty disk cache
   (trace + lower + codegen + compile) and with a warm one (trace only).
3. The same replay measurement with tinygrad's TinyJit, if ``import tinygrad`` works here.

Figures only, no assertions (the target is < 20 µs of JIT overhead per launch).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from kiln.dialects.types import to_numpy
from kiln.jit import Tensor, jit
from kiln.runtime.device_cpu import load_kernels
from kiln.runtime.program import ProgramSpec
from kiln.support.symbolic import compile_size

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "jit_mlp.py"


def one_kernel(x: Tensor) -> Tensor:
    return x * 2 + 1


def ten_kernels(x: Tensor) -> Tensor:
    for _ in range(10):
        x = (x * 2 + 1).contiguous()
    return x


def per_call(fn: Callable[[], object], calls: int) -> float:
    """Best of 5 runs of ``calls`` calls, in µs per call."""
    fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def ctypes_floor(spec: ProgramSpec, inputs: list[np.ndarray]) -> Callable[[], None]:
    """The launches of ``spec`` as bare ctypes calls on preallocated buffers (one thread, whole ranges)."""
    loaded = load_kernels(spec.kernels, spec.kernel_names())
    env: dict[str, int] = {}
    for t, a in zip(spec.inputs, inputs):
        env.update({d: n for d, n in zip(t.shape, a.shape) if isinstance(d, str)})
    slots: dict[int, np.ndarray] = {}
    addresses: dict[int, int] = {}
    for b in spec.buffers:
        if b.input is not None:
            addresses[b.id] = inputs[b.input].ctypes.data
            continue
        nbytes = to_numpy(b.dtype).itemsize * int(np.prod([env[d] if isinstance(d, str) else d for d in b.shape]))
        if b.slot not in slots or slots[b.slot].nbytes < nbytes:
            slots[b.slot] = np.empty(max(nbytes, 1), np.uint8)
    for b in spec.buffers:
        if b.input is None:
            addresses[b.id] = slots[b.slot].ctypes.data  # type: ignore[index]
    calls = []
    for launch in spec.launches:
        kinds = [ctypes.c_void_p if kind == "buf" else ctypes.c_int64 for kind, _ in launch.args]
        fn = ctypes.CFUNCTYPE(None, *kinds, ctypes.c_int64, ctypes.c_int64)(loaded.addresses[launch.kernel])
        extent = 1 if launch.core_extent is None else compile_size(launch.core_extent)(env)
        args = [addresses[v] if kind == "buf" else env[v] for kind, v in launch.args]  # type: ignore[index]
        calls.append((fn, (*args, 0, extent)))

    def run(loaded=loaded) -> None:  # holding `loaded` keeps the kernels' code mapped
        for fn, args in calls:
            fn(*args)

    return run


def replay_overhead(device: str, calls: int) -> None:
    print(f"replay cost on {device} (µs per call; tiny tensors, so kernels take ~no time)")
    header = ("function", "launches", "jit", "Executable", "ctypes", "jit - ctypes per launch")
    print(f"{header[0]:<12} {header[1]:>8} {header[2]:>9} {header[3]:>11} {header[4]:>9} {header[5]:>24}")
    x = Tensor(np.ones(16, np.float32), device=device).realize()
    for fn in (one_kernel, ten_kernels):
        f = jit(fn, device=device)
        f(x)
        compiled = f.compiled[0]
        arrays = [x._node.arg]
        jit_us = per_call(lambda: f(x), calls)
        exe_us = per_call(lambda: compiled.run(*arrays), calls)
        spec = compiled.program
        if spec is None:
            print(f"{fn.__name__:<12} {'-':>8} {jit_us:9.1f} {exe_us:11.1f} {'n/a':>9} {'n/a':>24}")
            continue
        floor_us = per_call(ctypes_floor(spec, arrays), calls)
        launches = len(spec.launches)
        per_launch = (jit_us - floor_us) / launches
        print(f"{fn.__name__:<12} {launches:>8} {jit_us:9.1f} {exe_us:11.1f} {floor_us:9.1f} {per_launch:24.1f}")


FIRST_CALL = textwrap.dedent(
    """
    import importlib.util, json, sys, time
    from kiln.jit import Tensor, jit
    spec = importlib.util.spec_from_file_location("jit_mlp", sys.argv[1])
    mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mlp)
    device = sys.argv[2]
    params = mlp.init_params(device=device)
    x, y = mlp.quadrants(64, seed=0)
    xs, ys = Tensor(x, device=device).realize(), Tensor(y, device=device).realize()
    step = jit(mlp.train_step, device=device)
    start = time.perf_counter()
    step(params, xs, ys, 0.5)[0].item()
    first = time.perf_counter() - start
    start = time.perf_counter()
    step(params, xs, ys, 0.5)[0].item()
    print(json.dumps({"first": first, "second": time.perf_counter() - start}))
    """
)


def first_call(device: str) -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {**os.environ, "KILN_CACHE_DIR": cache_dir, "KILN_NO_CACHE": "0"}
        results = []
        for _ in ("cold", "warm"):
            command = [sys.executable, "-c", FIRST_CALL, str(EXAMPLE), device]
            done = subprocess.run(command, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"first call of the MLP step failed on {device}:\n{done.stderr}")
                return
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    cold, warm = results
    print(f"\nMLP training step on {device}, first call in a fresh process (second call after it):")
    print(f"  empty disk cache: {cold['first'] * 1e3:9.1f} ms   ({cold['second'] * 1e6:.0f} µs)")
    print(f"  warm disk cache:  {warm['first'] * 1e3:9.1f} ms   ({warm['second'] * 1e6:.0f} µs)")


def tinygrad_overhead(calls: int) -> None:
    try:
        from tinygrad import Tensor as TinyTensor, TinyJit
    except ImportError:
        print("\ntinygrad is not importable here: no TinyJit comparison")
        return
    print("\ntinygrad TinyJit replay (µs per call)")
    x = TinyTensor.ones(16).contiguous().realize()
    for fn in (one_kernel, ten_kernels):
        f = TinyJit(lambda x, fn=fn: fn(x).realize())
        for _ in range(3):
            f(x)
        print(f"  {fn.__name__:<12} {per_call(lambda: f(x), calls):9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu-llvm")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    replay_overhead(args.device, args.calls)
    first_call(args.device)
    tinygrad_overhead(args.calls)


if __name__ == "__main__":
    main()
