// RUN: kiln-opt %s -p graph-canonicalize | filecheck %s

// Splat constants fold with the interpreter's semantics; identities and movement chains disappear.
// CHECK-LABEL: func.func @fold
func.func @fold(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<8x4xf32> {
  // CHECK-NEXT: %[[C:.*]] = graph.constant 6.000000e+00 : f32 : !graph.tensor<f32>
  // CHECK-NEXT: %[[M:.*]] = graph.mul %x, %[[C]]
  // CHECK-NEXT: %[[R:.*]] = graph.reshape %[[M]] : (!graph.tensor<4x8xf32>) -> !graph.tensor<8x4xf32>
  // CHECK-NEXT: func.return %[[R]]
  %c2 = graph.constant 2.0 : f32 : !graph.tensor<f32>
  %c3 = graph.constant 3.0 : f32 : !graph.tensor<f32>
  %c = graph.mul %c2, %c3 : (!graph.tensor<f32>, !graph.tensor<f32>) -> !graph.tensor<f32>
  %z = graph.constant 0.0 : f32 : !graph.tensor<4x8xf32>
  %a = graph.add %x, %z : (!graph.tensor<4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32>
  %m = graph.mul %a, %c : (!graph.tensor<4x8xf32>, !graph.tensor<f32>) -> !graph.tensor<4x8xf32>
  %p = graph.permute %m {perm = array<i64: 1, 0>} : (!graph.tensor<4x8xf32>) -> !graph.tensor<8x4xf32>
  %q = graph.permute %p {perm = array<i64: 1, 0>} : (!graph.tensor<8x4xf32>) -> !graph.tensor<4x8xf32>
  %r = graph.reshape %q : (!graph.tensor<4x8xf32>) -> !graph.tensor<32xf32>
  %r2 = graph.reshape %r : (!graph.tensor<32xf32>) -> !graph.tensor<8x4xf32>
  %n = graph.neg %r2 : !graph.tensor<8x4xf32>
  %n2 = graph.neg %n : !graph.tensor<8x4xf32>
  func.return %n2 : !graph.tensor<8x4xf32>
}

// An add that broadcasts x is not an identity; x * 0 is not folded (NaN * 0 is NaN).
// CHECK-LABEL: func.func @keep
func.func @keep(%x: !graph.tensor<4xf32>) -> (!graph.tensor<3x4xf32>, !graph.tensor<4xf32>) {
  // CHECK: graph.add %x
  // CHECK: graph.mul %x
  %z = graph.constant 0.0 : f32 : !graph.tensor<3x4xf32>
  %a = graph.add %x, %z : (!graph.tensor<4xf32>, !graph.tensor<3x4xf32>) -> !graph.tensor<3x4xf32>
  %z1 = graph.constant 0.0 : f32 : !graph.tensor<4xf32>
  %m = graph.mul %x, %z1 : (!graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return %a, %m : !graph.tensor<3x4xf32>, !graph.tensor<4xf32>
}

// Movement of a splat is a splat; expand and cast of a constant fold too; permute compositions combine.
// CHECK-LABEL: func.func @splat_movement
func.func @splat_movement(%x: !graph.tensor<2x3x4xf32>) -> (!graph.tensor<6x4xi32>, !graph.tensor<4x2x3xf32>) {
  // CHECK-NEXT: %[[S:.*]] = graph.constant 7 : i32 : !graph.tensor<6x4xi32>
  // CHECK-NEXT: %[[P:.*]] = graph.permute %x {perm = array<i64: 2, 0, 1>}
  // CHECK-NEXT: func.return %[[S]], %[[P]]
  %c = graph.constant 7.5 : f32 : !graph.tensor<4xf32>
  %e = graph.expand %c : (!graph.tensor<4xf32>) -> !graph.tensor<6x4xf32>
  %i = graph.cast %e : (!graph.tensor<6x4xf32>) -> !graph.tensor<6x4xi32>
  %p1 = graph.permute %x {perm = array<i64: 1, 2, 0>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<3x4x2xf32>
  %p2 = graph.permute %p1 {perm = array<i64: 1, 2, 0>} : (!graph.tensor<3x4x2xf32>) -> !graph.tensor<4x2x3xf32>
  func.return %i, %p2 : !graph.tensor<6x4xi32>, !graph.tensor<4x2x3xf32>
}

// Ops on dense constants fold too (computed with the interpreter); a uniform result becomes a splat; an expand
// that would make a dense constant longer (more selects per read element) is left.
// CHECK-LABEL: func.func @dense
func.func @dense(%x: !graph.tensor<2x2xf32>) -> (!graph.tensor<2x2xf32>, !graph.tensor<f32>, !graph.tensor<3x4xf32>) {
  // CHECK-NEXT: %[[W:.*]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
  // CHECK-NEXT: %[[T:.*]] = graph.constant dense<{{\[\[}}2.000000e+00, 6.000000e+00], [4.000000e+00, 8.000000e+00]]> : tensor<2x2xf32> : !graph.tensor<2x2xf32>
  // CHECK-NEXT: %[[Y:.*]] = graph.add %x, %[[T]]
  // CHECK-NEXT: %[[S:.*]] = graph.constant 2.000000e+01 : f32 : !graph.tensor<f32>
  // CHECK-NEXT: %[[E:.*]] = graph.expand %[[W]]
  // CHECK-NEXT: func.return %[[Y]], %[[S]], %[[E]]
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> : !graph.tensor<4xf32>
  %two = graph.constant 2.0 : f32 : !graph.tensor<4xf32>
  %m = graph.mul %w, %two : (!graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  %r = graph.reshape %m : (!graph.tensor<4xf32>) -> !graph.tensor<2x2xf32>
  %t = graph.permute %r {perm = array<i64: 1, 0>} : (!graph.tensor<2x2xf32>) -> !graph.tensor<2x2xf32>
  %y = graph.add %x, %t : (!graph.tensor<2x2xf32>, !graph.tensor<2x2xf32>) -> !graph.tensor<2x2xf32>
  %s = graph.reduce_sum %m {axes = array<i64: 0>} : (!graph.tensor<4xf32>) -> !graph.tensor<f32>
  %e = graph.expand %w : (!graph.tensor<4xf32>) -> !graph.tensor<3x4xf32>
  func.return %y, %s, %e : !graph.tensor<2x2xf32>, !graph.tensor<f32>, !graph.tensor<3x4xf32>
}
