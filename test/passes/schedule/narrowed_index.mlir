// RUN: kiln-opt %s --split-input-file -p lower-to-kernel | filecheck %s

// A pad's valid region bounds the index read below it. A [2, 16] buffer (a convolution's output, its 9 points
// padded to 16) read back as [2, 3, 3], and padded again for the next convolution: element (c, x) is
// buffer[c * 16 + x] where x < 9. Over the whole padded range of x, (c * 9 + x) // 9 and % 9 would not fold.
// CHECK-LABEL: kernel.kernel @padded_e0
// CHECK:         kernel.range %{{.*}} global
// CHECK:         %[[X:.*]] = kernel.range %{{.*}} global
// CHECK-NEXT:    %[[C9:.*]] = kernel.const 9 : index
// CHECK-NEXT:    %[[VALID:.*]] = kernel.cmplt %[[X]], %[[C9]] : index
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.load %{{.*}}[%{{.*}}], %[[VALID]] : f32
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @padded(%x: !graph.tensor<2x16xf32>) -> !graph.tensor<2x16xf32> {
  %s = graph.shrink %x {start = array<i64: 0, 0>, limit = array<i64: 2, 9>, step = array<i64: 1, 1>} : (!graph.tensor<2x16xf32>) -> !graph.tensor<2x9xf32>
  %r = graph.reshape %s : (!graph.tensor<2x9xf32>) -> !graph.tensor<2x3x3xf32>
  %e = graph.exp %r : !graph.tensor<2x3x3xf32>
  %f = graph.reshape %e : (!graph.tensor<2x3x3xf32>) -> !graph.tensor<2x9xf32>
  %p = graph.pad %f {low = array<i64: 0, 0>, high = array<i64: 0, 7>, value = 0.000000e+00 : f32} : (!graph.tensor<2x9xf32>) -> !graph.tensor<2x16xf32>
  func.return %p : !graph.tensor<2x16xf32>
}

// -----

// A low pad shifts the bounds: x - 1 is read where 1 <= x < 10.
// CHECK-LABEL: kernel.kernel @shifted_e0
// CHECK:         kernel.range
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @shifted(%x: !graph.tensor<2x16xf32>) -> !graph.tensor<2x11xf32> {
  %s = graph.shrink %x {start = array<i64: 0, 0>, limit = array<i64: 2, 9>, step = array<i64: 1, 1>} : (!graph.tensor<2x16xf32>) -> !graph.tensor<2x9xf32>
  %r = graph.reshape %s : (!graph.tensor<2x9xf32>) -> !graph.tensor<2x3x3xf32>
  %e = graph.exp %r : !graph.tensor<2x3x3xf32>
  %f = graph.reshape %e : (!graph.tensor<2x3x3xf32>) -> !graph.tensor<2x9xf32>
  %p = graph.pad %f {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = 0.000000e+00 : f32} : (!graph.tensor<2x9xf32>) -> !graph.tensor<2x11xf32>
  func.return %p : !graph.tensor<2x11xf32>
}
