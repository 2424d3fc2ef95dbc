// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// RUN: kiln-opt %s -p convert-kernel-to-uop | kiln-opt | filecheck %s
// An elementwise kernel with a broadcast operand: one param per argument in order, the first global range
// split across CPU threads (core_start..core_end, core_extent = its size), the second a plain loop; the
// broadcast load b[j] and the row offset i*8 sit in the loop they need, constants at the top. The schedule
// func.func and its kernel.launch are left as they are.

// CHECK-LABEL: uop.kernel @add_bias attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"], core_extent = "N", core_work = 49 : i64} {
// CHECK-NEXT:    %x = uop.param 0 : !uop.ptr<f32>
// CHECK-NEXT:    %b = uop.param 1 : !uop.ptr<f32>
// CHECK-NEXT:    %out = uop.param 2 : !uop.ptr<f32>
// CHECK-NEXT:    %N = uop.param 3 : index
// CHECK-NEXT:    %[[LO:.*]] = uop.special core_start : index
// CHECK-NEXT:    %[[HI:.*]] = uop.special core_end : index
// CHECK-NEXT:    %[[C8:.*]] = uop.const 8 : index
// CHECK-NEXT:    %[[C0:.*]] = uop.const 0 : index
// CHECK-NEXT:    %i = uop.range %[[LO]], %[[HI]] : index
// CHECK-NEXT:    %i8 = uop.mul %i, %[[C8]] : index
// CHECK-NEXT:    %j = uop.range %[[C0]], %[[C8]] : index
// CHECK-NEXT:    %idx = uop.add %i8, %j : index
// CHECK-NEXT:    %xi = uop.load %x[%idx] : f32
// CHECK-NEXT:    %bj = uop.load %b[%j] : f32
// CHECK-NEXT:    %s = uop.add %xi, %bj : f32
// CHECK-NEXT:    %e = uop.exp %s : f32
// CHECK-NEXT:    uop.store %out[%idx], %e
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    uop.end %i
// CHECK-NEXT:  }
// CHECK:       func.func @f
// CHECK:       kernel.launch @add_bias

kernel.kernel @add_bias(%x: !kernel.buffer<Nx8xf32>, %b: !kernel.buffer<8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %i8 = kernel.mul %i, %c8 : index
  %idx = kernel.add %i8, %j : index
  %xi = kernel.load %x[%idx] : f32
  %bj = kernel.load %b[%j] : f32
  %s = kernel.add %xi, %bj : f32
  %e = kernel.exp %s : f32
  kernel.store %out[%idx], %e
}
func.func @f(%x: !kernel.buffer<Nx8xf32>, %b: !kernel.buffer<8xf32>) -> !kernel.buffer<Nx8xf32>
    attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %N = kernel.symbol "N" : index
  %t = kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx8xf32>
  kernel.launch @add_bias(%x, %b, %t, %N) : !kernel.buffer<Nx8xf32>, !kernel.buffer<8xf32>, !kernel.buffer<Nx8xf32>, index
  func.return %t : !kernel.buffer<Nx8xf32>
}
