// RUN: kiln-opt %s -p 'kernel-optimize{opts="unroll:0:4"}' | filecheck %s
// RUN: kiln-opt %s -p 'kernel-optimize{opts="unroll:0:0"}' | filecheck %s --check-prefix=WHOLE
// unroll:<n>:<amount> counts reduce ranges only (unroll:0 is %k, although %k is axis 2 of the kernel): %k keeps
// 8 points, an unroll range of 4 joins it, and the one kernel.reduce combines over both (one accumulator).
// unroll:0:0 unrolls the whole range.

// CHECK:      opts = ["unroll:0:4"]
// CHECK-DAG:  %[[C4:.*]] = kernel.const 4 : index
// CHECK-DAG:  %c8 = kernel.const 8 : index
// CHECK:      %k = kernel.range %c8 reduce
// CHECK-NEXT: %k_unroll = kernel.range %[[C4]] unroll
// CHECK-NEXT: %[[K4:.*]] = kernel.mul %k, %[[C4]] : index
// CHECK-NEXT: %[[K:.*]] = kernel.add %[[K4]], %k_unroll : index
// CHECK:      %ia = kernel.add %i32, %[[K]] : index
// CHECK:      %k64 = kernel.mul %[[K]], %c64 : index
// CHECK:      %s = kernel.reduce add %p over %k, %k_unroll : f32

// WHOLE:      opts = ["unroll:0:0"]
// WHOLE:      %k = kernel.range %c32 unroll
// WHOLE:      %s = kernel.reduce add %p over %k : f32

kernel.kernel @mm(%a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<8x64xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c8 global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %ib = kernel.add %k64, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}
