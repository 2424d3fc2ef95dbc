"""kernel-join-launches: programs whose launches run joined (chunk by chunk, no barrier between them) give the
graph interpreter's numbers on both CPU targets, through the native runner and the Python launch loop; attention
gets joined launches: with the heads as the grid (the scores' heads moved outermost), or with heads and row blocks
merged into one core range where the heads alone are too few chunks (``MIN_GRID``). The buffers only a joined
group uses (attention's scores and probabilities) are chunk-local: the native runner gives each thread one
chunk's slice of them, and the results stay the interpreter's on any thread count and with chunk offsets that
are not multiples of 64 bytes (33 x 33 heads)."""

from __future__ import annotations

import numpy as np
import pytest

from kiln.jit import jit

from test_copy_transposed_rhs import attention, causal_attention, _causal_mask, _normal

DEVICES = ["cpu-llvm", "cpu-c"]

CASES = {
    # name: (function, inputs, launches joined on both CPU targets; None: not checked, it depends on the tiles)
    # 16 heads of 128 keys: the copy of k^T in panels, the scores (heads moved outermost), softmax, p @ v: one group
    "panels": (attention, [_normal(16, 128, 16, seed=s) for s in range(3)], 3),
    # 2 x 8 heads of 33 rows: the scores and the copy of k^T are one kernel (k^T is small); softmax and p @ v join
    "batch_heads": (attention, [_normal(2, 8, 33, 16, seed=s) for s in range(3)], 2),
    # 70 rows: tiles that overhang the rows, gated: what lines up differs between the targets
    "heads": (attention, [_normal(8, 70, 24, seed=s) for s in range(3)], None),
    "causal": (causal_attention, [*(_normal(8, 67, 16, seed=s) for s in range(3)), _causal_mask(67)], None),
    # 8 heads of 256 rows: a grid of 8 (the heads) is below MIN_GRID, so the copy of k^T stays alone; the scores'
    # heads and row blocks merge into one core range, which softmax and p @ v (merged the same way) join
    "long": (attention, [_normal(8, 256, 32, seed=s) for s in range(3)], 2),
}


def joined(fn) -> int:
    return sum(launch.joined for launch in fn.compiled[0].program.launches)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CASES)
def test_joined_launches_match_the_interpreter(name: str, device: str) -> None:
    fn, inputs, expected = CASES[name]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device=device)
    np.testing.assert_allclose(compiled(*inputs).numpy(), want, rtol=1e-4, atol=1e-5)
    assert expected is None or joined(compiled) == expected


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_joined_launches_on_any_thread_count(threads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One thread still cuts a joined group into chunks (run in order); three threads split 8 heads unevenly."""
    monkeypatch.setenv("KILN_THREADS", threads)
    import kiln.runtime.threads as threads_module

    monkeypatch.setattr(threads_module, "_default", None)
    fn, inputs, _ = CASES["panels"]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device="cpu-llvm")
    np.testing.assert_allclose(compiled(*inputs).numpy(), want, rtol=1e-4, atol=1e-5)
    assert compiled.compiled[0].run._pool.size == int(threads) and compiled.compiled[0].run._chunk_local


def test_joined_launches_through_the_python_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    fn, inputs, expected = CASES["panels"]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device="cpu-c")
    np.testing.assert_allclose(compiled(*inputs).numpy(), want, rtol=1e-4, atol=1e-5)
    assert compiled.compiled[0].run._runner is None and joined(compiled) == expected


def chunk_local(fn) -> list[int]:
    return [b.id for b in fn.compiled[0].program.buffers if b.chunk_span]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", ["panels", "batch_heads", "long"])
def test_chunk_local_buffers_take_a_slot_per_thread(name: str, device: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scores and probabilities are chunk-local: the native runner's call uses less memory than the Python
    launch loop's, which keeps whole buffers, and both give the interpreter's numbers."""
    fn, inputs, _ = CASES[name]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device=device)
    np.testing.assert_allclose(compiled(*inputs).numpy(), want, rtol=1e-4, atol=1e-5)
    run = compiled.compiled[0].run
    assert len(chunk_local(compiled)) >= 2 and set(run._chunk_local) == set(chunk_local(compiled))
    monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    whole = type(run)(run.spec, run._kernels)
    np.testing.assert_allclose(whole(*inputs)[0], want, rtol=1e-4, atol=1e-5)
    assert not whole._chunk_local and run.last_peak_bytes < whole.last_peak_bytes


def test_chunk_local_buffers_of_an_unsplit_group_take_one_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A joined group too small to split runs as one chunk in the calling thread: one slot per chunk-local
    buffer (about the whole buffer, as the Python launch loop has), not one per pool thread."""
    import kiln.runtime.threads as threads_module

    fn, inputs, _ = CASES["long"]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device="cpu-llvm")
    compiled(*inputs)
    run = compiled.compiled[0].run
    monkeypatch.setattr(threads_module, "PARALLEL_MIN_WORK", 1 << 62)
    one = type(run)(run.spec, run._kernels)
    np.testing.assert_allclose(one(*inputs)[0], want, rtol=1e-4, atol=1e-5)
    assert one._chunk_local and all(len(ranges) == 1 for _, _, ranges, _ in one._plans[()].launches)
    monkeypatch.setenv("KILN_PYTHON_RUNNER", "1")
    whole = type(run)(run.spec, run._kernels)
    whole(*inputs)
    assert one.last_peak_bytes <= whole.last_peak_bytes + 2 * 128


def test_chunk_local_buffers_under_concurrent_calls() -> None:
    """Calls of one program from several threads at once: each call's chunks use its own arena's slots."""
    import threading

    fn, inputs, _ = CASES["long"]
    want = jit(fn, device="interp")(*inputs).numpy()
    compiled = jit(fn, device="cpu-llvm")
    compiled(*inputs)
    run = compiled.compiled[0].run
    results: list[np.ndarray] = []

    def calls() -> None:
        for _ in range(10):
            results.append(run(*inputs)[0].copy())

    threads = [threading.Thread(target=calls) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert run._chunk_local and len(results) == 30
    for got in results:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
