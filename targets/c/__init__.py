"""kiln.targets.c: C for the host CPU (emitter, C compiler toolchain, target description)."""
