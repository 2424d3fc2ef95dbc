"""kiln: an MLIR-style multi-dialect tensor compiler on xDSL (graph -> kernel -> uop -> targets).

The Python front end: ``kiln.Tensor`` (lazy tensors that trace to the graph dialect) and ``@kiln.jit``
(compile once, replay without touching the IR). See docs/jit.md.
"""

__version__ = "0.1.0"

from kiln.jit import Dim, Tensor, jit, manual_seed  # noqa: E402  (after __version__: the JIT reads it)

__all__ = ["Dim", "Tensor", "jit", "manual_seed", "__version__"]
