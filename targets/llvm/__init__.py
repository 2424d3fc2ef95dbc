"""kiln.targets.llvm: LLVM IR for the host CPU (emitter, llvmlite toolchain, target description)."""
