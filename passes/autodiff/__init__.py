"""Reverse-mode automatic differentiation of `graph` functions.

``rules.py`` holds one gradient rule per graph op, ``engine.py`` chains them into a vector-Jacobian product,
and ``builder.py`` is the small interface the rules build through, so the same rules serve the
`graph-autodiff` pass (IR in, IR out) and ``Tensor.backward`` (lazy nodes traced by the JIT).
"""

from kiln.passes.autodiff.builder import GradBuilder
from kiln.passes.autodiff.engine import vjp
from kiln.passes.autodiff.rules import GRADIENTS, NotDifferentiable, Primal

__all__ = ["GRADIENTS", "GradBuilder", "NotDifferentiable", "Primal", "vjp"]
