// RUN: kiln-opt %s -p 'kernel-optimize{opts="thread:1:2"}' | filecheck %s
// RUN: kiln-opt %s -p 'kernel-optimize{opts="thread:1:2"},convert-kernel-to-uop' | filecheck %s --check-prefix=UOP
// thread:<axis>:<n> is a *top* split of a global range: a thread range of n chunks goes before it, and each chunk
// is a contiguous block of %j (index = chunk * 32 + j). The linearizer makes the thread range the core range the
// runtime splits across CPU cores (core_extent = n) instead of the first global range (%i, only 8 long here).

// CHECK:      opts = ["thread:1:2"]
// CHECK-DAG:  %[[C2:.*]] = kernel.const 2 : index
// CHECK:      %i = kernel.range %c8 global
// CHECK-NEXT: %j_thread = kernel.range %[[C2]] thread
// CHECK-NEXT: %j = kernel.range %c32 global
// CHECK-NEXT: %k = kernel.range %c32 reduce
// CHECK-NEXT: %[[T:.*]] = kernel.mul %j_thread, %c32 : index
// CHECK-NEXT: %[[J:.*]] = kernel.add %[[T]], %j : index
// CHECK:      %ib = kernel.add %k64, %[[J]] : index
// CHECK:      %io = kernel.add %i64, %[[J]] : index

// UOP:        uop.kernel @mm attributes {symbols = [], opts = ["thread:1:2"], core_extent = "2"
// UOP:        %[[LO:.*]] = uop.special core_start : index
// UOP-NEXT:   %[[HI:.*]] = uop.special core_end : index
// UOP:        %j_thread = uop.range %[[LO]], %[[HI]] : index

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
