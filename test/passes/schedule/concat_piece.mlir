// RUN: kiln-opt %s -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-mark-realize' | filecheck %s
// A reduction that is a piece of a concat is realized: the concat's kernel computes every piece at every element
// and selects, so a fused sum would run over the whole concat (DenseNet's dense block: a conv's 32 channels
// computed over all 256 of the block's output).
// CHECK-LABEL: func.func @sum_in_concat
// CHECK:       %s = graph.reduce_sum %x {graph.realize = "concat piece", axes = array<i64: 2>}
// CHECK:       %c = graph.concat %y, %r {graph.realize = "output", axis = 0 : i64}
func.func @sum_in_concat(%x: !graph.tensor<4x8x64xf32>, %y: !graph.tensor<12x8xf32>) -> !graph.tensor<16x8xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 2>} : (!graph.tensor<4x8x64xf32>) -> !graph.tensor<4x8xf32>
  %r = graph.relu %s : !graph.tensor<4x8xf32>
  %c = graph.concat %y, %r {axis = 0 : i64} : (!graph.tensor<12x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<16x8xf32>
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
