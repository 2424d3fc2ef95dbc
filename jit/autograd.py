"""Gradients of lazy tensors: ``Tensor.backward``, ``kiln.grad`` and ``kiln.no_grad``.

There is no tape. The lazy graph a computation builds already is the program; ``backward`` walks it from the
output down to the tensors that require gradients and applies the `graph` dialect's gradient rules
(``kiln.passes.autodiff``, the same table the `graph-autodiff` pass uses) to build the adjoint computation as
more lazy nodes. Nothing runs until a gradient's value is needed, so inside ``@kiln.jit`` forward, backward and
the optimizer's update trace into one program.

The walk stops at a *leaf*: a tensor whose ``requires_grad`` was set (its current value, so a parameter that an
optimizer updated is a leaf again), a node made under ``no_grad`` or by ``detach()``, or a constant or input.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kiln.dialects.types import Shape
from kiln.jit import lazy
from kiln.jit.lazy import GradMode, Node, postorder
from kiln.passes.autodiff import GradBuilder, NotDifferentiable, Primal, vjp

if TYPE_CHECKING:
    from kiln.jit.tensor import Tensor

_leaves: weakref.WeakSet[Tensor] = weakref.WeakSet()
"""Every live tensor whose ``requires_grad`` was set."""


class NodeBuilder(GradBuilder[Node]):
    """The gradient rules' builder over lazy nodes."""

    def shape(self, v: Node) -> Shape:
        return v.shape

    def dtype(self, v: Node) -> str:
        return v.dtype

    def op(self, name: str, *operands: Node, result: tuple[Shape, str] | None = None, **props: Any) -> Node:
        return lazy.apply(name, operands, result=result, **props)

    def const(self, value: float | int, dtype: str, shape: Shape = ()) -> Node:
        return lazy.const(value, shape, dtype)


@contextmanager
def no_grad() -> Iterator[None]:
    """Values computed in this block are constants to ``backward`` (optimizer updates, metrics)."""
    before = GradMode.enabled
    GradMode.enabled = False
    try:
        yield
    finally:
        GradMode.enabled = before


def mark_leaf(t: Tensor, flag: bool) -> None:
    if flag:
        _leaves.add(t)
    else:
        _leaves.discard(t)


def _walk(root: Node, stop: dict[int, Any]) -> tuple[list[Node], list[Node]]:
    """The nodes between ``root`` and the leaves in ``stop``, operands before users; and the leaves reached."""
    order, stopped = postorder([root], lambda n: id(n) not in stop and bool(n.srcs) and not n.no_grad)
    return order, [n for n in stopped if id(n) in stop]


def depends_on_leaf(node: Node) -> bool:
    """Whether gradients would flow from ``node`` to some tensor that requires them."""
    return bool(_walk(node, {id(t._node): t for t in _leaves})[1])


def gradients(output: Tensor, inputs: Sequence[Tensor], cotangent: Tensor | None) -> list[Node]:
    """The vector-Jacobian product of ``output`` with respect to ``inputs`` (any tensors, also traced
    placeholders) as lazy nodes; ``cotangent`` defaults to 1 for a scalar ``output``."""
    if cotangent is None:
        if output._node.shape != ():
            raise ValueError(
                f"backward() of a tensor of shape {output.shape} needs a gradient argument of that shape: an implicit "
                "gradient of 1 is only defined for a scalar (reduce it to a loss first)"
            )
        seed = lazy.const(1.0, (), output.dtype)
    else:
        if tuple(cotangent._node.shape) != tuple(output._node.shape):
            raise ValueError(f"gradient has shape {cotangent.shape}, the tensor has shape {output.shape}")
        seed = cotangent.cast(output.dtype)._node
    for t in inputs:
        if t.dtype not in ("f16", "bf16", "f32", "f64"):
            raise TypeError(f"only floating-point tensors have gradients; got a {t.dtype} tensor")
    order, _ = _walk(output._node, {id(t._node): t for t in inputs})
    ops = [Primal(n.op, n.srcs, n, n.props) for n in order]
    with no_grad():
        return vjp(NodeBuilder(), ops, [output._node], [seed], [t._node for t in inputs])


def backward(output: Tensor, gradient: Tensor | None) -> None:
    """Accumulate d output / d leaf into ``.grad`` of every leaf ``output`` depends on."""
    stop = {id(t._node): t for t in _leaves}
    _, reached = _walk(output._node, stop)
    if not reached:
        raise RuntimeError(
            "backward(): this tensor does not depend on any tensor with requires_grad=True "
            "(set it on the parameters, e.g. Tensor.randn(3, 4, requires_grad=True))"
        )
    leaves = [stop[id(n)] for n in reached]
    try:
        grads = gradients(output, leaves, gradient)
    except NotDifferentiable as e:
        raise RuntimeError(f"backward(): {e}") from None
    with no_grad():
        for leaf, g in zip(leaves, grads):
            grad = leaf._new(g)
            leaf.grad = grad if leaf.grad is None else leaf.grad + grad


def grad(output: Tensor, inputs: Sequence[Tensor], gradient: Tensor | None = None) -> list[Tensor]:
    """d output / d input for each of ``inputs`` (any floating-point tensors, ``requires_grad`` or not), as new
    tensors; ``.grad`` is left alone. The functional form: a jitted step can take its parameters as
    arguments and return the updated ones."""
    try:
        nodes = gradients(output, inputs, gradient)
    except NotDifferentiable as e:
        raise RuntimeError(f"grad(): {e}") from None
    return [t._new(n) for t, n in zip(inputs, nodes)]
