// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// A mean over static axes is a sum divided by the count (f16 accumulates in f32); over a symbolic axis it stays.
// CHECK-LABEL: func.func @mean
// CHECK-NEXT:    %[[X:.*]] = graph.cast %x : (!graph.tensor<3x4xf16>) -> !graph.tensor<3x4xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[X]] {axes = array<i64: 1>} : (!graph.tensor<3x4xf32>) -> !graph.tensor<3xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.constant 4.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = graph.div %[[S]], %[[C]]
// CHECK-NEXT:    %r = graph.cast %[[M]] : (!graph.tensor<3xf32>) -> !graph.tensor<3xf16>
// CHECK-NEXT:    %s = graph.mean %y {axes = array<i64: 0>} : (!graph.tensor<Nx4xf32>) -> !graph.tensor<4xf32>
// CHECK-NEXT:    func.return %r, %s
func.func @mean(%x: !graph.tensor<3x4xf16>, %y: !graph.tensor<Nx4xf32>) -> (!graph.tensor<3xf16>, !graph.tensor<4xf32>)
    attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %r = graph.mean %x {axes = array<i64: 1>} : (!graph.tensor<3x4xf16>) -> !graph.tensor<3xf16>
  %s = graph.mean %y {axes = array<i64: 0>} : (!graph.tensor<Nx4xf32>) -> !graph.tensor<4xf32>
  func.return %r, %s : !graph.tensor<3xf16>, !graph.tensor<4xf32>
}

// -----

// gather and concat are core ops (the scheduler indexes them directly); elementwise ops, gelu included, stay.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %g = graph.gather %x, %i {axis = 1 : i64}
// CHECK-NEXT:    %c = graph.concat %g, %g {axis = 0 : i64}
// CHECK-NEXT:    %r = graph.gelu %c : !graph.tensor<4x3xf32>
// CHECK-NEXT:    func.return %r
func.func @kept(%x: !graph.tensor<2x5xf32>, %i: !graph.tensor<2x3xi32>) -> !graph.tensor<4x3xf32> {
  %g = graph.gather %x, %i {axis = 1 : i64} : (!graph.tensor<2x5xf32>, !graph.tensor<2x3xi32>) -> !graph.tensor<2x3xf32>
  %c = graph.concat %g, %g {axis = 0 : i64} : (!graph.tensor<2x3xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<4x3xf32>
  %r = graph.gelu %c : !graph.tensor<4x3xf32>
  func.return %r : !graph.tensor<4x3xf32>
}
