"""kiln's Python front end: lazy tensors that trace to the `graph` dialect, and ``@jit`` (see docs/jit.md).

Re-exported by ``kiln`` as ``kiln.Tensor``, ``kiln.jit``, ``kiln.Dim``, ``kiln.manual_seed``, ``kiln.grad``,
``kiln.no_grad``; ``kiln.optim`` is ``kiln.jit.optim``.
"""

import sys
import types
from typing import Any

from kiln.jit.autograd import grad, no_grad
from kiln.jit.dims import Dim
from kiln.jit.errors import JitError, TraceError
from kiln.jit.jit import JitFunction, jit
from kiln.jit.tensor import Tensor, cat, manual_seed, stack

__all__ = ["Dim", "JitError", "JitFunction", "Tensor", "TraceError", "cat", "grad", "jit", "manual_seed", "no_grad", "stack"]


class _CallablePackage(types.ModuleType):
    """``kiln.jit`` names both this package and the decorator. ``kiln`` loads its names lazily, and importing a
    submodule binds ``kiln.jit`` to the package, so the package itself decorates: ``@kiln.jit`` and
    ``kiln.jit(f, dims=...)`` call ``jit``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return jit(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
