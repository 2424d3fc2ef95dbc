// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// A pad of the pool's fill in front of a pool (how the ONNX importer writes ceil mode and uneven pads) joins
// the pool's own padding: the value under it is realized plain, not a padded copy of it (the pad itself is
// left unused, for dce).
// CHECK-LABEL: func.func @ceil_mode_max_pool
// CHECK-NEXT:    %[[R:.*]] = graph.relu %x
// CHECK-NEXT:    graph.pad %[[R]]
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[R]] : !graph.tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[C]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 2, 2>, value = 0xff800000 : f32} : (!graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x7x7xf32>
// CHECK-NEXT:    graph.reshape %[[P]]
// CHECK:         %m = graph.reduce_max %{{.*}} {axes = array<i64: 2, 4>} : (!graph.tensor<1x2x3x3x3x3xf32>) -> !graph.tensor<1x2x3x3xf32>
func.func @ceil_mode_max_pool(%x: !graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x3x3xf32> {
  %r = graph.relu %x : !graph.tensor<1x2x4x4xf32>
  %p = graph.pad %r {low = array<i64: 0, 0, 0, 0>, high = array<i64: 0, 0, 1, 1>, value = 0xFF800000 : f32} : (!graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x5x5xf32>
  %m = graph.max_pool2d %p {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x2x5x5xf32>) -> !graph.tensor<1x2x3x3xf32>
  func.return %m : !graph.tensor<1x2x3x3xf32>
}

// -----

// An average pool's zero pad joins its padding too (the input is widened after it is realized).
// CHECK-LABEL: func.func @uneven_avg_pool
// CHECK-NEXT:    graph.pad %x
// CHECK-NEXT:    %[[C:.*]] = graph.cast %x : (!graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x4x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[C]] {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, value = 0.000000e+00 : f32}
// CHECK:         graph.reduce_sum
func.func @uneven_avg_pool(%x: !graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x2x2xf16> {
  %p = graph.pad %x {low = array<i64: 0, 0, 1, 0>, high = array<i64: 0, 0, 0, 1>, value = 0.000000e+00 : f16} : (!graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x5x5xf16>
  %a = graph.avg_pool2d %p {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (!graph.tensor<1x1x5x5xf16>) -> !graph.tensor<1x1x2x2xf16>
  func.return %a : !graph.tensor<1x1x2x2xf16>
}

// -----

// A pad of another value is data, not pool padding: it stays, realized plain with what it pads.
// CHECK-LABEL: func.func @zero_pad_max_pool
// CHECK-NEXT:    %[[P:.*]] = graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[P]] : !graph.tensor<1x1x6x6xf32>
// CHECK:         graph.reduce_max
func.func @zero_pad_max_pool(%x: !graph.tensor<1x1x4x4xf32>) -> !graph.tensor<1x1x3x3xf32> {
  %p = graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32} : (!graph.tensor<1x1x4x4xf32>) -> !graph.tensor<1x1x6x6xf32>
  %m = graph.max_pool2d %p {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (!graph.tensor<1x1x6x6xf32>) -> !graph.tensor<1x1x3x3xf32>
  func.return %m : !graph.tensor<1x1x3x3xf32>
}
