// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// A reduce over an unrolled range only, outside any row (attention's q @ k^T: 4 lanes of k unrolled, summed
// after the k loop): the inner reduce is one vector accumulator along the unrolled range, and the outer one
// combines its lanes with one uop.reduce_lanes, not an extract and an add per lane.

// CHECK-LABEL: uop.kernel @dots
// CHECK:         %[[ACC:.*]] = uop.define_acc %{{.*}} : vector<4xf32>
// CHECK:         uop.range
// CHECK:         uop.acc_set %[[ACC]], %{{.*}}
// CHECK-NEXT:    uop.end
// CHECK-NEXT:    %[[V:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// CHECK-NEXT:    %[[S:.*]] = uop.reduce_lanes add %[[V]] : vector<4xf32>
// CHECK-NOT:     uop.extract
// CHECK:         uop.store %out[%{{.*}}], %[[S]]
kernel.kernel @dots(%out: !kernel.buffer<8xf32>, %a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<32xf32>) attributes {inputs = ["output", "arg", "arg"], symbols = []} {
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %i = kernel.range %c8 global
  %k = kernel.range %c8 reduce
  %u = kernel.range %c4 unroll
  %k4 = kernel.mul %k, %c4 : index
  %kk = kernel.add %k4, %u : index
  %row = kernel.mul %i, %c32 : index
  %at = kernel.add %row, %kk : index
  %x = kernel.load %a[%at] : f32
  %y = kernel.load %b[%kk] : f32
  %p = kernel.mul %x, %y : f32
  %partial = kernel.reduce add %p over %k : f32
  %s = kernel.reduce add %partial over %u : f32
  kernel.store %out[%i], %s
}
