// RUN: kiln-opt %s --split-input-file -p lower-to-kernel | filecheck %s

// A kernel builds adjacent static output dims as one range where that adds no index
// division: a matmul whose [N, O, H*W] result is read as [N, O, H, W] (a convolution as a matmul) gets one range
// of H*W = 12 points, contiguous in its operand and in the store.
// CHECK-LABEL: kernel.kernel @rows_r0
// CHECK:         %[[O:.*]] = kernel.range %{{.*}} global
// CHECK-NEXT:    %[[C12:.*]] = kernel.const 12 : index
// CHECK-NEXT:    %[[P:.*]] = kernel.range %[[C12]] global
// CHECK-NEXT:    kernel.const 5 : index
// CHECK-NEXT:    %[[K:.*]] = kernel.range %{{.*}} reduce
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @rows(%w: !graph.tensor<4x5xf32>, %x: !graph.tensor<5x12xf32>) -> !graph.tensor<4x3x4xf32> {
  %m = graph.matmul %w, %x : (!graph.tensor<4x5xf32>, !graph.tensor<5x12xf32>) -> !graph.tensor<4x12xf32>
  %r = graph.reshape %m : (!graph.tensor<4x12xf32>) -> !graph.tensor<4x3x4xf32>
  func.return %r : !graph.tensor<4x3x4xf32>
}

// -----

// Dims whose merge would divide stay separate ranges: in a batched matmul, rows and columns (each operand
// moves along one of them only) and batch and rows (the right operand moves along the batch only).
// CHECK-LABEL: kernel.kernel @kept_r0
// CHECK:         kernel.range %{{.*}} global
// CHECK-NEXT:    kernel.const 3 : index
// CHECK-NEXT:    kernel.range %{{.*}} global
// CHECK-NEXT:    kernel.range %{{.*}} global
// CHECK-NEXT:    kernel.const 2 : index
// CHECK-NEXT:    kernel.range %{{.*}} reduce
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @kept(%x: !graph.tensor<4x3x2xf32>, %y: !graph.tensor<4x2x4xf32>) -> !graph.tensor<4x3x4xf32> {
  %m = graph.matmul %x, %y : (!graph.tensor<4x3x2xf32>, !graph.tensor<4x2x4xf32>) -> !graph.tensor<4x3x4xf32>
  func.return %m : !graph.tensor<4x3x4xf32>
}

// -----

// An elementwise kernel merges too, from the innermost pair outwards until one would divide: a relu over a
// channel shuffle of 6x6 points builds the points as one range of 36 (LLVM vectorizes one loop of 36, where a
// loop of 6 stayed scalar), the shuffled channels as two ranges (4 x 2, a range split), not merged with the points.
// CHECK-LABEL: kernel.kernel @shuffled_e0
// CHECK:         %[[C36:.*]] = kernel.const 36 : index
// CHECK-NEXT:    kernel.range %[[C36]] global
// CHECK-NOT:     kernel.range
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.max
// CHECK:         kernel.store
func.func @shuffled(%x: !graph.tensor<1x8x6x6xf32>) -> !graph.tensor<1x8x6x6xf32> {
  %t = graph.reshape %x : (!graph.tensor<1x8x6x6xf32>) -> !graph.tensor<1x2x4x6x6xf32>
  %p = graph.permute %t {perm = array<i64: 0, 2, 1, 3, 4>} : (!graph.tensor<1x2x4x6x6xf32>) -> !graph.tensor<1x4x2x6x6xf32>
  %r = graph.reshape %p : (!graph.tensor<1x4x2x6x6xf32>) -> !graph.tensor<1x8x6x6xf32>
  %y = graph.relu %r : !graph.tensor<1x8x6x6xf32>
  func.return %y : !graph.tensor<1x8x6x6xf32>
}

// -----

// Elementwise kernels too: a residual block's epilogue (the slice of a conv's padded matmul output, a bias, the
// shortcut and a relu) walks the 3x4 points as one range of 12, contiguous in the shortcut and the store. Over
// rows of 14 or 28 (ResNet-50's 14x14 and 28x28 stages) LLVM vectorized each row with a scalar remainder.
// CHECK-LABEL: kernel.kernel @residual_e1
// CHECK:         %[[C4:.*]] = kernel.const 4 : index
// CHECK-NEXT:    %[[O:.*]] = kernel.range %[[C4]] global
// CHECK-NEXT:    %[[C12:.*]] = kernel.const 12 : index
// CHECK-NEXT:    %[[P:.*]] = kernel.range %[[C12]] global
// CHECK-NOT:     kernel.range
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @residual(%a: !graph.tensor<4x16xf32>, %b: !graph.tensor<4x1x1xf32>, %r: !graph.tensor<4x3x4xf32>) -> !graph.tensor<4x3x4xf32> {
  %c = graph.contiguous %a : !graph.tensor<4x16xf32>
  %s = graph.shrink %c {start = array<i64: 0, 0>, limit = array<i64: 4, 12>, step = array<i64: 1, 1>} : (!graph.tensor<4x16xf32>) -> !graph.tensor<4x12xf32>
  %v = graph.reshape %s : (!graph.tensor<4x12xf32>) -> !graph.tensor<4x3x4xf32>
  %x = graph.add %v, %b : (!graph.tensor<4x3x4xf32>, !graph.tensor<4x1x1xf32>) -> !graph.tensor<4x3x4xf32>
  %y = graph.add %x, %r : (!graph.tensor<4x3x4xf32>, !graph.tensor<4x3x4xf32>) -> !graph.tensor<4x3x4xf32>
  %z = graph.relu %y : !graph.tensor<4x3x4xf32>
  func.return %z : !graph.tensor<4x3x4xf32>
}

// -----

// A transposing copy keeps its two ranges: merged, its load would divide the point by the rows.
// CHECK-LABEL: kernel.kernel @transpose_e0
// CHECK:         kernel.range %{{.*}} global
// CHECK-NEXT:    kernel.const 3 : index
// CHECK-NEXT:    kernel.range %{{.*}} global
// CHECK-NOT:     kernel.idiv
// CHECK-NOT:     kernel.mod
// CHECK:         kernel.store
func.func @transpose(%a: !graph.tensor<3x4xf32>) -> !graph.tensor<4x3xf32> {
  %p = graph.permute %a {perm = array<i64: 1, 0>} : (!graph.tensor<3x4xf32>) -> !graph.tensor<4x3xf32>
  %c = graph.contiguous %p : !graph.tensor<4x3xf32>
  func.return %c : !graph.tensor<4x3xf32>
}
