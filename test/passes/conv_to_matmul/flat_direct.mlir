// RUN: kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=cpu-llvm},lower-to-kernel' | filecheck %s --check-prefix=KERNEL

// CPU targets: a stride-1 conv whose output rows are wide (62 columns, 2 wasted per row by a 3x3 filter) but not
// whole register tiles runs over its zero-padded input read as one flat axis: output point p = oh * 64 + ow
// takes tap (kh, kw) at p + kh * 64 + kw, so the 8 rows are one axis of 512 points (a multiple of two vectors
// with 8 or 16 f32 lanes), one further zero row keeps the last taps in the buffer, and the 2 points per row that
// run into the next row are sliced off after the realized result. The kernel divides no index.
// CHECK-LABEL: func.func @flat
// CHECK-NEXT:    %[[P:.*]] = graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 2, 1>, value = 0.000000e+00 : f32} : (!graph.tensor<1x4x8x62xf32>) -> !graph.tensor<1x4x11x64xf32>
// CHECK-NEXT:    %[[XP:.*]] = graph.contiguous %[[P]] : !graph.tensor<1x4x11x64xf32>
// CHECK-NEXT:    graph.reshape %[[XP]] : (!graph.tensor<1x4x11x64xf32>) -> !graph.tensor<1x4x704xf32>
// CHECK:         graph.reduce_sum %{{.*}} {axes = array<i64: 3, 4, 5>} : (!graph.tensor<1x8x512x4x3x3xf32>) -> !graph.tensor<1x8x512xf32>
// CHECK:         %[[B:.*]] = graph.add %{{.*}}, %{{.*}} : (!graph.tensor<1x8x512xf32>, !graph.tensor<8x1xf32>) -> !graph.tensor<1x8x512xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.contiguous %[[B]] : !graph.tensor<1x8x512xf32>
// CHECK:         graph.reshape %{{.*}} : (!graph.tensor<1x8x512xf32>) -> !graph.tensor<1x8x8x64xf32>
// CHECK-NEXT:    %y = graph.shrink %{{.*}} {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 8, 62>
// KERNEL-LABEL:  kernel.kernel @flat_r1
// KERNEL-NOT:    kernel.idiv
// KERNEL-NOT:    kernel.mod
// KERNEL:        kernel.store
func.func @flat(%x: !graph.tensor<1x4x8x62xf32>, %w: !graph.tensor<8x4x3x3xf32>, %b: !graph.tensor<8xf32>) -> !graph.tensor<1x8x8x62xf32> {
  %y = graph.conv2d %x, %w bias %b {padding = array<i64: 1, 1>} : (!graph.tensor<1x4x8x62xf32>, !graph.tensor<8x4x3x3xf32>, !graph.tensor<8xf32>) -> !graph.tensor<1x8x8x62xf32>
  %r = graph.relu %y : !graph.tensor<1x8x8x62xf32>
  func.return %r : !graph.tensor<1x8x8x62xf32>
}

// -----

// The next flat conv pads the previous one's sliced output and relu in one copy: they only read plain values.
// CHECK-LABEL: func.func @flat_chain
// CHECK:         %[[Y:.*]] = graph.contiguous %{{.*}} : !graph.tensor<1x8x512xf32>
// CHECK:         %[[H:.*]] = graph.relu %{{.*}} : !graph.tensor<1x8x8x62xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[H]] {{.*}} -> !graph.tensor<1x8x11x64xf32>
// CHECK-NEXT:    graph.contiguous %[[P]] : !graph.tensor<1x8x11x64xf32>
func.func @flat_chain(%x: !graph.tensor<1x4x8x62xf32>, %w: !graph.tensor<8x4x3x3xf32>, %w2: !graph.tensor<8x8x3x3xf32>) -> !graph.tensor<1x8x8x62xf32> {
  %y = graph.conv2d %x, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x4x8x62xf32>, !graph.tensor<8x4x3x3xf32>) -> !graph.tensor<1x8x8x62xf32>
  %h = graph.relu %y : !graph.tensor<1x8x8x62xf32>
  %r = graph.conv2d %h, %w2 {padding = array<i64: 1, 1>} : (!graph.tensor<1x8x8x62xf32>, !graph.tensor<8x8x3x3xf32>) -> !graph.tensor<1x8x8x62xf32>
  func.return %r : !graph.tensor<1x8x8x62xf32>
}

// -----

// Not flat: a concat's piece (stored in place by its own kernel), and rows where the filter's 2 extra columns
// waste more than 1/25 of the points (28 columns: the 2-D direct form).
// CHECK-LABEL: func.func @not_flat
// CHECK-NOT:     tensor<1x8x{{[0-9]+}}xf32>
// CHECK:         graph.concat
// CHECK-NOT:     tensor<1x8x{{[0-9]+}}xf32>
// CHECK:         func.return
func.func @not_flat(%x: !graph.tensor<1x4x8x62xf32>, %w: !graph.tensor<8x4x3x3xf32>, %x2: !graph.tensor<1x4x28x28xf32>) -> (!graph.tensor<1x12x8x62xf32>, !graph.tensor<1x8x28x28xf32>) {
  %y = graph.conv2d %x, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x4x8x62xf32>, !graph.tensor<8x4x3x3xf32>) -> !graph.tensor<1x8x8x62xf32>
  %h = graph.relu %y : !graph.tensor<1x8x8x62xf32>
  %c = graph.concat %h, %x {axis = 1 : i64} : (!graph.tensor<1x8x8x62xf32>, !graph.tensor<1x4x8x62xf32>) -> !graph.tensor<1x12x8x62xf32>
  %z = graph.conv2d %x2, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x4x28x28xf32>, !graph.tensor<8x4x3x3xf32>) -> !graph.tensor<1x8x28x28xf32>
  func.return %c, %z : !graph.tensor<1x12x8x62xf32>, !graph.tensor<1x8x28x28xf32>
}
