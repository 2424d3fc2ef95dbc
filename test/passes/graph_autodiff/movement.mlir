// RUN: kiln-opt %s --split-input-file -p 'graph-autodiff{function=f}' | filecheck %s

// The adjoint of a strided slice places the cotangent back into zeros: interleave step-1 zeros (unit axis,
// pad, merge), then pad to the input's extent (cutting where the spread overshoots).
// CHECK-LABEL: func.func @f_grad(%x: !graph.tensor<7xf32>, %d_result0: !graph.tensor<3xf32>)
// CHECK-NEXT:    %[[S:.*]] = graph.shrink %x {start = array<i64: 1>, limit = array<i64: 7>, step = array<i64: 2>}
// CHECK-NEXT:    %[[U:.*]] = graph.reshape %d_result0 : (!graph.tensor<3xf32>) -> !graph.tensor<3x1xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[U]] {low = array<i64: 0, 0>, high = array<i64: 0, 1>, value = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[F:.*]] = graph.reshape %[[P]] : (!graph.tensor<3x2xf32>) -> !graph.tensor<6xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.pad %[[F]] {low = array<i64: 1>, high = array<i64: 0>, value = 0.000000e+00 : f32} : (!graph.tensor<6xf32>) -> !graph.tensor<7xf32>
// CHECK-NEXT:    func.return %[[S]], %[[D]]
func.func @f(%x: !graph.tensor<7xf32>) -> !graph.tensor<3xf32> {
  %0 = graph.shrink %x {start = array<i64: 1>, limit = array<i64: 7>, step = array<i64: 2>} : (!graph.tensor<7xf32>) -> !graph.tensor<3xf32>
  func.return %0 : !graph.tensor<3xf32>
}

// -----

// gather scatters back with a one-hot comparison of the indices against an iota; the indices get no gradient.
// CHECK-LABEL: func.func @f_grad(%x: !graph.tensor<2x5xf32>, %i: !graph.tensor<2x3xi32>, %d_result0: !graph.tensor<2x3xf32>) -> (!graph.tensor<2x3xf32>, !graph.tensor<2x5xf32>)
// CHECK:         %[[IOTA:.*]] = graph.iota {axis = 0 : i64} : !graph.tensor<5xi32>
// CHECK-NEXT:    %[[IU:.*]] = graph.reshape %i : (!graph.tensor<2x3xi32>) -> !graph.tensor<2x3x1xi32>
// CHECK-NEXT:    %[[HIT:.*]] = graph.eq %[[IU]], %[[IOTA]] : (!graph.tensor<2x3x1xi32>, !graph.tensor<5xi32>) -> !graph.tensor<2x3x5xi1>
// CHECK:         graph.reduce_sum %{{.*}} {axes = array<i64: 1>} : (!graph.tensor<2x3x5xf32>) -> !graph.tensor<2x5xf32>
func.func @f(%x: !graph.tensor<2x5xf32>, %i: !graph.tensor<2x3xi32>) -> !graph.tensor<2x3xf32> {
  %0 = graph.gather %x, %i {axis = 1 : i64} : (!graph.tensor<2x5xf32>, !graph.tensor<2x3xi32>) -> !graph.tensor<2x3xf32>
  func.return %0 : !graph.tensor<2x3xf32>
}

// -----

// A symbolic batch stays symbolic: the mean's gradient divides by a count summed from ones at run time.
// CHECK-LABEL: func.func @f_grad(%x: !graph.tensor<Nx4xf32>, %d_result0: !graph.tensor<4xf32>) -> (!graph.tensor<4xf32>, !graph.tensor<Nx4xf32>) attributes {graph.dims = #graph.dims<N = [1, 64]>}
// CHECK:         %[[E:.*]] = graph.expand %{{.*}} : (!graph.tensor<1x4xf32>) -> !graph.tensor<Nx4xf32>
// CHECK:         %[[ONES:.*]] = graph.expand %{{.*}} : (!graph.tensor<f32>) -> !graph.tensor<Nx4xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.reduce_sum %[[ONES]] {axes = array<i64: 0>, keepdims = true}
// CHECK-NEXT:    graph.div %[[E]], %[[N]]
func.func @f(%x: !graph.tensor<Nx4xf32>) -> !graph.tensor<4xf32> attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %0 = graph.mean %x {axes = array<i64: 0>, keepdims = false} : (!graph.tensor<Nx4xf32>) -> !graph.tensor<4xf32>
  func.return %0 : !graph.tensor<4xf32>
}
