// RUN: kiln-opt %s -p lower-to-kernel | filecheck %s
// Concat in place: a realized piece of a concat stores into its slice of the concat's buffer (its store index is
// offset along the axis), reads of the concat or of a concat of its first pieces are plain loads from that
// buffer, and the concat has no kernel of its own (a DenseNet block: layer k reads the first k + 1 pieces).

// CHECK-LABEL: kernel.kernel @dense_r0(%0: !kernel.buffer<1x8x8xf32>, %1: !kernel.buffer<1x4x8x5xf32>)
// CHECK-SAME:    inputs = ["output", "arg"]
// CHECK-LABEL: kernel.kernel @dense_e1(%0: !kernel.buffer<1x4x8xf32>, %1: !kernel.buffer<1x8x8xf32>)
// CHECK-SAME:    inputs = ["output", "concat in place"]
// CHECK-LABEL: kernel.kernel @dense_r2(%0: !kernel.buffer<1x8x8xf32>,
// The matmul's 2 rows go to rows 4 and 5 of the host: 8 * (row + 4) = 8 * row + 32.
// CHECK:         %[[OFF:.*]] = kernel.const 32 : index
// CHECK:         kernel.add %{{.*}}, %[[OFF]] : index
// CHECK:         kernel.store %0
// The first concat (6 rows) is read straight from the host: no select.
// CHECK-LABEL: kernel.kernel @dense_e3(%0: !kernel.buffer<1x6x8xf32>, %1: !kernel.buffer<1x8x8xf32>)
// CHECK-NOT:     kernel.where
// CHECK-LABEL: kernel.kernel @dense_r4(%0: !kernel.buffer<1x8x8xf32>,
// CHECK:         kernel.const 48 : index
// CHECK-LABEL: kernel.kernel @dense_e5(%0: !kernel.buffer<1x8x8xf32>, %1: !kernel.buffer<1x8x8xf32>)
// CHECK-NOT:     kernel.where
// CHECK-LABEL: func.func @dense
// CHECK:         %[[H:.*]] = kernel.alloc {slot = 0 : i64} : !kernel.buffer<1x8x8xf32>
// CHECK-NEXT:    kernel.launch @dense_r0(%[[H]],
// CHECK:         kernel.launch @dense_e1(%{{.*}}, %[[H]])
// CHECK-NEXT:    kernel.launch @dense_r2(%[[H]],
// CHECK:         kernel.launch @dense_e3(%{{.*}}, %[[H]])
// CHECK-NEXT:    kernel.launch @dense_r4(%[[H]],
// CHECK:         kernel.launch @dense_e5(%{{.*}}, %[[H]])
func.func @dense(%x5: !graph.tensor<1x4x8x5xf32>, %w1: !graph.tensor<2x4xf32>, %w2: !graph.tensor<2x6xf32>) -> !graph.tensor<1x8x8xf32> {
  %x = graph.reduce_sum %x5 {axes = array<i64: 3>} : (!graph.tensor<1x4x8x5xf32>) -> !graph.tensor<1x4x8xf32>
  %a0 = graph.relu %x : !graph.tensor<1x4x8xf32>
  %a = graph.contiguous %a0 : !graph.tensor<1x4x8xf32>
  %m1 = graph.matmul %w1, %a : (!graph.tensor<2x4xf32>, !graph.tensor<1x4x8xf32>) -> !graph.tensor<1x2x8xf32>
  %c1 = graph.concat %x, %m1 {axis = 1 : i64} : (!graph.tensor<1x4x8xf32>, !graph.tensor<1x2x8xf32>) -> !graph.tensor<1x6x8xf32>
  %r0 = graph.relu %c1 : !graph.tensor<1x6x8xf32>
  %r1 = graph.contiguous %r0 : !graph.tensor<1x6x8xf32>
  %m2 = graph.matmul %w2, %r1 : (!graph.tensor<2x6xf32>, !graph.tensor<1x6x8xf32>) -> !graph.tensor<1x2x8xf32>
  %c2 = graph.concat %x, %m1, %m2 {axis = 1 : i64} : (!graph.tensor<1x4x8xf32>, !graph.tensor<1x2x8xf32>, !graph.tensor<1x2x8xf32>) -> !graph.tensor<1x8x8xf32>
  %r2 = graph.relu %c2 : !graph.tensor<1x8x8xf32>
  func.return %r2 : !graph.tensor<1x8x8xf32>
}

// Not in place: the second piece's kernel reads the first piece (a kernel never reads and writes one buffer),
// and a function argument as a piece has no kernel to store it: the concats select among their pieces.
// CHECK-LABEL: kernel.kernel @reads_piece_r1(%0: !kernel.buffer<1x2x8xf32>, %1: !kernel.buffer<2x4xf32>, %2: !kernel.buffer<1x4x8xf32>)
// CHECK-SAME:    inputs = ["output", "arg", "concat piece"]
// CHECK-LABEL: kernel.kernel @reads_piece_e2(%0: !kernel.buffer<1x6x8xf32>
// CHECK:         kernel.where
// CHECK-LABEL: kernel.kernel @arg_piece_e2(%0: !kernel.buffer<1x6x8xf32>, %1: !kernel.buffer<1x4x8xf32>, %2: !kernel.buffer<1x2x8xf32>)
// CHECK-SAME:    inputs = ["output", "arg", "concat piece"]
// CHECK:         kernel.where
// CHECK-NOT:     concat in place
func.func @reads_piece(%x5: !graph.tensor<1x4x8x5xf32>, %w1: !graph.tensor<2x4xf32>, %w2: !graph.tensor<2x6xf32>) -> !graph.tensor<1x8x8xf32> {
  %x = graph.reduce_sum %x5 {axes = array<i64: 3>} : (!graph.tensor<1x4x8x5xf32>) -> !graph.tensor<1x4x8xf32>
  %a = graph.relu %x : !graph.tensor<1x4x8xf32>
  %m1 = graph.matmul %w1, %a : (!graph.tensor<2x4xf32>, !graph.tensor<1x4x8xf32>) -> !graph.tensor<1x2x8xf32>
  %c1 = graph.concat %x, %m1 {axis = 1 : i64} : (!graph.tensor<1x4x8xf32>, !graph.tensor<1x2x8xf32>) -> !graph.tensor<1x6x8xf32>
  %r1 = graph.relu %c1 : !graph.tensor<1x6x8xf32>
  %m2 = graph.matmul %w2, %r1 : (!graph.tensor<2x6xf32>, !graph.tensor<1x6x8xf32>) -> !graph.tensor<1x2x8xf32>
  %c2 = graph.concat %x, %m1, %m2 {axis = 1 : i64} : (!graph.tensor<1x4x8xf32>, !graph.tensor<1x2x8xf32>, !graph.tensor<1x2x8xf32>) -> !graph.tensor<1x8x8xf32>
  %r2 = graph.relu %c2 : !graph.tensor<1x8x8xf32>
  func.return %r2 : !graph.tensor<1x8x8xf32>
}

func.func @arg_piece(%x: !graph.tensor<1x4x8xf32>, %w1: !graph.tensor<2x4xf32>) -> !graph.tensor<1x6x8xf32> {
  %a = graph.contiguous %x : !graph.tensor<1x4x8xf32>
  %m1 = graph.matmul %w1, %a : (!graph.tensor<2x4xf32>, !graph.tensor<1x4x8xf32>) -> !graph.tensor<1x2x8xf32>
  %c1 = graph.concat %x, %m1 {axis = 1 : i64} : (!graph.tensor<1x4x8xf32>, !graph.tensor<1x2x8xf32>) -> !graph.tensor<1x6x8xf32>
  func.return %c1 : !graph.tensor<1x6x8xf32>
}

// A piece that reshapes a leading slice of a realized value (a conv's 9 points padded to 10 for its panels):
// that value's kernel stores its valid part into the host, gated, and the concat has no copy.
// CHECK-LABEL: kernel.kernel @sliced_r0(%0: !kernel.buffer<1x4x3x3xf32>, %1: !kernel.buffer<2x10x5xf32>)
// CHECK:         %[[V:.*]] = kernel.cmplt %{{.*}}, %{{.*}} : index
// CHECK:         kernel.store %0[%{{.*}}], %{{.*}}, %[[V]]
// CHECK-LABEL: kernel.kernel @sliced_r1(%0: !kernel.buffer<1x4x3x3xf32>, %1: !kernel.buffer<2x9x4xf32>)
// CHECK-LABEL: func.func @sliced
// CHECK:         %[[H:.*]] = kernel.alloc {slot = 0 : i64} : !kernel.buffer<1x4x3x3xf32>
// CHECK-NEXT:    kernel.launch @sliced_r0(%[[H]],
// CHECK-NEXT:    kernel.launch @sliced_r1(%[[H]],
// CHECK-NEXT:    func.return %[[H]]
func.func @sliced(%a: !graph.tensor<2x10x5xf32>, %b: !graph.tensor<2x9x4xf32>) -> !graph.tensor<1x4x3x3xf32> {
  %s = graph.reduce_sum %a {axes = array<i64: 2>} : (!graph.tensor<2x10x5xf32>) -> !graph.tensor<2x10xf32>
  %sc = graph.contiguous %s : !graph.tensor<2x10xf32>
  %ss = graph.shrink %sc {start = array<i64: 0, 0>, limit = array<i64: 2, 9>} : (!graph.tensor<2x10xf32>) -> !graph.tensor<2x9xf32>
  %sr = graph.reshape %ss : (!graph.tensor<2x9xf32>) -> !graph.tensor<1x2x3x3xf32>
  %t = graph.reduce_max %b {axes = array<i64: 2>} : (!graph.tensor<2x9x4xf32>) -> !graph.tensor<2x9xf32>
  %tr = graph.reshape %t : (!graph.tensor<2x9xf32>) -> !graph.tensor<1x2x3x3xf32>
  %c = graph.concat %sr, %tr {axis = 1 : i64} : (!graph.tensor<1x2x3x3xf32>, !graph.tensor<1x2x3x3xf32>) -> !graph.tensor<1x4x3x3xf32>
  func.return %c : !graph.tensor<1x4x3x3xf32>
}
