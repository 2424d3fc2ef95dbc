// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<2x8xf32>) -> !graph.tensor<2x1xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.sub %x, %[[M]] : (!graph.tensor<2x8xf32>, !graph.tensor<2x1xf32>) -> !graph.tensor<2x8xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.exp_nonpositive %[[D]] : !graph.tensor<2x8xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<2x8xf32>) -> !graph.tensor<2x1xf32>
// CHECK-NEXT:    %r = graph.div %[[E]], %[[S]] : (!graph.tensor<2x8xf32>, !graph.tensor<2x1xf32>) -> !graph.tensor<2x8xf32>
// CHECK-NEXT:    func.return %r
func.func @softmax(%x: !graph.tensor<2x8xf32>) -> !graph.tensor<2x8xf32> {
  %r = graph.softmax %x {axis = -1 : i64} : (!graph.tensor<2x8xf32>) -> !graph.tensor<2x8xf32>
  func.return %r : !graph.tensor<2x8xf32>
}

// -----

// bf16 is computed in f32 and rounded once at the end.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NEXT:    %[[X:.*]] = graph.cast %x : (!graph.tensor<3x2xbf16>) -> !graph.tensor<3x2xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_max %[[X]] {axes = array<i64: 0>, keepdims = true}
// CHECK-NEXT:    %[[D:.*]] = graph.sub %[[X]], %[[M]]
// CHECK-NEXT:    %[[E:.*]] = graph.exp_nonpositive %[[D]]
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[E]] {axes = array<i64: 0>, keepdims = true}
// CHECK-NEXT:    %[[L:.*]] = graph.log %[[S]] : !graph.tensor<1x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.sub %[[D]], %[[L]]
// CHECK-NEXT:    %r = graph.cast %[[Y]] : (!graph.tensor<3x2xf32>) -> !graph.tensor<3x2xbf16>
func.func @log_softmax(%x: !graph.tensor<3x2xbf16>) -> !graph.tensor<3x2xbf16> {
  %r = graph.log_softmax %x {axis = 0 : i64} : (!graph.tensor<3x2xbf16>) -> !graph.tensor<3x2xbf16>
  func.return %r : !graph.tensor<3x2xbf16>
}
