// RUN: kiln-opt %s -p convert-kernel-to-uop --split-input-file --verify-diagnostics
// Range kinds a target cannot run are reported at the range, never lowered wrongly.

kernel.kernel @local_on_cpu(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<8xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  // expected-error@+1 {{range kind local not supported on target cpu-llvm}}
  %i = kernel.range %c8 local
  %v = kernel.load %x[%i] : f32
  kernel.store %out[%i], %v
}

// -----

kernel.kernel @group_reduce_on_cpu(%x: !kernel.buffer<8xf32>, %out: !kernel.buffer<1xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c0 = kernel.const 0 : index
  // expected-error@+1 {{range kind group_reduce not supported on target cpu-llvm: it needs workgroup-local memory and barriers (a GPU target)}}
  %k = kernel.range %c8 group_reduce
  %v = kernel.load %x[%k] : f32
  %s = kernel.reduce add %v over %k : f32
  kernel.store %out[%c0], %s
}

// -----

kernel.kernel @symbolic_upcast(%x: !kernel.buffer<Nxf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 8]>, symbols = ["N"]} {
  // expected-error@+1 {{upcast range %u must have a constant size}}
  %u = kernel.range %N upcast
  %v = kernel.load %x[%u] : f32
  kernel.store %out[%u], %v
}
