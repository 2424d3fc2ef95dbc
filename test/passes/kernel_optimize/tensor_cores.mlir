// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"}' | filecheck %s
// tc:<choice>:<shape> (cuda: mma.sync m16n8k16, f16/bf16 inputs, f32 accumulator) matches an f32 sum over one
// reduce range of cast(load f16) * cast(load f16) where each load moves along an output axis the other does not
// (M = %i, N = %j here, K = %k). It splits M by 16 and N by 8 (upcast) and K by 16 (unroll) and marks the reduce:
// the kernel still means the same; the mark asks the linearizer for one warp-wide uop.wmma per 16x8x16 tile.

// CHECK:      opts = ["tc:0:0"]
// CHECK:      %i = kernel.range %{{.*}} global
// CHECK-NEXT: %i_upcast = kernel.range %c16 upcast
// CHECK-NEXT: %j = kernel.range %{{.*}} global
// CHECK-NEXT: %j_upcast = kernel.range %[[C8:.*]] upcast
// CHECK-NEXT: %k = kernel.range %{{.*}} reduce
// CHECK-NEXT: %k_unroll = kernel.range %c16 unroll
// CHECK:      %s = kernel.reduce add %p over %k, %k_unroll {tensor_core = "m16n8k16"} : f32

kernel.kernel @hmm(%a: !kernel.buffer<32x64xf16>, %b: !kernel.buffer<64x16xf16>, %out: !kernel.buffer<32x16xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c32 global
  %j = kernel.range %c16 global
  %k = kernel.range %c64 reduce
  %i64 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i64, %k : index
  %k16 = kernel.mul %k, %c16 : index
  %ib = kernel.add %k16, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  %s = kernel.reduce add %p over %k : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %j : index
  kernel.store %out[%io], %s
}
