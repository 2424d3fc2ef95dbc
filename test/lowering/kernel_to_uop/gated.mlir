// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// A padded load: the gate (1 <= i < 11) is computed like any i1 value and stays on the uop.load, which reads
// nothing and gives 0 where it is false; a gated store keeps its gate too.

// CHECK-LABEL: uop.kernel @pad
// CHECK:         %i = uop.range
// CHECK-DAG:     %lo = uop.cmple %{{.*}}, %i : index
// CHECK-DAG:     %hi = uop.cmplt %i, %{{.*}} : index
// CHECK-DAG:     %src = uop.sub %i, %{{.*}} : index
// CHECK:         %valid = uop.and %lo, %hi : i1
// CHECK-NEXT:    %v = uop.load %x[%src], %valid : f32
// CHECK-NEXT:    uop.store %out[%i], %v, %valid
// CHECK-NEXT:    uop.end %i

kernel.kernel @pad(%x: !kernel.buffer<10xf32>, %out: !kernel.buffer<12xf32>) attributes {symbols = []} {
  %c12 = kernel.const 12 : index
  %c1 = kernel.const 1 : index
  %c11 = kernel.const 11 : index
  %i = kernel.range %c12 global
  %lo = kernel.cmple %c1, %i : index
  %hi = kernel.cmplt %i, %c11 : index
  %valid = kernel.and %lo, %hi : i1
  %src = kernel.sub %i, %c1 : index
  %v = kernel.load %x[%src], %valid : f32
  kernel.store %out[%i], %v, %valid
}
