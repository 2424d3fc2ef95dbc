"""``convert-uop-to-wgsl{features=...}``: every ``uop.kernel`` becomes a ``wgsl.entry`` with kiln's semantics
spelled in WGSL.

The entry follows the WGSL calling convention of ``kiln.runtime.device_webgpu``: the ``uop.param`` buffers in
index order are the storage bindings 0..n-1, the ``index``/``i32`` params after them the fields of the uniform
struct; the workgroup size is the kernel's ``local_size``. The kernel's attributes (``global_size``,
``local_size``, ``symbols``, ...) move to the entry unchanged for the runtime. Specials become builtin inputs
(``group_id`` -> ``workgroup_id``, ``local_id`` -> ``local_invocation_id``, ``global_id`` ->
``global_invocation_id``), range/end and if/endif brackets ``wgsl.for``/``wgsl.if`` regions, accumulators
``var``s, local memory ``var<workgroup>`` arrays; vectors are scalarized (a ``vector<4xf32>`` is four values).

dtypes come from the target description (``kiln.capabilities.wgsl``, with the device features given
as the ``features`` option): ``index`` is i32, i1 values are bool but i1 memory holds one u32 (0 or 1) per
element, f16 needs ``features=shader-f16``; any other dtype (f64, 64-bit, 8/16-bit, bf16) is a located error
naming the op and the dtype.

Every ALU op, cast and constant means exactly what kiln says (docs/dialects/wgsl.md has the table):

- float ``max``/``min`` propagate NaN, ``sign`` keeps NaN and float ``mod`` is C's exact ``fmod``, through
  ``kiln_*`` helpers: WGSL's ``max``/``min``/``sign`` leave NaN unspecified (Vulkan drops it) and its ``%`` on
  floats rounds ``a / b`` before truncating. ``cmpne`` is ``!(a == b)``: Vulkan's ``!=`` is false for NaN.
  ``rsqrt`` is ``1 / sqrt(x)`` (``inverseSqrt`` is unspecified at 0), ``recip`` ``1 / x``;
- integer ``add sub mul neg`` wrap (WGSL defines that), ``idiv``/``mod`` are WGSL's ``/``/``%`` (they truncate;
  a zero divisor gives a defined value, which kiln leaves open); ``shl``/``shr`` by >= 32 give 0 (-1 for a
  negative i32 ``shr``) through ``kiln_shl_*``/``kiln_shr_*`` (WGSL takes the amount modulo 32);
- a gated load reads element 0 where the gate is false (``select`` on the index, so nothing is read out of
  bounds) and gives 0 there; a gated store is an ``if``;
- float -> int casts are WGSL's conversions, which saturate (NaN gives an unspecified value); x -> bool is
  ``x != 0`` with NaN true; infinities and NaN constants are literals the emitter writes as bit patterns.

``pow`` and ``erf`` have no WGSL lowering here: the target lists them as decomposed, so ``uop-decompose``
removes them first; meeting one is a located error that says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import uop, wgsl
from kiln.dialects.alu import AluOp, element_type, lanes
from kiln.dialects.ops.table import function_names
from kiln.dialects.types import DTYPES, dtype_name, itemsize
from kiln.dialects.wgsl import BOOL, F16, FLOATS, I32, U32
from kiln.lowering.uop_to_target import ConvertUopToTarget, KernelConverter
from kiln.capabilities.description import TargetDescription
from kiln.capabilities.wgsl import DEFAULT_LIMITS, OPTIONAL_FEATURES, describe_limits
from kiln.support.diagnostics import error_at
from kiln.support.locations import inherit_locations

BUILTIN_OF_SPECIAL = {
    "group_id": "workgroup_id",
    "local_id": "local_invocation_id",
    "global_id": "global_invocation_id",
}
"""The WGSL builtin input behind each GPU ``uop.special`` (per component x/y/z)."""

INDEX_RANGE = (-(2**31), 2**31 - 1)
"""``index`` is i32 on webgpu (the target's ``index_bits``)."""

_FLOAT_CALLS = function_names("wgsl")
"""Float ALU kinds that are one WGSL builtin, and its name (from the op declarations)."""
_FLOAT_HELPERS = {"max": "kiln_max", "min": "kiln_min", "sign": "kiln_sign", "mod": "kiln_fmod"}
"""Float ALU kinds computed by a ``kiln_<name>_<type>`` helper (NaN handling, exact fmod)."""
_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "idiv": "/", "mod": "%", "and": "&", "or": "|",
              "xor": "^", "cmplt": "<", "cmple": "<=", "cmpeq": "==", "cmpne": "!="}  # fmt: skip
"""ALU kinds that are one WGSL operator on integers (floats and bools use the subset their rules allow)."""
_BOOL_OPERATORS = {"and": "&", "or": "|", "xor": "!=", "max": "|", "min": "&", "cmpeq": "==", "cmpne": "!="}


@dataclass(frozen=True)
class ConvertUopToWGSL(ConvertUopToTarget):
    """Rewrite each ``uop.kernel`` of the module into a ``wgsl.entry`` (one WGSL compute entry point)."""

    name = "convert-uop-to-wgsl"

    features: tuple[str, ...] = ()
    """Optional WebGPU features the device has (``shader-f16``); without one, its dtypes are rejected."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        unknown = sorted(set(self.features) - set(OPTIONAL_FEATURES))
        if unknown:
            raise PassFailedException(
                f"convert-uop-to-wgsl: unknown WebGPU feature(s) {', '.join(unknown)} "
                f"(known: {', '.join(OPTIONAL_FEATURES)})"
            )
        target = describe_limits(DEFAULT_LIMITS, self.features)
        for kernel in [k for k in op.ops if isinstance(k, uop.UopKernelOp)]:
            Rewriter.replace_op(kernel, _KernelConverter(kernel, target).convert())


class _KernelConverter(KernelConverter):
    """Converts one kernel into a ``wgsl.entry``."""

    FOR, IF, CELL = wgsl.ForOp, wgsl.IfOp, (wgsl.VarOp, wgsl.ReadOp, wgsl.AssignOp)
    LITERAL, UNARY, BINARY, SELECT, CALL = wgsl.LiteralOp, wgsl.UnaryOp, wgsl.BinaryOp, wgsl.SelectOp, wgsl.CallOp

    def __init__(self, kernel: uop.UopKernelOp, target: TargetDescription):
        super().__init__(kernel)
        self.target = target
        self.workgroup_bytes = 0

    # -- structure ----------------------------------------------------------------------------

    def convert(self) -> wgsl.EntryOp:
        params = self._params()
        types = [self._param_type(p) for p in params]
        name = self.kernel.sym_name.data
        entry = wgsl.EntryOp(name, types, self._workgroup_size(), dict(self.kernel.attributes))
        entry.location = self.kernel.location
        for p, arg, default in zip(params, entry.params, self._param_names(len(entry.buffers), len(params))):
            self.lanes[p.result] = [arg]
            arg.name_hint = p.result.name_hint or default
        self._convert_body(entry.body.block)
        inherit_locations(entry)
        return entry

    def _params(self) -> list[uop.ParamOp]:
        """The params by index, buffers before scalars: the bindings the runtime makes."""
        params = self.kernel.params()
        scalars = [k for k, p in enumerate(params) if not isinstance(p.result.type, uop.PtrType)]
        for k, p in enumerate(params):
            if scalars and k > scalars[0] and isinstance(p.result.type, uop.PtrType):
                raise error_at(
                    p, f"buffer param {k} comes after scalar param {scalars[0]}: webgpu kernels take their buffers "
                    "first (bindings 0..n-1), then their scalars (one uniform struct)"
                )
        return params

    def _param_names(self, buffers: int, count: int) -> list[str]:
        """Names for params without one: the kernel's ``symbols`` name its scalars, in order; else ``p<n>``."""
        symbols = self.kernel.attributes.get("symbols")
        names = [s.data for s in symbols.data if isinstance(s, StringAttr)] if isinstance(symbols, ArrayAttr) else []
        return [f"p{k}" if not 0 <= k - buffers < len(names) else names[k - buffers] for k in range(count)]

    def _param_type(self, p: uop.ParamOp) -> Attribute:
        t = p.result.type
        if isinstance(t, uop.PtrType):
            return wgsl.StorageType(self._memory_type(t.element_type, p))
        if isinstance(t, IndexType) or t == I32:
            return I32
        raise error_at(p, f"uop.param of {dtype_name(t)}: webgpu passes scalars as i32 fields of a uniform struct")

    def _workgroup_size(self) -> list[int]:
        local = self.kernel.attributes.get("local_size")
        name = self.kernel.sym_name.data
        if local is None:
            raise error_at(
                self.kernel, f"uop.kernel @{name} has no local_size: linearize it for webgpu "
                "(convert-kernel-to-uop{target=webgpu})"
            )
        sizes = list(local.data) if isinstance(local, ArrayAttr) else []
        if len(sizes) != 3 or not all(isinstance(s, IntegerAttr) for s in sizes):
            raise error_at(
                self.kernel, f"uop.kernel @{name} local_size must be 3 integers (a constant workgroup size), "
                f"got {local}"
            )
        return [s.value.data for s in sizes]  # type: ignore[union-attr]

    def _convert_target_op(self, op: Operation) -> None:
        match op:
            case uop.SpecialOp():
                self._special(op)
            case uop.BarrierOp():
                self._add(wgsl.BarrierOp())
            case uop.DefineLocalOp():
                self._define_local(op)
            case uop.LoadOp():
                self._load(op)
            case uop.StoreOp():
                self._store(op)
            case uop.ConstOp():
                self._const(op)
            case uop.CastOp():
                src, dst = (self._value_type(element_type(t), op) for t in (op.input.type, op.result.type))
                self._define(op, [self._cast(x, src, dst) for x in self.lanes[op.input]])
            case uop.BitcastOp():
                dst = self._value_type(element_type(op.result.type), op)
                self._define(op, [self._add(wgsl.BitcastOp(x, dst)).result for x in self.lanes[op.input]])
            case uop.WmmaOp():
                raise error_at(op, "uop.wmma needs tensor cores; WGSL has no matrix-multiply instruction")
            case _:
                raise error_at(op, f"convert-uop-to-wgsl cannot convert {op.name}")

    def _special(self, op: uop.SpecialOp) -> None:
        kind, _, axis = op.special.data.partition(".")
        if kind not in BUILTIN_OF_SPECIAL:
            raise error_at(op, f"uop.special {op.special.data} is a CPU thread bound; a webgpu kernel has only GPU ids")
        component = self._add(wgsl.BuiltinOp(f"{BUILTIN_OF_SPECIAL[kind]}.{axis}")).result
        self._define(op, [self._add(wgsl.ConvertOp(component, I32)).result])

    def _define_local(self, op: uop.DefineLocalOp) -> None:
        assert isinstance(op.result.type, uop.PtrType)
        element = self._memory_type(op.result.type.element_type, op)
        size = op.size.value.data
        self.workgroup_bytes += size * itemsize(element)
        limit = self.target.local_memory_bytes
        if limit is not None and self.workgroup_bytes > limit:
            raise error_at(op, f"workgroup memory of {self.workgroup_bytes} bytes exceeds webgpu's {limit} bytes")
        array = wgsl.WorkgroupArrayOp(element, size)
        array.location = op.location
        body = self.blocks[0]  # module scope in WGSL, so it stands first in the entry body, outside any bracket
        if body.first_op is None:
            body.add_op(array)
        else:
            body.insert_op_before(array, body.first_op)
        self._define(op, [array.result])

    # -- memory ---------------------------------------------------------------------------------

    def _load(self, op: uop.LoadOp) -> None:
        array, index = self._scalar(op.ptr), self._scalar(op.index)
        gate = self._scalar(op.gate) if op.gate is not None else None
        t = self._value_type(element_type(op.result.type), op)
        values = []
        for idx in self._lane_indices(index, op.result.type):
            if gate is not None:  # read element 0 where the gate is false: never out of bounds
                idx = self._select(gate, idx, self._literal(0, I32))
            value = self._add(wgsl.LoadOp(array, idx)).result
            if t == BOOL:
                value = self._binary("!=", value, self._literal(0, U32))
            if gate is not None:
                value = self._select(gate, value, self._literal(0, t))
            values.append(value)
        self._define(op, values)

    def _store(self, op: uop.StoreOp) -> None:
        array, index = self._scalar(op.ptr), self._scalar(op.index)
        t = self._value_type(element_type(op.value.type), op)
        with self._only_where(op.gate):
            for idx, value in zip(self._lane_indices(index, op.value.type), self.lanes[op.value], strict=True):
                if t == BOOL:
                    value = self._select(value, self._literal(1, U32), self._literal(0, U32))
                self._add(wgsl.StoreOp(array, idx, value))

    def _lane_indices(self, index: SSAValue, value_type: Attribute) -> list[SSAValue]:
        """The element index of each lane: a vector access touches consecutive elements."""
        return [index] + [self._binary("+", index, self._literal(k, I32)) for k in range(1, lanes(value_type))]

    # -- types ----------------------------------------------------------------------------------

    def _value_type(self, t: Attribute, op: Operation) -> Attribute:
        """The WGSL scalar type of a uop scalar type (``index`` is i32), or a located error naming the dtype."""
        if isinstance(t, IndexType):
            return I32
        name = dtype_name(t)
        if self.target.supports_dtype(name):
            return DTYPES[name]
        if t == F16:
            why = "f16 needs the shader-f16 feature (convert-uop-to-wgsl{features=shader-f16})"
        else:
            why = "WGSL has no 64-bit, 8-bit or 16-bit integer types, no f64 and no bf16"
        supported = ", ".join(sorted(self.target.dtypes))
        raise error_at(op, f"{op.name} uses {name}, which webgpu does not support: {why} (supported: {supported})")

    def _memory_type(self, t: Attribute, op: Operation) -> Attribute:
        """The element type of WGSL memory holding a uop dtype: i1 is stored as one u32 per element."""
        value = self._value_type(t, op)
        return U32 if value == BOOL else value

    # -- constants and conversions --------------------------------------------------------------

    def _const(self, op: uop.ConstOp) -> None:
        t = self._value_type(element_type(op.result.type), op)
        numbers = self._const_numbers(op)
        if t == I32 and any(not INDEX_RANGE[0] <= n <= INDEX_RANGE[1] for n in numbers):
            raise error_at(op, f"constant {max(numbers, key=abs)} does not fit WGSL's i32 (webgpu's index type)")
        self._define(op, [self._literal(bool(n) if t == BOOL else n, t) for n in numbers])

    def _cast(self, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
        """``uop.cast`` of one lane (numpy ``astype``; see the module docstring)."""
        if src == dst:
            return x
        if dst == BOOL:
            zero = self._literal(0, src)
            if src in FLOATS:  # NaN is true, and Vulkan's `!=` is false for NaN
                return self._unary("!", self._binary("==", x, zero))
            return self._binary("!=", x, zero)
        if src == BOOL:
            return self._select(x, self._literal(1, dst), self._literal(0, dst))
        return self._add(wgsl.ConvertOp(x, dst)).result

    # -- ALU ------------------------------------------------------------------------------------

    def _alu_type(self, t: Attribute, op: AluOp) -> Attribute:
        return self._value_type(t, op)

    def _alu(self, op: AluOp, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue:
        """One lane of an ALU op on operand type ``t`` (a WGSL scalar type)."""
        if kind == "where":
            return self._select(*xs)
        if t in FLOATS:
            result = self._float_alu(kind, t, xs)
        elif t == BOOL:
            result = self._bool_alu(kind, xs)
        else:
            result = self._int_alu(kind, t, xs)
        if result is not None:
            return result
        if not self.target.is_native(kind):
            raise error_at(
                op, f"{op.name} on {dtype_name(element_type(op.value_operands[0].type))} is not native on webgpu "
                "(targets/wgsl/description.py): run uop-decompose{target=webgpu} before convert-uop-to-wgsl"
            )
        raise error_at(op, f"{op.name} on {wgsl.wgsl_name(t)} has no WGSL lowering")

    def _float_alu(self, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue | None:
        if kind in _FLOAT_CALLS:
            return self._call(_FLOAT_CALLS[kind], *xs)
        if kind in _FLOAT_HELPERS:
            return self._call(f"{_FLOAT_HELPERS[kind]}_{wgsl.wgsl_name(t)}", *xs)
        x = xs[0]
        match kind:
            case "add" | "sub" | "mul" | "div" | "cmplt" | "cmple" | "cmpeq":
                return self._binary(_OPERATORS[kind], *xs)
            case "cmpne":  # true for NaN
                return self._unary("!", self._binary("==", *xs))
            case "neg":
                return self._unary("-", x)
            case "recip":
                return self._binary("/", self._literal(1.0, t), x)
            case "rsqrt":
                return self._binary("/", self._literal(1.0, t), self._call("sqrt", x))
            case "idiv":
                return self._call("trunc", self._binary("/", *xs))
        return None

    def _bool_alu(self, kind: str, xs: list[SSAValue]) -> SSAValue | None:
        if kind in _BOOL_OPERATORS:
            return self._binary(_BOOL_OPERATORS[kind], *xs)
        match kind:
            case "not":
                return self._unary("!", xs[0])
            case "cmplt":  # false < true
                return self._binary("&", self._unary("!", xs[0]), xs[1])
            case "cmple":
                return self._binary("|", self._unary("!", xs[0]), xs[1])
        return None

    def _int_alu(self, kind: str, t: Attribute, xs: list[SSAValue]) -> SSAValue | None:
        if kind in _OPERATORS:
            return self._binary(_OPERATORS[kind], *xs)
        x = xs[0]
        match kind:
            case "neg":  # WGSL has no unary minus on u32
                return self._unary("-", x) if t == I32 else self._binary("-", self._literal(0, t), x)
            case "not":
                return self._unary("~", x)
            case "abs":
                return self._call("abs", x) if t == I32 else x
            case "sign":
                zero, positive = self._literal(0, t), self._literal(1, t)
                if t == U32:
                    return self._select(self._binary("!=", x, zero), positive, zero)
                negative = self._select(self._binary("<", x, zero), self._literal(-1, t), zero)
                return self._select(self._binary(">", x, zero), positive, negative)
            case "max" | "min":
                return self._call(kind, *xs)
            case "shl" | "shr":
                return self._call(f"kiln_{kind}_{wgsl.wgsl_name(t)}", *xs)
            case "fma":
                return self._binary("+", self._binary("*", xs[0], xs[1]), xs[2])
        return None


__all__ = ["ConvertUopToWGSL"]
