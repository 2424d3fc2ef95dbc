// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{opts="upcast:1:16"}' | filecheck %s --check-prefix=VEC
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{opts="upcast:0:0"}' | filecheck %s --check-prefix=WHOLE
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{opts="upcast:2:8"}' | filecheck %s --check-prefix=PARTIAL
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{opts="upcast:1:16"}' | kiln-opt --split-input-file | filecheck %s --check-prefix=VEC
// upcast:<axis>:<n> splits a range (axes numbered: global 0 = %i, global 1 = %j, reduce 2 = %k): the range keeps
// size/n points and a new upcast range of n joins it right after; every use becomes range*n + upcast. The opt is
// recorded in the kernel's opts attribute. On a reduce axis the n lanes become an unroll range that a second
// kernel.reduce combines after the loop: n partial accumulators.

// VEC:        kernel.kernel @mm(%a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<8x64xf32>) attributes {symbols = [], opts = ["upcast:1:16"]} {
// VEC-DAG:      %[[C4:.*]] = kernel.const 4 : index
// VEC-DAG:      %[[C16:.*]] = kernel.const 16 : index
// VEC:          %i = kernel.range %c8 global
// VEC-NEXT:     %j = kernel.range %[[C4]] global
// VEC-NEXT:     %j_upcast = kernel.range %[[C16]] upcast
// VEC-NEXT:     %k = kernel.range %c32 reduce
// VEC-NEXT:     %[[J16:.*]] = kernel.mul %j, %[[C16]] : index
// VEC-NEXT:     %[[J:.*]] = kernel.add %[[J16]], %j_upcast : index
// VEC:          %ib = kernel.add %k64, %[[J]] : index
// VEC:          %s = kernel.reduce add %p over %k : f32
// VEC:          %io = kernel.add %i64, %[[J]] : index
// VEC-NEXT:     kernel.store %out[%io], %s

// WHOLE:      opts = ["upcast:0:0"]
// WHOLE:        %i = kernel.range %c8 upcast
// WHOLE-NEXT:   %j = kernel.range %c64 global
// WHOLE-NEXT:   %k = kernel.range %c32 reduce

// PARTIAL:    opts = ["upcast:2:8"]
// PARTIAL-DAG:  %[[C4:.*]] = kernel.const 4 : index
// PARTIAL:      %k = kernel.range %[[C4]] reduce
// PARTIAL-NEXT: %k_unroll = kernel.range %c8 unroll
// PARTIAL:      %[[LANE:.*]] = kernel.reduce add %p over %k : f32
// PARTIAL-NEXT: %s = kernel.reduce add %[[LANE]] over %k_unroll : f32

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
