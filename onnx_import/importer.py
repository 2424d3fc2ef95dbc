"""ONNX ``ModelProto`` -> a `graph` module: walk the nodes in order, each through its handler (or through the
ONNX function that defines it), keeping import-time constants as numpy arrays and everything else as lazy kiln
tensors, then print the traced graph as one ``func.func``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import numpy as np
import onnx
from onnx import ModelProto, external_data_helper, numpy_helper

from kiln.jit import Tensor
from kiln.jit import lazy
from kiln.onnx import emit
from kiln.onnx.dtypes import check_array, kiln_dtype
from kiln.onnx.errors import OnnxImportError, Unsupported
from kiln.onnx.fold import fold_node
from kiln.onnx.fold_batch_norm import fold_batch_norms
from kiln.onnx.imported import Imported
from kiln.onnx.functions import expand_function
from kiln.onnx.narrow import STORAGE, Narrow, NarrowType, narrow_type, narrow_type_of, to_storage
from kiln.onnx.node import NodeView
from kiln.onnx.sequence import Optional, Sequence
from kiln.onnx.registry import HANDLERS, load_all
from kiln.onnx.values import DEVICE, Values, shape, to_tensor

MIN_OPSET = 7


def load_model(source: str | os.PathLike | bytes | ModelProto) -> ModelProto:
    """Read a model (path, bytes or proto) with its external data; every failure is an ``OnnxImportError``."""
    if isinstance(source, ModelProto):
        return source
    try:
        if isinstance(source, bytes):
            return onnx.load_from_string(source)
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise OnnxImportError(f"{path}: no such file")
        model = onnx.load(path, load_external_data=False)
    except OnnxImportError:
        raise
    except Exception as e:  # protobuf's DecodeError and friends
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise OnnxImportError(f"not a readable ONNX model ({type(e).__name__}: {first})") from None
    base = os.path.dirname(os.path.abspath(path))
    for t in external_data_helper._get_all_tensors(model):
        if external_data_helper.uses_external_data(t):
            info = external_data_helper.ExternalDataInfo(t)
            if not os.path.isfile(os.path.join(base, info.location)):
                raise OnnxImportError(f"missing external data file '{info.location}' (for tensor '{t.name}')")
    try:
        external_data_helper.load_external_data_for_model(model, base)
    except Exception as e:
        raise OnnxImportError(f"cannot read the external data ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None
    return model


def default_opset(model: ModelProto) -> int:
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return int(o.version)
    return onnx.defs.onnx_opset_version()  # no default-domain ops are used: any version reads the same


_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def symbol_name(param: str) -> str:
    """A kiln symbol for an ONNX dim_param: letters, digits and _, no lowercase x (kiln's shape separator)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", param).replace("x", "X")
    return s if _SYMBOL.fullmatch(s) else f"_{s}"


def input_shape(name: str, tt: onnx.TypeProto.Tensor) -> tuple:
    if not tt.HasField("shape"):
        raise OnnxImportError(f"input '{name}' has no declared rank (give its shape)")
    dims: list = []
    for i, d in enumerate(tt.shape.dim):
        if d.HasField("dim_value"):
            dims.append(int(d.dim_value))
        elif d.dim_param:
            dims.append(symbol_name(d.dim_param))
        else:
            dims.append(f"{symbol_name(name)}_{i}")
    return tuple(dims)


def import_model(
    model: ModelProto,
    *,
    name: str = "main",
    dims: Mapping[str, tuple[int, int]] | None = None,
    static: Mapping[str, np.ndarray] | None = None,
    shapes: Mapping[str, list[int] | tuple[int, ...]] | None = None,
    check_outputs: bool = True,
) -> Imported:
    """The `graph` module of ``model``. ``dims`` bounds its symbolic dims; ``static`` freezes inputs to values;
    ``shapes`` fixes inputs' shapes (both for the ONNX backend, which knows the run's inputs)."""
    load_all()
    opset = default_opset(model)
    if opset < MIN_OPSET:
        raise OnnxImportError(f"opset {opset} is older than the oldest kiln imports ({MIN_OPSET})")
    dims = {symbol_name(k): v for k, v in (dims or {}).items()}
    static = dict(static or {})
    values = Values()
    graph = model.graph
    initialized = set()
    for init in graph.initializer:
        try:
            values.set(init.name, check_array(numpy_helper.to_array(init), f"initializer '{init.name}'"))
        except Unsupported as e:
            raise OnnxImportError(str(e)) from None
        initialized.add(init.name)
    inputs: list[str] = []
    placeholders = []
    for vi in graph.input:
        if vi.name in initialized:
            continue
        if vi.name in static:
            v = static[vi.name]
            values.set(vi.name, Sequence(tuple(map(np.array, v))) if isinstance(v, list) else np.array(v))  # copies: the program keeps them
            continue
        given = shapes[vi.name] if shapes and vi.name in shapes else _DECLARED
        values.set(vi.name, input_value(vi.name, vi.type, given, dims, placeholders, values))
        inputs.append(vi.name)
    functions = model_functions(model)
    values.runner = lambda nodes, vals, op_set: run_nodes(nodes, vals, op_set, functions)
    run_nodes(fold_batch_norms(graph, values), values, opset, functions)
    outs, out_dtypes, out_narrow, lengths = [], [], [], []
    for vi in graph.output:
        if vi.name not in values:
            raise OnnxImportError(f"output '{vi.name}' is computed by no node")
        v = values.get(vi.name)
        if isinstance(v, Optional) or vi.type.HasField("optional_type"):
            raise OnnxImportError(f"output '{vi.name}' is an optional (kiln returns tensors and sequences)")
        if vi.type.HasField("sequence_type") != isinstance(v, Sequence):
            raise OnnxImportError(f"output '{vi.name}' is declared a {vi.type.WhichOneof('value')} but computes "
                                  f"{'a sequence' if isinstance(v, Sequence) else 'a tensor'}")
        lengths.append(len(v) if isinstance(v, Sequence) else None)
        for item in v.items if isinstance(v, Sequence) else [v]:
            t, narrow = output_tensor(item)
            if check_outputs and not isinstance(v, Sequence):
                check_declared(vi, t, narrow)
            outs.append(t._node)
            out_dtypes.append(t.dtype)
            out_narrow.append(narrow)
    module, weights = emit.build_module(name, placeholders, outs, dims)
    return Imported(module, name, inputs, weights, [o.name for o in graph.output], out_dtypes, out_narrow, lengths)


def output_tensor(v) -> tuple[Tensor, NarrowType | None]:
    """An output value as the tensor the program returns, and the narrow type its bytes hold."""
    if isinstance(v, Narrow):
        return v.bits, v.type
    narrow = narrow_type_of(v.dtype) if isinstance(v, np.ndarray) else None
    return to_tensor(to_storage(v) if narrow else v), narrow


_DECLARED = object()
"""An input's shape as the model declares it (no run's shape given)."""


def input_value(name: str, tp: onnx.TypeProto, given, dims, placeholders: list, values: Values):
    """A model input of type ``tp`` as arguments of the program: a tensor is one, a sequence one per element
    (``given``: the run's list of shapes), an optional its value's or none (``given`` None: empty)."""
    kind = tp.WhichOneof("value")
    if kind == "optional_type":
        if given is None:
            return Optional(None)
        return Optional(input_value(name, tp.optional_type.elem_type, given, dims, placeholders, values))
    if kind == "sequence_type":
        if given is _DECLARED:
            raise OnnxImportError(f"input '{name}' is a sequence: kiln imports it only given its length and element "
                                  "shapes (the ONNX backend takes them from the run's list)")
        elem = tp.sequence_type.elem_type
        if elem.WhichOneof("value") != "tensor_type":
            raise OnnxImportError(f"input '{name}' is a sequence of non-tensors (kiln's values are tensors)")
        return Sequence(tuple(input_value(name, elem, g, dims, placeholders, values) for g in given))
    if kind != "tensor_type":
        raise OnnxImportError(f"input '{name}' is a {kind} (kiln has tensors, sequences and optionals)")
    tt = tp.tensor_type
    narrow = narrow_type(tt.elem_type)
    try:
        dtype = STORAGE if narrow else kiln_dtype(tt.elem_type)
    except Unsupported as e:
        raise OnnxImportError(f"input '{name}': {e}") from None
    shp = input_shape(name, tt) if given is _DECLARED else tuple(given)
    for d in shp:
        if isinstance(d, str) and d not in dims:
            raise OnnxImportError(
                f"input '{name}' has the symbolic dim '{d}' with no bounds: give them with --dim {d}=LO:HI "
                f"(Python: dims={{'{d}': (lo, hi)}})"
            )
    node = lazy.placeholder(None, len(placeholders), shp, dtype)
    placeholders.append(node)
    values.input_names.append(name)
    t = Tensor._of(node, DEVICE)
    return Narrow(t, narrow) if narrow else t


def model_functions(model: ModelProto) -> dict[tuple[str, str], onnx.FunctionProto]:
    return {(f.domain, f.name): f for f in model.functions}


def check_declared(vi: onnx.ValueInfoProto, t: Tensor, narrow: NarrowType | None = None) -> None:
    """The output's declared dtype and static dims must be what kiln computed."""
    tt = vi.type.tensor_type
    if tt.elem_type:
        declared_narrow = narrow_type(tt.elem_type)
        declared = declared_narrow.name if declared_narrow else kiln_dtype(tt.elem_type)
        got = narrow.name if narrow else t.dtype
        if declared != got:
            raise OnnxImportError(f"output '{vi.name}' is declared {declared} but computes {got}")
    if tt.HasField("shape"):
        got = shape(t)
        want = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
        if len(want) != len(got) or any(w is not None and isinstance(g, int) and w != g for w, g in zip(want, got)):
            show = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]
            raise OnnxImportError(f"output '{vi.name}' is declared with shape {show} but computes {list(got)}")


def run_nodes(nodes, values: Values, opset: int, functions: Mapping) -> None:
    for proto in nodes:
        try:
            outs = run_node(proto, values, opset, functions)
        except Unsupported as e:
            raise OnnxImportError(f"node '{proto.name}' ({proto.op_type}): {e}") from None
        except OnnxImportError:  # NeedStatic, or already located in a subgraph or function body
            raise
        except (ValueError, TypeError, IndexError, NotImplementedError, KeyError, AssertionError) as e:
            raise OnnxImportError(f"node '{proto.name}' ({proto.op_type}): {type(e).__name__}: {e}") from None
        for out_name, v in zip(proto.output, outs):
            if out_name and v is not None:
                values.set(out_name, v)


def run_node(proto, values: Values, opset: int, functions: Mapping) -> list:
    if proto.domain not in ("", "ai.onnx"):
        f = functions.get((proto.domain, proto.op_type))
        if f is None:
            raise Unsupported(f"operators of domain '{proto.domain}' are not supported")
        return expand_function(proto, f, values, opset, functions, run_nodes)
    for name in proto.input:
        if name and name not in values:
            raise Unsupported(f"input '{name}' is not defined before this node")
    view = NodeView(proto, values, opset)
    if all(not n or isinstance(values.get(n), np.ndarray) for n in proto.input) and proto.input:
        folded = fold_node(proto, values, opset)
        if folded is not None:
            return folded
    fn = HANDLERS.get(proto.op_type)
    if fn is not None:
        return fn(view)
    f = functions.get(("", proto.op_type))
    if f is None:
        from kiln.onnx.functions import schema_function

        f = schema_function(proto, values, opset)
    if f is None:
        raise Unsupported("kiln has no lowering for this operator")
    return expand_function(proto, f, values, opset, functions, run_nodes)
