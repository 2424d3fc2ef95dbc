// RUN: kiln-opt %s -p 'kernel-optimize{opts="swap:0:1"}' | filecheck %s
// swap:<a>:<b> exchanges two global ranges in the nesting order (here %j becomes the outer loop, the CPU core
// range, and on GPUs %i the x grid dimension); nothing else changes.

// CHECK:      opts = ["swap:0:1"]
// CHECK:      %j = kernel.range %c64 global
// CHECK-NEXT: %i = kernel.range %c8 global
// CHECK-NEXT: %i64 = kernel.mul %i, %c64 : index
// CHECK-NEXT: %io = kernel.add %i64, %j : index
// CHECK-NEXT: %v = kernel.load %x[%io] : f32

kernel.kernel @copy(%x: !kernel.buffer<8x64xf32>, %out: !kernel.buffer<8x64xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c8 global
  %j = kernel.range %c64 global
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  %v = kernel.load %x[%io] : f32
  kernel.store %out[%io], %v
}
