// RUN: kiln-opt %s -p kernel-dedupe --mlir-pass-statistics 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// kernel-dedupe: @twice_b is @twice_a with other value names: it is erased and its launch calls @twice_a.
// @thrice reads the same values but multiplies by 3, and @twice_f64 works on other buffer types: both stay.

// CHECK:       kernel.kernel @twice_a(
// CHECK-NOT:   kernel.kernel @twice_b
// CHECK:       kernel.kernel @thrice(
// CHECK:       kernel.kernel @twice_f64(
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %[[A:.*]] = kernel.alloc
// CHECK-NEXT:    %[[B:.*]] = kernel.alloc
// CHECK-NEXT:    %[[C:.*]] = kernel.alloc
// CHECK-NEXT:    kernel.alloc
// CHECK-NEXT:    kernel.launch @twice_a(%[[A]], %{{.*}})
// CHECK-NEXT:    kernel.launch @twice_a(%[[B]], %[[A]])
// CHECK-NEXT:    kernel.launch @thrice(%[[C]], %[[B]])
// CHECK-NEXT:    kernel.launch @twice_f64(

// STATS:      KernelDedupe
// STATS-NEXT:   (S) 1 kernels-deduped - Number of kernel.kernel ops replaced by an identical kernel

kernel.kernel @twice_a(%out: !kernel.buffer<16xf32>, %in: !kernel.buffer<16xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 16 : index
  %i = kernel.range %n global
  %x = kernel.load %in[%i] : f32
  %two = kernel.const 2.000000e+00 : f32
  %y = kernel.mul %x, %two : f32
  kernel.store %out[%i], %y
}
kernel.kernel @twice_b(%o: !kernel.buffer<16xf32>, %a: !kernel.buffer<16xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %size = kernel.const 16 : index
  %j = kernel.range %size global
  %v = kernel.load %a[%j] : f32
  %c = kernel.const 2.000000e+00 : f32
  %w = kernel.mul %v, %c : f32
  kernel.store %o[%j], %w
}
kernel.kernel @thrice(%out: !kernel.buffer<16xf32>, %in: !kernel.buffer<16xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 16 : index
  %i = kernel.range %n global
  %x = kernel.load %in[%i] : f32
  %three = kernel.const 3.000000e+00 : f32
  %y = kernel.mul %x, %three : f32
  kernel.store %out[%i], %y
}
kernel.kernel @twice_f64(%out: !kernel.buffer<16xf64>, %in: !kernel.buffer<16xf64>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 16 : index
  %i = kernel.range %n global
  %x = kernel.load %in[%i] : f64
  %two = kernel.const 2.000000e+00 : f64
  %y = kernel.mul %x, %two : f64
  kernel.store %out[%i], %y
}
func.func @f(%x: !kernel.buffer<16xf32>, %d: !kernel.buffer<16xf64>) -> (!kernel.buffer<16xf32>, !kernel.buffer<16xf64>) {
  %a = kernel.alloc {slot = 0 : i64} : !kernel.buffer<16xf32>
  %b = kernel.alloc {slot = 1 : i64} : !kernel.buffer<16xf32>
  %c = kernel.alloc {slot = 2 : i64} : !kernel.buffer<16xf32>
  %e = kernel.alloc {slot = 3 : i64} : !kernel.buffer<16xf64>
  kernel.launch @twice_a(%a, %x) : !kernel.buffer<16xf32>, !kernel.buffer<16xf32>
  kernel.launch @twice_b(%b, %a) : !kernel.buffer<16xf32>, !kernel.buffer<16xf32>
  kernel.launch @thrice(%c, %b) : !kernel.buffer<16xf32>, !kernel.buffer<16xf32>
  kernel.launch @twice_f64(%e, %d) : !kernel.buffer<16xf64>, !kernel.buffer<16xf64>
  func.return %c, %e : !kernel.buffer<16xf32>, !kernel.buffer<16xf64>
}
