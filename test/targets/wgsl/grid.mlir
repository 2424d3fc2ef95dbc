// RUN: kiln-opt %s -p 'lower-to-kernel,kernel-optimize{target=webgpu search=none},convert-kernel-to-uop{target=webgpu},uop-simplify,uop-decompose{target=webgpu},convert-uop-to-wgsl' -t wgsl | filecheck %s
// From the graph to WGSL: a 1-D kernel over 2^24 elements needs 2^24 / 64 = 262144 workgroups, more than the
// 65535 WebGPU allows per grid dimension, so the launch is a 2-D grid of 52429 x 5 workgroups (each within the
// limit) and the shader rebuilds the flat index from workgroup_id.y and .x and guards the overshoot.
// (kernel-optimize is told to change nothing, so the launch is the linearizer's own mapping: 64 threads per workgroup.)

// CHECK:       // @scale_e0: dispatch_workgroups(52429, 5, 1)
// CHECK:       @compute @workgroup_size(64, 1, 1)
// CHECK-NEXT:  fn scale_e0(@builtin(local_invocation_id) local_invocation_id: vec3<u32>, @builtin(workgroup_id) workgroup_id: vec3<u32>) {
// CHECK-NEXT:    let [[Y:.*]] = i32(workgroup_id.y);
// CHECK-NEXT:    let [[X:.*]] = i32(workgroup_id.x);
// CHECK-NEXT:    let [[L:.*]] = i32(local_invocation_id.x);
// CHECK-NEXT:    let [[ROW:.*]] = [[Y]] * 3355456i;
// CHECK-NEXT:    let [[COL:.*]] = [[X]] * 64i;
// CHECK-NEXT:    let [[BASE:.*]] = [[ROW]] + [[COL]];
// CHECK-NEXT:    let [[I:.*]] = [[BASE]] + [[L]];
// CHECK-NEXT:    let [[IN:.*]] = [[I]] < 16777216i;
// CHECK-NEXT:    if ([[IN]]) {
// CHECK-NEXT:      let [[V:.*]] = scale_e0_{{.*}}[[[I]]];
// CHECK-NEXT:      let [[R:.*]] = [[V]] * 2.0f;
// CHECK-NEXT:      scale_e0_{{.*}}[[[I]]] = [[R]];
// CHECK-NEXT:    }
// CHECK-NEXT:  }

func.func @scale(%x: !graph.tensor<16777216xf32>) -> !graph.tensor<16777216xf32> {
  %c = graph.constant 2.0 : f32 : !graph.tensor<16777216xf32>
  %y = graph.mul %x, %c : (!graph.tensor<16777216xf32>, !graph.tensor<16777216xf32>) -> !graph.tensor<16777216xf32>
  func.return %y : !graph.tensor<16777216xf32>
}
