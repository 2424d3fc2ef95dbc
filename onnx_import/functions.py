"""Ops defined by an ONNX function (a schema's function body, or a model-local function) import by inlining
that body: its nodes run through the same handlers, under names private to this call."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import onnx
from onnx import AttributeProto, FunctionProto, NodeProto, defs, helper

from kiln.onnx.dtypes import kiln_dtype
from kiln.onnx.values import Values

_calls = [0]


def schema_function(proto: NodeProto, values: Values, opset: int) -> FunctionProto | None:
    """The function body ONNX defines for this op at the model's opset (also context-dependent ones), or None."""
    try:
        schema = defs.get_schema(proto.op_type, opset, proto.domain)
    except Exception:
        return None
    if schema.has_function:
        raw = schema.get_function_with_opset_version(opset)
        return FunctionProto.FromString(raw) if raw else schema.function_body
    if schema.has_context_dependent_function:
        types = []
        for n in proto.input:
            if not n:
                types.append(onnx.TypeProto())
                continue
            v = values.get(n)
            dt = v.dtype if hasattr(v, "dtype") else None
            elem = helper.np_dtype_to_tensor_dtype(dt) if not isinstance(dt, str) else _onnx_elem(dt)
            types.append(helper.make_tensor_type_proto(elem, None))
        try:
            raw = schema.get_context_dependent_function(proto.SerializeToString(), [t.SerializeToString() for t in types])
        except Exception:
            return None
        if not raw:
            return None
        f = FunctionProto()
        f.ParseFromString(raw)
        return f
    return None


def _onnx_elem(kiln_name: str) -> int:
    for elem in range(1, 17):
        try:
            if kiln_dtype(elem) == kiln_name:
                return elem
        except Exception:
            continue
    raise ValueError(kiln_name)


def _bind_attrs(node: NodeProto, fn_attrs: Mapping[str, AttributeProto], defaults: Mapping[str, AttributeProto]) -> NodeProto:
    out = NodeProto()
    out.CopyFrom(node)
    del out.attribute[:]
    for a in node.attribute:
        if a.ref_attr_name:
            src = fn_attrs.get(a.ref_attr_name) or defaults.get(a.ref_attr_name)
            if src is None:
                continue
            b = AttributeProto()
            b.CopyFrom(src)
            b.name = a.name
            out.attribute.append(b)
        else:
            out.attribute.append(a)
    return out


def _rename_node(node: NodeProto, local: Callable[[str], str]) -> None:
    """Give a body node (and the subgraphs of its If/Loop/Scan attributes) the names private to one call."""
    node.input[:] = [local(i) for i in node.input]
    node.output[:] = [local(o) for o in node.output]
    for a in node.attribute:
        graphs = [a.g] if a.HasField("g") else list(a.graphs)
        for g in graphs:
            for vi in [*g.input, *g.output, *g.value_info]:
                vi.name = local(vi.name)
            for init in g.initializer:
                init.name = local(init.name)
            for sub in g.node:
                _rename_node(sub, local)


def expand_function(
    proto: NodeProto, f: FunctionProto, values: Values, opset: int, functions: Mapping, run_nodes: Callable
) -> list:
    """Run ``f``'s body for the call ``proto``; returns the call's outputs."""
    _calls[0] += 1
    prefix = f"__{f.name}{_calls[0]}__"
    rename = {}
    for formal, actual in zip(f.input, proto.input):
        rename[formal] = actual
    for formal in f.input[len(proto.input):]:
        rename[formal] = ""
    attrs = {a.name: a for a in proto.attribute}
    defaults = {a.name: a for a in f.attribute_proto}
    def local(name: str) -> str:
        return rename.get(name, prefix + name) if name else ""

    body = []
    for n in f.node:
        m = _bind_attrs(n, attrs, defaults)
        _rename_node(m, local)
        if not m.name:
            m.name = f"{proto.name}/{n.op_type}"
        body.append(m)
    fn_opset = next((o.version for o in f.opset_import if o.domain in ("", "ai.onnx")), opset)
    run_nodes(body, values, fn_opset, functions)
    out = []
    for formal in f.output:
        name = prefix + formal
        out.append(values.get(name) if name in values else values.get(rename[formal]) if formal in rename else None)
    return out
