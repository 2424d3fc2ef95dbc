"""The linearizer's parts: a kernel's values become nodes placed in a tree of scopes (loops and guards), which
are then ordered and written out as ``uop`` ops. ``kiln.lowering.kernel_to_uop`` is the pass that uses them."""
