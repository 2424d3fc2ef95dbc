"""Pass pipelines from ``-p`` text: xDSL's ``a,b{k=v}`` syntax, with kiln's named pipelines expanded inline.

Passes and named pipelines come from `kiln.compiler.registry`, so new ones need no change here.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import typing

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from kiln.compiler import registry
from kiln.support.errors import UserError


def expand_pipeline(text: str, _expanding: tuple[str, ...] = ()) -> list[ArgSpec]:
    """The pass specs of ``text``; a named pipeline (``lower-to-c``) becomes the passes it stands for."""
    try:
        specs = list(parse_pipeline(text))
    except ArgSpecParseError as e:
        where = str(e).removeprefix("Error parsing pass pipeline specification:\n")
        raise UserError(f"invalid pass pipeline '{text}':\n{where.rstrip()}") from None
    out: list[ArgSpec] = []
    for spec in specs:
        if spec.name not in registry.PIPELINES:
            out.append(spec)
            continue
        if spec.parameters:
            raise UserError(f"named pipeline '{spec.name}' takes no options (got {spec})")
        if spec.name in _expanding:
            raise UserError(f"named pipeline '{spec.name}' refers to itself")
        out.extend(expand_pipeline(registry.PIPELINES[spec.name], (*_expanding, spec.name)))
    return out


_ANCHORED = re.compile(r"\s*([A-Za-z_][\w.$-]*)\((.*)\)\s*", re.DOTALL)


def unanchored(text: str) -> str:
    """The passes of MLIR's anchored form ``builtin.module(a,b{k=v})``; other text as it is.

    kiln's passes all run on the whole module, so ``builtin.module`` is the only anchor, and nesting under
    another op (``func.func(...)``) is an error rather than a pipeline that silently means something else.
    """
    match = _ANCHORED.fullmatch(text)
    if match is None:
        return text
    if match.group(1) != "builtin.module":
        raise UserError(f"kiln's passes run on the whole module: anchor the pipeline on builtin.module, not "
                        f"'{match.group(1)}'")
    return match.group(2)


def build_pipeline(text: str) -> list[ModulePass]:
    """The configured passes of ``text`` (plain or ``builtin.module(...)``). Raises UserError for an unknown pass
    or a bad option."""
    available = registry.get_all_passes()
    passes: list[ModulePass] = []
    for spec in expand_pipeline(unanchored(text)):
        if spec.name not in available:
            raise UserError(f"unknown pass '{spec.name}'{_did_you_mean(spec.name)} (see --list-passes)")
        pass_class = available[spec.name]()
        try:
            passes.append(pass_class.from_pass_spec(_floats_from_ints(pass_class, spec)))
        except (ValueError, TypeError) as e:
            raise UserError(f"invalid options for pass '{spec.name}' in '{spec}': {e}") from None
    return passes


def _floats_from_ints(pass_class: type[ModulePass], spec: ArgSpec) -> ArgSpec:
    """``spec`` with integers given for float options made floats: xDSL rejects ``time-total=30`` for a float."""
    hints = typing.get_type_hints(pass_class)
    floats = {f.name.replace("_", "-") for f in dataclasses.fields(pass_class) if hints.get(f.name) is float}
    parameters = {
        name: tuple(float(v) if name in floats and type(v) is int else v for v in values)
        for name, values in spec.parameters.items()
    }
    return ArgSpec(spec.name, parameters)


def pass_text(p: ModulePass) -> str:
    """One configured pass in ``-p`` syntax (``kernel-optimize{target="cpu-c"}``): enough to run it again."""
    return str(p.pipeline_pass_spec())


def pipeline_text(passes: list[ModulePass]) -> str:
    """The pipeline in ``-p`` syntax: what kiln-opt would run, and part of the compile cache's key."""
    return ",".join(pass_text(p) for p in passes)


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, [*registry.get_all_passes(), *registry.PIPELINES], n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def describe_passes() -> str:
    """``--list-passes``: every pass with the first line of its docstring, then the named pipelines."""
    rows: list[tuple[str, str]] = []
    for name, load in registry.get_all_passes().items():
        try:
            summary = _summary(load())
        except ImportError as e:
            summary = f"(not available: {e})"
        rows.append((name, summary))
    width = max(len(n) for n in [*(n for n, _ in rows), *registry.PIPELINES]) + 2
    lines = ["Passes:"]
    lines += [f"  {name:<{width}}{summary}".rstrip() for name, summary in rows]
    lines.append("Named pipelines (-p NAME expands to the passes listed):")
    lines += [f"  {name:<{width}}{text}" for name, text in registry.PIPELINES.items()]
    return "\n".join(lines) + "\n"


def _summary(pass_class: type[ModulePass]) -> str:
    """The first line of the docstring (not the signature @dataclass writes when there is none)."""
    doc = (pass_class.__doc__ or "").strip()
    if doc and not doc.startswith(f"{pass_class.__name__}("):
        return doc.splitlines()[0]
    return "(upstream xDSL pass)" if pass_class.__module__.startswith("xdsl.") else ""
