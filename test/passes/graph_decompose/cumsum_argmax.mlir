// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// cumsum: a triangular mask from two iotas (j <= i) selects x[.., j, ..] for output i; sum over j.
// CHECK-LABEL: func.func @cumsum
// CHECK-NEXT:    %[[X:.*]] = graph.reshape %x : (!graph.tensor<3x4xf32>) -> !graph.tensor<3x1x4xf32>
// CHECK-NEXT:    %[[I:.*]] = graph.iota {axis = 0 : i64} : !graph.tensor<4x4xi32>
// CHECK-NEXT:    %[[J:.*]] = graph.iota {axis = 1 : i64} : !graph.tensor<4x4xi32>
// CHECK-NEXT:    %[[M:.*]] = graph.le %[[J]], %[[I]] : (!graph.tensor<4x4xi32>, !graph.tensor<4x4xi32>) -> !graph.tensor<4x4xi1>
// CHECK-NEXT:    %[[Z:.*]] = graph.constant 0.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[W:.*]] = graph.where %[[M]], %[[X]], %[[Z]] : (!graph.tensor<4x4xi1>, !graph.tensor<3x1x4xf32>, !graph.tensor<f32>) -> !graph.tensor<3x4x4xf32>
// CHECK-NEXT:    %r = graph.reduce_sum %[[W]] {axes = array<i64: 2>} : (!graph.tensor<3x4x4xf32>) -> !graph.tensor<3x4xf32>
// CHECK-NEXT:    func.return %r
func.func @cumsum(%x: !graph.tensor<3x4xf32>) -> !graph.tensor<3x4xf32> {
  %r = graph.cumsum %x {axis = -1 : i64} : (!graph.tensor<3x4xf32>) -> !graph.tensor<3x4xf32>
  func.return %r : !graph.tensor<3x4xf32>
}

// -----

// argmax: the smallest index where x hits the maximum (or is NaN, so that the first NaN wins).
// CHECK-LABEL: func.func @argmax
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_max %x {axes = array<i64: 0>, keepdims = true} : (!graph.tensor<5x3xf32>) -> !graph.tensor<1x3xf32>
// CHECK-NEXT:    %[[EQ:.*]] = graph.eq %x, %[[M]]
// CHECK-NEXT:    %[[NAN:.*]] = graph.ne %x, %x
// CHECK-NEXT:    %[[HIT:.*]] = graph.or %[[EQ]], %[[NAN]]
// CHECK-NEXT:    %[[IDX:.*]] = graph.iota {axis = 0 : i64} : !graph.tensor<5x1xi64>
// CHECK-NEXT:    %[[BIG:.*]] = graph.constant 9223372036854775807 : i64 : !graph.tensor<i64>
// CHECK-NEXT:    %[[SEL:.*]] = graph.where %[[HIT]], %[[IDX]], %[[BIG]] : (!graph.tensor<5x3xi1>, !graph.tensor<5x1xi64>, !graph.tensor<i64>) -> !graph.tensor<5x3xi64>
// CHECK-NEXT:    %r = graph.reduce_min %[[SEL]] {axes = array<i64: 0>, keepdims = true} : (!graph.tensor<5x3xi64>) -> !graph.tensor<1x3xi64>
// CHECK-NEXT:    func.return %r
func.func @argmax(%x: !graph.tensor<5x3xf32>) -> !graph.tensor<1x3xi64> {
  %r = graph.argmax %x {axis = 0 : i64, keepdims = true} : (!graph.tensor<5x3xf32>) -> !graph.tensor<1x3xi64>
  func.return %r : !graph.tensor<1x3xi64>
}

// -----

// argmin on integers: no NaN term; a symbolic axis needs no constant of its length.
// CHECK-LABEL: func.func @argmin
// CHECK-NEXT:    %[[M:.*]] = graph.reduce_min %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<2xNxi8>) -> !graph.tensor<2x1xi8>
// CHECK-NEXT:    %[[HIT:.*]] = graph.eq %x, %[[M]]
// CHECK-NEXT:    %[[IDX:.*]] = graph.iota {axis = 0 : i64} : !graph.tensor<Nxi32>
// CHECK-NEXT:    %[[BIG:.*]] = graph.constant 2147483647 : i32
// CHECK-NEXT:    %[[SEL:.*]] = graph.where %[[HIT]], %[[IDX]], %[[BIG]]
// CHECK-NEXT:    %r = graph.reduce_min %[[SEL]] {axes = array<i64: 1>} : (!graph.tensor<2xNxi32>) -> !graph.tensor<2xi32>
func.func @argmin(%x: !graph.tensor<2xNxi8>) -> !graph.tensor<2xi32> attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %r = graph.argmin %x {axis = 1 : i64} : (!graph.tensor<2xNxi8>) -> !graph.tensor<2xi32>
  func.return %r : !graph.tensor<2xi32>
}
