// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{target=cpu-llvm}' | filecheck %s --check-prefix=LLVM
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{target=cpu-c}' | filecheck %s --check-prefix=C
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{target=cuda}' | filecheck %s --check-prefix=CUDA
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{search=none}' | filecheck %s --check-prefix=NONE
// RUN: kiln-opt %s --split-input-file -p 'kernel-optimize{target=cuda},kernel-optimize{target=cpu-llvm}' | filecheck %s --check-prefix=CUDA
// The heuristic's choices (docs/optimizer.md). CPU vector widths come from the host, so the lane counts are
// left open here, and so are the rows of a register tile (half the host's vector registers: 8 rows x 2 vectors
// with AVX-512, 4 x 2 with AVX2). A matmul gets a register tile: its contiguous axis %j by two vectors (a range
// of one vector's lanes, then one of 2 vectors), the axis with reuse %i by 8 or 4. A row sum is left to LLVM's loop vectorizer on cpu-llvm (it reassociates), and gets a vector
// of partial sums on cpu-c. GPUs (fixed descriptions): 4x4 tiles, reduce unrolling, workgroups; a long reduce
// with few outputs is grouped over a workgroup once the linearizer implements group_reduce. A kernel that
// has an opts attribute was optimized already: a second kernel-optimize leaves it as it is.

// LLVM: kernel.kernel @mm({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "upcast:0:{{8|4}}"]}
// C:    kernel.kernel @mm({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "upcast:0:{{8|4}}"]}
// CUDA: kernel.kernel @mm({{.*}} opts = ["upcast:1:4", "upcast:0:4", "unroll:0:0", "local:1:16", "local:0:2"]}
// NONE: kernel.kernel @mm({{.*}} opts = []}
kernel.kernel @mm(%a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<8x64xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c8 global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %ib = kernel.add %k64, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}

// -----

// B transposed (q k^T, x w^T): both loads walk %k contiguously and each output axis with a stride, so there is
// no vector axis; the tile is 8 rows x 8 columns, the a row loaded once per 8 columns and the b row once per 8
// rows (attention's scores, 8 x 512 x 512 x 64: ~150 -> ~40 ms against one 8-column upcast).
// LLVM: kernel.kernel @mm_bt({{.*}} opts = ["upcast:0:8", "upcast:1:8"]}
// C:    kernel.kernel @mm_bt({{.*}} opts = ["upcast:0:8", "upcast:1:8"]}
kernel.kernel @mm_bt(%a: !kernel.buffer<16x32xf32>, %b: !kernel.buffer<64x32xf32>, %out: !kernel.buffer<16x64xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c16 global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %j32 = kernel.mul %j, %c32 : index
  %ib = kernel.add %j32, %k : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}

// -----

// A symbolic row count (a JIT batch) gets the same row tile on CPUs, padded to a multiple of its rows first.
// LLVM: kernel.kernel @mm_rows({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "padto:0:[[ROWS:8|4]]", "upcast:0:[[ROWS]]"]}
// C:    kernel.kernel @mm_rows({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "padto:0:[[ROWS:8|4]]", "upcast:0:[[ROWS]]"]}
// CUDA: kernel.kernel @mm_rows({{.*}} opts = ["upcast:1:4", "unroll:0:0", "local:1:16"]}
// NONE: kernel.kernel @mm_rows({{.*}} opts = []}
kernel.kernel @mm_rows(%a: !kernel.buffer<Nx32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<Nx64xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 4096]>, symbols = ["N"]} {
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %N global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %ib = kernel.add %k64, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}

// -----

// LLVM: kernel.kernel @rowsum({{.*}} opts = []}
// C:    kernel.kernel @rowsum({{.*}} opts = ["upcast:1:{{8|16}}"]}
// C:    %[[LANE:.*]] = kernel.reduce add %v over %k : f32
// C:    kernel.reduce add %[[LANE]] over %k_unroll : f32
// CUDA: kernel.kernel @rowsum({{.*}} opts = [{{"grouptop:0:16"|"unroll:0:4", "local:0:4"}}]}
kernel.kernel @rowsum(%x: !kernel.buffer<4x1024xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c1024 = kernel.const 1024 : index
  %i = kernel.range %c4 global
  %k = kernel.range %c1024 reduce
  %i1024 = kernel.mul %i, %c1024 : index
  %idx = kernel.add %i1024, %k : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k : f32
  kernel.store %out[%i], %s
}
// -----
// A softmax fused into one kernel (graph-mark-realize{target=cpu-*}): its reductions do not vary along %c, so it
// is no register tile. LLVM vectorizes the three loops itself; cpu-c gets partial sums for each reduction and
// the output axis as one vector of lanes.
// LLVM: kernel.kernel @softmax({{.*}} opts = []}
// C:    kernel.kernel @softmax({{.*}} opts = ["upcast:2:[[W:8|16]]", "upcast:3:[[W]]", "upcast:1:[[W]]"]}
// NONE: kernel.kernel @softmax({{.*}} opts = []}
kernel.kernel @softmax(%out: !kernel.buffer<8x256xf32>, %x: !kernel.buffer<8x256xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %n = kernel.const 256 : index
  %r = kernel.range %c8 global
  %c = kernel.range %n global
  %k1 = kernel.range %n reduce
  %k2 = kernel.range %n reduce
  %b = kernel.mul %r, %n : index
  %i1 = kernel.add %b, %k1 : index
  %x1 = kernel.load %x[%i1] : f32
  %m = kernel.reduce max %x1 over %k1 : f32
  %i2 = kernel.add %b, %k2 : index
  %x2 = kernel.load %x[%i2] : f32
  %d2 = kernel.sub %x2, %m : f32
  %e2 = kernel.exp %d2 : f32
  %s = kernel.reduce add %e2 over %k2 : f32
  %i3 = kernel.add %b, %c : index
  %x3 = kernel.load %x[%i3] : f32
  %d3 = kernel.sub %x3, %m : f32
  %e3 = kernel.exp %d3 : f32
  %y = kernel.div %e3, %s : f32
  kernel.store %out[%i3], %y
}
// -----
// Elementwise: LLVM vectorizes the loop; cpu-c gets one vector of lanes, except for a kernel that only moves data
// (gcc makes a memcpy of its loop).
// LLVM: kernel.kernel @axpy({{.*}} opts = []}
// C:    kernel.kernel @axpy({{.*}} opts = ["upcast:0:{{8|16}}"]}
// LLVM: kernel.kernel @move({{.*}} opts = []}
// C:    kernel.kernel @move({{.*}} opts = []}
kernel.kernel @axpy(%out: !kernel.buffer<4096xf32>, %x: !kernel.buffer<4096xf32>, %y: !kernel.buffer<4096xf32>) attributes {symbols = []} {
  %n = kernel.const 4096 : index
  %a = kernel.const 2.0 : f32
  %i = kernel.range %n global
  %u = kernel.load %x[%i] : f32
  %v = kernel.load %y[%i] : f32
  %p = kernel.mul %u, %a : f32
  %q = kernel.add %p, %v : f32
  kernel.store %out[%i], %q
}
kernel.kernel @move(%out: !kernel.buffer<4096xf32>, %x: !kernel.buffer<4096xf32>) attributes {symbols = []} {
  %n = kernel.const 4096 : index
  %i = kernel.range %n global
  %u = kernel.load %x[%i] : f32
  kernel.store %out[%i], %u
}
// -----
// A copy kernel walks its output in the store's order on CPUs: the transpose's ranges come in the load's order
// (%i, %j), the store's strides are 1 along %i and 64 along %j, so the ranges are swapped; GPUs keep them. The
// load then steps 128 elements along the inner %i: on CPUs %i is upcast by a vector (vector stores, lanes loaded
// one by one; LLVM's own choice scattered the stores).
// LLVM: kernel.kernel @transpose({{.*}} opts = ["swap:0:1", "upcast:1:{{[0-9]+}}"]}
// C:    kernel.kernel @transpose({{.*}} opts = ["swap:0:1", "upcast:1:{{[0-9]+}}"{{.*}}]}
// CUDA: kernel.kernel @transpose({{.*}} opts = ["local:1:32", "local:0:4"]}
// NONE: kernel.kernel @transpose({{.*}} opts = []}
kernel.kernel @transpose(%out: !kernel.buffer<128x64xf32>, %x: !kernel.buffer<64x128xf32>) attributes {symbols = []} {
  %c64 = kernel.const 64 : index
  %c128 = kernel.const 128 : index
  %i = kernel.range %c64 global
  %j = kernel.range %c128 global
  %i128 = kernel.mul %i, %c128 : index
  %load = kernel.add %i128, %j : index
  %j64 = kernel.mul %j, %c64 : index
  %store = kernel.add %j64, %i : index
  %u = kernel.load %x[%load] : f32
  kernel.store %out[%store], %u
}
// A copy whose load steps 2 elements per output (a strided slice) stays within two vectors per vector of lanes:
// left to LLVM (wide loads and shuffles).
// LLVM: kernel.kernel @every_other({{.*}} opts = []}
kernel.kernel @every_other(%out: !kernel.buffer<2048xf32>, %x: !kernel.buffer<4096xf32>) attributes {symbols = []} {
  %n = kernel.const 2048 : index
  %c2 = kernel.const 2 : index
  %i = kernel.range %n global
  %i2 = kernel.mul %i, %c2 : index
  %u = kernel.load %x[%i2] : f32
  kernel.store %out[%i], %u
}

// -----

// A max pool 3x3/2: no load stays put along an output axis (no register reuse) and the loads step 2 elements
// along %ow, so there is no contiguous vector axis; the outputs along %ow are still independent lanes, upcast by
// one vector on CPUs (ResNet-50's pool 64 @112: 3.7 -> 0.35 ms; GPUs: not measured, as before), of at most 8
// lanes (MAX_STRIDED_LANES: LLVM packs 16 stride-2 loads as gathers on AVX-512). 55 columns are padded to 56,
// the last vector moved back (@pool_s2_55). A stride-3 window is left alone.
// LLVM: kernel.kernel @pool_s2({{.*}} opts = ["upcast:2:8"]}
// C:    kernel.kernel @pool_s2({{.*}} opts = ["upcast:2:{{[0-9]+}}"]}
// CUDA: kernel.kernel @pool_s2({{.*}} opts = ["unroll:1:0", "local:2:16", "local:1:4"]}
kernel.kernel @pool_s2(%x: !kernel.buffer<8x34x34xf32>, %out: !kernel.buffer<8x16x16xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %c34 = kernel.const 34 : index
  %c256 = kernel.const 256 : index
  %c1156 = kernel.const 1156 : index
  %c = kernel.range %c8 global
  %oh = kernel.range %c16 global
  %ow = kernel.range %c16 global
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h2 = kernel.mul %oh, %c2 : index
  %h = kernel.add %h2, %kh : index
  %w2 = kernel.mul %ow, %c2 : index
  %w = kernel.add %w2, %kw : index
  %cx = kernel.mul %c, %c1156 : index
  %hx = kernel.mul %h, %c34 : index
  %ix0 = kernel.add %cx, %hx : index
  %ix = kernel.add %ix0, %w : index
  %v = kernel.load %x[%ix] : f32
  %m = kernel.reduce max %v over %kh, %kw : f32
  %co = kernel.mul %c, %c256 : index
  %ho = kernel.mul %oh, %c16 : index
  %io0 = kernel.add %co, %ho : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %m
}

// -----

// LLVM: kernel.kernel @pool_s2_55({{.*}} opts = ["padto:2:8", "upcast:2:8"{{.*}}]}
kernel.kernel @pool_s2_55(%x: !kernel.buffer<4x111x111xf32>, %out: !kernel.buffer<4x55x55xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %c55 = kernel.const 55 : index
  %c111 = kernel.const 111 : index
  %c3025 = kernel.const 3025 : index
  %c12321 = kernel.const 12321 : index
  %c = kernel.range %c4 global
  %oh = kernel.range %c55 global
  %ow = kernel.range %c55 global
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h2 = kernel.mul %oh, %c2 : index
  %h = kernel.add %h2, %kh : index
  %w2 = kernel.mul %ow, %c2 : index
  %w = kernel.add %w2, %kw : index
  %cx = kernel.mul %c, %c12321 : index
  %hx = kernel.mul %h, %c111 : index
  %ix0 = kernel.add %cx, %hx : index
  %ix = kernel.add %ix0, %w : index
  %v = kernel.load %x[%ix] : f32
  %m = kernel.reduce max %v over %kh, %kw : f32
  %co = kernel.mul %c, %c3025 : index
  %ho = kernel.mul %oh, %c55 : index
  %io0 = kernel.add %co, %ho : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %m
}

// -----

// LLVM: kernel.kernel @pool_s3({{.*}} opts = []}
kernel.kernel @pool_s3(%x: !kernel.buffer<8x48x48xf32>, %out: !kernel.buffer<8x16x16xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %c48 = kernel.const 48 : index
  %c256 = kernel.const 256 : index
  %c2304 = kernel.const 2304 : index
  %c = kernel.range %c8 global
  %oh = kernel.range %c16 global
  %ow = kernel.range %c16 global
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h3 = kernel.mul %oh, %c3 : index
  %h = kernel.add %h3, %kh : index
  %w3 = kernel.mul %ow, %c3 : index
  %w = kernel.add %w3, %kw : index
  %cx = kernel.mul %c, %c2304 : index
  %hx = kernel.mul %h, %c48 : index
  %ix0 = kernel.add %cx, %hx : index
  %ix = kernel.add %ix0, %w : index
  %v = kernel.load %x[%ix] : f32
  %m = kernel.reduce max %v over %kh, %kw : f32
  %co = kernel.mul %c, %c256 : index
  %ho = kernel.mul %oh, %c16 : index
  %io0 = kernel.add %co, %ho : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %m
}

// -----

// A direct convolution (graph-conv-to-matmul's form for stride-1 convs with few filters): the filter load stays
// put along %oh, the input's along %o, and the output rows (40 columns) hold one vector of the tile, not two. The
// axis whose stays-put load walks the vector axis (%o: the input rows, as B in a matmul) is the reuse axis, with
// 4 rows, and the other reuse axis takes 2: per tap 2 vector loads and 4 broadcasts for 8 FMAs, where 8 rows of
// one axis would load 9 (3x3 64->64 @56 on one AVX2 core: 4.4 ms with 8 x %oh, 3.4 with 8 x %o, 2.7 with 4 x 2).
// LLVM: kernel.kernel @direct_conv({{.*}} opts = [{{.*}}"upcast:2:{{8|16}}", "upcast:0:4", "upcast:1:2"{{.*}}]}
// C:    kernel.kernel @direct_conv({{.*}} opts = [{{.*}}"upcast:2:{{8|16}}", "upcast:0:4", "upcast:1:2"{{.*}}]}
kernel.kernel @direct_conv(%out: !kernel.buffer<8x8x40xf32>, %x: !kernel.buffer<4x10x42xf32>, %w: !kernel.buffer<8x4x3x3xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c9 = kernel.const 9 : index
  %c36 = kernel.const 36 : index
  %c40 = kernel.const 40 : index
  %c42 = kernel.const 42 : index
  %c320 = kernel.const 320 : index
  %c420 = kernel.const 420 : index
  %o = kernel.range %c8 global
  %oh = kernel.range %c8 global
  %ow = kernel.range %c40 global
  %c = kernel.range %c4 reduce
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h = kernel.add %oh, %kh : index
  %xw = kernel.add %ow, %kw : index
  %xc = kernel.mul %c, %c420 : index
  %xh = kernel.mul %h, %c42 : index
  %ix0 = kernel.add %xc, %xh : index
  %ix = kernel.add %ix0, %xw : index
  %xv = kernel.load %x[%ix] : f32
  %wo = kernel.mul %o, %c36 : index
  %wc = kernel.mul %c, %c9 : index
  %wh = kernel.mul %kh, %c3 : index
  %iw0 = kernel.add %wo, %wc : index
  %iw1 = kernel.add %iw0, %wh : index
  %iw = kernel.add %iw1, %kw : index
  %wv = kernel.load %w[%iw] : f32
  %p = kernel.mul %xv, %wv : f32
  %s = kernel.reduce add %p over %c, %kh, %kw : f32
  %so = kernel.mul %o, %c320 : index
  %sh = kernel.mul %oh, %c40 : index
  %io0 = kernel.add %so, %sh : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %s
}

// -----

// A batch of 1 between the rows and the columns (a grouped conv's output stored channel-shuffled: rows, batch,
// groups, points) is no reuse axis: the rows %o are, though A moves along the batch no more than B along %o.
// LLVM: kernel.kernel @unit_batch({{.*}} opts = ["upcast:2:{{[0-9]+}}", "upcast:2:2", "upcast:0:{{8|4}}"]}
kernel.kernel @unit_batch(%a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<1x32x64xf32>, %out: !kernel.buffer<8x1x64xf32>) attributes {symbols = []} {
  %c1 = kernel.const 1 : index
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %c2048 = kernel.const 2048 : index
  %o = kernel.range %c8 global
  %n = kernel.range %c1 global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %o32 = kernel.mul %o, %c32 : index
  %ia = kernel.add %o32, %k : index
  %nb = kernel.mul %n, %c2048 : index
  %k64 = kernel.mul %k, %c64 : index
  %ib0 = kernel.add %nb, %k64 : index
  %ib = kernel.add %ib0, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %o64 = kernel.mul %o, %c64 : index
  %io0 = kernel.add %o64, %nb : index
  %io = kernel.add %io0, %j : index
  kernel.store %out[%io], %s
}

// -----

// A depthwise 3x3 conv over 28 columns (no register reuse): padded to a whole vector (8 or 16 lanes), its last
// vector moved back to end at column 27 (rewrite.pad), so every load stays a vector. Before, a padded axis was
// clamped (min(ow, 27) per lane, no vector) and a narrower vector that divides 28 (4 lanes) was taken instead.
// LLVM: kernel.kernel @depthwise({{.*}} opts = ["padto:2:[[W:8|16]]", "upcast:2:[[W]]"{{.*}}]}
kernel.kernel @depthwise(%x: !kernel.buffer<8x30x30xf32>, %w: !kernel.buffer<8x9xf32>, %out: !kernel.buffer<8x28x28xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %c9 = kernel.const 9 : index
  %c28 = kernel.const 28 : index
  %c30 = kernel.const 30 : index
  %c784 = kernel.const 784 : index
  %c900 = kernel.const 900 : index
  %c = kernel.range %c8 global
  %oh = kernel.range %c28 global
  %ow = kernel.range %c28 global
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h = kernel.add %oh, %kh : index
  %wc = kernel.add %ow, %kw : index
  %cx = kernel.mul %c, %c900 : index
  %hx = kernel.mul %h, %c30 : index
  %ix0 = kernel.add %cx, %hx : index
  %ix = kernel.add %ix0, %wc : index
  %v = kernel.load %x[%ix] : f32
  %c9c = kernel.mul %c, %c9 : index
  %kh3 = kernel.mul %kh, %c3 : index
  %iw0 = kernel.add %c9c, %kh3 : index
  %iw = kernel.add %iw0, %kw : index
  %t = kernel.load %w[%iw] : f32
  %p = kernel.mul %v, %t : f32
  %s = kernel.reduce add %p over %kh, %kw : f32
  %co = kernel.mul %c, %c784 : index
  %ho = kernel.mul %oh, %c28 : index
  %io0 = kernel.add %co, %ho : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %s
}

// -----

// A register tile with few rows and a large unpacked B (DenseNet's 3x3 growth conv: 32 x 1152 x 3136): B inside
// the row loop is 1152 x 3136 floats, so the columns go outside the rows (a swap after the tile), each column
// strip of B then reused by every row tile from L2. With the small B of @mm above the order stays.
// LLVM: kernel.kernel @mm_strips({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "upcast:0:{{8|4}}", "swap:0:1"{{.*}}]}
kernel.kernel @mm_strips(%a: !kernel.buffer<32x1152xf32>, %b: !kernel.buffer<1152x3136xf32>, %out: !kernel.buffer<32x3136xf32>) attributes {symbols = []} {
  %c32 = kernel.const 32 : index
  %c1152 = kernel.const 1152 : index
  %c3136 = kernel.const 3136 : index
  %i = kernel.range %c32 global
  %j = kernel.range %c3136 global
  %k = kernel.range %c1152 reduce
  %i1 = kernel.mul %i, %c1152 : index
  %ia = kernel.add %i1, %k : index
  %kb = kernel.mul %k, %c3136 : index
  %ib = kernel.add %kb, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %io0 = kernel.mul %i, %c3136 : index
  %io = kernel.add %io0, %j : index
  kernel.store %out[%io], %s
}

// -----

// The same over 14 columns (ShuffleNet's 14x14 stages), shorter than AVX-512's vector: two vectors of 8 lanes,
// the second moved back to start at column 6, where AVX-512 had no vector (docs/performance.md, "Narrow lanes,
// session 9").
// LLVM: kernel.kernel @depthwise_short({{.*}} opts = ["padto:2:8", "upcast:2:8"{{.*}}]}
kernel.kernel @depthwise_short(%x: !kernel.buffer<8x16x16xf32>, %w: !kernel.buffer<8x9xf32>, %out: !kernel.buffer<8x14x14xf32>) attributes {symbols = []} {
  %c3 = kernel.const 3 : index
  %c8 = kernel.const 8 : index
  %c9 = kernel.const 9 : index
  %c14 = kernel.const 14 : index
  %c16 = kernel.const 16 : index
  %c196 = kernel.const 196 : index
  %c256 = kernel.const 256 : index
  %c = kernel.range %c8 global
  %oh = kernel.range %c14 global
  %ow = kernel.range %c14 global
  %kh = kernel.range %c3 reduce
  %kw = kernel.range %c3 reduce
  %h = kernel.add %oh, %kh : index
  %wc = kernel.add %ow, %kw : index
  %cx = kernel.mul %c, %c256 : index
  %hx = kernel.mul %h, %c16 : index
  %ix0 = kernel.add %cx, %hx : index
  %ix = kernel.add %ix0, %wc : index
  %v = kernel.load %x[%ix] : f32
  %c9c = kernel.mul %c, %c9 : index
  %kh3 = kernel.mul %kh, %c3 : index
  %iw0 = kernel.add %c9c, %kh3 : index
  %iw = kernel.add %iw0, %kw : index
  %t = kernel.load %w[%iw] : f32
  %p = kernel.mul %v, %t : f32
  %s = kernel.reduce add %p over %kh, %kw : f32
  %co = kernel.mul %c, %c196 : index
  %ho = kernel.mul %oh, %c14 : index
  %io0 = kernel.add %co, %ho : index
  %io = kernel.add %io0, %ow : index
  kernel.store %out[%io], %s
}

// -----

// A register tile with few rows and a large unpacked B (DenseNet's 3x3 growth conv: 32 x 1152 x 3136): B inside
// the row loop is 1152 x 3136 floats, so the columns go outside the rows (a swap after the tile), each column
// strip of B then reused by every row tile from L2. With the small B of @mm above the order stays.
// LLVM: kernel.kernel @mm_strips({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "upcast:0:{{8|4}}", "swap:0:1"{{.*}}]}
kernel.kernel @mm_strips(%a: !kernel.buffer<32x1152xf32>, %b: !kernel.buffer<1152x3136xf32>, %out: !kernel.buffer<32x3136xf32>) attributes {symbols = []} {
  %c32 = kernel.const 32 : index
  %c1152 = kernel.const 1152 : index
  %c3136 = kernel.const 3136 : index
  %i = kernel.range %c32 global
  %j = kernel.range %c3136 global
  %k = kernel.range %c1152 reduce
  %i1 = kernel.mul %i, %c1152 : index
  %ia = kernel.add %i1, %k : index
  %kb = kernel.mul %k, %c3136 : index
  %ib = kernel.add %kb, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %io0 = kernel.mul %i, %c3136 : index
  %io = kernel.add %io0, %j : index
  kernel.store %out[%io], %s
}

// -----

// A register tile whose contiguous axis is narrower than it is worth leaving scalar (the MLP's 512 -> 10 head):
// 10 columns go by two vectors of 8 lanes (AVX2's width; on AVX-512 a narrower vector), the second moved back to
// start at column 2 (rewrite.pad), so each k step loads one row of B as 2 vectors for every row of the tile
// instead of 10 scalar columns each re-reading A. On AVX-512 they were padded to one vector of 16, whose lanes
// past column 9 clamped each load (no vector: 0.058 ms best, 0.033 by 2 x 8 lanes).
// LLVM: kernel.kernel @mm_narrow({{.*}} opts = ["padto:1:8", "upcast:1:8", "upcast:1:2", "upcast:0:{{8|4}}"]}
// C:    kernel.kernel @mm_narrow({{.*}} opts = ["padto:1:8", "upcast:1:8", "upcast:1:2", "upcast:0:{{8|4}}"]}
kernel.kernel @mm_narrow(%a: !kernel.buffer<256x512xf32>, %b: !kernel.buffer<512x10xf32>, %out: !kernel.buffer<256x10xf32>) attributes {symbols = []} {
  %c256 = kernel.const 256 : index
  %c512 = kernel.const 512 : index
  %c10 = kernel.const 10 : index
  %i = kernel.range %c256 global
  %j = kernel.range %c10 global
  %k = kernel.range %c512 reduce
  %i1 = kernel.mul %i, %c512 : index
  %ia = kernel.add %i1, %k : index
  %kb = kernel.mul %k, %c10 : index
  %ib = kernel.add %kb, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %io0 = kernel.mul %i, %c10 : index
  %io = kernel.add %io0, %j : index
  kernel.store %out[%io], %s
}

// -----

// A matvec against a row-major W (a network's last layer, y = x W^T with one row of x): no vector axis and one
// reuse axis, so each row's sum is a vector of partial sums along %k (both loads walk it contiguously) and the
// rows share the vector of x. Scalar 8-row tiles ran ResNet-50's 2048 -> 1000 layer at ~2 GFLOP/s.
// LLVM: kernel.kernel @matvec({{.*}} opts = ["upcast:1:{{8|16}}", "upcast:0:{{[0-9]+}}"{{.*}}]}
// C:    kernel.kernel @matvec({{.*}} opts = ["upcast:1:{{8|16}}", "upcast:0:{{[0-9]+}}"{{.*}}]}
kernel.kernel @matvec(%x: !kernel.buffer<2048xf32>, %w: !kernel.buffer<1000x2048xf32>, %out: !kernel.buffer<1000xf32>) attributes {symbols = []} {
  %c1000 = kernel.const 1000 : index
  %c2048 = kernel.const 2048 : index
  %j = kernel.range %c1000 global
  %k = kernel.range %c2048 reduce
  %j1 = kernel.mul %j, %c2048 : index
  %iw = kernel.add %j1, %k : index
  %a = kernel.load %x[%k] : f32
  %b = kernel.load %w[%iw] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  kernel.store %out[%j], %s
}

// -----

// A register tile that leaves a short outermost range the cores do not divide evenly (28 rows: 7 row tiles, 4
// on one core and 3 on the other) is split along its columns instead (ResNet-50's 14x14 convs: 7 panels).
// LLVM: kernel.kernel @mm_uneven({{.*}} opts = ["upcast:1:{{[0-9]+}}", "upcast:1:2", "upcast:0:4", "thread:1:{{[0-9]+}}"]}
kernel.kernel @mm_uneven(%a: !kernel.buffer<28x64xf32>, %b: !kernel.buffer<64x256xf32>, %out: !kernel.buffer<28x256xf32>) attributes {symbols = []} {
  %c28 = kernel.const 28 : index
  %c64 = kernel.const 64 : index
  %c256 = kernel.const 256 : index
  %i = kernel.range %c28 global
  %j = kernel.range %c256 global
  %k = kernel.range %c64 reduce
  %i1 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i1, %k : index
  %kb = kernel.mul %k, %c256 : index
  %ib = kernel.add %kb, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %io0 = kernel.mul %i, %c256 : index
  %io = kernel.add %io0, %j : index
  kernel.store %out[%io], %s
}

// -----

// A relu fused into the copy into graph-pack-matmul's panels (2 panels x 8 rows x 32 lanes): cpu-llvm upcasts
// the short innermost range by a vector, which LLVM left scalar around the NaN-propagating max (short lanes);
// a flat relu over a long range is left to LLVM's loop vectorizer (below).
// LLVM: kernel.kernel @relu_panels({{.*}} opts = ["upcast:2:{{[0-9]+}}"]}
// NONE: kernel.kernel @relu_panels({{.*}} opts = []}
kernel.kernel @relu_panels(%out: !kernel.buffer<2x8x32xf32>, %x: !kernel.buffer<8x64xf32>) attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %c256 = kernel.const 256 : index
  %zero = kernel.const 0.0 : f32
  %p = kernel.range %c2 global
  %k = kernel.range %c8 global
  %l = kernel.range %c32 global
  %k64 = kernel.mul %k, %c64 : index
  %p32 = kernel.mul %p, %c32 : index
  %in0 = kernel.add %k64, %p32 : index
  %in = kernel.add %in0, %l : index
  %v = kernel.load %x[%in] : f32
  %r = kernel.max %v, %zero : f32
  %p256 = kernel.mul %p, %c256 : index
  %k32 = kernel.mul %k, %c32 : index
  %o0 = kernel.add %p256, %k32 : index
  %o = kernel.add %o0, %l : index
  kernel.store %out[%o], %r
}

// -----

// LLVM: kernel.kernel @relu_flat({{.*}} opts = []}
kernel.kernel @relu_flat(%out: !kernel.buffer<4096xf32>, %x: !kernel.buffer<4096xf32>) attributes {symbols = []} {
  %c4096 = kernel.const 4096 : index
  %zero = kernel.const 0.0 : f32
  %i = kernel.range %c4096 global
  %v = kernel.load %x[%i] : f32
  %r = kernel.max %v, %zero : f32
  kernel.store %out[%i], %r
}
