// RUN: kiln-opt %s --split-input-file -p 'graph-pack-matmul{target=cpu-llvm}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-pack-matmul{target=cpu-llvm},lower-to-kernel' | filecheck %s --check-prefix=KERNEL
// RUN: kiln-opt %s --split-input-file -p 'graph-pack-matmul{target=cuda}' | filecheck %s --check-prefix=GPU
// RUN: not kiln-opt %s --split-input-file -p 'graph-pack-matmul{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// The panel width w is the heuristic's register tile width (2 vectors of the host: 32 f32 with AVX-512), so the
// checks capture it.

// A 1024 x 1024 f32 B (4 MiB): copied into N/w panels of K x w, read back through the inverse permute/reshape.
// CHECK-LABEL: func.func @large
// CHECK-NEXT:    %[[S:.*]] = graph.reshape %b : (!graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x[[P:[0-9]+]]x[[W:[0-9]+]]xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[S]] {perm = array<i64: 1, 0, 2>} : (!graph.tensor<1024x[[P]]x[[W]]xf32>) -> !graph.tensor<[[P]]x1024x[[W]]xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[T]] : !graph.tensor<[[P]]x1024x[[W]]xf32>
// CHECK-NEXT:    %[[U:.*]] = graph.permute %[[C]] {perm = array<i64: 1, 0, 2>} : (!graph.tensor<[[P]]x1024x[[W]]xf32>) -> !graph.tensor<1024x[[P]]x[[W]]xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %[[U]] : (!graph.tensor<1024x[[P]]x[[W]]xf32>) -> !graph.tensor<1024x1024xf32>
// CHECK-NEXT:    %r = graph.matmul %a, %[[B]]
// The matmul kernel reads the panels with plain strides: its column range is built as panel x lane ranges,
// the panel range outermost, so the register tile is the usual one.
// KERNEL-LABEL: kernel.kernel @large_e0
// KERNEL:       kernel.kernel @large_r1
// KERNEL-SAME:    inputs = ["output", "arg", "contiguous"]
// KERNEL:         %[[P:.*]] = kernel.range %{{.*}} global
// KERNEL:         %[[I:.*]] = kernel.range %[[N:.*]] global
// KERNEL:         %[[L:.*]] = kernel.range %{{.*}} global
// KERNEL:         %[[K:.*]] = kernel.range %[[N]] reduce
// KERNEL-NOT:     kernel.idiv
// KERNEL-NOT:     kernel.mod
// KERNEL:         kernel.reduce add %{{.*}} over %[[K]]
// GPU-LABEL: func.func @large
// GPU-NEXT:    %r = graph.matmul %a, %b
func.func @large(%a: !graph.tensor<1024x1024xf32>, %b: !graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x1024xf32> {
  %r = graph.matmul %a, %b : (!graph.tensor<1024x1024xf32>, !graph.tensor<1024x1024xf32>) -> !graph.tensor<1024x1024xf32>
  func.return %r : !graph.tensor<1024x1024xf32>
}

// -----

// A 512 x 512 f32 B (1 MiB, over a quarter of the 1 MiB L2) is packed: with the 4-row tile of an AVX2 host
// its panels thrash.
// CHECK-LABEL: func.func @one_mib
// CHECK:         graph.contiguous
// CHECK:         graph.matmul
func.func @one_mib(%a: !graph.tensor<512x512xf32>, %b: !graph.tensor<512x512xf32>) -> !graph.tensor<512x512xf32> {
  %r = graph.matmul %a, %b : (!graph.tensor<512x512xf32>, !graph.tensor<512x512xf32>) -> !graph.tensor<512x512xf32>
  func.return %r : !graph.tensor<512x512xf32>
}

// -----

// Small matmuls stay as they are: B fits in L2 (128 x 256 f32 is 128 KiB) and fewer than 512 rows share it, or too
// few rows of A share B (a copy of B would cost as much as the matmul), or N is not a multiple of w, or B is a
// vector.
// CHECK-LABEL: func.func @small
// CHECK-NOT:   graph.contiguous
// CHECK:       func.return
func.func @small(%a: !graph.tensor<256x128xf32>, %b: !graph.tensor<128x256xf32>, %v: !graph.tensor<8x2048xf32>,
                 %w: !graph.tensor<2048x2048xf32>, %x: !graph.tensor<2048x1000xf32>, %y: !graph.tensor<2048xf32>)
    -> (!graph.tensor<256x256xf32>, !graph.tensor<8x2048xf32>, !graph.tensor<2048x1000xf32>, !graph.tensor<2048xf32>) {
  %r = graph.matmul %a, %b : (!graph.tensor<256x128xf32>, !graph.tensor<128x256xf32>) -> !graph.tensor<256x256xf32>
  %s = graph.matmul %v, %w : (!graph.tensor<8x2048xf32>, !graph.tensor<2048x2048xf32>) -> !graph.tensor<8x2048xf32>
  %t = graph.matmul %w, %x : (!graph.tensor<2048x2048xf32>, !graph.tensor<2048x1000xf32>) -> !graph.tensor<2048x1000xf32>
  %u = graph.matmul %w, %y : (!graph.tensor<2048x2048xf32>, !graph.tensor<2048xf32>) -> !graph.tensor<2048xf32>
  func.return %r, %s, %t, %u : !graph.tensor<256x256xf32>, !graph.tensor<8x2048xf32>, !graph.tensor<2048x1000xf32>, !graph.tensor<2048xf32>
}

// -----

// With 512 rows or more, a B of 128 KiB or more that computes something (here relu(b), as a previous conv's
// bias and relu) is packed too: each of the 64 row tiles would compute it again. A plain one of that size is
// not (an argument, or a 64 KiB relu).
// CHECK-LABEL: func.func @many_rows
// CHECK:         %[[R:.*]] = graph.relu %b
// CHECK:         graph.reshape %[[R]]
// CHECK:         graph.contiguous %{{.*}} : !graph.tensor<{{[0-9]+}}x128x{{[0-9]+}}xf32>
// CHECK:         graph.matmul %a, %{{.*}} : (!graph.tensor<512x128xf32>, !graph.tensor<128x256xf32>)
// CHECK-NOT:     graph.contiguous
// CHECK:         graph.matmul %a, %b : (!graph.tensor<512x128xf32>, !graph.tensor<128x256xf32>)
// CHECK-NOT:     graph.contiguous
// CHECK:         graph.matmul %c, %{{.*}} : (!graph.tensor<512x64xf32>, !graph.tensor<64x256xf32>)
func.func @many_rows(%a: !graph.tensor<512x128xf32>, %b: !graph.tensor<128x256xf32>, %c: !graph.tensor<512x64xf32>,
                     %d: !graph.tensor<64x256xf32>)
    -> (!graph.tensor<512x256xf32>, !graph.tensor<512x256xf32>, !graph.tensor<512x256xf32>) {
  %rb = graph.relu %b : !graph.tensor<128x256xf32>
  %r = graph.matmul %a, %rb : (!graph.tensor<512x128xf32>, !graph.tensor<128x256xf32>) -> !graph.tensor<512x256xf32>
  %s = graph.matmul %a, %b : (!graph.tensor<512x128xf32>, !graph.tensor<128x256xf32>) -> !graph.tensor<512x256xf32>
  %rd = graph.relu %d : !graph.tensor<64x256xf32>
  %t = graph.matmul %c, %rd : (!graph.tensor<512x64xf32>, !graph.tensor<64x256xf32>) -> !graph.tensor<512x256xf32>
  func.return %r, %s, %t : !graph.tensor<512x256xf32>, !graph.tensor<512x256xf32>, !graph.tensor<512x256xf32>
}

// -----

// Symbolic dims are judged by their lower bounds: K >= 512 with N = 1024 is at least 2 MiB (the threshold is 256 KiB) and M >= 64 rows, so
// B is packed (K stays symbolic in the panels); with a batch of possibly one row (B of @maybe_one) it is not.
// The kernel has no div/mod: neither on A's [M, K] -> [M, 1, K] reshape nor on the panels (an index
// `(i*K + k) // K` with k a range of size K folds to i).
// CHECK-LABEL: func.func @symbolic
// CHECK-NEXT:    %[[S:.*]] = graph.reshape %b : (!graph.tensor<Kx1024xf32>) -> !graph.tensor<Kx[[P:[0-9]+]]x[[W:[0-9]+]]xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[S]] {perm = array<i64: 1, 0, 2>} : (!graph.tensor<Kx[[P]]x[[W]]xf32>) -> !graph.tensor<[[P]]xKx[[W]]xf32>
// CHECK-NEXT:    graph.contiguous %[[T]] : !graph.tensor<[[P]]xKx[[W]]xf32>
// KERNEL-LABEL: kernel.kernel @symbolic_r1
// KERNEL-NOT:     kernel.idiv
// KERNEL-NOT:     kernel.mod
// KERNEL:         kernel.reduce
func.func @symbolic(%a: !graph.tensor<MxKxf32>, %b: !graph.tensor<Kx1024xf32>) -> !graph.tensor<Mx1024xf32>
    attributes {graph.dims = #graph.dims<M = [64, 4096], K = [512, 4096]>} {
  %r = graph.matmul %a, %b : (!graph.tensor<MxKxf32>, !graph.tensor<Kx1024xf32>) -> !graph.tensor<Mx1024xf32>
  func.return %r : !graph.tensor<Mx1024xf32>
}

// -----

// CHECK-LABEL: func.func @maybe_one
// CHECK-NEXT:    %r = graph.matmul %a, %b
func.func @maybe_one(%a: !graph.tensor<Mx1024xf32>, %b: !graph.tensor<1024x1024xf32>) -> !graph.tensor<Mx1024xf32>
    attributes {graph.dims = #graph.dims<M = [1, 4096]>} {
  %r = graph.matmul %a, %b : (!graph.tensor<Mx1024xf32>, !graph.tensor<1024x1024xf32>) -> !graph.tensor<Mx1024xf32>
  func.return %r : !graph.tensor<Mx1024xf32>
}

// -----

// B is a copy (only this matmul reads it) of a reshape merging [64, 4, 256] into 1024 columns: 256 is a multiple
// of the panel width, so the panels are copied from that view directly (one copy, not two; @v's copy is gone).
// Where a panel would straddle rows of the source (@straddle: rows of 8) or the copy has another reader
// (@shared), B is packed from the copy.
// CHECK-LABEL: func.func @view
// CHECK-NEXT:    %[[V:.*]] = graph.reshape %b : (!graph.tensor<64x4x256xf32>) -> !graph.tensor<64x1024xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.reshape %[[V]] : (!graph.tensor<64x1024xf32>) -> !graph.tensor<64x[[P:[0-9]+]]x[[W:[0-9]+]]xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[S]]
// CHECK-NEXT:    graph.contiguous %[[T]] : !graph.tensor<[[P]]x64x[[W]]xf32>
// CHECK-NOT:     graph.contiguous
// CHECK:         graph.matmul
// CHECK-LABEL: func.func @straddle
// CHECK:         %[[C:.*]] = graph.contiguous %{{.*}} : !graph.tensor<64x1024xf32>
// CHECK-NEXT:    graph.reshape %[[C]]
// CHECK-LABEL: func.func @shared
// CHECK:         %[[C:.*]] = graph.contiguous %{{.*}} : !graph.tensor<64x1024xf32>
// CHECK-NEXT:    graph.reshape %[[C]]
func.func @view(%a: !graph.tensor<128x64xf32>, %b: !graph.tensor<64x4x256xf32>) -> !graph.tensor<128x1024xf32> {
  %v = graph.reshape %b : (!graph.tensor<64x4x256xf32>) -> !graph.tensor<64x1024xf32>
  %c = graph.contiguous %v : !graph.tensor<64x1024xf32>
  %r = graph.matmul %a, %c : (!graph.tensor<128x64xf32>, !graph.tensor<64x1024xf32>) -> !graph.tensor<128x1024xf32>
  func.return %r : !graph.tensor<128x1024xf32>
}
func.func @straddle(%a: !graph.tensor<128x64xf32>, %b: !graph.tensor<64x128x8xf32>) -> !graph.tensor<128x1024xf32> {
  %v = graph.reshape %b : (!graph.tensor<64x128x8xf32>) -> !graph.tensor<64x1024xf32>
  %c = graph.contiguous %v : !graph.tensor<64x1024xf32>
  %r = graph.matmul %a, %c : (!graph.tensor<128x64xf32>, !graph.tensor<64x1024xf32>) -> !graph.tensor<128x1024xf32>
  func.return %r : !graph.tensor<128x1024xf32>
}
func.func @shared(%a: !graph.tensor<128x64xf32>, %b: !graph.tensor<64x4x256xf32>) -> (!graph.tensor<128x1024xf32>, !graph.tensor<64x1024xf32>) {
  %v = graph.reshape %b : (!graph.tensor<64x4x256xf32>) -> !graph.tensor<64x1024xf32>
  %c = graph.contiguous %v : !graph.tensor<64x1024xf32>
  %r = graph.matmul %a, %c : (!graph.tensor<128x64xf32>, !graph.tensor<64x1024xf32>) -> !graph.tensor<128x1024xf32>
  func.return %r, %c : !graph.tensor<128x1024xf32>, !graph.tensor<64x1024xf32>
}

// BAD: graph-pack-matmul: unknown target 'tpu'
