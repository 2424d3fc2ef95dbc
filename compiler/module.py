"""Modules in: IR text or a ``ModuleOp``, verified, and the function a caller names."""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from kiln.compiler import registry
from kiln.support.errors import KilnError


def parse_module(module: Any) -> ModuleOp:
    """A verified ``ModuleOp`` from a ``ModuleOp`` or IR text; bad IR raises ``KilnError`` (parse errors are located)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    try:
        if not isinstance(module, ModuleOp):
            module = Parser(registry.make_context(), str(module)).parse_module()
        module.verify()
    except (ParseError, VerifyException) as e:
        raise KilnError(str(e)) from None
    return module


def find_function(module: ModuleOp, function_name: str) -> FuncOp:
    """The ``func.func`` called ``function_name`` at the top level of ``module``."""
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == function_name:
            return op
    names = [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]
    raise KilnError(f"no function @{function_name} in the module (functions: {', '.join(names) or 'none'})")
