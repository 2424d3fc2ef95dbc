// RUN: kiln-opt %s -p 'graph-autodiff{function=dense wrt=1,2}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-autodiff{function=dense}' | filecheck %s --check-prefix=ALL
// RUN: kiln-opt %s -p 'graph-autodiff{function=dense},lower-to-kernel' | filecheck %s --check-prefix=KERNEL

// @dense_grad takes the primal arguments and one cotangent per result, and returns the results followed by the
// vector-Jacobian product for each wrt argument. The bias gradient sums the broadcast axis back out; the weight
// gradient is x^T @ (upstream * tanh'), which reuses the forward tanh.
// CHECK-LABEL: func.func @dense(
// CHECK-LABEL: func.func @dense_grad(%x: !graph.tensor<4x3xf32>, %w: !graph.tensor<3x2xf32>, %b: !graph.tensor<2xf32>, %d_result0: !graph.tensor<f32>) -> (!graph.tensor<f32>, !graph.tensor<3x2xf32>, !graph.tensor<2xf32>)
// CHECK:         %[[Y:.*]] = graph.tanh
// CHECK-NEXT:    %[[L:.*]] = graph.reduce_sum %[[Y]] {axes = array<i64: 0, 1>}
// CHECK-NEXT:    %[[G1:.*]] = graph.reshape %d_result0 : (!graph.tensor<f32>) -> !graph.tensor<1x1xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.expand %[[G1]] : (!graph.tensor<1x1xf32>) -> !graph.tensor<4x2xf32>
// CHECK-NEXT:    %[[ONE:.*]] = graph.constant 1.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[YY:.*]] = graph.mul %[[Y]], %[[Y]]
// CHECK-NEXT:    %[[D:.*]] = graph.sub %[[ONE]], %[[YY]]
// CHECK-NEXT:    %[[GT:.*]] = graph.mul %[[G]], %[[D]]
// CHECK-NEXT:    %[[DB1:.*]] = graph.reduce_sum %[[GT]] {axes = array<i64: 0>, keepdims = true} : (!graph.tensor<4x2xf32>) -> !graph.tensor<1x2xf32>
// CHECK-NEXT:    %[[DB:.*]] = graph.reshape %[[DB1]] : (!graph.tensor<1x2xf32>) -> !graph.tensor<2xf32>
// CHECK-NEXT:    %[[XT:.*]] = graph.permute %x {perm = array<i64: 1, 0>}
// CHECK-NEXT:    %[[DW:.*]] = graph.matmul %[[XT]], %[[GT]] : (!graph.tensor<3x4xf32>, !graph.tensor<4x2xf32>) -> !graph.tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[L]], %[[DW]], %[[DB]] : !graph.tensor<f32>, !graph.tensor<3x2xf32>, !graph.tensor<2xf32>

// Without wrt, every floating-point argument gets a gradient, in argument order; dx = G @ w^T.
// ALL-LABEL: func.func @dense_grad
// ALL-SAME:    -> (!graph.tensor<f32>, !graph.tensor<4x3xf32>, !graph.tensor<3x2xf32>, !graph.tensor<2xf32>)
// ALL:         %[[WT:.*]] = graph.permute %w {perm = array<i64: 1, 0>}
// ALL-NEXT:    graph.matmul %{{.*}}, %[[WT]] : (!graph.tensor<4x2xf32>, !graph.tensor<2x3xf32>) -> !graph.tensor<4x3xf32>

// The derivative is an ordinary graph function: it schedules like any other.
// KERNEL: kernel.kernel @dense_grad
// KERNEL: func.func @dense_grad
func.func @dense(%x: !graph.tensor<4x3xf32>, %w: !graph.tensor<3x2xf32>, %b: !graph.tensor<2xf32>) -> !graph.tensor<f32> {
  %0 = graph.matmul %x, %w : (!graph.tensor<4x3xf32>, !graph.tensor<3x2xf32>) -> !graph.tensor<4x2xf32>
  %1 = graph.add %0, %b : (!graph.tensor<4x2xf32>, !graph.tensor<2xf32>) -> !graph.tensor<4x2xf32>
  %2 = graph.tanh %1 : !graph.tensor<4x2xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 0, 1>, keepdims = false} : (!graph.tensor<4x2xf32>) -> !graph.tensor<f32>
  func.return %3 : !graph.tensor<f32>
}
