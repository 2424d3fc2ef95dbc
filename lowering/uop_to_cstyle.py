"""``convert-uop-to-cstyle``: every ``uop.kernel`` becomes a ``cstyle.func`` with kiln's semantics spelled in C.

The function follows the CPU calling convention (docs/internals.md): the ``uop.param`` values in index order
(a buffer is ``T *restrict``, ``const`` when the kernel never stores to it; ``index`` is ``int64_t``), then
``int64_t core_start, int64_t core_end``. The kernel's attributes (``symbols``, ``core_extent``,
``core_work``, ...) move to the function unchanged. Range/end and if/endif brackets become ``cstyle.for`` and
``cstyle.if`` regions, accumulators become local variables. Vectors of 2-16 lanes of f32, f64, i32, i64, ui32
or ui64 stay C vectors where C has the operation: loads, stores, accumulators, float ``add sub mul div neg recip
max min``, integer ``add sub mul neg`` (wrapping, in the unsigned vector type), ``and or xor``, shifts by a
constant within the width, comparisons (a ``vector<8xi1>`` is held as the C lane mask, ``vector<8xi32>`` of -1
and 0), ``where`` on such a mask (``kiln_where``), bitcasts, and ``uop.vectorize``/``uop.const`` as vector
literals. So an upcast register tile reaches the C compiler as the few vector statements it is (kernel-optimize's
tiles), and ``uop-decompose``'s software ``exp`` of a vector as vector code, not as many scalars for gcc's SLP
vectorizer to pack back (slowly, and not always well). Any other op takes such a value lane by lane
(``cstyle.extract``; a mask's lane is ``!= 0``), and other vectors are scalarized: a ``vector<4xi8>`` value is
four C scalars, its load four loads.

Every ALU op, cast and constant is rewritten so that C computes exactly kiln's meaning, never C's undefined
behaviour (docs/dialects/cstyle.md has the table):

- integer ``add sub mul neg fma`` wrap: they compute in the unsigned type of at least 32 bits and convert back
  (no ``-fwrapv`` needed). ``index`` arithmetic is plain ``int64_t`` (indices never overflow);
- ``idiv``/``mod`` truncate (C semantics) and give 0 for a zero divisor, through ``kiln_idiv_*``/``kiln_mod_*``
  helpers, or plain ``/``/``%`` by a positive literal; ``shl``/``shr`` by >= the width give 0 (-1 for a
  negative signed ``shr``) through ``kiln_shl_*``/``kiln_shr_*``;
- operators never see integers narrower than ``int``: they are widened and converted back explicitly;
- float ``max``/``min`` propagate NaN (``kiln_max_f32``, not ``fmaxf``); math uses ``<math.h>`` with the
  ``f`` suffix for f32;
- ``f16``/``bf16`` values are stored as ``kiln_f16``/``kiln_bf16``; each op converts its operands to f32,
  computes, and rounds the result back (round to nearest even), as numpy does;
- float -> integer casts truncate to ``int64_t`` (NaN -> 0, saturating; ``kiln_f64_to_i64``) and then wrap to
  the target width, so an out-of-range value gives a defined result instead of undefined behaviour.
"""

from __future__ import annotations

import functools
from collections import Counter

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, VectorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from kiln.dialects import cstyle, uop
from kiln.dialects.alu import ALU_OPS, AluOp, element_type, is_vector, lanes
from kiln.dialects.ops.table import function_names
from kiln.dialects.types import DTYPES, bitwidth, dtype_name, is_bool, is_float, is_unsigned
from kiln.lowering.cstyle_sink import sink_past_loops
from kiln.lowering.uop_to_target import ConvertUopToTarget, KernelConverter
from kiln.support.diagnostics import error_at
from kiln.support.locations import inherit_locations

I1, I32, I64, UI32, UI64, F32, F64 = (DTYPES[n] for n in ("i1", "i32", "i64", "ui32", "ui64", "f32", "f64"))
CORE_PARAMS = ("core_start", "core_end")

_MATH_CALLS = function_names("c")
"""Float ALU kinds that are one ``<math.h>`` function (``f`` suffix added for f32), from the op declarations."""
_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^",
              "cmplt": "<", "cmple": "<=", "cmpeq": "==", "cmpne": "!="}  # fmt: skip
"""ALU kinds that are one C operator where the operand type allows it."""


def c_type(t: Attribute) -> Attribute:
    """The cstyle type of a uop scalar type: ``index`` is ``int64_t``, every dtype is itself."""
    return I64 if isinstance(t, IndexType) else t


def _wrapping_type(t: Attribute) -> Attribute:
    """The unsigned type, at least 32 bits wide, in which C arithmetic on ``t`` wraps instead of overflowing."""
    return UI64 if bitwidth(t) == 64 else UI32


def _operator_type(t: Attribute) -> Attribute:
    """``t`` if C operators keep it, else the 32-bit type that holds every value of it."""
    if t in cstyle.UNPROMOTED:
        return t
    return UI32 if is_unsigned(t) else I32


class ConvertUopToCStyle(ConvertUopToTarget):
    """Rewrite each ``uop.kernel`` of the module into a ``cstyle.func`` of flavour "c"."""

    name = "convert-uop-to-cstyle"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, uop.UopKernelOp)]:
            Rewriter.replace_op(kernel, _KernelConverter(kernel).convert())


_FLOAT_VECTOR_KINDS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "neg": "-", "recip": "/", "max": "", "min": ""}
"""Float ALU kinds C computes on whole vectors: an operator (``recip`` is ``1 / x``), or ``kiln_max``/``min``."""
_WRAPPING_VECTOR_KINDS = {"add": "+", "sub": "-", "mul": "*", "neg": "-"}
"""Integer ALU kinds C computes on whole vectors in the unsigned type (where they wrap)."""
_BITWISE_KINDS = {"and": "&", "or": "|", "xor": "^"}
_COMPARISON_KINDS = {"cmplt": "<", "cmple": "<=", "cmpeq": "==", "cmpne": "!="}


class _Lanes(dict):
    """uop value -> its C values, one per lane; a value held as a C vector gives ``cstyle.extract`` of each lane,
    made where it is asked for (and not kept: the next use may be in another block)."""

    def __init__(self, converter: _KernelConverter):
        super().__init__()
        self.converter = converter

    def __missing__(self, value: SSAValue) -> list[SSAValue]:
        vector = self.converter.vectors[value]
        assert isinstance(vector.type, VectorType)
        return [self.lane(value, k) for k in range(vector.type.get_shape()[0])]

    def lane(self, value: SSAValue, k: int) -> SSAValue:
        """Lane ``k`` of the uop value ``value`` held as a C vector (a comparison's lane mask: ``!= 0``)."""
        c = self.converter
        vector = c.vectors[value]
        lane = c._built(cstyle.ExtractOp, (vector,), (k,), lambda: cstyle.ExtractOp(vector, k)).result
        if is_bool(element_type(value.type)):
            return c._binary("!=", lane, c._literal(0, element_type(vector.type)))
        return lane


class _KernelConverter(KernelConverter):
    """Converts one kernel into a ``cstyle.func``."""

    FOR, IF, CELL = cstyle.ForOp, cstyle.IfOp, (cstyle.DeclOp, cstyle.ReadOp, cstyle.AssignOp)
    LITERAL, UNARY, BINARY = cstyle.LiteralOp, cstyle.UnaryOp, cstyle.BinaryOp
    SELECT, CALL = cstyle.SelectOp, cstyle.CallOp

    def __init__(self, kernel: uop.UopKernelOp):
        super().__init__(kernel)
        self.lanes = _Lanes(self)
        self.vectors: dict[SSAValue, SSAValue] = {}
        """uop value -> its C vector value (``cstyle.is_vector_type``), for the values kept as vectors."""
        self.vector_vars: dict[SSAValue, SSAValue] = {}
        """uop accumulator -> the C vector variable that holds it."""

    # -- structure ----------------------------------------------------------------------------

    def convert(self) -> cstyle.FuncOp:
        params = self.kernel.params()
        stored = {o.ptr for o in self.kernel.body.block.ops if isinstance(o, uop.StoreOp)}
        types = [self._param_type(p, p.result in stored) for p in params] + [I64, I64]
        attributes = dict(self.kernel.attributes)
        func = cstyle.FuncOp(self.kernel.sym_name.data, types, "c", attributes)
        func.location = self.kernel.location
        args = func.body.block.args
        for p, arg in zip(params, args):
            self.lanes[p.result] = [arg]
            arg.name_hint = p.result.name_hint or f"p{p.index.value.data}"
        for name, arg in zip(CORE_PARAMS, args[len(params) :]):
            arg.name_hint = name
        self._convert_body(func.body.block)
        sink_past_loops(func)
        inherit_locations(func)  # what no one uop op made (loop bounds, the thread slice): the kernel's lines
        return func

    def _param_type(self, p: uop.ParamOp, stored: bool) -> Attribute:
        t = p.result.type
        if isinstance(t, uop.PtrType):
            return cstyle.PtrType(t.element_type, const=not stored, restrict=True)
        return c_type(t)

    def _convert_op(self, op: Operation) -> None:
        if isinstance(op, uop.ReduceLanesOp) and (vector := self._whole_reduced(op)) is not None:
            tag = cstyle.vector_tag(vector.type)  # type: ignore[arg-type]
            self._define(op, [self._call(f"kiln_reduce_{op.reduce_kind}_{tag}", vector)])
        elif not self._convert_vector_op(op):
            super()._convert_op(op)

    def _whole_reduced(self, op: uop.ReduceLanesOp) -> SSAValue | None:
        """The C vector a prelude ``kiln_reduce_*`` helper reduces for ``op`` (float add, max or min of a value
        held as a C vector; the helper's order is the op's), else None: the lanes then go pairwise."""
        vector = self.vectors.get(op.vector)
        if vector is None or op.reduce_kind not in cstyle.REDUCED_KINDS or not is_float(element_type(op.vector.type)):
            return None
        return vector

    def _convert_target_op(self, op: Operation) -> None:
        match op:
            case uop.SpecialOp():
                self._special(op)
            case uop.LoadOp():
                self._load(op)
            case uop.StoreOp():
                self._store(op)
            case uop.ConstOp():
                t = c_type(element_type(op.result.type))
                self._define(op, [self._constant(n, t) for n in self._const_numbers(op)])
            case uop.CastOp():
                src, dst = c_type(element_type(op.input.type)), c_type(element_type(op.result.type))
                self._define(op, [self._convert(x, src, dst) for x in self.lanes[op.input]])
            case uop.BitcastOp():
                dst = element_type(op.result.type)
                self._define(op, [self._bitcast(x, dst) for x in self.lanes[op.input]])
            case uop.DefineLocalOp() | uop.BarrierOp() | uop.WmmaOp():
                raise error_at(op, f"{op.name} needs a GPU workgroup; the C target runs a kernel on CPU threads")
            case _:
                raise error_at(op, f"convert-uop-to-cstyle cannot convert {op.name}")

    # -- vectors --------------------------------------------------------------------------------

    def _convert_vector_op(self, op: Operation) -> bool:
        """Convert ``op`` on whole C vectors if it makes or takes one that C keeps as a vector; else False."""
        match op:
            case uop.ConstOp() | uop.VectorizeOp() if cstyle.is_vector_type(op.results[0].type):
                super()._convert_op(op)  # the lanes, for scalar users; vector users share one vector literal
                self._define_vector(op, self._vector_of(self.lanes[op.results[0]], op.results[0].type))
            case uop.ExtractOp() if op.vector not in self.lanes:  # held as a vector alone (not a literal's lanes)
                self._define(op, [self.lanes.lane(op.vector, op.lane.value.data)])
            case uop.LoadOp() if cstyle.is_vector_type(op.result.type):
                gate = self._scalar(op.gate) if op.gate is not None else None
                load = self._load_op(self._scalar(op.ptr), self._scalar(op.index), gate, op.result.type)
                self._define_vector(op, load)
            case uop.StoreOp() if cstyle.is_vector_type(op.value.type):
                ptr, index, value = self._scalar(op.ptr), self._scalar(op.index), self._vector(op.value)
                with self._only_where(op.gate):
                    self._store_op(ptr, index, value)
            case uop.DefineAccOp() if cstyle.is_vector_type(op.init.type):
                init = self._vector(op.init)
                var = self._built(cstyle.DeclOp, (init,), (), lambda: cstyle.DeclOp(init)).results[0]
                var.name_hint = op.result.name_hint
                self.vector_vars[op.result] = var
            case uop.AccGetOp() if op.acc in self.vector_vars:
                var = self.vector_vars[op.acc]
                self._define_vector(op, self._built(cstyle.ReadOp, (var,), (), lambda: cstyle.ReadOp(var)))
            case uop.AccSetOp() if op.acc in self.vector_vars:
                var, value = self.vector_vars[op.acc], self._vector(op.value)
                self._built(cstyle.AssignOp, (var, value), (), lambda: cstyle.AssignOp(var, value))
            case uop.BitcastOp() if cstyle.is_vector_type(op.input.type) and cstyle.is_vector_type(op.result.type):
                x, t = self._vector(op.input), op.result.type
                self._define_vector(op, self._built(cstyle.BitcastOp, (x,), (t,), lambda: cstyle.BitcastOp(x, t)))
            case AluOp():
                result = self._vector_alu(op)
                if result is None:
                    return False
                self._define_vector(op, result.owner)
            case _:
                return False
        return True

    def _vector_alu(self, op: AluOp) -> SSAValue | None:
        """``op`` on whole C vectors, or None where C has no vector form of it (the op then goes lane by lane)."""
        kind, t, operands = op.alu_kind, op.results[0].type, list(op.operands)
        if kind in _COMPARISON_KINDS:
            compared = operands[0].type
            if not cstyle.is_vector_type(compared):
                return None
            return self._binary(_COMPARISON_KINDS[kind], *(self._vector(v) for v in operands))
        if kind == "where":
            mask = self.vectors.get(operands[0])
            if not cstyle.is_vector_type(t) or mask is None or mask.type != cstyle.mask_type(t):
                return None
            return self._call(f"kiln_where_{cstyle.vector_tag(t)}", mask, *(self._vector(v) for v in operands[1:]))
        if is_vector(t) and is_bool(element_type(t)):  # lane masks: bitwise operators on masks of one type
            masks = [self.vectors.get(v) for v in operands]
            if kind not in _BITWISE_KINDS or None in masks or len({m.type for m in masks}) != 1:
                return None
            return self._binary(_BITWISE_KINDS[kind], *masks)
        if not cstyle.is_vector_type(t) or any(v.type != t for v in operands):
            return None
        if is_float(t.get_element_type()):
            return self._float_vector_alu(kind, t, operands)
        return self._int_vector_alu(kind, t, operands)

    def _float_vector_alu(self, kind: str, t: VectorType, operands: list[SSAValue]) -> SSAValue | None:
        if kind not in _FLOAT_VECTOR_KINDS:
            return None
        xs = [self._vector(v) for v in operands]
        if kind == "neg":
            return self._unary("-", xs[0])
        if kind == "recip":
            one = self._literal(1.0, t.get_element_type())
            return self._binary("/", self._vector_of([one] * t.get_shape()[0], t).result, xs[0])
        if kind in ("max", "min"):
            return self._call(f"kiln_{kind}_{cstyle.vector_tag(t)}", *xs)
        return self._binary(_FLOAT_VECTOR_KINDS[kind], *xs)

    def _int_vector_alu(self, kind: str, t: VectorType, operands: list[SSAValue]) -> SSAValue | None:
        """Integer vector ops that C computes as kiln means them: wrapping arithmetic in the unsigned vector type,
        bitwise operators, and shifts by a constant count below the width (C leaves larger ones undefined)."""
        width = bitwidth(t.get_element_type())
        if kind in ("shl", "shr"):
            count = operands[1].owner
            numbers = set(self._const_numbers(count)) if isinstance(count, uop.ConstOp) else set()
            if len(numbers) != 1 or not 0 <= next(iter(numbers)) < width:
                return None
        elif kind not in _WRAPPING_VECTOR_KINDS and kind not in _BITWISE_KINDS:
            return None
        xs = [self._vector(v) for v in operands]
        if kind in _BITWISE_KINDS:
            return self._binary(_BITWISE_KINDS[kind], *xs)
        if kind == "shr":  # arithmetic for signed lanes, as kiln's shr
            return self._binary(">>", *xs)
        unsigned = VectorType(DTYPES[f"ui{width}"], t.get_shape())
        ws = [self._bitcast(x, unsigned) for x in xs]
        if kind == "neg":
            r = self._unary("-", ws[0])
        else:
            r = self._binary("<<" if kind == "shl" else _WRAPPING_VECTOR_KINDS[kind], *ws)
        return self._bitcast(r, t)

    def _vector(self, value: SSAValue) -> SSAValue:
        """The C vector of the uop value ``value``: the one it is held as, else one made here of its lanes."""
        if value in self.vectors:
            return self.vectors[value]
        return self._vector_of(self.lanes[value], value.type).result

    def _vector_of(self, elements: list[SSAValue], t: Attribute) -> cstyle.VectorOp:
        """A C vector of type ``t`` made of ``elements``."""
        return self._built(cstyle.VectorOp, elements, (t,), lambda: cstyle.VectorOp(elements, t))  # type: ignore

    def _load_op(
        self, ptr: SSAValue, index: SSAValue, gate: SSAValue | None, t: Attribute | None = None
    ) -> cstyle.LoadOp:
        """``ptr[index]`` where ``gate`` holds (of type ``t``: default the element type)."""
        operands = (ptr, index) if gate is None else (ptr, index, gate)
        return self._built(cstyle.LoadOp, operands, (t,), lambda: cstyle.LoadOp(ptr, index, gate, t))

    def _store_op(self, ptr: SSAValue, index: SSAValue, value: SSAValue) -> None:
        self._built(cstyle.StoreOp, (ptr, index, value), (), lambda: cstyle.StoreOp(ptr, index, value))

    def _define_vector(self, op: Operation, new: Operation) -> None:
        vector = new.results[0]
        if vector.name_hint is None:
            vector.name_hint = op.results[0].name_hint
        self.vectors[op.results[0]] = vector

    def _special(self, op: uop.SpecialOp) -> None:
        name = op.special.data
        if name not in CORE_PARAMS:
            only = " and ".join(CORE_PARAMS)
            raise error_at(op, f"uop.special {name} is a GPU launch id; on the C target a kernel only has {only}")
        args = self.blocks[0].args
        self.lanes[op.result] = [args[len(args) - len(CORE_PARAMS) + CORE_PARAMS.index(name)]]

    def _load(self, op: uop.LoadOp) -> None:
        ptr, index = self._scalar(op.ptr), self._scalar(op.index)
        gate = self._scalar(op.gate) if op.gate is not None else None
        indices = self._lane_indices(index, op.result.type)
        self._define(op, [self._load_op(ptr, idx, gate).result for idx in indices])

    def _store(self, op: uop.StoreOp) -> None:
        ptr, index = self._scalar(op.ptr), self._scalar(op.index)
        with self._only_where(op.gate):
            for idx, value in zip(self._lane_indices(index, op.value.type), self.lanes[op.value], strict=True):
                self._store_op(ptr, idx, value)

    def _lane_indices(self, index: SSAValue, value_type: Attribute) -> list[SSAValue]:
        """The element index of each lane: a vector access touches consecutive elements."""
        base = index.owner
        if isinstance(base, cstyle.LiteralOp) and isinstance(base.value, IntegerAttr):
            start = base.value.value.data
            return [index] + [self._literal(start + k, I64) for k in range(1, lanes(value_type))]
        return [index] + [self._binary("+", index, self._literal(k, I64)) for k in range(1, lanes(value_type))]

    def _cast(self, x: SSAValue, t: Attribute) -> SSAValue:
        """A C conversion, left out when ``x`` already has type ``t``."""
        return x if x.type == t else self._built(cstyle.CastOp, (x,), (t,), lambda: cstyle.CastOp(x, t)).result

    # -- constants and conversions --------------------------------------------------------------

    def _constant(self, number: int | float, t: Attribute) -> SSAValue:
        if t in cstyle.STORAGE_ONLY:
            return self._call(f"kiln_f64_to_{dtype_name(t)}", self._literal(number, F64))
        return self._literal(number, t)

    def _to_f32(self, x: SSAValue) -> SSAValue:
        return self._call(f"kiln_{dtype_name(x.type)}_to_f32", x) if x.type in cstyle.STORAGE_ONLY else x

    def _convert(self, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
        """``uop.cast`` of one lane (numpy ``astype``; float -> int as the module docstring says)."""
        if src == dst:
            return x
        if src in cstyle.STORAGE_ONLY:
            x, src = self._to_f32(x), F32
        if is_bool(dst):
            return self._binary("!=", x, self._literal(0, src))
        if is_float(src) and not is_float(dst):
            wide = self._call("kiln_f64_to_ui64" if dst == UI64 else "kiln_f64_to_i64", self._cast(x, F64))
            return self._cast(wide, dst)
        if dst in cstyle.STORAGE_ONLY:
            name = dtype_name(dst)
            if src == F32:
                return self._call(f"kiln_f32_to_{name}", x)
            return self._call(f"kiln_f64_to_{name}", self._cast(x, F64))
        return self._cast(x, dst)

    def _bitcast(self, x: SSAValue, dst: Attribute) -> SSAValue:
        if x.type == dst:
            return x
        return self._built(cstyle.BitcastOp, (x,), (dst,), lambda: cstyle.BitcastOp(x, dst)).result

    # -- ALU ------------------------------------------------------------------------------------

    def _alu(self, op: AluOp, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue:
        """One lane of an ALU op on operand type ``t`` (a uop type: ``index`` is told apart from i64)."""
        if kind == "where":
            return self._select(*xs)
        if t in cstyle.STORAGE_ONLY:  # compute in f32, round the result back
            r = self._alu(op, kind, F32, [self._to_f32(x) for x in xs])
            return r if ALU_OPS[kind].returns_bool else self._call(f"kiln_f32_to_{dtype_name(t)}", r)
        if is_float(t):
            return self._float_alu(op, kind, t, xs)
        if is_bool(t):
            return self._bool_alu(op, kind, xs)
        return self._int_alu(op, kind, t, xs)

    def _float_alu(self, op: AluOp, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue:
        suffix = "f" if t == F32 else ""
        if kind in _MATH_CALLS:
            return self._call(_MATH_CALLS[kind] + suffix, *xs)
        if kind in _OPERATORS:
            return self._binary(_OPERATORS[kind], *xs)
        x = xs[0]
        match kind:
            case "neg":
                return self._unary("-", x)
            case "recip":
                return self._binary("/", self._literal(1.0, t), x)
            case "rsqrt":
                return self._binary("/", self._literal(1.0, t), self._call("sqrt" + suffix, x))
            case "idiv":
                return self._call("trunc" + suffix, self._binary("/", *xs))
            case "max" | "min":
                running = "running_" if self._steps_accumulator(op) and self._lone_step(op) else ""
                return self._call(f"kiln_{running}{kind}_{dtype_name(t)}", *xs)
            case "sign":  # nan stays nan, -0.0 gives 0
                zero = self._literal(0.0, t)
                nonzero = self._select(self._binary("==", x, zero), zero, x)
                negative = self._select(self._binary("<", x, zero), self._literal(-1.0, t), nonzero)
                return self._select(self._binary(">", x, zero), self._literal(1.0, t), negative)
        raise error_at(op, f"{op.name} on {t} has no C lowering")

    def _steps_accumulator(self, op: AluOp) -> bool:
        """Whether ``op`` is a reduction's step in its loop: it reads an accumulator declared outside the block
        being filled and its result is written back to it (the C emitter's ``kiln_running_*`` helpers)."""
        read = {o.owner.acc for o in op.operands if isinstance(o.owner, uop.AccGetOp)}
        written = {u.operation.acc for u in op.results[0].uses if isinstance(u.operation, uop.AccSetOp)}
        return any(self._variable(acc).owner.parent_block() is not self.block for acc in read & written)

    def _lone_step(self, op: AluOp) -> bool:
        """Whether ``op`` is not one of several max/min of its kind that step accumulators with plain loads in
        its loop's body. Several (a pool's upcast output lanes, each its own accumulator) are independent chains
        that gcc's SLP vectorizer packs into one vector max in the bit-mask form (``kiln_max_f32``), where
        ``kiln_running_max_f32``'s branch keeps each lane scalar: SqueezeNet's 3x3/2 max pool over 8 lanes,
        1.88 ms against 0.37 ms on one core. Gated loads (a padded pool) stay branches SLP cannot pack, and
        there the running form is faster (ShuffleNet's padded 3x3/2 pool: 343 against 497 us at best)."""
        scope, steps = self._accumulator_steps
        return op not in scope or steps[(scope[op], op.alu_kind)] <= 1

    @functools.cached_property
    def _accumulator_steps(self) -> tuple[dict[Operation, Operation | None], Counter]:
        """Each max/min that reads and writes one accumulator and takes an ungated load: its innermost loop
        (``uop.range``), and how many such ops of each kind each loop's body has."""
        scope: dict[Operation, Operation | None] = {}
        steps: Counter = Counter()
        loops: list[Operation] = []
        for o in self.kernel.body.block.ops:
            if isinstance(o, uop.RangeOp):
                loops.append(o)
            elif isinstance(o, uop.EndOp):
                loops.pop()
            elif isinstance(o, AluOp) and o.alu_kind in ("max", "min"):
                read = {v.owner.acc for v in o.operands if isinstance(v.owner, uop.AccGetOp)}
                loaded = any(isinstance(v.owner, uop.LoadOp) and v.owner.gate is None for v in o.operands)
                sets = {u.operation.acc for u in o.results[0].uses if isinstance(u.operation, uop.AccSetOp)}
                if loaded and not sets.isdisjoint(read):
                    scope[o] = loops[-1] if loops else None
                    steps[(scope[o], o.alu_kind)] += 1
        return scope, steps

    def _variable(self, acc: SSAValue) -> SSAValue:
        """The (first) C variable of the uop accumulator ``acc``."""
        return self.vector_vars[acc] if acc in self.vector_vars else self.lanes[acc][0]

    def _bool_alu(self, op: AluOp, kind: str, xs: list[SSAValue]) -> SSAValue:
        bool_ops = {**_OPERATORS, "max": "|", "min": "&"}
        if kind in bool_ops and kind not in ("add", "sub", "mul", "div"):
            return self._binary(bool_ops[kind], *xs)
        if kind == "not":
            return self._unary("!", xs[0])
        raise error_at(op, f"{op.name} on i1 has no C lowering")

    def _int_alu(self, op: AluOp, kind: str, uop_type: Attribute, xs: list[SSAValue]) -> SSAValue:
        t = c_type(uop_type)
        index = isinstance(uop_type, IndexType)
        name = dtype_name(t)
        if kind in ("cmplt", "cmple", "cmpeq", "cmpne"):
            return self._binary(_OPERATORS[kind], *xs)
        if kind in ("add", "sub", "mul", "neg", "fma"):
            return self._index_arith(kind, xs) if index else self._wrapping(kind, t, xs)
        if kind in ("and", "or", "xor", "not"):
            w = _operator_type(t)
            wide = [self._cast(x, w) for x in xs]
            r = self._unary("~", wide[0]) if kind == "not" else self._binary(_OPERATORS[kind], *wide)
            return self._cast(r, t)
        if kind in ("idiv", "mod"):
            divisor = xs[1].owner
            if (
                t in cstyle.UNPROMOTED
                and isinstance(divisor, cstyle.LiteralOp)
                and isinstance(divisor.value, IntegerAttr)
                and divisor.value.value.data > 0
            ):
                return self._binary("/" if kind == "idiv" else "%", *xs)
            return self._call(f"kiln_{kind}_{name}", *xs)
        if kind in ("shl", "shr"):
            return self._call(f"kiln_{kind}_{name}", *xs)
        if kind in ("max", "min"):
            a, b = xs
            return self._select(self._binary(">" if kind == "max" else "<", a, b), a, b)
        x = xs[0]
        zero = self._literal(0, t)
        if kind == "abs":
            if is_unsigned(t):
                return x
            return self._select(self._binary("<", x, zero), self._int_alu(op, "neg", uop_type, [x]), x)
        if kind == "sign":
            if is_unsigned(t):
                return self._cast(self._binary("!=", x, zero), t)
            negative = self._select(self._binary("<", x, zero), self._literal(-1, t), zero)
            return self._select(self._binary(">", x, zero), self._literal(1, t), negative)
        raise error_at(op, f"{op.name} on {dtype_name(uop_type)} has no C lowering")

    def _index_arith(self, kind: str, xs: list[SSAValue]) -> SSAValue:
        """Index arithmetic: plain int64_t (an index never overflows), so loops and addresses read naturally."""
        if kind == "neg":
            return self._unary("-", xs[0])
        if kind == "fma":
            return self._binary("+", self._binary("*", xs[0], xs[1]), xs[2])
        return self._binary(_OPERATORS[kind], *xs)

    def _wrapping(self, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue:
        """Integer add/sub/mul/neg/fma modulo 2^width: computed in an unsigned type, converted back."""
        u = _wrapping_type(t)
        ws = [self._cast(x, u) for x in xs]
        if kind == "neg":
            r = self._unary("-", ws[0])
        elif kind == "fma":
            r = self._binary("+", self._binary("*", ws[0], ws[1]), ws[2])
        else:
            r = self._binary(_OPERATORS[kind], *ws)
        return self._cast(r, t)


__all__ = ["ConvertUopToCStyle", "c_type"]
