"""kiln.targets.wgsl: WGSL for WebGPU (emitter, naga validation through wgpu, target description)."""
