"""Integer expressions over symbolic dims, as stored in IR attributes (launch sizes, thread extents).

Syntax: Python integer arithmetic over symbol names and literals with ``+ - * //`` and ``ceildiv(a, b)``,
e.g. ``"ceildiv(N*32, 256)"``. Parsed once with ``ast`` and compiled to a closure, never ``eval``-ed.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping

_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


def _compile(node: ast.AST) -> Callable[[Mapping[str, int]], int]:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        v = node.value
        return lambda env: v
    if isinstance(node, ast.Name):
        name = node.id
        return lambda env: env[name]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        op, lhs, rhs = _BINOPS[type(node.op)], _compile(node.left), _compile(node.right)
        return lambda env: op(lhs(env), rhs(env))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2:
        a, b = _compile(node.args[0]), _compile(node.args[1])
        if node.func.id == "ceildiv":
            return lambda env: -(-a(env) // b(env))
        if node.func.id in ("max", "min"):
            f = max if node.func.id == "max" else min
            return lambda env: f(a(env), b(env))
    raise ValueError(f"unsupported expression: {ast.unparse(node)}")


@functools.lru_cache(maxsize=4096)
def compile_expr(expr: str) -> Callable[[Mapping[str, int]], int]:
    """A closure computing ``expr`` from a mapping of symbol values."""
    return _compile(ast.parse(expr, mode="eval").body)


def evaluate(expr: str, symbols: Mapping[str, int]) -> int:
    return compile_expr(expr)(symbols)


def symbols_of(expr: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name) and n.id not in ("ceildiv", "max", "min")}
