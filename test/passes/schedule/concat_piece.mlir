// RUN: kiln-opt %s -p 'graph-decompose,graph-mark-realize{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-decompose,graph-mark-realize' | filecheck %s
// A piece of a concat that computes a reduction is realized: the concat's kernel computes every piece at every
// element and selects, so a fused sum would run over the whole concat (DenseNet's dense block: a conv's 32
// channels computed over all 256 of the block's output). The piece is realized, not the sum below it, so its
// activation is computed in the sum's kernel (a fire module's relu(conv + b)).
// CHECK-LABEL: func.func @sum_in_concat
// CHECK:       %s = graph.reduce_sum %x {axes = array<i64: 2>}
// CHECK-NEXT:  %r = graph.relu %s {graph.realize = "concat piece"}
// CHECK:       %c = graph.concat %y, %r {graph.realize = "output", axis = 0 : i64}
func.func @sum_in_concat(%x: !graph.tensor<4x8x64xf32>, %y: !graph.tensor<12x8xf32>) -> !graph.tensor<16x8xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 2>} : (!graph.tensor<4x8x64xf32>) -> !graph.tensor<4x8xf32>
  %r = graph.relu %s : !graph.tensor<4x8xf32>
  %c = graph.concat %y, %r {axis = 0 : i64} : (!graph.tensor<12x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<16x8xf32>
  func.return %c : !graph.tensor<16x8xf32>
}

// A reduction that is itself the piece is realized as the piece.
// CHECK-LABEL: func.func @sum_is_piece
// CHECK:       %s = graph.reduce_sum %x {graph.realize = "concat piece", axes = array<i64: 2>}
func.func @sum_is_piece(%x: !graph.tensor<4x8x64xf32>, %y: !graph.tensor<12x8xf32>) -> !graph.tensor<16x8xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 2>} : (!graph.tensor<4x8x64xf32>) -> !graph.tensor<4x8xf32>
  %c = graph.concat %y, %s {axis = 0 : i64} : (!graph.tensor<12x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<16x8xf32>
  func.return %c : !graph.tensor<16x8xf32>
}

// Elementwise pieces stay fused: each costs its few ops where the select takes it.
// CHECK-LABEL: func.func @elementwise_pieces
// CHECK-NOT:   concat piece
func.func @elementwise_pieces(%x: !graph.tensor<4x8xf32>, %y: !graph.tensor<12x8xf32>) -> !graph.tensor<16x8xf32> {
  %r = graph.relu %x : !graph.tensor<4x8xf32>
  %c = graph.concat %y, %r {axis = 0 : i64} : (!graph.tensor<12x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<16x8xf32>
  func.return %c : !graph.tensor<16x8xf32>
}

// A concat read through a pool's windows (a broadcast) would select among its pieces at every tap: realized, the
// taps are plain loads (Inception v1's max pools over its modules' outputs).
// CHECK-LABEL: func.func @pool_of_concat
// CHECK:       graph.concat %x, %y {graph.realize = "concat read again"
func.func @pool_of_concat(%x: !graph.tensor<1x4x8x8xf32>, %y: !graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x8x8x8xf32> {
  %c = graph.concat %x, %y {axis = 1 : i64} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x8x8x8xf32>
  %p = graph.max_pool2d %c {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>} : (!graph.tensor<1x8x8x8xf32>) -> !graph.tensor<1x8x8x8xf32>
  func.return %p : !graph.tensor<1x8x8x8xf32>
}

// The same through strided slices (a ceil-mode pool as the ONNX importer writes it): each slice reads the concat
// again.
// CHECK-LABEL: func.func @slices_of_concat
// CHECK:       graph.concat %x, %y {graph.realize = "concat read again"
func.func @slices_of_concat(%x: !graph.tensor<4x8xf32>, %y: !graph.tensor<4x8xf32>) -> !graph.tensor<8x4xf32> {
  %c = graph.concat %x, %y {axis = 0 : i64} : (!graph.tensor<4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<8x8xf32>
  %a = graph.shrink %c {start = array<i64: 0, 0>, limit = array<i64: 8, 7>, step = array<i64: 1, 2>} : (!graph.tensor<8x8xf32>) -> !graph.tensor<8x4xf32>
  %b = graph.shrink %c {start = array<i64: 0, 1>, limit = array<i64: 8, 8>, step = array<i64: 1, 2>} : (!graph.tensor<8x8xf32>) -> !graph.tensor<8x4xf32>
  %m = graph.max %a, %b : (!graph.tensor<8x4xf32>, !graph.tensor<8x4xf32>) -> !graph.tensor<8x4xf32>
  func.return %m : !graph.tensor<8x4xf32>
}
