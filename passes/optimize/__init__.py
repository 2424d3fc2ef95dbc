"""The kernel optimizer: optimization ops that rewrite a kernel's iteration space (``opts``, ``apply``), the
hand-written heuristic that picks them per target (``heuristic``), and a budgeted beam search that times
candidates on the device (``search``) with a persistent tuning database (``tuning_db``). The pass is
``kernel_optimize.KernelOptimize`` (``kernel-optimize``); docs/optimizer.md describes all of it."""
