// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// CHECK-LABEL: func.func @affine
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %x {axes = array<i64: 1, 2>, keepdims = true} : (!graph.tensor<Nx4x8xf32>) -> !graph.tensor<Nx1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.constant 3.200000e+01 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[MU:.*]] = graph.div %[[S]], %[[C]]
// CHECK-NEXT:    %[[X:.*]] = graph.sub %x, %[[MU]] : (!graph.tensor<Nx4x8xf32>, !graph.tensor<Nx1x1xf32>) -> !graph.tensor<Nx4x8xf32>
// CHECK-NEXT:    %[[SQ:.*]] = graph.mul %[[X]], %[[X]]
// CHECK-NEXT:    %[[VS:.*]] = graph.reduce_sum %[[SQ]] {axes = array<i64: 1, 2>, keepdims = true}
// CHECK-NEXT:    %[[C2:.*]] = graph.constant 3.200000e+01 : f32
// CHECK-NEXT:    %[[VAR:.*]] = graph.div %[[VS]], %[[C2]]
// CHECK-NEXT:    %[[EPS:.*]] = graph.constant 1.000000e-05 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[VE:.*]] = graph.add %[[VAR]], %[[EPS]]
// CHECK-NEXT:    %[[R:.*]] = graph.rsqrt %[[VE]] : !graph.tensor<Nx1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.mul %[[X]], %[[R]]
// CHECK-NEXT:    %[[YW:.*]] = graph.mul %[[Y]], %w : (!graph.tensor<Nx4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<Nx4x8xf32>
// CHECK-NEXT:    %r = graph.add %[[YW]], %b : (!graph.tensor<Nx4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<Nx4x8xf32>
// CHECK-NEXT:    func.return %r
func.func @affine(%x: !graph.tensor<Nx4x8xf32>, %w: !graph.tensor<4x8xf32>, %b: !graph.tensor<4x8xf32>) -> !graph.tensor<Nx4x8xf32>
    attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %r = graph.layernorm %x affine(%w, %b) {axes = array<i64: 1, 2>, epsilon = 1.0e-05 : f64}
      : (!graph.tensor<Nx4x8xf32>, !graph.tensor<4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<Nx4x8xf32>
  func.return %r : !graph.tensor<Nx4x8xf32>
}

// -----

// Normalizing over a symbolic axis: the count is not a constant, so the means stay core `graph.mean` ops.
// CHECK-LABEL: func.func @symbolic
// CHECK-NEXT:    %[[X:.*]] = graph.cast %x : (!graph.tensor<2xNxf16>) -> !graph.tensor<2xNxf32>
// CHECK-NEXT:    %[[MU:.*]] = graph.mean %[[X]] {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<2xNxf32>) -> !graph.tensor<2x1xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.sub %[[X]], %[[MU]]
// CHECK-NEXT:    %[[SQ:.*]] = graph.mul %[[C]], %[[C]]
// CHECK-NEXT:    %[[VAR:.*]] = graph.mean %[[SQ]] {axes = array<i64: 1>, keepdims = true}
// CHECK:         graph.rsqrt
// CHECK:         %r = graph.cast %{{.*}} : (!graph.tensor<2xNxf32>) -> !graph.tensor<2xNxf16>
// CHECK-NOT:     graph.layernorm
func.func @symbolic(%x: !graph.tensor<2xNxf16>) -> !graph.tensor<2xNxf16> attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %r = graph.layernorm %x {axes = array<i64: 1>} : (!graph.tensor<2xNxf16>) -> !graph.tensor<2xNxf16>
  func.return %r : !graph.tensor<2xNxf16>
}
