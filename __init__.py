"""kiln: an MLIR-style multi-dialect tensor compiler on xDSL (graph -> kernel -> uop -> targets)."""

__version__ = "0.1.0"
