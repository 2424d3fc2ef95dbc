"""The lazy graph behind ``Tensor``: plain Python nodes, turned into `graph` IR only when a value is needed.

A ``Node`` is a leaf (a host ``buffer``, a trace ``input``, a splat ``const``) or a graph op applied to other
nodes. Result types are inferred when the node is made, by the op class's own ``infer`` (the function the
verifier uses), so a shape or dtype error is raised at the line of user code that caused it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from kiln.dialects import graph
from kiln.dialects.types import DTYPES, Shape, TensorType, dtype_name, is_float

LEAVES = ("buffer", "input", "const")


class GradMode:
    """Whether new nodes record a gradient path (``kiln.no_grad`` turns it off for a block)."""

    enabled = True


@lru_cache(maxsize=8192)
def tensor_type(shape: Shape, dtype: str) -> TensorType:
    """``!graph.tensor`` of a shape and dtype name (memoized: building an attribute costs ~20 µs)."""
    return TensorType(shape, DTYPES[dtype])


class Node:
    """One value of the lazy graph. ``trace`` is the trace whose inputs it depends on (None: it has a value
    outside any trace). ``no_grad``: backpropagation stops here (made under ``kiln.no_grad``, or ``detach()``)."""

    __slots__ = ("op", "srcs", "props", "shape", "dtype", "arg", "trace", "no_grad")

    def __init__(
        self, op: str, srcs: tuple[Node, ...], props: dict[str, Attribute], shape: Shape, dtype: str, arg: Any = None
    ):
        self.op = op
        self.srcs = srcs
        self.props = props
        self.shape = shape
        self.dtype = dtype
        self.arg = arg
        self.trace = next((s.trace for s in srcs if s.trace is not None), None) if srcs else None
        self.no_grad = not GradMode.enabled

    @property
    def type(self) -> TensorType:
        return tensor_type(self.shape, self.dtype)

    def __repr__(self) -> str:
        return f"<{self.op} {self.dtype}{list(self.shape)}>"


def buffer(array: np.ndarray, dtype: str) -> Node:
    """A leaf holding host data (C-contiguous, never written after this)."""
    return Node("buffer", (), {}, tuple(array.shape), dtype, array)


def const(value: bool | int | float, shape: Shape, dtype: str) -> Node:
    """A splat constant: ``value`` (already representable in ``dtype``) at every element."""
    return Node("const", (), {}, tuple(shape), dtype, value)


def placeholder(trace: Any, index: int, shape: Shape, dtype: str) -> Node:
    """Argument ``index`` of the function being traced (shape may hold symbol names)."""
    node = Node("input", (), {}, tuple(shape), dtype, index)
    node.trace = trace
    return node


def scalar_attr(value: bool | int | float, dtype: str) -> Attribute:
    """A typed scalar property (a pad value) in ``dtype``."""
    t = DTYPES[dtype]
    return FloatAttr(float(value), t) if is_float(t) else IntegerAttr(int(value), t)  # type: ignore[arg-type]


def apply(op: str, srcs: Sequence[Node], result: tuple[Shape, str] | None = None, **props: Any) -> Node:
    """``graph.<op>`` of ``srcs``; the result type is inferred unless the op takes it as input (``result``)."""
    cls = graph.op(op)
    attrs = {k: graph.to_attr(v) for k, v in props.items() if v is not None}
    if result is None:
        try:
            t = cls.infer([s.type for s in srcs], attrs)
        except VerifyException as e:
            raise ValueError(str(e)) from None
        assert t is not None, f"graph.{op} needs an explicit result type"
        result = (t.shape, dtype_name(t.element_type))
    return Node(op, tuple(srcs), attrs, tuple(result[0]), result[1])



def postorder(roots: Iterable[Node], descend: Callable[[Node], bool]) -> tuple[list[Node], list[Node]]:
    """The nodes reachable from ``roots``, operands before users, going into a node's operands only where
    ``descend(node)``; and, in visit order, the nodes it did not descend into (they are not in the first list)."""
    order: list[Node] = []
    stopped: list[Node] = []
    seen: set[int] = set()
    for root in roots:
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            if not descend(node):
                stopped.append(node)
                continue
            stack.append((node, True))
            stack.extend((s, False) for s in reversed(node.srcs) if id(s) not in seen)
    return order, stopped
