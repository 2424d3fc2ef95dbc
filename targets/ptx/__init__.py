"""kiln.targets.ptx: PTX for NVIDIA GPUs (emitter, nvJitLink toolchain, target description)."""
