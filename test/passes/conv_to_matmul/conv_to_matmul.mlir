// RUN: kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=cuda}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=cuda},graph-pack-matmul{target=cpu-llvm},lower-to-kernel' | filecheck %s --check-prefix=KERNEL
// RUN: kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=cpu-llvm}' | filecheck %s --check-prefix=ROWPAD
// RUN: not kiln-opt %s --split-input-file -p 'graph-conv-to-matmul{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD

// The output points are padded to a multiple of the register tile's two vectors of the target (one vector when
// two would waste more than a quarter): cuda's 4 f32 lanes here (the CPU pipelines pass their own target), so
// the checks do not depend on the host.

// BAD: graph-conv-to-matmul: unknown target 'tpu'

// 1x1 at stride 1 without padding: the filter [O, C] times the input viewed as [N, C, H*W]; no copy. The
// matmul's kernel builds H and W as one range of H*W (the merged output range).
// CHECK-LABEL: func.func @pointwise
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (!graph.tensor<16x8x1x1xf32>) -> !graph.tensor<16x8xf32>
// CHECK-NEXT:    %[[X:.*]] = graph.reshape %x : (!graph.tensor<2x8x8x8xf32>) -> !graph.tensor<2x8x64xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[W]], %[[X]] : (!graph.tensor<16x8xf32>, !graph.tensor<2x8x64xf32>) -> !graph.tensor<2x16x64xf32>
// CHECK-NEXT:    %r = graph.reshape %[[M]] : (!graph.tensor<2x16x64xf32>) -> !graph.tensor<2x16x8x8xf32>
// CHECK-NEXT:    func.return %r
// KERNEL-LABEL: kernel.kernel @pointwise_r0
// KERNEL-NEXT:    kernel.const 2 : index
// KERNEL-NEXT:    kernel.range
// KERNEL-NEXT:    kernel.const 16 : index
// KERNEL-NEXT:    kernel.range
// KERNEL-NEXT:    kernel.const 64 : index
// KERNEL-NEXT:    kernel.range
// KERNEL-NEXT:    kernel.const 8 : index
// KERNEL-NEXT:    kernel.range %{{.*}} reduce
// KERNEL-NOT:     kernel.idiv
// KERNEL-NOT:     kernel.mod
// KERNEL:         kernel.store
func.func @pointwise(%x: !graph.tensor<2x8x8x8xf32>, %w: !graph.tensor<16x8x1x1xf32>) -> !graph.tensor<2x16x8x8xf32> {
  %r = graph.conv2d %x, %w : (!graph.tensor<2x8x8x8xf32>, !graph.tensor<16x8x1x1xf32>) -> !graph.tensor<2x16x8x8xf32>
  func.return %r : !graph.tensor<2x16x8x8xf32>
}

// -----

// A 1x1 over 9x9 = 81 points whose B graph-pack-matmul will copy into panels (64 filters share 1024 x 88 f32, 352
// KiB): the input is copied with 7 zero columns (88 = 11 x 2 vectors of 4), the matmul's padded result realized
// and sliced back to 81 points (panels are whole). With 16 filters B stays unpacked (@pointwise_unpacked): the
// points are not padded, the register tile pads its vector axis itself (its last vector moved back), and no
// copy or slice is made.
// CHECK-LABEL: func.func @pointwise_padded
// CHECK:         %[[X:.*]] = graph.reshape %x : (!graph.tensor<2x1024x9x9xf32>) -> !graph.tensor<2x1024x81xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.pad %[[X]] {low = array<i64: 0, 0, 0>, high = array<i64: 0, 0, 7>, value = 0.000000e+00 : f32} : (!graph.tensor<2x1024x81xf32>) -> !graph.tensor<2x1024x88xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[P]] : !graph.tensor<2x1024x88xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %{{.*}}, %[[C]] : (!graph.tensor<64x1024xf32>, !graph.tensor<2x1024x88xf32>) -> !graph.tensor<2x64x88xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.contiguous %[[M]] : !graph.tensor<2x64x88xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.shrink %[[Y]] {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 64, 81>, step = array<i64: 1, 1, 1>}
// CHECK-NEXT:    %r = graph.reshape %[[S]] : (!graph.tensor<2x64x81xf32>) -> !graph.tensor<2x64x9x9xf32>
// CHECK-LABEL: func.func @pointwise_unpacked
// CHECK-NEXT:    graph.reshape %w
// CHECK-NEXT:    %[[X:.*]] = graph.reshape %x : (!graph.tensor<2x1024x9x9xf32>) -> !graph.tensor<2x1024x81xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %{{.*}}, %[[X]] : (!graph.tensor<16x1024xf32>, !graph.tensor<2x1024x81xf32>) -> !graph.tensor<2x16x81xf32>
// CHECK-NEXT:    %r = graph.reshape %[[M]] : (!graph.tensor<2x16x81xf32>) -> !graph.tensor<2x16x9x9xf32>
func.func @pointwise_padded(%x: !graph.tensor<2x1024x9x9xf32>, %w: !graph.tensor<64x1024x1x1xf32>) -> !graph.tensor<2x64x9x9xf32> {
  %r = graph.conv2d %x, %w : (!graph.tensor<2x1024x9x9xf32>, !graph.tensor<64x1024x1x1xf32>) -> !graph.tensor<2x64x9x9xf32>
  func.return %r : !graph.tensor<2x64x9x9xf32>
}
func.func @pointwise_unpacked(%x: !graph.tensor<2x1024x9x9xf32>, %w: !graph.tensor<16x1024x1x1xf32>) -> !graph.tensor<2x16x9x9xf32> {
  %r = graph.conv2d %x, %w : (!graph.tensor<2x1024x9x9xf32>, !graph.tensor<16x1024x1x1xf32>) -> !graph.tensor<2x16x9x9xf32>
  func.return %r : !graph.tensor<2x16x9x9xf32>
}

// -----

// 3x3, stride 2, padding 1, with a bias and a relu: im2col (the zero-padded windows as [N, C*KH*KW, OH*OW],
// made contiguous), the matmul, the bias. Two kernels: the im2col copy, and the matmul with the bias and the
// relu fused into its output.
// CHECK-LABEL: func.func @strided
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (!graph.tensor<16x8x3x3xf32>) -> !graph.tensor<16x72xf32>
// CHECK-NEXT:    graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32}
// CHECK:         %[[WIN:.*]] = graph.shrink {{.*}} -> !graph.tensor<2x8x3x8x3x8xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.permute %[[WIN]] {perm = array<i64: 0, 1, 2, 4, 3, 5>} : (!graph.tensor<2x8x3x8x3x8xf32>) -> !graph.tensor<2x8x3x3x8x8xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.reshape %[[T]] : (!graph.tensor<2x8x3x3x8x8xf32>) -> !graph.tensor<2x72x64xf32>
// CHECK-NEXT:    %[[COLS:.*]] = graph.contiguous %[[C]] : !graph.tensor<2x72x64xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[W]], %[[COLS]] : (!graph.tensor<16x72xf32>, !graph.tensor<2x72x64xf32>) -> !graph.tensor<2x16x64xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.reshape %[[M]] : (!graph.tensor<2x16x64xf32>) -> !graph.tensor<2x16x8x8xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %b : (!graph.tensor<16xf32>) -> !graph.tensor<16x1x1xf32>
// CHECK-NEXT:    %c = graph.add %[[Y]], %[[B]]
// CHECK-NEXT:    %r = graph.relu %c
// KERNEL-LABEL: kernel.kernel @strided_e0
// KERNEL-SAME:    inputs = ["output", "arg"]
// KERNEL:       kernel.kernel @strided_r1
// KERNEL-SAME:    inputs = ["output", "arg", "contiguous", "arg"]
// KERNEL:         kernel.reduce add
// KERNEL:         kernel.add
// KERNEL:         kernel.max
// KERNEL:         kernel.store
// KERNEL-NOT:   kernel.kernel @strided
func.func @strided(%x: !graph.tensor<2x8x15x15xf32>, %w: !graph.tensor<16x8x3x3xf32>, %b: !graph.tensor<16xf32>) -> !graph.tensor<2x16x8x8xf32> {
  %c = graph.conv2d %x, %w bias %b {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>} : (!graph.tensor<2x8x15x15xf32>, !graph.tensor<16x8x3x3xf32>, !graph.tensor<16xf32>) -> !graph.tensor<2x16x8x8xf32>
  %r = graph.relu %c : !graph.tensor<2x16x8x8xf32>
  func.return %r : !graph.tensor<2x16x8x8xf32>
}

// -----

// Groups: the filter as [G, O/G, C/G*KH*KW] against columns [N, G, C/G*KH*KW, OH*OW], a batched matmul (the
// 25 points unpadded: B is not packed). Depthwise convs (one input channel per filter) keep the direct form.
// CHECK-LABEL: func.func @grouped
// CHECK-NEXT:    %[[W:.*]] = graph.reshape %w : (!graph.tensor<16x4x3x3xf32>) -> !graph.tensor<2x8x36xf32>
// CHECK:         %[[COLS:.*]] = graph.contiguous %{{.*}} : !graph.tensor<2x2x36x25xf32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[W]], %[[COLS]] : (!graph.tensor<2x8x36xf32>, !graph.tensor<2x2x36x25xf32>) -> !graph.tensor<2x2x8x25xf32>
// CHECK-NEXT:    %g = graph.reshape %[[M]] : (!graph.tensor<2x2x8x25xf32>) -> !graph.tensor<2x16x5x5xf32>
// CHECK-NEXT:    %d = graph.conv2d %x, %wd
func.func @grouped(%x: !graph.tensor<2x8x9x9xf32>, %w: !graph.tensor<16x4x3x3xf32>, %wd: !graph.tensor<8x1x3x3xf32>) -> (!graph.tensor<2x16x5x5xf32>, !graph.tensor<2x8x9x9xf32>) {
  %g = graph.conv2d %x, %w {dilation = array<i64: 2, 2>, groups = 2 : i64} : (!graph.tensor<2x8x9x9xf32>, !graph.tensor<16x4x3x3xf32>) -> !graph.tensor<2x16x5x5xf32>
  %d = graph.conv2d %x, %wd {padding = array<i64: 1, 1>, groups = 8 : i64} : (!graph.tensor<2x8x9x9xf32>, !graph.tensor<8x1x3x3xf32>) -> !graph.tensor<2x8x9x9xf32>
  func.return %g, %d : !graph.tensor<2x16x5x5xf32>, !graph.tensor<2x8x9x9xf32>
}

// -----

// f16: computed in f32 (casts in, one cast out), as graph-decompose does; a symbolic batch rides along.
// CHECK-LABEL: func.func @half
// CHECK-DAG:     graph.cast %w : (!graph.tensor<8x4x3x3xf16>) -> !graph.tensor<8x4x3x3xf32>
// CHECK-DAG:     graph.cast %x : (!graph.tensor<Nx4x6x6xf16>) -> !graph.tensor<Nx4x6x6xf32>
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (!graph.tensor<8x36xf32>, !graph.tensor<Nx36x16xf32>) -> !graph.tensor<Nx8x16xf32>
// CHECK:         %r = graph.cast %{{.*}} : (!graph.tensor<Nx8x4x4xf32>) -> !graph.tensor<Nx8x4x4xf16>
func.func @half(%x: !graph.tensor<Nx4x6x6xf16>, %w: !graph.tensor<8x4x3x3xf16>) -> !graph.tensor<Nx8x4x4xf16> attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  %r = graph.conv2d %x, %w : (!graph.tensor<Nx4x6x6xf16>, !graph.tensor<8x4x3x3xf16>) -> !graph.tensor<Nx8x4x4xf16>
  func.return %r : !graph.tensor<Nx8x4x4xf16>
}

// -----

// A large im2col (16*9 x 64*64 f32, 2.4 MB) is packed into column panels by graph-pack-matmul, straight from
// the windows (64 output columns are a multiple of the panel width): one copy kernel writes the panels. The
// matmul's kernel merges the output rows and columns into one range, which the panels split into panel and
// lane ranges: no index division is left.
// KERNEL-LABEL: kernel.kernel @packed_e0
// KERNEL-SAME:    !kernel.buffer<1x{{[0-9]+}}x144x{{[0-9]+}}xf32>, %{{.*}}: !kernel.buffer<1x16x64x64xf32>
// KERNEL-LABEL: kernel.kernel @packed_r1
// KERNEL-SAME:    inputs = ["output", "arg", "contiguous"]
// KERNEL-NOT:     kernel.idiv
// KERNEL-NOT:     kernel.mod
// KERNEL:         kernel.reduce add
func.func @packed(%x: !graph.tensor<1x16x64x64xf32>, %w: !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x64x64xf32> {
  %r = graph.conv2d %x, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x16x64x64xf32>, !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x64x64xf32>
  func.return %r : !graph.tensor<1x64x64x64xf32>
}

// -----

// A computed input (here the previous layer's relu) is realized plain before its windows are taken: the im2col
// copy then indexes one NCHW buffer instead of recomputing the producer (and its padded, sliced layout) at
// every tap. Three kernels: the relu, the im2col copy, the matmul.
// CHECK-LABEL: func.func @computed_input
// CHECK-NEXT:    %h = graph.relu %x
// CHECK-NEXT:    graph.reshape %w
// CHECK-NEXT:    %[[P:.*]] = graph.contiguous %h : !graph.tensor<1x8x8x8xf32>
// CHECK-NEXT:    graph.pad %[[P]]
// KERNEL-LABEL: kernel.kernel @computed_input_e0
// KERNEL:         kernel.max
// KERNEL:       kernel.kernel @computed_input_e1
// KERNEL-SAME:    inputs = ["output", "contiguous"]
// KERNEL-NOT:     kernel.max
// KERNEL:       kernel.kernel @computed_input_r2
func.func @computed_input(%x: !graph.tensor<1x8x8x8xf32>, %w: !graph.tensor<16x8x3x3xf32>) -> !graph.tensor<1x16x8x8xf32> {
  %h = graph.relu %x : !graph.tensor<1x8x8x8xf32>
  %r = graph.conv2d %h, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x8x8x8xf32>, !graph.tensor<16x8x3x3xf32>) -> !graph.tensor<1x16x8x8xf32>
  func.return %r : !graph.tensor<1x16x8x8xf32>
}

// -----

// A depthwise conv keeps the direct form; a computed input is realized plain first (a channel shuffle or the
// previous layer's padded points would be recomputed at each tap through their index arithmetic), an argument
// or an input already realized is read as it is. On CPU targets a depthwise conv at unit stride reads a plain
// zero-padded copy of its input (its loads ungated: vectors along the rows); an elementwise input of realized
// values (the relu) is computed into that copy, and the result with its bias is realized.
// CHECK-LABEL: func.func @depthwise_input
// CHECK:         %[[R:.*]] = graph.relu %x
// CHECK-NEXT:    %[[P:.*]] = graph.contiguous %[[R]]
// CHECK-NEXT:    graph.conv2d %[[P]], %w
// CHECK-NEXT:    graph.conv2d %x, %w
// CHECK-NOT:     graph.contiguous
// ROWPAD-LABEL: func.func @depthwise_input
// ROWPAD:         %[[R:.*]] = graph.relu %x
// ROWPAD-NEXT:    %[[P:.*]] = graph.pad %[[R]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>, value = 0.000000e+00 : f32} : (!graph.tensor<1x8x10x10xf32>) -> !graph.tensor<1x8x12x12xf32>
// ROWPAD-NEXT:    graph.contiguous %[[P]] : !graph.tensor<1x8x12x12xf32>
// ROWPAD:         graph.reduce_sum
// ROWPAD:         %[[C:.*]] = graph.contiguous %{{.*}} : !graph.tensor<1x8x10x10xf32>
// ROWPAD:         graph.pad %x {low = array<i64: 0, 0, 1, 1>
// ROWPAD-NOT:     graph.conv2d
func.func @depthwise_input(%x: !graph.tensor<1x8x10x10xf32>, %w: !graph.tensor<8x1x3x3xf32>) -> (!graph.tensor<1x8x10x10xf32>, !graph.tensor<1x8x10x10xf32>) {
  %r = graph.relu %x : !graph.tensor<1x8x10x10xf32>
  %c = graph.conv2d %r, %w {padding = array<i64: 1, 1>, groups = 8 : i64} : (!graph.tensor<1x8x10x10xf32>, !graph.tensor<8x1x3x3xf32>) -> !graph.tensor<1x8x10x10xf32>
  %d = graph.conv2d %x, %w {padding = array<i64: 1, 1>, groups = 8 : i64} : (!graph.tensor<1x8x10x10xf32>, !graph.tensor<8x1x3x3xf32>) -> !graph.tensor<1x8x10x10xf32>
  func.return %c, %d : !graph.tensor<1x8x10x10xf32>, !graph.tensor<1x8x10x10xf32>
}

// -----

// CPU targets: an im2col whose 56 output columns straddle the panels (16 or 32 f32) gets 8 more columns per row,
// read from 8 more zero columns of the padded input (64 = 4 or 2 panels; 16 at stride 2), so graph-pack-matmul
// copies the panels straight from the windows; the padded result is realized and sliced back to 56 columns. 64
// filters: the padding's extra matmul work costs less than the copy it saves (@wide, 256 filters, keeps 56
// columns). At stride 2: a stride-1 conv with 64 filters takes the direct form (@direct), flat when its rows
// are wide (flat_direct.mlir).
// CHECK-LABEL: func.func @row_padded
// KERNEL-LABEL: kernel.kernel @row_padded
// ROWPAD-LABEL: func.func @row_padded
// ROWPAD:         graph.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 17>
// ROWPAD:         %[[C:.*]] = graph.contiguous %{{.*}} : !graph.tensor<1x144x3584xf32>
// ROWPAD-NEXT:    %[[M:.*]] = graph.matmul %{{.*}}, %[[C]] : (!graph.tensor<64x144xf32>, !graph.tensor<1x144x3584xf32>) -> !graph.tensor<1x64x3584xf32>
// ROWPAD-NEXT:    %[[R:.*]] = graph.contiguous %[[M]] : !graph.tensor<1x64x3584xf32>
// ROWPAD-NEXT:    %[[V:.*]] = graph.reshape %[[R]] : (!graph.tensor<1x64x3584xf32>) -> !graph.tensor<1x64x56x64xf32>
// ROWPAD-NEXT:    %r = graph.shrink %[[V]] {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 64, 56, 56>
// ROWPAD-LABEL: func.func @wide
// ROWPAD:         graph.matmul %{{.*}}, %{{.*}} : (!graph.tensor<256x144xf32>, !graph.tensor<1x144x3136xf32>)
func.func @row_padded(%x: !graph.tensor<1x16x112x112xf32>, %w: !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x56x56xf32> {
  %r = graph.conv2d %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x16x112x112xf32>, !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x56x56xf32>
  func.return %r : !graph.tensor<1x64x56x56xf32>
}
func.func @wide(%x: !graph.tensor<1x16x112x112xf32>, %w: !graph.tensor<256x16x3x3xf32>) -> !graph.tensor<1x256x56x56xf32> {
  %r = graph.conv2d %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x16x112x112xf32>, !graph.tensor<256x16x3x3xf32>) -> !graph.tensor<1x256x56x56xf32>
  func.return %r : !graph.tensor<1x256x56x56xf32>
}

// -----

// A pool's result is realized plain before the matmul reads it (its copy into panels would otherwise divide
// each lane by the row width to find the pool's point); an elementwise producer (the relu) is not.
// CHECK-LABEL: func.func @after_pool
// CHECK:         %[[P:.*]] = graph.max_pool2d %x
// CHECK-NEXT:    %[[C:.*]] = graph.contiguous %[[P]] : !graph.tensor<2x8x8x8xf32>
// CHECK:         graph.reshape %[[C]] : (!graph.tensor<2x8x8x8xf32>) -> !graph.tensor<2x8x64xf32>
// CHECK:         %[[R:.*]] = graph.relu
// CHECK-NOT:     graph.contiguous %[[R]]
// CHECK:         graph.reshape %[[R]] : (!graph.tensor<2x16x8x8xf32>) -> !graph.tensor<2x16x64xf32>
func.func @after_pool(%x: !graph.tensor<2x8x16x16xf32>, %w: !graph.tensor<16x8x1x1xf32>, %w2: !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<2x16x8x8xf32> {
  %p = graph.max_pool2d %x {kernel = array<i64: 2, 2>} : (!graph.tensor<2x8x16x16xf32>) -> !graph.tensor<2x8x8x8xf32>
  %c = graph.conv2d %p, %w : (!graph.tensor<2x8x8x8xf32>, !graph.tensor<16x8x1x1xf32>) -> !graph.tensor<2x16x8x8xf32>
  %r = graph.relu %c : !graph.tensor<2x16x8x8xf32>
  %y = graph.conv2d %r, %w2 : (!graph.tensor<2x16x8x8xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<2x16x8x8xf32>
  func.return %y : !graph.tensor<2x16x8x8xf32>
}

// -----

// A residual block's output is read by the next block's first conv and by its residual add: realized once, right
// after its producer, both read that copy (fused, each block's output recomputed the previous one's). A
// single-use input stays fused.
// CHECK-LABEL: func.func @residual
// CHECK:         %[[A:.*]] = graph.relu %a
// CHECK-NEXT:    %[[P:.*]] = graph.contiguous %[[A]] : !graph.tensor<1x16x8x8xf32>
// CHECK:         graph.reshape %[[P]] : (!graph.tensor<1x16x8x8xf32>) -> !graph.tensor<1x16x64xf32>
// CHECK:         %r = graph.add %{{.*}}, %[[P]]
// CHECK-NEXT:    %[[S:.*]] = graph.relu %r
// CHECK-NOT:     graph.contiguous
// CHECK:         graph.reshape %[[S]] : (!graph.tensor<1x16x8x8xf32>) -> !graph.tensor<1x16x64xf32>
func.func @residual(%x: !graph.tensor<1x16x8x8xf32>, %w: !graph.tensor<16x16x1x1xf32>, %w2: !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x8x8xf32> {
  %a = graph.add %x, %x : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<1x16x8x8xf32>) -> !graph.tensor<1x16x8x8xf32>
  %y = graph.relu %a : !graph.tensor<1x16x8x8xf32>
  %c = graph.conv2d %y, %w : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x8x8xf32>
  %r = graph.add %c, %y : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<1x16x8x8xf32>) -> !graph.tensor<1x16x8x8xf32>
  %s = graph.relu %r : !graph.tensor<1x16x8x8xf32>
  %c2 = graph.conv2d %s, %w2 : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x8x8xf32>
  func.return %c2 : !graph.tensor<1x16x8x8xf32>
}

// -----

// A concat read by two convs stays as it is: the scheduler realizes it, its pieces written in place.
// CHECK-LABEL: func.func @shared_concat
// CHECK-NOT:     graph.contiguous %c
func.func @shared_concat(%x: !graph.tensor<1x8x8x8xf32>, %y: !graph.tensor<1x8x8x8xf32>, %w: !graph.tensor<16x16x1x1xf32>) -> (!graph.tensor<1x16x8x8xf32>, !graph.tensor<1x16x8x8xf32>) {
  %c = graph.concat %x, %y {axis = 1 : i64} : (!graph.tensor<1x8x8x8xf32>, !graph.tensor<1x8x8x8xf32>) -> !graph.tensor<1x16x8x8xf32>
  %a = graph.conv2d %c, %w : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x8x8xf32>
  %b = graph.conv2d %c, %w : (!graph.tensor<1x16x8x8xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x8x8xf32>
  func.return %a, %b : !graph.tensor<1x16x8x8xf32>, !graph.tensor<1x16x8x8xf32>
}

// -----

// CPU targets: a stride-1 conv with at most 128 filters per group takes the direct form, graph-decompose's windows
// times the filter reduced over the taps, over a plain zero-padded copy of its input: no im2col copy, and the
// register tile reads the padded rows as vectors. Output rows of at least one vector (28 with 8 or 16 f32 lanes)
// are not padded (the optimizer pads the tile's vector axis, its last vector moved back, not clamped); the result
// with its bias is realized as plain NCHW, nothing sliced. Wider rows take the flat form (flat_direct.mlir).
// An input that computes a reduction is realized before its pad (@direct_computed: fused, the padded copy
// computed the producer, a whole matmul in ResNet-50); an elementwise one of realized values (the relu of an
// argument) is computed into the padded copy. 256 filters (@wide above) keep the im2col matmul; so does the
// cuda target (the checks above).
// ROWPAD-LABEL: func.func @direct
// ROWPAD:         %[[P:.*]] = graph.pad %h {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>
// ROWPAD-NEXT:    %[[XP:.*]] = graph.contiguous %[[P]] : !graph.tensor<1x16x30x30xf32>
// ROWPAD-NOT:     graph.matmul
// ROWPAD:         %[[T:.*]] = graph.reduce_sum %{{.*}} {axes = array<i64: 5, 6, 7>} : (!graph.tensor<1x1x64x28x28x16x3x3xf32>) -> !graph.tensor<1x1x64x28x28xf32>
// ROWPAD:         %[[B:.*]] = graph.add %{{.*}}, %{{.*}} : (!graph.tensor<1x64x28x28xf32>, !graph.tensor<64x1x1xf32>) -> !graph.tensor<1x64x28x28xf32>
// ROWPAD-NEXT:    %r = graph.contiguous %[[B]] : !graph.tensor<1x64x28x28xf32>
// ROWPAD-NOT:     graph.shrink
func.func @direct(%x: !graph.tensor<1x16x28x28xf32>, %w: !graph.tensor<64x16x3x3xf32>, %b: !graph.tensor<64xf32>) -> !graph.tensor<1x64x28x28xf32> {
  %h = graph.relu %x : !graph.tensor<1x16x28x28xf32>
  %r = graph.conv2d %h, %w bias %b {padding = array<i64: 1, 1>} : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<64x16x3x3xf32>, !graph.tensor<64xf32>) -> !graph.tensor<1x64x28x28xf32>
  func.return %r : !graph.tensor<1x64x28x28xf32>
}

// -----

// A direct conv's input that is the relu of the previous direct conv's realized output (VGG's layers) is computed
// into the padded copy: the previous conv's kernel stores conv + b once, and no copy kernel computes the relu in
// between.
// ROWPAD-LABEL: func.func @direct_chain
// ROWPAD:         %[[B:.*]] = graph.add %{{.*}}, %{{.*}} : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<16x1x1xf32>) -> !graph.tensor<1x16x28x28xf32>
// ROWPAD-NEXT:    %[[Y:.*]] = graph.contiguous %[[B]] : !graph.tensor<1x16x28x28xf32>
// ROWPAD-NEXT:    %[[H:.*]] = graph.relu %[[Y]] : !graph.tensor<1x16x28x28xf32>
// ROWPAD-NEXT:    %[[P:.*]] = graph.pad %[[H]]
// ROWPAD-NEXT:    graph.contiguous %[[P]] : !graph.tensor<1x16x30x30xf32>
func.func @direct_chain(%x: !graph.tensor<1x16x28x28xf32>, %w: !graph.tensor<16x16x3x3xf32>, %b: !graph.tensor<16xf32>, %w2: !graph.tensor<16x16x3x3xf32>) -> !graph.tensor<1x16x28x28xf32> {
  %y = graph.conv2d %x, %w bias %b {padding = array<i64: 1, 1>} : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<16x16x3x3xf32>, !graph.tensor<16xf32>) -> !graph.tensor<1x16x28x28xf32>
  %h = graph.relu %y : !graph.tensor<1x16x28x28xf32>
  %r = graph.conv2d %h, %w2 {padding = array<i64: 1, 1>} : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<16x16x3x3xf32>) -> !graph.tensor<1x16x28x28xf32>
  func.return %r : !graph.tensor<1x16x28x28xf32>
}
// ROWPAD-LABEL: func.func @direct_computed
// ROWPAD:         %[[H:.*]] = graph.contiguous %h : !graph.tensor<1x16x28x28xf32>
// ROWPAD-NEXT:    graph.pad %[[H]] {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 1, 1>
func.func @direct_computed(%x: !graph.tensor<1x16x28x28xf32>, %w1: !graph.tensor<16x16x1x1xf32>, %w: !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x28x28xf32> {
  %c = graph.conv2d %x, %w1 : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<16x16x1x1xf32>) -> !graph.tensor<1x16x28x28xf32>
  %h = graph.relu %c : !graph.tensor<1x16x28x28xf32>
  %r = graph.conv2d %h, %w {padding = array<i64: 1, 1>} : (!graph.tensor<1x16x28x28xf32>, !graph.tensor<64x16x3x3xf32>) -> !graph.tensor<1x64x28x28xf32>
  func.return %r : !graph.tensor<1x64x28x28xf32>
}
