// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// Batched matmul with broadcast batch dims: [..., M, 1, K] * [..., 1, N, K] summed over K, computed in f32.
// CHECK-LABEL: func.func @batched
// CHECK-NEXT:    %[[A:.*]] = graph.cast %a : (!graph.tensor<2x1x3x4xf16>) -> !graph.tensor<2x1x3x4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.cast %b : (!graph.tensor<5x4x2xf16>) -> !graph.tensor<5x4x2xf32>
// CHECK-NEXT:    %[[AR:.*]] = graph.reshape %[[A]] : (!graph.tensor<2x1x3x4xf32>) -> !graph.tensor<2x1x3x1x4xf32>
// CHECK-NEXT:    %[[BT:.*]] = graph.permute %[[B]] {perm = array<i64: 0, 2, 1>} : (!graph.tensor<5x4x2xf32>) -> !graph.tensor<5x2x4xf32>
// CHECK-NEXT:    %[[BR:.*]] = graph.reshape %[[BT]] : (!graph.tensor<5x2x4xf32>) -> !graph.tensor<5x1x2x4xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.mul %[[AR]], %[[BR]] : (!graph.tensor<2x1x3x1x4xf32>, !graph.tensor<5x1x2x4xf32>) -> !graph.tensor<2x5x3x2x4xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[P]] {axes = array<i64: 4>} : (!graph.tensor<2x5x3x2x4xf32>) -> !graph.tensor<2x5x3x2xf32>
// CHECK-NEXT:    %r = graph.cast %[[S]] : (!graph.tensor<2x5x3x2xf32>) -> !graph.tensor<2x5x3x2xf16>
// CHECK-NEXT:    func.return %r
// CHECK-NOT:   graph.matmul
func.func @batched(%a: !graph.tensor<2x1x3x4xf16>, %b: !graph.tensor<5x4x2xf16>) -> !graph.tensor<2x5x3x2xf16> {
  %r = graph.matmul %a, %b : (!graph.tensor<2x1x3x4xf16>, !graph.tensor<5x4x2xf16>) -> !graph.tensor<2x5x3x2xf16>
  func.return %r : !graph.tensor<2x5x3x2xf16>
}

// -----

// A 1-D operand needs no inserted axis; integers are not widened. A symbolic batch stays symbolic.
// CHECK-LABEL: func.func @matvec
// CHECK-NEXT:    %[[P:.*]] = graph.mul %a, %v : (!graph.tensor<Nx4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<Nx4xi32>
// CHECK-NEXT:    %r = graph.reduce_sum %[[P]] {axes = array<i64: 1>} : (!graph.tensor<Nx4xi32>) -> !graph.tensor<Nxi32>
// CHECK-NEXT:    func.return %r
func.func @matvec(%a: !graph.tensor<Nx4xi32>, %v: !graph.tensor<4xi32>) -> !graph.tensor<Nxi32>
    attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %r = graph.matmul %a, %v : (!graph.tensor<Nx4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<Nxi32>
  func.return %r : !graph.tensor<Nxi32>
}
