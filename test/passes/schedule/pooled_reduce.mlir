// RUN: kiln-opt %s --split-input-file -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s

// A max pool built from strided slices reads its padded input at three windows: the sum under the pad (a
// convolution as a matmul, 32 products per element) would be computed three times in the pool's kernel. Each
// window reaches the pad at an index the walk does not follow, so the sum below it counts as computed three
// times and is realized once (`multi-use reduce`, strided_slices_of_reduce.mlir); were it not, the pad would be,
// as `shared expensive`: its recompute cost counts the sum's 32 products, not one op.
// CHECK-LABEL: func.func @pooled
// CHECK:       graph.reduce_sum %{{.*}} {graph.realize = "multi-use reduce"
// CHECK-NOT:   graph.realize = "shared expensive"
func.func @pooled(%w: !graph.tensor<8x1x32xf32>, %x: !graph.tensor<1x12x32xf32>) -> !graph.tensor<8x6xf32> {
  %p = graph.mul %w, %x : (!graph.tensor<8x1x32xf32>, !graph.tensor<1x12x32xf32>) -> !graph.tensor<8x12x32xf32>
  %s = graph.reduce_sum %p {axes = array<i64: 2>} : (!graph.tensor<8x12x32xf32>) -> !graph.tensor<8x12xf32>
  %r = graph.relu %s : !graph.tensor<8x12xf32>
  %q = graph.pad %r {low = array<i64: 0, 0>, high = array<i64: 0, 1>, value = 0xff800000 : f32} : (!graph.tensor<8x12xf32>) -> !graph.tensor<8x13xf32>
  %a = graph.shrink %q {start = array<i64: 0, 0>, limit = array<i64: 8, 11>, step = array<i64: 1, 2>} : (!graph.tensor<8x13xf32>) -> !graph.tensor<8x6xf32>
  %b = graph.shrink %q {start = array<i64: 0, 1>, limit = array<i64: 8, 12>, step = array<i64: 1, 2>} : (!graph.tensor<8x13xf32>) -> !graph.tensor<8x6xf32>
  %c = graph.shrink %q {start = array<i64: 0, 2>, limit = array<i64: 8, 13>, step = array<i64: 1, 2>} : (!graph.tensor<8x13xf32>) -> !graph.tensor<8x6xf32>
  %m0 = graph.max %a, %b : (!graph.tensor<8x6xf32>, !graph.tensor<8x6xf32>) -> !graph.tensor<8x6xf32>
  %m1 = graph.max %m0, %c : (!graph.tensor<8x6xf32>, !graph.tensor<8x6xf32>) -> !graph.tensor<8x6xf32>
  func.return %m1 : !graph.tensor<8x6xf32>
}

// -----

// A reduction behind a broadcast is computed once per row (the CPU kernel hoists it): a softmax's exponentials,
// used by the row sum and the division, stay in one kernel; only their own ops count.
// CHECK-LABEL: func.func @softmax
// CHECK-NOT:   shared expensive
func.func @softmax(%x: !graph.tensor<4x1000xf32>) -> !graph.tensor<4x1000xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<4x1000xf32>) -> !graph.tensor<4x1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<4x1000xf32>, !graph.tensor<4x1xf32>) -> !graph.tensor<4x1000xf32>
  %e = graph.exp %d : !graph.tensor<4x1000xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<4x1000xf32>) -> !graph.tensor<4x1xf32>
  %y = graph.div %e, %s : (!graph.tensor<4x1000xf32>, !graph.tensor<4x1xf32>) -> !graph.tensor<4x1000xf32>
  func.return %y : !graph.tensor<4x1000xf32>
}
