"""The beam search and bulk compilation on a Ray cluster: a local one, two nodes on 127.0.0.1 started by the
fixture (``ray.cluster_utils.Cluster``: a head and a second node, each its own raylet and kiln workers) and
stopped after the module; the worker pool started by the first search serves the rest. Faults are real: a
worker process killed with SIGKILL mid-compile, one stopped with SIGSTOP mid-timing (a hang), a node removed
mid-search.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

from kiln.capabilities.description import get_target  # noqa: E402
from kiln.compiler import cluster, search  # noqa: E402
from kiln.compiler.cluster_runner import RayRunner  # noqa: E402
from kiln.dialects.kernel import KernelOp  # noqa: E402
from kiln.passes.optimize import tuning_db  # noqa: E402
from kiln.passes.optimize.space import applied  # noqa: E402
from kiln.runtime.devices import device_available  # noqa: E402
from kiln.support import cache  # noqa: E402

CPU = get_target("cpu-llvm")
pytestmark = pytest.mark.skipif(not device_available("cpu-llvm"), reason="needs the cpu-llvm device")

MATMUL = """
kernel.kernel @mm(%a: !kernel.buffer<16x32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<16x64xf32>) attributes {symbols = []} {
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %cm = kernel.const 16 : index
  %i = kernel.range %cm global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %ib = kernel.add %k64, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}
"""


CLUSTER_MARK = "KILN_TEST_RAY_CLUSTER"
"""An environment variable the fixture sets for the module's life: every node it starts, and so every worker,
inherits it (tests change ``KILN_CACHE_DIR`` for themselves, so that cannot mark them)."""


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """Two local nodes with cpu-llvm's hardware class, one CPU and one timing slot each; a cache folder of its
    own (the nodes' workers inherit the environment)."""
    cache = tmp_path_factory.mktemp("cluster-cache")
    saved = os.environ.get("KILN_CACHE_DIR")
    os.environ["KILN_CACHE_DIR"] = str(cache)
    os.environ[CLUSTER_MARK] = str(cache)
    resources = cluster.node_resources(CPU, cpus=1)
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": resources})
    nodes.add_node(num_cpus=1, resources=resources)
    try:
        nodes.wait_for_nodes()
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()
        os.environ.pop(CLUSTER_MARK, None)
        if saved is None:
            os.environ.pop("KILN_CACHE_DIR", None)
        else:
            os.environ["KILN_CACHE_DIR"] = saved


def kernel(name: str = "mm") -> KernelOp:
    from kiln.compiler.module import parse_module

    module = parse_module(MATMUL.replace("@mm", f"@{name}"))
    return next(op for op in module.ops if isinstance(op, KernelOp))


def budget(**fields) -> search.SearchBudget:
    """A small search. Its per-kernel budget is also each call's time limit from its start (the hang test sets
    its own); the workers are warm by then (``cluster_pool``), so a loaded machine only slows the calls."""
    return search.SearchBudget(**{"beam_width": 2, "max_candidates": 6, "time_per_kernel": 60.0, **fields})


def test_search_on_the_cluster_stores_a_locally_confirmed_winner(ray_cluster, capsys) -> None:
    k = kernel()
    search.beam_search_module([k], CPU, budget(cluster=ray_cluster.address))
    hit = tuning_db.lookup(kernel("again"), CPU, budget().options_key())
    assert hit is not None and applied(k) == [str(o) for o in hit.opts]
    nodes = {f"/{n['NodeID'][:8]}" for n in ray.nodes()}
    assert hit.worker == "local" or any(hit.worker.endswith(n) for n in nodes), hit.worker
    assert hit.seconds <= hit.baseline * 1.5
    assert "lost" not in capsys.readouterr().err


def test_the_workers_stay_warm_across_searches(ray_cluster) -> None:
    """The workers (one per node here) start once per process: a later search, of another kernel, starts no new
    worker process (a fresh one would spend its first call importing kiln)."""
    search.beam_search_module([kernel("first")], CPU, budget(cluster=ray_cluster.address, max_candidates=4))
    before = _ray_workers("NodeWorker")
    search.beam_search_module([kernel("second")], CPU, budget(cluster=ray_cluster.address, max_candidates=5))
    assert len(before) == 2 and _ray_workers("NodeWorker") == before


def test_a_cluster_without_the_hardware_class_is_refused(ray_cluster) -> None:
    from kiln.support.errors import KilnError

    with pytest.raises(KilnError, match="no node of the Ray cluster .* offers hardware class kiln-hw-cpu-c"):
        RayRunner(ray_cluster.address, get_target("cpu-c"), task_timeout=5.0)


def _ray_workers(title: str) -> list[int]:
    """Pids of this module's Ray worker processes now running the method ``title`` (Ray sets an actor's process
    title to ``ray::<Class>.<method>`` while it runs one). Only workers of the fixture's cluster count, not those
    of another test run on the machine."""
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    pids = [int(line.split()[0]) for line in out.splitlines() if f"ray::{title}" in line and "IDLE" not in line]
    return [pid for pid in pids if _in_this_cluster(pid)]


def _in_this_cluster(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f"{CLUSTER_MARK}={os.environ[CLUSTER_MARK]}".encode() in f.read().split(b"\0")
    except OSError:  # gone since ps listed it, or another user's
        return False


def _signal_first(title: str, sig: int, sent: list[int], stop: threading.Event) -> None:
    while not stop.is_set() and not sent:
        if pids := _ray_workers(title):
            os.kill(pids[0], sig)
            sent.append(pids[0])
        time.sleep(0.005)


def _search_while(title: str, sig: int, **fields) -> tuple[list[int], KernelOp, float]:
    """Search a kernel the nodes have not compiled (its own name: other text, other cache keys, so its compiles
    are not millisecond cache hits) while ``sig`` goes to the first worker seen running ``title``."""
    sent: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=_signal_first, args=(title, sig, sent, stop))
    killer.start()
    k = kernel(f"{title.replace('.', '_')}_{sig}")
    start = time.monotonic()
    try:
        search.beam_search_module([k], CPU, budget(**fields))
    finally:
        stop.set()
        killer.join()
        for pid in sent:  # a stopped worker that the search did not kill must not outlive the test
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return sent, k, time.monotonic() - start


def test_a_worker_killed_mid_compile_is_retried_and_the_search_finishes(ray_cluster, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # this process's tuning database only: a fresh search
    sent, k, _ = _search_while("NodeWorker.compile", signal.SIGKILL, cluster=ray_cluster.address)
    assert sent, "no compile task was seen running"
    assert applied(k) is not None
    assert "retried elsewhere (1 its worker died (ActorDiedError))" in capsys.readouterr().err
    assert tuning_db.lookup(kernel("x"), CPU, budget().options_key()) is not None


def test_a_hung_timing_is_cancelled_at_its_budget_and_reported(ray_cluster, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    sent, k, seconds = _search_while("NodeWorker.time", signal.SIGSTOP, cluster=ray_cluster.address, time_per_kernel=15.0)
    assert sent, "no timing task was seen running"
    assert applied(k) is not None and seconds < 40
    err = capsys.readouterr().err
    assert "retried elsewhere (1 it ran past its budget)" in err or "(1 it ran past its budget twice)" in err, err


def test_without_a_cluster_ray_is_not_imported(tmp_path) -> None:
    code = (
        "import sys\n"
        "from kiln.capabilities.description import get_target\n"
        "from kiln.compiler import search\n"
        "from kiln.compiler.module import parse_module\n"
        "from kiln.dialects.kernel import KernelOp\n"
        f"m = parse_module({MATMUL!r})\n"
        "k = next(op for op in m.ops if isinstance(op, KernelOp))\n"
        "search.beam_search_module([k], get_target('cpu-llvm'), search.SearchBudget(beam_width=1, max_candidates=3, workers=1))\n"
        "print('ray' in sys.modules, k.attributes['opts'])\n"
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path)}
    env.pop("KILN_RAY_ADDRESS", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("False "), done.stdout


def test_bulk_compile_on_the_cluster_lands_checked_in_this_machines_cache(ray_cluster, tmp_path, monkeypatch) -> None:
    from kiln.compiler.bulk_compile import Job, compile_programs
    from kiln.compiler.driver import PROGRAM_NAMESPACE, program_key

    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))  # this machine's cache: empty, unlike the nodes'
    program = """
func.func @f(%x: !graph.tensor<8x8xf32>) -> !graph.tensor<8x8xf32> {
  %0 = graph.OP %x : !graph.tensor<8x8xf32>
  func.return %0 : !graph.tensor<8x8xf32>
}
"""
    jobs = [Job(op, program.replace("OP", op), "f") for op in ("exp", "neg")]
    outcomes = compile_programs(jobs, "cpu-llvm", ray_cluster.address)
    assert [o.status for o in outcomes] == ["compiled", "compiled"], outcomes
    nodes = {n["NodeID"][:8] for n in ray.nodes()}
    assert all(o.where.split("/")[-1] in nodes for o in outcomes)
    assert all(cache.get(PROGRAM_NAMESPACE, program_key(j.text, "f", "cpu-llvm")[0]) for j in jobs)
    assert [o.status for o in compile_programs(jobs, "cpu-llvm", ray_cluster.address)] == ["cached", "cached"]


def test_a_cluster_that_disappears_mid_search_leaves_a_valid_database(ray_cluster, tmp_path, monkeypatch, capsys) -> None:
    """cpu-c's hardware class lives on one extra node only; removing it mid-search leaves no capable node."""
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    c = get_target("cpu-c")
    if not device_available("cpu-c"):
        pytest.skip("needs the cpu-c device (a C compiler)")
    node = ray_cluster.add_node(num_cpus=1, resources=cluster.node_resources(c, cpus=1))
    ray_cluster.wait_for_nodes()
    removed: list[bool] = []

    def remove_when_compiling() -> None:
        deadline = time.monotonic() + 60
        while not _ray_workers("NodeWorker.compile") and time.monotonic() < deadline:
            time.sleep(0.01)
        ray_cluster.remove_node(node)
        removed.append(True)

    remover = threading.Thread(target=remove_when_compiling)
    remover.start()
    k = kernel()
    try:
        search.beam_search_module([k], c, budget(cluster=ray_cluster.address))
    finally:
        remover.join()
    assert removed and applied(k) is not None
    err = capsys.readouterr().err
    assert "no node of hardware class kiln-hw-cpu-c" in err, err
    # what it had was stored (re-timed here) or, if even the unoptimized kernel was lost, nothing: never junk
    hit = tuning_db.lookup(kernel("x"), c, budget().options_key())
    assert hit is None or (hit.seconds > 0 and hit.baseline > 0)
    assert len(list(cache.payloads(tuning_db.NAMESPACE))) == (hit is not None)
