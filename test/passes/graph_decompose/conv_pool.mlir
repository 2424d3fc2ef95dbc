// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// Grouped, strided, padded conv with bias: zero pad, windows from movement ops along H then W, a grouped
// broadcast multiply with the filter, a sum over (C/groups, KH, KW), then the bias.
// CHECK-LABEL: func.func @conv
// CHECK-NEXT:    %[[P:.*]] = graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32} : (!graph.tensor<1x4x5x5xf32>) -> !graph.tensor<1x4x7x7xf32>
// H windows: 3 copies of H, flattened with W, padded to rows of 7 + dilation 1, every 2nd column.
// CHECK-NEXT:    %[[H1:.*]] = graph.reshape %[[P]] : (!graph.tensor<1x4x7x7xf32>) -> !graph.tensor<1x4x1x7x7xf32>
// CHECK-NEXT:    %[[H2:.*]] = graph.expand %[[H1]] : (!graph.tensor<1x4x1x7x7xf32>) -> !graph.tensor<1x4x3x7x7xf32>
// CHECK-NEXT:    %[[H3:.*]] = graph.reshape %[[H2]] : (!graph.tensor<1x4x3x7x7xf32>) -> !graph.tensor<1x4x147xf32>
// CHECK-NEXT:    %[[H4:.*]] = graph.pad %[[H3]] {low = array<i64: 0, 0, 0>, high = array<i64: 0, 0, 21>, value = 0.000000e+00 : f32}
// CHECK-NEXT:    %[[H5:.*]] = graph.reshape %[[H4]] : (!graph.tensor<1x4x168xf32>) -> !graph.tensor<1x4x3x8x7xf32>
// CHECK-NEXT:    %[[H6:.*]] = graph.shrink %[[H5]] {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 3, 5, 7>, step = array<i64: 1, 1, 1, 2, 1>} : (!graph.tensor<1x4x3x8x7xf32>) -> !graph.tensor<1x4x3x3x7xf32>
// CHECK:         %[[WIN:.*]] = graph.shrink {{.*}} -> !graph.tensor<1x4x3x3x3x3xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.reshape %[[WIN]] : (!graph.tensor<1x4x3x3x3x3xf32>) -> !graph.tensor<1x2x2x3x3x3x3xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[G]] {perm = array<i64: 0, 1, 4, 6, 2, 3, 5>}
// CHECK-NEXT:    %[[X:.*]] = graph.reshape %[[T]] : (!graph.tensor<1x2x3x3x2x3x3xf32>) -> !graph.tensor<1x2x1x3x3x2x3x3xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (!graph.tensor<6x2x3x3xf32>) -> !graph.tensor<2x3x1x1x2x3x3xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.mul %[[X]], %[[W]] : (!graph.tensor<1x2x1x3x3x2x3x3xf32>, !graph.tensor<2x3x1x1x2x3x3xf32>) -> !graph.tensor<1x2x3x3x3x2x3x3xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reduce_sum %[[M]] {axes = array<i64: 5, 6, 7>}
// CHECK-NEXT:    %[[Y:.*]] = graph.reshape %[[S]] : (!graph.tensor<1x2x3x3x3xf32>) -> !graph.tensor<1x6x3x3xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %b : (!graph.tensor<6xf32>) -> !graph.tensor<6x1x1xf32>
// CHECK-NEXT:    %r = graph.add %[[Y]], %[[B]]
// CHECK-NEXT:    func.return %r
func.func @conv(%x: !graph.tensor<1x4x5x5xf32>, %w: !graph.tensor<6x2x3x3xf32>, %b: !graph.tensor<6xf32>) -> !graph.tensor<1x6x3x3xf32> {
  %r = graph.conv2d %x, %w bias %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2 : i64}
      : (!graph.tensor<1x4x5x5xf32>, !graph.tensor<6x2x3x3xf32>, !graph.tensor<6xf32>) -> !graph.tensor<1x6x3x3xf32>
  func.return %r : !graph.tensor<1x6x3x3xf32>
}

// -----

// Max pooling pads with the smallest value of the dtype and reduces the window axes (KH at 2, KW at 4).
// CHECK-LABEL: func.func @max_pool
// CHECK-NEXT:    graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = -2147483648 : i32}
// CHECK:         %r = graph.reduce_max %{{.*}} {axes = array<i64: 2, 4>} : (!graph.tensor<Nx2x2x3x2x3xi32>) -> !graph.tensor<Nx2x3x3xi32>
// CHECK-NEXT:    func.return %r
func.func @max_pool(%x: !graph.tensor<Nx2x4x4xi32>) -> !graph.tensor<Nx2x3x3xi32> attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  %r = graph.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (!graph.tensor<Nx2x4x4xi32>) -> !graph.tensor<Nx2x3x3xi32>
  func.return %r : !graph.tensor<Nx2x3x3xi32>
}

// -----

// Average pooling sums the window in f32 and divides by the full window size (padding counts as zeros).
// CHECK-LABEL: func.func @avg_pool
// CHECK-NEXT:    %[[X:.*]] = graph.cast %x : (!graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x4x4xf32>
// CHECK:         %[[S:.*]] = graph.reduce_sum %{{.*}} {axes = array<i64: 2, 4>} : (!graph.tensor<1x1x2x2x2x2xf32>) -> !graph.tensor<1x1x2x2xf32>
// CHECK-NEXT:    %[[K:.*]] = graph.constant 4.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = graph.div %[[S]], %[[K]]
// CHECK-NEXT:    %r = graph.cast %[[A]] : (!graph.tensor<1x1x2x2xf32>) -> !graph.tensor<1x1x2x2xf16>
func.func @avg_pool(%x: !graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x2x2xf16> {
  %r = graph.avg_pool2d %x {kernel = array<i64: 2, 2>} : (!graph.tensor<1x1x4x4xf16>) -> !graph.tensor<1x1x2x2xf16>
  func.return %r : !graph.tensor<1x1x2x2xf16>
}

// -----

// A computed input is realized plain before the windows (each tap then reads one buffer, not its producer
// through the windows' index algebra); an f16 one is realized before it is widened.
// CHECK-LABEL: func.func @pool_of_relu
// CHECK-NEXT:    %[[R:.*]] = graph.relu %x
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[R]] : !graph.tensor<1x2x4x4xf16>
// CHECK-NEXT:    graph.pad %[[C]]
// CHECK:         graph.reduce_max
// CHECK:         %[[C2:.*]] = graph.contiguous %[[R]] : !graph.tensor<1x2x4x4xf16>
// CHECK-NEXT:    graph.cast %[[C2]] : (!graph.tensor<1x2x4x4xf16>) -> !graph.tensor<1x2x4x4xf32>
// CHECK:         graph.reduce_sum
func.func @pool_of_relu(%x: !graph.tensor<1x2x4x4xf16>) -> (!graph.tensor<1x2x2x2xf16>, !graph.tensor<1x2x2x2xf16>) {
  %r = graph.relu %x : !graph.tensor<1x2x4x4xf16>
  %m = graph.max_pool2d %r {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x2x4x4xf16>) -> !graph.tensor<1x2x2x2xf16>
  %a = graph.avg_pool2d %r {kernel = array<i64: 2, 2>} : (!graph.tensor<1x2x4x4xf16>) -> !graph.tensor<1x2x2x2xf16>
  func.return %m, %a : !graph.tensor<1x2x2x2xf16>, !graph.tensor<1x2x2x2xf16>
}

// -----

// A pool's input that is an epilogue (relu, a scale by a constant) of a realized value read nowhere else (a
// direct conv's output with its bias) is realized once: the first realization is dropped, so the producer's
// kernel computes the epilogue, instead of a copy kernel reading the value back. A realized value that is read
// elsewhere too (@pool_of_shared_epilogue) keeps its realization.
// CHECK-LABEL: func.func @pool_of_epilogue
// CHECK-NEXT:    %[[S:.*]] = graph.add %x, %x
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[S]]
// CHECK:         %[[M:.*]] = graph.mul %[[R]], %{{.*}}
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[M]] : !graph.tensor<1x2x4x4xf32>
// CHECK-NOT:     graph.contiguous
// CHECK:         graph.reduce_max
func.func @pool_of_epilogue(%x: !graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x2x2xf32> {
  %s = graph.add %x, %x : (!graph.tensor<1x2x4x4xf32>, !graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x4x4xf32>
  %c = graph.contiguous %s : !graph.tensor<1x2x4x4xf32>
  %r = graph.relu %c : !graph.tensor<1x2x4x4xf32>
  %k = graph.constant 2.0 : f32 : !graph.tensor<f32>
  %h = graph.mul %r, %k : (!graph.tensor<1x2x4x4xf32>, !graph.tensor<f32>) -> !graph.tensor<1x2x4x4xf32>
  %m = graph.max_pool2d %h {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (!graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x2x2xf32>
  func.return %m : !graph.tensor<1x2x2x2xf32>
}

// CHECK-LABEL: func.func @pool_of_shared_epilogue
// CHECK-NEXT:    %[[S:.*]] = graph.add %x, %x
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[S]]
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[C]]
// CHECK-NEXT:    %[[C2:.*]] = graph.contiguous %[[R]]
func.func @pool_of_shared_epilogue(%x: !graph.tensor<1x2x4x4xf32>) -> (!graph.tensor<1x2x2x2xf32>, !graph.tensor<1x2x4x4xf32>) {
  %s = graph.add %x, %x : (!graph.tensor<1x2x4x4xf32>, !graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x4x4xf32>
  %c = graph.contiguous %s : !graph.tensor<1x2x4x4xf32>
  %r = graph.relu %c : !graph.tensor<1x2x4x4xf32>
  %m = graph.max_pool2d %r {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (!graph.tensor<1x2x4x4xf32>) -> !graph.tensor<1x2x2x2xf32>
  func.return %m, %c : !graph.tensor<1x2x2x2xf32>, !graph.tensor<1x2x4x4xf32>
}
