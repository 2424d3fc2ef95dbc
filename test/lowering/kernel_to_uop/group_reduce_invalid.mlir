// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=webgpu}" --split-input-file --verify-diagnostics
// Grouped reductions that a GPU target cannot run are reported, never lowered wrongly.

// 32 upcast lanes x 256 threads of f32 partials: 32 KiB, webgpu guarantees 16 KiB of workgroup memory.
// expected-error@+1 {{the grouped reduces need 32768 bytes of workgroup-local memory for their partial results; target webgpu has 16384}}
kernel.kernel @too_wide(%x: !kernel.buffer<32x256xf32>, %out: !kernel.buffer<32xf32>) attributes {symbols = []} {
  %c32 = kernel.const 32 : index
  %c256 = kernel.const 256 : index
  %u = kernel.range %c32 upcast
  %g = kernel.range %c256 group_reduce
  %u256 = kernel.mul %u, %c256 : index
  %idx = kernel.add %u256, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %g : f32
  kernel.store %out[%u], %s
}

// -----

kernel.kernel @symbolic_group(%x: !kernel.buffer<Nxf32>, %out: !kernel.buffer<1xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 256]>, symbols = ["N"]} {
  %c0 = kernel.const 0 : index
  // expected-error@+1 {{group_reduce range %g must have a constant size}}
  %g = kernel.range %N group_reduce
  %v = kernel.load %x[%g] : f32
  %s = kernel.reduce add %v over %g : f32
  kernel.store %out[%c0], %s
}

// -----

// expected-error@+1 {{workgroup of 32x16x1 threads exceeds the limits of target webgpu (256 threads, 256x256x64)}}
kernel.kernel @too_many_threads(%x: !kernel.buffer<16x32xf32>, %out: !kernel.buffer<16xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c32 = kernel.const 32 : index
  %l = kernel.range %c16 local
  %g = kernel.range %c32 group_reduce
  %l32 = kernel.mul %l, %c32 : index
  %idx = kernel.add %l32, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %g : f32
  kernel.store %out[%l], %s
}
