"""kiln's Python front end: lazy tensors that trace to the `graph` dialect, and ``@jit`` (see docs/jit.md).

Re-exported by ``kiln`` as ``kiln.Tensor``, ``kiln.jit``, ``kiln.Dim``, ``kiln.manual_seed``.
"""

from kiln.jit.dims import Dim
from kiln.jit.errors import JitError, TraceError
from kiln.jit.jit import JitFunction, jit
from kiln.jit.tensor import Tensor, manual_seed

__all__ = ["Dim", "JitError", "JitFunction", "Tensor", "TraceError", "jit", "manual_seed"]
