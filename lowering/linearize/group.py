"""Grouped reductions: a ``kernel.reduce`` whose partial results are combined across a GPU workgroup.

**The kernel-level form** (what ``kernel-optimize``'s ``group``/``grouptop`` opts produce): a ``kernel.reduce``
whose range list holds ``group_reduce`` ranges G (each of constant size L; usually there are ``reduce``
ranges R too) means: the L threads of the workgroup along G's dimension each combine their share of the
reduce (every point of R, at their own point of G) into a partial, and the partials are combined across the
workgroup through local memory. A G range is a workgroup dimension like a ``local`` range: the
``local``/``group_reduce`` ranges in range order make the workgroup (the last one x), so the launch's
``local_size`` holds L on G's axis, and the value reduced reads G as that axis' ``local_id``. The reduce's
result no longer depends on G; a store never depends on G, so it is gated to the thread with ``local_id == 0``
along G (``GpuLaunch.store_gates``). Only targets with workgroup-local memory (``has_local``: cuda, webgpu)
lower this; on CPU targets a ``group_reduce`` range is an error at the range (``launch.NEEDS_LOCAL``) rather
than a silent plain loop, so an opt meant for a GPU never runs unnoticed on a CPU.

**The lowering** of one reduce instance (one per copy of its upcast lanes), in the scope its result lives in:

1. the partial: the usual accumulator over the loop ranges R (``define_acc`` / loop nest / ``acc_get``), or
   the value itself when there are none;
2. ``uop.store`` of the partial at this thread's slot of a ``uop.define_local`` buffer, then ``uop.barrier``;
3. the combine: *every* thread loops over the L partials of its row (the slots that differ only along G) and
   reduces them in order. All threads of a row read the same addresses (a broadcast), so this costs about
   what one thread doing it alone costs, needs no second barrier to share the result, and leaves the result
   in every thread, where later ops (and later grouped reduces) can use it. A tree reduction would take
   log2(L) steps but a barrier per step; for workgroups of at most a few hundred threads the serial combine is
   the simpler and not the slower choice (tinygrad makes the same one).
4. when the reduce sits inside a loop (a ``loop`` range, or the loop of an outer reduce), a second barrier
   after the combine keeps the next iteration's partial stores from overwriting slots a slower thread is
   still reading.

Instances that share a loop nest (independent reduces over the same ranges in the same scope, e.g. the upcast
lanes of one reduce) share one barrier: all their partials are stored, then one barrier, then each combines.
Each such *stage* has one local buffer per dtype with a region of ``local_size`` slots per instance (slot =
instance * threads + the thread's position in the workgroup); separate stages use separate buffers, so
dependent grouped reduces (a mean, then a variance around it) need no barrier between them. ``finish``
sizes the buffers once every instance is known and checks the total against the target's
``local_memory_bytes``.

Barriers must be reached by every thread of the workgroup: the launch turns guards into gates in kernels with
``group_reduce`` ranges (``GpuLaunch.guards_are_gates``), and every loop around a barrier has bounds that are
the same for all threads (constants or kernel arguments), so barriers sit in uniform control flow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute

from kiln.dialects.types import itemsize
from kiln.dialects.uop import AccType, PtrType
from kiln.lowering.linearize.launch import GpuLaunch, RangeInfo
from kiln.lowering.linearize.nodes import Node, Program, Scope, iadd, imul, in_loop
from kiln.support.diagnostics import error_at


@dataclass(eq=False)
class Stage:
    """The partial stores, barrier(s) and local buffers shared by the grouped reduces of one loop nest."""

    barrier: Node
    trailing: Node | None
    """The barrier after the combines, when the stage runs inside a loop (step 4 of the module docstring)."""
    buffers: dict[Attribute, Node] = field(default_factory=dict)
    """dtype -> its ``define_local`` node (sized by ``Grouping.finish``)."""
    instances: dict[Attribute, int] = field(default_factory=dict)
    """dtype -> how many reduce instances have a region of its buffer."""


class Grouping:
    """Lowers the grouped part of reduces (steps 2-4 of the module docstring) for one kernel."""

    def __init__(self, program: Program, launch: GpuLaunch):
        self.program, self.launch = program, launch
        self.stages: list[Stage] = []

    def stage(self, parent: Scope) -> Stage:
        """A new stage in ``parent`` (the scope where the reduces' results live)."""
        p = self.program
        barrier = p.node("barrier", (), None, scope=parent)
        trailing = p.node("barrier", (), None, scope=parent) if in_loop(parent) else None
        self.stages.append(Stage(barrier, trailing))
        return self.stages[-1]

    def combine(
        self,
        stage: Stage,
        kind: str,
        identity: Node,
        partial: Node,
        groups: Sequence[RangeInfo],
        parent: Scope,
        name: str | None,
    ) -> Node:
        """The reduce of every thread's ``partial`` over the workgroup dimensions ``groups``, in every thread."""
        p, t, threads = self.program, partial.type, self.launch.threads
        assert t is not None
        if t not in stage.buffers:
            stage.buffers[t] = p.node("define_local", (), PtrType(t, local=True), None, scope=p.root, name="partials")
        buffer, instance = stage.buffers[t], stage.instances.get(t, 0)
        stage.instances[t] = instance + 1
        region = p.index(instance * threads)
        own = iadd(p, region, self.launch.thread_slot())
        stage.barrier.after += (p.node("store", (buffer, own, partial), None, scope=parent),)

        acc = p.node("define_acc", (identity,), AccType(t), scope=parent)
        index, scope, loops = iadd(p, region, self.launch.thread_slot(skip=groups)), parent, []
        for g in groups:
            scope = p.loop(scope, p.index(0), g.size, g.size_max, g.name)
            loops.append(scope)
            index = iadd(p, index, imul(p, scope.index, p.index(self.launch.stride(g))))  # type: ignore[arg-type]
        value = p.node("load", (buffer, index), t, scope=scope, after=(stage.barrier,))
        p.node("acc_set", (acc, p.alu(kind, p.node("acc_get", (acc,), t, scope=scope), value)), None, scope=scope)
        after: tuple[Node | Scope, ...] = (loops[0],)
        if stage.trailing is not None:
            stage.trailing.after += (loops[0],)
            after += (stage.trailing,)
        return p.node("acc_get", (acc,), t, scope=parent, after=after, name=name)

    def finish(self) -> None:
        """Size every local buffer for the instances that use it; check the total against the target."""
        total = 0
        for stage in self.stages:
            for t, buffer in stage.buffers.items():
                buffer.attr = stage.instances[t] * self.launch.threads
                total += buffer.attr * itemsize(t)
        limit = self.launch.target.local_memory_bytes
        if limit is not None and total > limit:
            raise error_at(
                self.launch.kernel,
                f"the grouped reduces need {total} bytes of workgroup-local memory for their partial results; "
                f"target {self.launch.target.name} has {limit}",
            )
