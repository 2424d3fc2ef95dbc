// RUN: kiln-opt %s -p 'uop-decompose{target=webgpu}' | filecheck %s
// RUN: kiln-opt %s -p 'uop-decompose{target=cpu-llvm}' | filecheck %s --check-prefix=CPU
// A target that does not take uop.reduce_lanes whole (the GPUs) gets its lanes written out in the op's order:
// lane k combined with lane k + N/2, then again on the halves. The CPU targets keep the op.

// CHECK-LABEL: uop.kernel @sum
// CHECK:         %[[E0:.*]] = uop.extract %v[0] : vector<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = uop.extract %v[1] : vector<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = uop.extract %v[2] : vector<4xf32>
// CHECK-NEXT:    %[[E3:.*]] = uop.extract %v[3] : vector<4xf32>
// CHECK-NEXT:    %[[S02:.*]] = uop.add %[[E0]], %[[E2]] : f32
// CHECK-NEXT:    %[[S13:.*]] = uop.add %[[E1]], %[[E3]] : f32
// CHECK-NEXT:    %s = uop.add %[[S02]], %[[S13]] : f32
// CHECK-NEXT:    uop.store %out[%c0], %s
// CPU-LABEL: uop.kernel @sum
// CPU:         %s = uop.reduce_lanes add %v : vector<4xf32>
// CPU-NEXT:    uop.store %out[%c0], %s
uop.kernel @sum {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %v = uop.load %x[%c0] : vector<4xf32>
  %s = uop.reduce_lanes add %v : vector<4xf32>
  uop.store %out[%c0], %s
}
