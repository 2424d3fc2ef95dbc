"""Vector ALU from the lanes of an expanded range: the register tile as vector IR.

The instantiator makes most tiles vector rows directly (``rows.py``); this packs, the same way, the lanes its lane
path still makes (tensor-core kernels, stores whose indices are not consecutive along the row's range).

After ``vectorize.py`` the copies an upcast makes still compute lane by lane: a 4x16 matmul tile is 64 scalar
accumulators, each with its own ``acc_get``/``mul``/``add``/``acc_set`` per k step, fed by ``extract``s of the
vector loads. Every later pass walks those scalar uops, and LLVM's SLP vectorizer rebuilds the vectors.

Here the copies become vector uops instead, so the uop count scales with the tile's rows, not rows x lanes:

1. Accumulators: the ``define_acc``s of one reduce whose bindings differ only in one expanded range (in lane
   order, in chunks of the target's vector width, innermost range first) become one ``!uop.acc<vector<NxT>>``
   when the values their loop sets can be packed (below) from vectors the loop already has (a vector load);
   the reads after the loop become ``extract``s of one vector read.
2. Stores: a vector store's ``vectorize`` of lanes is replaced by the packed value when that uses a vector.

Packing lanes ``(x0, ..., xN-1)`` into one vector value: ``extract``s of lanes 0..N-1 of one N-lane vector are
that vector; the reads of an accumulator group are its vector read; ALU ops of one kind (``VECTOR_KINDS``) and
casts to one type become the op on the packed operands; one value in every lane is a broadcast (a
``vectorize`` of it); anything else is gathered with a ``vectorize``. Every backend but LLVM scalarizes vectors
again, so their code is what it was; LLVM gets vector IR directly. The walk is a trampoline (no Python stack
per op: long elementwise chains are upcast too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import IntFlag

from xdsl.dialects.builtin import IndexType, VectorType

from kiln.dialects.alu import is_vector
from kiln.dialects.types import dtype_name
from kiln.dialects.uop import AccType
from kiln.lowering.linearize.nodes import Node, Program, Scope, acc_type, vector_type
from kiln.support import trampoline
from kiln.support.trampoline import Walk

VECTOR_KINDS = frozenset({"add", "sub", "mul", "div", "neg", "fma", "max", "min", "where",
                          "cmplt", "cmple", "cmpeq", "cmpne", "and", "or", "xor",
                          "exp", "exp_nonpositive", "exp2", "log", "log2"})  # fmt: skip
"""ALU kinds packed into vector ops: those every target computes natively lane by lane, and the CPUs' software
transcendentals (``LIBM_F64_ONLY``), which ``uop-decompose`` builds from vector ops the C target keeps as C vectors
too (lane by lane, gcc's SLP vectorizer left a softmax's 16 exps scalar). The others (idiv, ...) stay scalar,
their lanes gathered, so ``uop-decompose`` sees them as before."""


class Source(IntFlag):
    """What a packed value was built from."""

    NONE = 0
    VECTOR = 1
    """A vector the program already had (a vector load, an accumulator group's read after its loop)."""
    ACC = 2
    """The read of the accumulator group being packed."""


class LanePacker:
    """Packs lanes into vector nodes of ``program``, memoized on the lanes."""

    def __init__(self, program: Program):
        self.program = program
        self.reads: dict[tuple[Node, ...], Node] = {}
        """Lanes that are the scalar reads of a vector accumulator, and its vector read."""
        self._memo: dict[tuple[Node, ...], tuple[Node, Source]] = {}

    def pack(self, lanes: Sequence[Node]) -> tuple[Node, Source]:
        """A node whose value is ``vectorize(lanes)``, and what it was built from."""
        return trampoline.run(self._pack(tuple(lanes)))

    def _pack(self, lanes: tuple[Node, ...]) -> Walk[tuple[Node, Source]]:
        if lanes not in self._memo:
            self._memo[lanes] = yield self._make(lanes)
        return self._memo[lanes]

    def forget(self) -> None:
        """Drop the memo (after an accumulator group was given up: packs through its reads are void)."""
        self._memo.clear()

    def _make(self, lanes: tuple[Node, ...]) -> Walk[tuple[Node, Source]]:
        p, first = self.program, lanes[0]
        if lanes in self.reads:
            return self.reads[lanes], Source.ACC
        vector = first.operands[0] if first.op == "extract" else None
        if vector is not None and vector.type == self._vector_type(lanes) and all(
            n.op == "extract" and n.operands[0] is vector and n.attr == lane for lane, n in enumerate(lanes)
        ):
            return vector, Source.VECTOR
        if self._same_op(lanes):
            operands, found = [], Source.NONE
            for i in range(len(first.operands)):
                packed, source = yield self._pack(tuple(n.operands[i] for n in lanes))
                operands.append(packed)
                found |= source
            if found:
                if first.op == "alu":
                    return p.alu(first.attr, *operands, scope=first.scope), found  # type: ignore[arg-type]
                return p.node("cast", operands, self._vector_type(lanes), scope=first.scope), found
        return p.gather(lanes), Source.NONE

    def _same_op(self, lanes: tuple[Node, ...]) -> bool:
        """Whether the lanes are one packable op (a vector ALU kind, or a cast to one type) in one scope, each
        lane a different value; not a division of every lane by one value."""
        first = lanes[0]
        if first.op == "alu":
            if first.attr not in VECTOR_KINDS:
                return False
        elif first.op != "cast":
            return False
        if is_vector(first.type) or isinstance(first.type, IndexType) or len(set(lanes)) == 1:
            return False
        if first.attr == "div" and len({n.operands[1] for n in lanes}) == 1:
            return False  # uop-decompose makes it a product with 1/d computed once; a broadcast d, once per lane
        return all(
            n.op == first.op and n.attr == first.attr and n.type == first.type and n.scope is first.scope
            and len(n.operands) == len(first.operands)
            and all(o.type == f.type and not is_vector(o.type) for o, f in zip(n.operands, first.operands))
            for n in lanes
        )

    @staticmethod
    def _vector_type(lanes: tuple[Node, ...]) -> VectorType:
        return vector_type(lanes[0].type, len(lanes))


GATHERED_STEP_KINDS = frozenset({"max", "min"})
"""Steps whose accumulators pack into a vector even when every lane's operand is a scalar (gathered), on a CPU
target whose compiler vectorizes no loops (cpu-c; GPUs keep their lanes): a stride-2 max pool's 8 output lanes. gcc's scalar NaN-propagating
max is several integer operations per lane (``kiln_max_f32``) and its SLP vectorizer packed those lanes only
partly, where one vector max of the gathered lanes is three (SqueezeNet's 3x3/2 stem pool on one core: 462 ->
270 us). A sum's scalar step is one add per lane, as cheap as gathering the lane, so sums stay lanes."""


class AluVectorizer:
    """Vector accumulators and vector ALU for the lanes of expanded ranges (the module docstring)."""

    def __init__(self, program: Program, vector_width: Callable[[str], int], gathered_steps: frozenset[str] = frozenset()):
        self.program, self.vector_width = program, vector_width
        self.gathered_steps = gathered_steps
        """ALU kinds whose accumulators pack from gathered lanes too (``GATHERED_STEP_KINDS`` or none)."""
        self.packer = LanePacker(program)
        self._replaced: dict[Node, Node] = {}

    def run(self, accumulators: Iterable[list[Node]], stores: Iterable[Node]) -> None:
        """Vectorize the groups of ``define_acc`` lanes (innermost range first; an accumulator joins one group
        at most), then the values of the vector ``stores``."""
        users = self._acc_users()
        done: set[Node] = set()
        for lanes in accumulators:
            if done.isdisjoint(lanes):
                for start, width in self._chunks(lanes):
                    part = lanes[start : start + width]
                    if self._accumulators(part, users):
                        done.update(part)
        self._substitute()
        for store in stores:
            value = store.operands[2]
            if value.op == "vectorize" and not is_vector(value.operands[0].type):
                packed, source = self.packer.pack(value.operands)
                if source:
                    store.operands = (*store.operands[:2], packed, *store.operands[3:])

    def _chunks(self, lanes: list[Node]) -> list[tuple[int, int]]:
        t = lanes[0].type
        assert isinstance(t, AccType)
        if is_vector(t.value_type) or isinstance(t.value_type, IndexType):
            return []
        width = 1
        while len(lanes) % (width * 2) == 0 and width * 2 <= self.vector_width(dtype_name(t.value_type)):
            width *= 2
        return [(start, width) for start in range(0, len(lanes), width)] if width > 1 else []

    def _acc_users(self) -> dict[Node, list[Node]]:
        users: dict[Node, list[Node]] = {}
        for s in self.program.root.walk():
            for n in s.nodes:
                if n.op in ("acc_get", "acc_set"):
                    users.setdefault(n.operands[0], []).append(n)
        return users

    def _accumulators(self, accs: list[Node], users: dict[Node, list[Node]]) -> bool:
        """Replace the accumulators ``accs`` (lanes in order) by one vector accumulator when the values their
        loop sets pack with a vector the loop has, or are ``gathered_steps`` of scalars; whether it did."""
        shapes = [self._shape(a, users) for a in accs]
        if any(s is None for s in shapes) or len({(a.scope, s[0].scope, s[1].scope) for a, s in zip(accs, shapes)}) != 1:  # type: ignore[index]
            return False
        p, body = self.program, shapes[0][0].scope  # type: ignore[index]
        init, _ = self.packer.pack([a.operands[0] for a in accs])
        vector = vector_type(accs[0].type.value_type, len(accs))  # type: ignore[attr-defined]
        acc = p.node("define_acc", (init,), acc_type(vector), scope=accs[0].scope)
        reads = tuple(s[0] for s in shapes)  # type: ignore[index]
        self.packer.reads[reads] = read = p.node("acc_get", (acc,), vector, scope=body)
        steps = [s[1].operands[1] for s in shapes]  # type: ignore[index]
        total, source = self.packer.pack(steps)
        gathered = source == Source.ACC and all(n.op == "alu" and n.attr in self.gathered_steps for n in steps)
        if source != Source.VECTOR | Source.ACC and not gathered:
            del self.packer.reads[reads]
            self.packer.forget()
            for n in (read, acc):
                p.remove(n)
            return False
        p.node("acc_set", (acc, total), None, scope=body)
        for lane, (old, shape) in enumerate(zip(accs, shapes)):
            assert shape is not None
            self._replaced[shape[0]] = p.node("extract", (read,), shape[0].type, lane, scope=body)
            p.remove(shape[1])
            p.remove(old)
        afters: dict[tuple, Node] = {}
        for lane, old in enumerate(accs):
            for get in users[old]:
                if get.op == "acc_get" and get.scope is not body:
                    key = (get.scope, get.after)
                    if key not in afters:
                        afters[key] = p.node("acc_get", (acc,), vector, scope=get.scope, after=get.after)
                    self._replaced[get] = p.node("extract", (afters[key],), get.type, lane, scope=get.scope)
        return True

    @staticmethod
    def _shape(acc: Node, users: dict[Node, list[Node]]) -> tuple[Node, Node] | None:
        """(the read in the loop, the update) of an accumulator updated once, read once in that loop."""
        sets = [u for u in users.get(acc, []) if u.op == "acc_set"]
        if len(sets) != 1:
            return None
        reads = [u for u in users[acc] if u.op == "acc_get" and u.scope is sets[0].scope]
        return (reads[0], sets[0]) if len(reads) == 1 else None

    def _substitute(self) -> None:
        """Point every use of a replaced node at its replacement."""
        if not self._replaced:
            return
        swap = self._replaced
        replaced = swap.keys()
        for s in self.program.root.walk():
            s.opener = tuple(swap.get(n, n) for n in s.opener)
            for n in s.nodes:
                if not replaced.isdisjoint(n.operands):
                    n.operands = tuple(swap.get(o, o) for o in n.operands)
                if n.after and not replaced.isdisjoint(n.after):
                    n.after = tuple(swap.get(a, a) for a in n.after)  # type: ignore[arg-type, misc]
        for n in list(swap):
            if n in n.scope.nodes:
                self.program.remove(n)
