// RUN: kiln-opt %s -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-mark-realize' | filecheck %s
// A value that computes a reduction, read through a reshape that merges its rows (a depthwise conv's 14x14
// points as 196, padded for the next grouped matmul's panels), is realized at its own shape with its epilogue:
// fused, the consumer's kernel divides each index into row and column and its vectors straddle rows (ShuffleNet's
// depthwise convs, 5x slower). The reshape and pad are then a copy.
// CHECK-LABEL: func.func @rows_merged
// CHECK:       %s = graph.reduce_sum %x {axes = array<i64: 3>}
// CHECK-NEXT:  %b = graph.add %s, %bias {graph.realize = "merged reduce"}
// CHECK:       graph.pad %r {graph.realize = "output"
func.func @rows_merged(%x: !graph.tensor<4x8x8x3xf32>, %bias: !graph.tensor<4x1x1xf32>) -> !graph.tensor<4x72xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 3>} : (!graph.tensor<4x8x8x3xf32>) -> !graph.tensor<4x8x8xf32>
  %b = graph.add %s, %bias : (!graph.tensor<4x8x8xf32>, !graph.tensor<4x1x1xf32>) -> !graph.tensor<4x8x8xf32>
  %r = graph.reshape %b : (!graph.tensor<4x8x8xf32>) -> !graph.tensor<4x64xf32>
  %p = graph.pad %r {low = array<i64: 0, 0>, high = array<i64: 0, 8>, value = 0.000000e+00 : f32} : (!graph.tensor<4x64xf32>) -> !graph.tensor<4x72xf32>
  func.return %p : !graph.tensor<4x72xf32>
}

// The reduction itself, read through the merge, is realized as it is.
// CHECK-LABEL: func.func @sum_merged
// CHECK:       %s = graph.reduce_sum %x {graph.realize = "merged reduce", axes = array<i64: 3>}
func.func @sum_merged(%x: !graph.tensor<4x8x8x3xf32>) -> !graph.tensor<4x64xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 3>} : (!graph.tensor<4x8x8x3xf32>) -> !graph.tensor<4x8x8xf32>
  %r = graph.reshape %s : (!graph.tensor<4x8x8xf32>) -> !graph.tensor<4x64xf32>
  func.return %r : !graph.tensor<4x64xf32>
}

// Splitting the points (196 as 14x14), merging outer dims (a grouped conv's groups and channels) or inserting
// unit dims keeps the innermost dim whole: the reduction stays fused.
// CHECK-LABEL: func.func @rows_kept
// CHECK-NOT:   merged reduce
func.func @rows_kept(%x: !graph.tensor<4x64x3xf32>, %y: !graph.tensor<4x8x8x3xf32>) -> (!graph.tensor<4x8x8xf32>, !graph.tensor<32x1x8xf32>) {
  %s = graph.reduce_sum %x {axes = array<i64: 2>} : (!graph.tensor<4x64x3xf32>) -> !graph.tensor<4x64xf32>
  %split = graph.reshape %s : (!graph.tensor<4x64xf32>) -> !graph.tensor<4x8x8xf32>
  %t = graph.reduce_sum %y {axes = array<i64: 3>} : (!graph.tensor<4x8x8x3xf32>) -> !graph.tensor<4x8x8xf32>
  %outer = graph.reshape %t : (!graph.tensor<4x8x8xf32>) -> !graph.tensor<32x1x8xf32>
  func.return %split, %outer : !graph.tensor<4x8x8xf32>, !graph.tensor<32x1x8xf32>
}

// A merge of a value without a reduction below stays fused: the division costs the copy the same either way.
// CHECK-LABEL: func.func @elementwise_merged
// CHECK-NOT:   merged reduce
func.func @elementwise_merged(%x: !graph.tensor<4x8x8xf32>) -> !graph.tensor<4x64xf32> {
  %e = graph.relu %x : !graph.tensor<4x8x8xf32>
  %r = graph.reshape %e : (!graph.tensor<4x8x8xf32>) -> !graph.tensor<4x64xf32>
  func.return %r : !graph.tensor<4x64xf32>
}
