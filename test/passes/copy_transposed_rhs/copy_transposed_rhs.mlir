// RUN: kiln-opt %s --split-input-file -p 'graph-copy-transposed-rhs{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-copy-transposed-rhs{target=cpu-llvm},lower-to-kernel,kernel-optimize{target=cpu-llvm}' | filecheck %s --check-prefix=TILE
// RUN: kiln-opt %s --split-input-file -p 'lower-to-kernel,kernel-optimize{target=cpu-llvm}' | filecheck %s --check-prefix=BEFORE
// RUN: kiln-opt %s --split-input-file -p 'graph-pack-matmul{target=cpu-llvm},graph-copy-transposed-rhs{target=cpu-llvm}' | filecheck %s --check-prefix=PACKED
// RUN: kiln-opt %s --split-input-file -p 'graph-copy-transposed-rhs{target=cuda}' | filecheck %s --check-prefix=GPU
// RUN: not kiln-opt %s --split-input-file -p 'graph-copy-transposed-rhs{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// Attention's scores q @ k^T, 8 heads: k^T is written once, in graph-pack-matmul's column panels of the register
// tile's width w (512 columns are a multiple of it), and read back through the inverse permute/reshape.
// CHECK-LABEL: func.func @scores
// CHECK-NEXT:    %kt = graph.permute %k {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    %[[S:.*]] = graph.reshape %kt : (!graph.tensor<8x64x512xf32>) -> !graph.tensor<8x64x[[P:[0-9]+]]x[[W:[0-9]+]]xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[S]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[T]] : !graph.tensor<8x[[P]]x64x[[W]]xf32>
// CHECK-NEXT:    %[[U:.*]] = graph.permute %[[C]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %[[U]] : (!graph.tensor<8x64x[[P]]x[[W]]xf32>) -> !graph.tensor<8x64x512xf32>
// CHECK-NEXT:    %s = graph.matmul %q, %[[B]]
// The scores kernel then has a vector axis: the usual register tile, rows (axis 2) x two vectors of a panel's
// lanes (axis 3), where the permuted B left only the 8 x 8 tile of scalar accumulators.
// TILE-LABEL: kernel.kernel @scores_e0
// TILE-SAME:    inputs = ["output", "arg"]
// TILE-LABEL: kernel.kernel @scores_r1
// TILE-SAME:    inputs = ["output", "arg", "contiguous"]
// TILE-SAME:    opts = ["upcast:3:{{[0-9]+}}", "upcast:3:2", "upcast:2:{{[0-9]+}}"]
// BEFORE-LABEL: kernel.kernel @scores_r0
// BEFORE-SAME:    opts = ["upcast:1:8", "upcast:2:8"]
// GPU-LABEL: func.func @scores
// GPU-NOT:     graph.contiguous
// GPU:         func.return
func.func @scores(%q: !graph.tensor<8x512x64xf32>, %k: !graph.tensor<8x512x64xf32>) -> !graph.tensor<8x512x512xf32> {
  %kt = graph.permute %k {perm = array<i64: 0, 2, 1>} : (!graph.tensor<8x512x64xf32>) -> !graph.tensor<8x64x512xf32>
  %s = graph.matmul %q, %kt : (!graph.tensor<8x512x64xf32>, !graph.tensor<8x64x512xf32>) -> !graph.tensor<8x512x512xf32>
  func.return %s : !graph.tensor<8x512x512xf32>
}

// -----

// x @ w^T (a Gemm with transB) over 256 rows, 40 columns (not a multiple of w: a row-major copy); one copy however
// many matmuls read the same permuted w.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT:    %wt = graph.permute %w
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %wt : !graph.tensor<96x40xf32>
// CHECK-NEXT:    %y = graph.matmul %x, %[[C]]
// CHECK-NEXT:    %z = graph.matmul %x, %[[C]]
// CHECK-NOT:     graph.contiguous
func.func @linear(%x: !graph.tensor<256x96xf32>, %w: !graph.tensor<40x96xf32>) -> (!graph.tensor<256x40xf32>, !graph.tensor<256x40xf32>) {
  %wt = graph.permute %w {perm = array<i64: 1, 0>} : (!graph.tensor<40x96xf32>) -> !graph.tensor<96x40xf32>
  %y = graph.matmul %x, %wt : (!graph.tensor<256x96xf32>, !graph.tensor<96x40xf32>) -> !graph.tensor<256x40xf32>
  %z = graph.matmul %x, %wt : (!graph.tensor<256x96xf32>, !graph.tensor<96x40xf32>) -> !graph.tensor<256x40xf32>
  func.return %y, %z : !graph.tensor<256x40xf32>, !graph.tensor<256x40xf32>
}

// -----

// Left alone: a matvec-like x @ w^T of one row (ResNet's classifier: the dot products along w's rows are the
// fast form, and a copy of w per call would cost more than the product), a permute that keeps the innermost
// axis last (heads swapped: columns still contiguous), a plain B, and a B of a single column.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   graph.contiguous
// CHECK:       func.return
func.func @left_alone(%x: !graph.tensor<1x2048xf32>, %w: !graph.tensor<1000x2048xf32>, %a: !graph.tensor<4x128x32xf32>,
                      %b: !graph.tensor<32x4x64xf32>, %c: !graph.tensor<128x32xf32>, %d: !graph.tensor<1x32xf32>,
                      %p: !graph.tensor<32x128xf32>)
    -> (!graph.tensor<1x1000xf32>, !graph.tensor<4x128x64xf32>, !graph.tensor<128x128xf32>, !graph.tensor<128x1xf32>) {
  %wt = graph.permute %w {perm = array<i64: 1, 0>} : (!graph.tensor<1000x2048xf32>) -> !graph.tensor<2048x1000xf32>
  %y = graph.matmul %x, %wt : (!graph.tensor<1x2048xf32>, !graph.tensor<2048x1000xf32>) -> !graph.tensor<1x1000xf32>
  %bh = graph.permute %b {perm = array<i64: 1, 0, 2>} : (!graph.tensor<32x4x64xf32>) -> !graph.tensor<4x32x64xf32>
  %z = graph.matmul %a, %bh : (!graph.tensor<4x128x32xf32>, !graph.tensor<4x32x64xf32>) -> !graph.tensor<4x128x64xf32>
  %u = graph.matmul %c, %p : (!graph.tensor<128x32xf32>, !graph.tensor<32x128xf32>) -> !graph.tensor<128x128xf32>
  %dt = graph.permute %d {perm = array<i64: 1, 0>} : (!graph.tensor<1x32xf32>) -> !graph.tensor<32x1xf32>
  %v = graph.matmul %c, %dt : (!graph.tensor<128x32xf32>, !graph.tensor<32x1xf32>) -> !graph.tensor<128x1xf32>
  func.return %y, %z, %u, %v : !graph.tensor<1x1000xf32>, !graph.tensor<4x128x64xf32>, !graph.tensor<128x128xf32>, !graph.tensor<128x1xf32>
}

// -----

// Symbolic rows count with their lower bound: a batch of possibly one row is not worth a copy of w.
// CHECK-LABEL: func.func @symbolic
// CHECK-NEXT:    %wt = graph.permute %w
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %wt
// CHECK-NEXT:    %y = graph.matmul %x, %[[C]]
// CHECK-NEXT:    %z = graph.matmul %u, %wt
func.func @symbolic(%x: !graph.tensor<Mx96xf32>, %u: !graph.tensor<Nx96xf32>, %w: !graph.tensor<40x96xf32>)
    -> (!graph.tensor<Mx40xf32>, !graph.tensor<Nx40xf32>) attributes {graph.dims = #graph.dims<M = [64, 4096], N = [1, 4096]>} {
  %wt = graph.permute %w {perm = array<i64: 1, 0>} : (!graph.tensor<40x96xf32>) -> !graph.tensor<96x40xf32>
  %y = graph.matmul %x, %wt : (!graph.tensor<Mx96xf32>, !graph.tensor<96x40xf32>) -> !graph.tensor<Mx40xf32>
  %z = graph.matmul %u, %wt : (!graph.tensor<Nx96xf32>, !graph.tensor<96x40xf32>) -> !graph.tensor<Nx40xf32>
  func.return %y, %z : !graph.tensor<Mx40xf32>, !graph.tensor<Nx40xf32>
}

// -----

// A transposed B large enough for graph-pack-matmul (4 MiB) is written once, into panels, straight from the
// permuted view: the pass, which runs after it, adds no second copy.
// PACKED-LABEL: func.func @packed
// PACKED-NEXT:    %wt = graph.permute %w
// PACKED-NEXT:    graph.reshape %wt
// PACKED-NEXT:    graph.permute
// PACKED-NEXT:    graph.contiguous
// PACKED-NOT:     graph.contiguous
// PACKED:         func.return
func.func @packed(%x: !graph.tensor<1024x1024xf32>, %w: !graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x1024xf32> {
  %wt = graph.permute %w {perm = array<i64: 1, 0>} : (!graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x1024xf32>
  %y = graph.matmul %x, %wt : (!graph.tensor<1024x1024xf32>, !graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x1024xf32>
  func.return %y : !graph.tensor<1024x1024xf32>
}

// BAD: graph-copy-transposed-rhs: unknown target 'tpu'
