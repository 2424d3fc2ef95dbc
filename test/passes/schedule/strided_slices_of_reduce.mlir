// RUN: kiln-opt %s -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-mark-realize' | filecheck %s
// Max pool written as strided slices of a conv output (the ONNX importer's MaxPool with asymmetric padding):
// each slice reads the same values at an index the walk does not follow, so everything below is computed once
// per slice, the conv's reduction too. It is realized once (`multi-use reduce`) rather than computed nine
// times inside the pool's kernel (Inception v2's stem ran 5 s per call that way).
// CHECK-LABEL: func.func @pool_of_sum
// CHECK:       %s = graph.reduce_sum %x {graph.realize = "multi-use reduce", axes = array<i64: 3>}
// CHECK:       %m = graph.max %a, %b {graph.realize = "output"}
func.func @pool_of_sum(%x: !graph.tensor<2x8x8x64xf32>) -> !graph.tensor<2x4x4xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 3>} : (!graph.tensor<2x8x8x64xf32>) -> !graph.tensor<2x8x8xf32>
  %r = graph.relu %s : !graph.tensor<2x8x8xf32>
  %a = graph.shrink %r {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 7, 7>, step = array<i64: 1, 2, 2>} : (!graph.tensor<2x8x8xf32>) -> !graph.tensor<2x4x4xf32>
  %b = graph.shrink %r {start = array<i64: 0, 1, 1>, limit = array<i64: 2, 8, 8>, step = array<i64: 1, 2, 2>} : (!graph.tensor<2x8x8xf32>) -> !graph.tensor<2x4x4xf32>
  %m = graph.max %a, %b : (!graph.tensor<2x4x4xf32>, !graph.tensor<2x4x4xf32>) -> !graph.tensor<2x4x4xf32>
  func.return %m : !graph.tensor<2x4x4xf32>
}

// A single strided slice reads each value once: the sum stays in its consumer's kernel.
// CHECK-LABEL: func.func @one_slice
// CHECK-NOT:   multi-use reduce
func.func @one_slice(%x: !graph.tensor<2x8x8x64xf32>) -> !graph.tensor<2x4x4xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 3>} : (!graph.tensor<2x8x8x64xf32>) -> !graph.tensor<2x8x8xf32>
  %r = graph.relu %s : !graph.tensor<2x8x8xf32>
  %a = graph.shrink %r {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 7, 7>, step = array<i64: 1, 2, 2>} : (!graph.tensor<2x8x8xf32>) -> !graph.tensor<2x4x4xf32>
  func.return %a : !graph.tensor<2x4x4xf32>
}
