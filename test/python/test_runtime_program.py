"""ProgramSpec and Executable, run on hand-written kernels (LLVM IR and C) that follow the CPU calling convention.

The main program is ``f(a, b, c) = a * b + c`` over a symbolic N: k0 writes ``a * b`` into a temporary, k1
writes ``temp + c`` into the output. Both kernels take ``(x, y, out, N, core_start, core_end)``.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kiln.runtime.device_cpu import load_kernels
from kiln.support.errors import CompileError, InputError
from kiln.runtime.program import (
    ALIGNMENT,
    BufferSpec,
    Executable,
    KernelsArtifact,
    LaunchSpec,
    ProgramSpec,
    TensorSpec,
)
from kiln.runtime.threads import ThreadPool

from cpu_kernels import entry, kernels_source

TARGETS = ["cpu-llvm", "cpu-c"]


@pytest.fixture(autouse=True, scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache for the module: each kernel source is compiled once."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("KILN_NO_CACHE", raising=False)
        patch.setenv("KILN_CACHE_DIR", str(folder))
        yield folder


def fma_program(target: str, bounds: tuple[int, int] = (1, 1 << 20), work: int | None = 2) -> ProgramSpec:
    n = ("N",)
    return ProgramSpec(
        name="fma",
        inputs=(TensorSpec(n, "f32"),) * 3,
        symbols=(("N", *bounds),),
        buffers=(
            BufferSpec(0, n, "f32", input=0),
            BufferSpec(1, n, "f32", input=1),
            BufferSpec(2, n, "f32", input=2),
            BufferSpec(3, n, "f32", slot=0),
            BufferSpec(4, n, "f32", slot=1),
        ),
        outputs=(4,),
        launches=(
            LaunchSpec("k0", (("buf", 0), ("buf", 1), ("buf", 3), ("sym", "N")), "N", work),
            LaunchSpec("k1", (("buf", 3), ("buf", 2), ("buf", 4), ("sym", "N")), "N", work),
        ),
        kernels=KernelsArtifact(target, kernels_source(target, {"k0": "mul", "k1": "add"})),
    )


def build(spec: ProgramSpec, pool: ThreadPool | None = None) -> Executable:
    return Executable(spec, load_kernels(spec.kernels, spec.kernel_names()), pool)


def inputs(n: int, count: int = 3, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(np.float32) for _ in range(count)]


# --------------------------------------------------------------------------------------------- the spec as data


def test_json_round_trip() -> None:
    spec = fma_program("cpu-llvm")
    text = spec.to_json()
    assert ProgramSpec.from_json(text) == spec
    assert json.loads(text)["launches"][0]["args"] == [["buf", 0], ["buf", 1], ["buf", 3], ["sym", "N"]]
    assert spec.kernel_names() == ["k0", "k1"]
    gpu = replace(spec, launches=(LaunchSpec("k0", (("buf", 0),), None, None, ("ceildiv(N, 64)", 1, 1), (64, 1, 1)),))
    assert ProgramSpec.from_json(gpu.to_json()) == gpu


@pytest.mark.parametrize(
    "change, message",
    [
        ({"symbols": (("N", 1, 8), ("M", 1, 8))}, r"symbols \['M'\] appear in no input shape"),
        ({"symbols": (("N", 5, 1),)}, r"bounds \[5, 1\]"),
        ({"outputs": (9,)}, "output 9 is not a buffer"),
        ({"buffers": (BufferSpec(0, ("N",), "f32", input=0),) * 2}, "defined twice"),
        ({"buffers": (BufferSpec(0, ("N",), "f32"),)}, "exactly one of slot / input"),
        ({"buffers": (BufferSpec(0, ("N",), "f64", input=0),)}, "does not match input 0"),
        ({"buffers": (BufferSpec(0, ("K",), "f32", slot=0),)}, "undeclared symbol 'K'"),
        ({"buffers": (BufferSpec(0, ("N",), "f32", input=0, chunk_span=4),)}, "has chunk_span 4, but only an intermediate"),
        ({"launches": (LaunchSpec("k0", (("buf", 7),)),)}, "unknown buffer 7"),
        ({"launches": (LaunchSpec("k0", (("buf", 0),), "N", joined=True),)}, "is joined, but"),
        ({"launches": (LaunchSpec("k0", (("sym", "Q"),)),)}, "undeclared symbol 'Q'"),
        ({"launches": (LaunchSpec("k0", (), "N +"),)}, "bad size expression .N +."),
        ({"launches": (LaunchSpec("k0", (), "ceildiv(M, 4)"),)}, r"size .ceildiv\(M, 4\). uses undeclared symbols \[.M.\]"),
        ({"launches": (LaunchSpec("k0", (), None, None, ("K", 1, 1), (64, 1, 1)),)}, r"size .K. uses undeclared"),
    ],
)
def test_validate_rejects_inconsistent_specs(change: dict, message: str) -> None:
    spec = replace(fma_program("cpu-llvm"), **change)
    with pytest.raises(CompileError, match=message):
        spec.validate()


# --------------------------------------------------------------------------------------------- running


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [1, 7, 1000, 300_001])
def test_two_kernel_program(target: str, n: int) -> None:
    exe = build(fma_program(target))
    a, b, c = inputs(n)
    (out,) = exe(a, b, c)
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
    assert out.shape == (n,) and out.dtype == np.float32
    assert out.ctypes.data % ALIGNMENT == 0
    assert exe.last_peak_bytes == 2 * 4 * n == exe.peak_bytes(N=n)


def test_replay_with_new_shapes_and_fresh_outputs() -> None:
    exe = build(fma_program("cpu-llvm"))
    first = exe(*inputs(10, seed=1))[0]
    kept = first.copy()
    for n in (3, 10, 2000, 10):
        a, b, c = inputs(n, seed=n)
        np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(first, kept)  # an earlier result is never overwritten by a later call


def test_kept_values_follow_the_arena_when_it_moves() -> None:
    """Each binding's plan keeps its value array between calls; a larger binding replaces the arena, so the next
    call of the smaller one must address the new arena (where its temporary now lives), not the old one."""
    exe = build(fma_program("cpu-llvm"))
    small = inputs(10, seed=1)
    exe(*small)
    before = exe._arena
    exe(*inputs(100_000, seed=2))
    assert before is not None and exe._arena is not None and exe._arena[2] != before[2]
    a, b, c = small
    np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)
    plan = exe._plans_by_shapes[((10,),) * 3]
    assert plan.values[3] == exe._arena[2] + plan.offsets[0]  # after the 3 inputs: the temporary's address


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def test_dropped_output_storage_is_reused() -> None:
    exe = build(fma_program("cpu-llvm"))
    a, b, c = inputs(1000)
    storage = weakref.ref(exe(a, b, c)[0].base)  # the result is dropped at once; the Executable keeps its storage
    (out,) = exe(a, b, c)
    assert storage() is not None and out.base is storage()
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)


def test_a_held_result_is_never_overwritten() -> None:
    exe = build(fma_program("cpu-llvm"))
    held, kept = [], []
    for seed in range(5):  # more results held at once than the Executable keeps storages
        a, b, c = inputs(500, seed=seed)
        (out,) = exe(a, b, c)
        held.append(out)
        kept.append(a * b + c)
    row = exe(*inputs(500, seed=9))[0][:10]  # only a view of a result survives: it holds the storage too
    saved = row.copy()
    for seed in range(5):
        exe(*inputs(500, seed=10 + seed))
    for out, want in zip(held, kept):
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(row, saved)
    assert len({address(out) for out in held} | {address(row)}) == 6


def test_a_loop_that_keeps_the_last_result_alternates_two_storages() -> None:
    exe = build(fma_program("cpu-llvm"))
    a, b, c = inputs(300)
    out = exe(a, b, c)[0]
    storages = []
    for _ in range(6):
        previous, out = out, exe(a, b, out)[0]  # the previous result is an input of the call
        np.testing.assert_allclose(out, a * b + previous, rtol=1e-5, atol=1e-5)
        storages.append(weakref.ref(out.base))
        del previous
    assert all(s() is not None for s in storages) and len({id(s()) for s in storages}) == 2


def test_output_storage_grows_with_the_binding() -> None:
    exe = build(fma_program("cpu-llvm"))
    for n in (10, 5000, 10, 20_000):
        a, b, c = inputs(n, seed=n)
        np.testing.assert_allclose(exe(a, b, c)[0], a * b + c, rtol=1e-6, atol=1e-6)


def test_inputs_are_converted_when_needed() -> None:
    exe = build(fma_program("cpu-llvm"))
    a, b, c = inputs(20)
    wide = np.stack([a, a]).T  # column a[:, 0] is not contiguous
    readonly = b.copy()
    readonly.flags.writeable = False
    (out,) = exe(wide[:, 0], readonly, c)
    np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "args, message",
    [
        ((np.ones(4, np.float32),) * 2, "fma takes 3 inputs, got 2"),
        ((np.ones(4, np.float32), np.ones(4, np.float64), np.ones(4, np.float32)), "input 1 must have dtype f32"),
        ((np.ones(4, np.float32), np.ones(5, np.float32), np.ones(4, np.float32)), "sets N = 5, but an earlier"),
        ((np.ones((4, 1), np.float32),) * 3, r"input 0 must have shape \[N\], got \[4, 1\]"),
        ((np.ones(0, np.float32),) * 3, r"N = 0 is outside its declared bounds \[1, 1048576\]"),
    ],
)
def test_input_errors(args: tuple, message: str) -> None:
    exe = build(fma_program("cpu-llvm"))
    with pytest.raises(InputError, match=message):
        exe(*args)


def test_static_shapes_and_slot_sharing() -> None:
    # out = ((a * b) + a) * b: t0 and t2 share slot 0 (t0 is dead once t1 is written), t1 has slot 1; the
    # runtime keeps t0 and t1 in its arena and gives the output t2 storage of its own
    shape = (2, 3)
    spec = ProgramSpec(
        name="chain",
        inputs=(TensorSpec(shape, "f32"),) * 2,
        symbols=(),
        buffers=(
            BufferSpec(0, shape, "f32", input=0),
            BufferSpec(1, shape, "f32", input=1),
            BufferSpec(2, shape, "f32", slot=0),
            BufferSpec(3, shape, "f32", slot=1),
            BufferSpec(4, shape, "f32", slot=0),
        ),
        outputs=(4, 1, 4),
        launches=(
            LaunchSpec("mul", (("buf", 0), ("buf", 1), ("buf", 2)), "6", 1),
            LaunchSpec("add", (("buf", 2), ("buf", 0), ("buf", 3)), "6", 1),
            LaunchSpec("mul", (("buf", 3), ("buf", 1), ("buf", 4)), "6", 1),
        ),
        kernels=KernelsArtifact("cpu-llvm", kernels_source("cpu-llvm", {"mul": "mul", "add": "add"}, ())),
    )
    exe = build(spec)
    a, b = (x.reshape(shape) for x in inputs(6, 2))
    out, b_out, again = exe(a, b)
    np.testing.assert_allclose(out, (a * b + a) * b, rtol=1e-6)
    assert b_out is not b and np.array_equal(b_out, b)  # an output that is an input is copied
    assert again is not out and np.array_equal(again, out)  # the same buffer returned twice: two arrays
    assert exe.last_peak_bytes == 64 + 6 * 4 + 6 * 4  # t0 and t1 (live together, t1 at the next aligned offset), out


@pytest.mark.parametrize("length", [3, 12])
def test_a_chain_of_launches_uses_two_intermediate_buffers(length: int) -> None:
    """t1 = a * b, t(k+1) = t(k) + a, out = t(length) * b: whatever the chain's length, two intermediates are
    live at once, so the arena holds two (each slot of the spec is given to one buffer only, the worst plan)."""
    shape = (100,)
    temps = list(range(2, 2 + length))
    launches = [LaunchSpec("mul", (("buf", 0), ("buf", 1), ("buf", temps[0])), "100", 1)]
    launches += [LaunchSpec("add", (("buf", t), ("buf", 0), ("buf", u)), "100", 1) for t, u in zip(temps, temps[1:])]
    out = temps[-1] + 1
    launches.append(LaunchSpec("mul", (("buf", temps[-1]), ("buf", 1), ("buf", out)), "100", 1))
    spec = ProgramSpec(
        name="chain",
        inputs=(TensorSpec(shape, "f32"),) * 2,
        symbols=(),
        buffers=(BufferSpec(0, shape, "f32", input=0), BufferSpec(1, shape, "f32", input=1),
                 *(BufferSpec(t, shape, "f32", slot=t) for t in [*temps, out])),
        outputs=(out,),
        launches=tuple(launches),
        kernels=KernelsArtifact("cpu-llvm", kernels_source("cpu-llvm", {"mul": "mul", "add": "add"}, ())),
    )
    exe = build(spec)
    a, b = inputs(100, 2)
    want = a * b
    for _ in range(length - 1):
        want = want + a
    np.testing.assert_allclose(exe(a, b)[0], want * b, rtol=1e-5)
    assert exe.last_peak_bytes == 448 + 400 + 400  # two 400-byte intermediates (the second at offset 448), out


@pytest.mark.parametrize("target", TARGETS)
def test_launch_without_core_range_is_called_once_with_0_1(target: str) -> None:
    source = {
        "cpu-llvm": """
define void @bounds(ptr %out, i64 %lo, i64 %hi) {
  store i64 %lo, ptr %out
  %p = getelementptr i64, ptr %out, i64 1
  store i64 %hi, ptr %p
  ret void
}
""",
        "cpu-c": "#include <stdint.h>\nvoid bounds(int64_t *out, int64_t lo, int64_t hi) { out[0] = lo; out[1] = hi; }\n",
    }[target] + entry(target, "bounds", ("ptr",))
    spec = ProgramSpec(
        name="bounds",
        inputs=(),
        symbols=(),
        buffers=(BufferSpec(0, (2,), "i64", slot=3),),
        outputs=(0,),
        launches=(LaunchSpec("bounds", (("buf", 0),)),),
        kernels=KernelsArtifact(target, source),
    )
    np.testing.assert_array_equal(build(spec)()[0], [0, 1])


@pytest.mark.parametrize("target", TARGETS)
def test_threads_split_large_launches(target: str) -> None:
    """The core range of a big launch is cut into one chunk per thread; a small one runs as one chunk."""
    record = {
        "cpu-llvm": """
define void @record(ptr %out, i64 %n, i64 %lo, i64 %hi) {
entry:
  %nonempty = icmp slt i64 %lo, %hi
  br i1 %nonempty, label %loop, label %exit
loop:
  %i = phi i64 [ %lo, %entry ], [ %next, %loop ]
  %p = getelementptr i64, ptr %out, i64 %i
  store i64 %lo, ptr %p
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %hi
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
""",
        "cpu-c": """#include <stdint.h>
void record(int64_t *out, int64_t n, int64_t lo, int64_t hi) { (void)n; for (int64_t i = lo; i < hi; i++) out[i] = lo; }
""",
    }[target] + entry(target, "record", ("ptr", "i64"))

    def program(work: int | None) -> ProgramSpec:
        return ProgramSpec(
            name="record",
            inputs=(TensorSpec(("N",), "i64"),),
            symbols=(("N", 1, 10**6),),
            buffers=(BufferSpec(0, ("N",), "i64", input=0), BufferSpec(1, ("N",), "i64", slot=0)),
            outputs=(1,),
            launches=(LaunchSpec("record", (("buf", 1), ("sym", "N")), "N", work),),
            kernels=KernelsArtifact(target, record),
        )

    pool = ThreadPool(2)
    starts = build(program(None), pool)(np.zeros(9, np.int64))[0]
    chunks = pool.split(9, None)
    assert len(chunks) > 1
    np.testing.assert_array_equal(starts, [lo for lo, hi in chunks for _ in range(lo, hi)])
    starts = build(program(1), pool)(np.zeros(9, np.int64))[0]
    np.testing.assert_array_equal(starts, [0] * 9)


def test_kernel_missing_from_the_library() -> None:
    spec = fma_program("cpu-llvm")
    loaded = load_kernels(spec.kernels, ["k0"])
    with pytest.raises(CompileError, match="kernel @k1 is not in the loaded kernels"):
        Executable(spec, loaded)


def test_concurrent_calls_share_nothing() -> None:
    from concurrent.futures import ThreadPoolExecutor

    exe = build(fma_program("cpu-llvm", work=1))
    cases = [inputs(n, seed=n) for n in (1000, 5000, 1000, 7000) * 4]
    with ThreadPoolExecutor(4) as workers:
        results = list(workers.map(lambda abc: exe(*abc)[0], cases))
    for (a, b, c), out in zip(cases, results):
        np.testing.assert_allclose(out, a * b + c, rtol=1e-6, atol=1e-6)
