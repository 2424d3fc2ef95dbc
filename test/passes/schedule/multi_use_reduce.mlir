// RUN: kiln-opt %s --split-input-file -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s
// A matmul's sum used along two paths (a residual block's output read by the next conv and by the next residual
// add) is realized once, as a `multi-use reduce`. The broadcast product under it was counted once per path in
// the same round and realized too, as `shared expensive` when its operands' chain (here 26 permutes) is long: a
// [M, N, K] buffer (205 MB in ResNet-50's first stage). Decided a round later, the product is reached through
// the one realized sum only and stays in its kernel.
// CHECK-LABEL: func.func @two_uses
// CHECK-NOT:   shared expensive
// CHECK:       %s = graph.reduce_sum %p {graph.realize = "multi-use reduce", axes = array<i64: 2>}
// CHECK-NOT:   shared expensive
func.func @two_uses(%a: !graph.tensor<64x1x32xf32>, %b: !graph.tensor<1x48x32xf32>) -> (!graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>) {
  %t0 = graph.permute %a {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t1 = graph.permute %t0 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t2 = graph.permute %t1 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t3 = graph.permute %t2 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t4 = graph.permute %t3 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t5 = graph.permute %t4 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t6 = graph.permute %t5 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t7 = graph.permute %t6 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t8 = graph.permute %t7 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t9 = graph.permute %t8 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t10 = graph.permute %t9 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t11 = graph.permute %t10 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t12 = graph.permute %t11 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t13 = graph.permute %t12 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t14 = graph.permute %t13 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t15 = graph.permute %t14 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t16 = graph.permute %t15 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t17 = graph.permute %t16 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t18 = graph.permute %t17 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t19 = graph.permute %t18 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t20 = graph.permute %t19 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t21 = graph.permute %t20 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t22 = graph.permute %t21 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t23 = graph.permute %t22 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %t24 = graph.permute %t23 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<64x1x32xf32>) -> !graph.tensor<32x1x64xf32>
  %t25 = graph.permute %t24 {perm = array<i64: 2, 1, 0>} : (!graph.tensor<32x1x64xf32>) -> !graph.tensor<64x1x32xf32>
  %p = graph.mul %t25, %b : (!graph.tensor<64x1x32xf32>, !graph.tensor<1x48x32xf32>) -> !graph.tensor<64x48x32xf32>
  %s = graph.reduce_sum %p {axes = array<i64: 2>} : (!graph.tensor<64x48x32xf32>) -> !graph.tensor<64x48xf32>
  %e = graph.exp %s : !graph.tensor<64x48xf32>
  %l = graph.log %s : !graph.tensor<64x48xf32>
  func.return %e, %l : !graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>
}

// -----

// A sum whose only use scales it by a scalar constant (attention's `q k^T / 8`, read twice by the softmax after
// it) is realized after the scale, so the scale is computed once, in the sum's kernel, not at every use.
// CHECK-LABEL: func.func @scaled
// CHECK:       %s = graph.reduce_sum %p {axes = array<i64: 2>}
// CHECK:       %d = graph.div %s, %c8 {graph.realize = "multi-use reduce"}
func.func @scaled(%a: !graph.tensor<64x1x32xf32>, %b: !graph.tensor<1x48x32xf32>) -> (!graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>) {
  %p = graph.mul %a, %b : (!graph.tensor<64x1x32xf32>, !graph.tensor<1x48x32xf32>) -> !graph.tensor<64x48x32xf32>
  %s = graph.reduce_sum %p {axes = array<i64: 2>} : (!graph.tensor<64x48x32xf32>) -> !graph.tensor<64x48xf32>
  %c8 = graph.constant 8.0 : f32 : !graph.tensor<f32>
  %d = graph.div %s, %c8 : (!graph.tensor<64x48xf32>, !graph.tensor<f32>) -> !graph.tensor<64x48xf32>
  %e = graph.exp %d : !graph.tensor<64x48xf32>
  %l = graph.log %d : !graph.tensor<64x48xf32>
  func.return %e, %l : !graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>
}

// -----

// Added to a tensor (a residual, a bias) the sum itself is realized, as before: only scalar constants move it.
// CHECK-LABEL: func.func @shifted_by_tensor
// CHECK:       %s = graph.reduce_sum %p {graph.realize = "multi-use reduce", axes = array<i64: 2>}
// CHECK-NOT:   graph.realize = "multi-use reduce"
func.func @shifted_by_tensor(%a: !graph.tensor<64x1x32xf32>, %b: !graph.tensor<1x48x32xf32>, %r: !graph.tensor<64x48xf32>) -> (!graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>) {
  %p = graph.mul %a, %b : (!graph.tensor<64x1x32xf32>, !graph.tensor<1x48x32xf32>) -> !graph.tensor<64x48x32xf32>
  %s = graph.reduce_sum %p {axes = array<i64: 2>} : (!graph.tensor<64x48x32xf32>) -> !graph.tensor<64x48xf32>
  %d = graph.add %s, %r : (!graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>) -> !graph.tensor<64x48xf32>
  %e = graph.exp %d : !graph.tensor<64x48xf32>
  %l = graph.log %d : !graph.tensor<64x48xf32>
  func.return %e, %l : !graph.tensor<64x48xf32>, !graph.tensor<64x48xf32>
}
