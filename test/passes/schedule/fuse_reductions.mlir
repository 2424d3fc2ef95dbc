// RUN: kiln-opt %s -p graph-mark-realize | filecheck %s --check-prefix=ANY
// RUN: kiln-opt %s -p 'graph-mark-realize{target=cuda}' | filecheck %s --check-prefix=ANY
// RUN: kiln-opt %s -p 'graph-mark-realize{target=cpu-llvm}' | filecheck %s --check-prefix=CPU
// RUN: kiln-opt %s -p 'graph-mark-realize{target=cpu-c},convert-graph-to-kernel' | filecheck %s --check-prefix=KERNELS
// RUN: not kiln-opt %s -p 'graph-mark-realize{target=tpu}' 2>&1 | filecheck %s --check-prefix=BAD
// Reductions broadcast back into their consumer (softmax, layernorm): realized for any target and on GPUs (each
// thread would recompute them); on CPUs, where they are broadcast only along loops inside the ones they depend
// on, they stay in the consumer's kernel, computed once per row before its inner loop.

// ANY-LABEL: func.func @softmax
// ANY:   graph.reduce_max {{.*}}graph.realize = "reduce broadcast"
// ANY:   graph.reduce_sum {{.*}}graph.realize = "reduce broadcast"
// CPU-LABEL: func.func @softmax
// CPU-NOT: graph.realize = "reduce broadcast"
// CPU:   graph.div {{.*}}graph.realize = "output"
// KERNELS-LABEL: kernel.kernel @softmax_r0
// KERNELS-SAME: inputs = ["output", "arg"]
// KERNELS: kernel.reduce max
// KERNELS: kernel.reduce add
// KERNELS-NOT: kernel.kernel @softmax_
// KERNELS-LABEL: func.func @softmax
// KERNELS-COUNT-1: kernel.launch
// KERNELS-NOT: kernel.launch
func.func @softmax(%x: !graph.tensor<Nx256xf32>) -> !graph.tensor<Nx256xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<Nx256xf32>) -> !graph.tensor<Nx1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<Nx256xf32>, !graph.tensor<Nx1xf32>) -> !graph.tensor<Nx256xf32>
  %e = graph.exp %d : !graph.tensor<Nx256xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<Nx256xf32>) -> !graph.tensor<Nx1xf32>
  %r = graph.div %e, %s : (!graph.tensor<Nx256xf32>, !graph.tensor<Nx1xf32>) -> !graph.tensor<Nx256xf32>
  func.return %r : !graph.tensor<Nx256xf32>
}

// A chain: the variance uses the mean (hoisted out of the variance's loop too); the mean is taken without
// keepdims and reshaped back; the rows are a symbolic dim, the reduced dim of B x T x C is the last.
// ANY-LABEL: func.func @layernorm
// ANY-COUNT-2: graph.realize = "reduce broadcast"
// CPU-LABEL: func.func @layernorm
// CPU-NOT: graph.realize = "reduce broadcast"
// CPU:   graph.add {{.*}}graph.realize = "output"
// KERNELS-LABEL: kernel.kernel @layernorm_r0
// KERNELS-COUNT-2: kernel.reduce add
// KERNELS-NOT: kernel.kernel @layernorm_
// KERNELS-LABEL: func.func @layernorm
// KERNELS-COUNT-1: kernel.launch
// KERNELS-NOT: kernel.launch
func.func @layernorm(%x: !graph.tensor<Bx16x64xf32>, %g: !graph.tensor<64xf32>) -> !graph.tensor<Bx16x64xf32> attributes {graph.dims = #graph.dims<B = [1, 64]>} {
  %n = graph.constant 6.400000e+01 : f32 : !graph.tensor<f32>
  %s = graph.reduce_sum %x {axes = array<i64: 2>} : (!graph.tensor<Bx16x64xf32>) -> !graph.tensor<Bx16xf32>
  %sk = graph.reshape %s : (!graph.tensor<Bx16xf32>) -> !graph.tensor<Bx16x1xf32>
  %mean = graph.div %sk, %n : (!graph.tensor<Bx16x1xf32>, !graph.tensor<f32>) -> !graph.tensor<Bx16x1xf32>
  %c = graph.sub %x, %mean : (!graph.tensor<Bx16x64xf32>, !graph.tensor<Bx16x1xf32>) -> !graph.tensor<Bx16x64xf32>
  %sq = graph.mul %c, %c : (!graph.tensor<Bx16x64xf32>, !graph.tensor<Bx16x64xf32>) -> !graph.tensor<Bx16x64xf32>
  %v = graph.mean %sq {axes = array<i64: 2>, keepdims = true} : (!graph.tensor<Bx16x64xf32>) -> !graph.tensor<Bx16x1xf32>
  %r = graph.rsqrt %v : !graph.tensor<Bx16x1xf32>
  %y = graph.mul %c, %r : (!graph.tensor<Bx16x64xf32>, !graph.tensor<Bx16x1xf32>) -> !graph.tensor<Bx16x64xf32>
  %o = graph.add %y, %g : (!graph.tensor<Bx16x64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<Bx16x64xf32>
  func.return %o : !graph.tensor<Bx16x64xf32>
}

// Column sums broadcast over the rows depend on the inner loop, so in one kernel they would be recomputed
// for every row: realized on every target (with keepdims and without).
// CPU-LABEL: func.func @columns
// CPU:   graph.reduce_sum {{.*}}graph.realize = "reduce broadcast"
// CPU:   graph.reduce_max {{.*}}graph.realize = "reduce broadcast"
// KERNELS-LABEL: func.func @columns
// KERNELS-COUNT-3: kernel.launch
func.func @columns(%x: !graph.tensor<64x32xf32>) -> !graph.tensor<64x32xf32> {
  %s = graph.reduce_sum %x {axes = array<i64: 0>, keepdims = true} : (!graph.tensor<64x32xf32>) -> !graph.tensor<1x32xf32>
  %m = graph.reduce_max %x {axes = array<i64: 0>} : (!graph.tensor<64x32xf32>) -> !graph.tensor<32xf32>
  %a = graph.sub %x, %s : (!graph.tensor<64x32xf32>, !graph.tensor<1x32xf32>) -> !graph.tensor<64x32xf32>
  %b = graph.sub %a, %m : (!graph.tensor<64x32xf32>, !graph.tensor<32xf32>) -> !graph.tensor<64x32xf32>
  func.return %b : !graph.tensor<64x32xf32>
}

// Row maxima stored transposed: the output's outer loop walks the columns, so they are realized.
// CPU-LABEL: func.func @transposed
// CPU:   graph.reduce_max {{.*}}graph.realize = "reduce broadcast"
func.func @transposed(%x: !graph.tensor<64x32xf32>) -> !graph.tensor<32x64xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<64x32xf32>) -> !graph.tensor<64x1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<64x32xf32>, !graph.tensor<64x1xf32>) -> !graph.tensor<64x32xf32>
  %t = graph.permute %d {perm = array<i64: 1, 0>} : (!graph.tensor<64x32xf32>) -> !graph.tensor<32x64xf32>
  func.return %t : !graph.tensor<32x64xf32>
}

// A reduction another kernel needs too (here a second output) is computed once.
// CPU-LABEL: func.func @two_outputs
// CPU:   graph.reduce_max {{.*}}graph.realize = "multi-use reduce"
func.func @two_outputs(%x: !graph.tensor<64x32xf32>) -> (!graph.tensor<64x32xf32>, !graph.tensor<64x1xf32>) {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<64x32xf32>) -> !graph.tensor<64x1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<64x32xf32>, !graph.tensor<64x1xf32>) -> !graph.tensor<64x32xf32>
  %e = graph.exp %m : !graph.tensor<64x1xf32>
  func.return %d, %e : !graph.tensor<64x32xf32>, !graph.tensor<64x1xf32>
}

// A row of 65536 floats (256 KiB, at the symbol's declared maximum) is more than a CPU target keeps in cache.
// CPU-LABEL: func.func @long_rows
// CPU:   graph.reduce_max {{.*}}graph.realize = "reduce broadcast"
func.func @long_rows(%x: !graph.tensor<4xKxf32>) -> !graph.tensor<4xKxf32> attributes {graph.dims = #graph.dims<K = [1, 65536]>} {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<4xKxf32>) -> !graph.tensor<4x1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<4xKxf32>, !graph.tensor<4x1xf32>) -> !graph.tensor<4xKxf32>
  func.return %d : !graph.tensor<4xKxf32>
}

// Attention's probabilities feed a matmul through a broadcast (over v's columns): recomputed there, every
// probability (its exp included) would be computed once per column; they are realized, on every target. The
// row max and sum stay in the softmax's kernel on CPUs.
// ANY-LABEL: func.func @probabilities_times_v
// ANY:   graph.div {{.*}}graph.realize = "broadcast expensive"
// CPU-LABEL: func.func @probabilities_times_v
// CPU-NOT: graph.realize = "reduce broadcast"
// CPU:   graph.div {{.*}}graph.realize = "broadcast expensive"
// CPU:   graph.reduce_sum {{.*}}graph.realize = "output"
// KERNELS-LABEL: func.func @probabilities_times_v
// KERNELS-COUNT-2: kernel.launch
// KERNELS-NOT: kernel.launch
func.func @probabilities_times_v(%s: !graph.tensor<16x32xf32>, %v: !graph.tensor<32x8xf32>) -> !graph.tensor<16x8xf32> {
  %m = graph.reduce_max %s {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<16x32xf32>) -> !graph.tensor<16x1xf32>
  %d = graph.sub %s, %m : (!graph.tensor<16x32xf32>, !graph.tensor<16x1xf32>) -> !graph.tensor<16x32xf32>
  %e = graph.exp %d : !graph.tensor<16x32xf32>
  %t = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<16x32xf32>) -> !graph.tensor<16x1xf32>
  %p = graph.div %e, %t : (!graph.tensor<16x32xf32>, !graph.tensor<16x1xf32>) -> !graph.tensor<16x32xf32>
  %pe = graph.reshape %p : (!graph.tensor<16x32xf32>) -> !graph.tensor<16x32x1xf32>
  %pb = graph.expand %pe : (!graph.tensor<16x32x1xf32>) -> !graph.tensor<16x32x8xf32>
  %prod = graph.mul %pb, %v : (!graph.tensor<16x32x8xf32>, !graph.tensor<32x8xf32>) -> !graph.tensor<16x32x8xf32>
  %o = graph.reduce_sum %prod {axes = array<i64: 1>} : (!graph.tensor<16x32x8xf32>) -> !graph.tensor<16x8xf32>
  func.return %o : !graph.tensor<16x8xf32>
}

// Two ALU ops on a broadcast operand (a bias and a relu before a matmul) are recomputed: one kernel.
// ANY-LABEL: func.func @bias_relu_times_w
// ANY-NOT: graph.realize = "broadcast expensive"
// ANY:   graph.reduce_sum {{.*}}graph.realize = "output"
// KERNELS-LABEL: func.func @bias_relu_times_w
// KERNELS-COUNT-1: kernel.launch
// KERNELS-NOT: kernel.launch
func.func @bias_relu_times_w(%h: !graph.tensor<16x32xf32>, %b: !graph.tensor<32xf32>, %w: !graph.tensor<32x8xf32>) -> !graph.tensor<16x8xf32> {
  %a = graph.add %h, %b : (!graph.tensor<16x32xf32>, !graph.tensor<32xf32>) -> !graph.tensor<16x32xf32>
  %r = graph.relu %a : !graph.tensor<16x32xf32>
  %re = graph.reshape %r : (!graph.tensor<16x32xf32>) -> !graph.tensor<16x32x1xf32>
  %rb = graph.expand %re : (!graph.tensor<16x32x1xf32>) -> !graph.tensor<16x32x8xf32>
  %prod = graph.mul %rb, %w : (!graph.tensor<16x32x8xf32>, !graph.tensor<32x8xf32>) -> !graph.tensor<16x32x8xf32>
  %o = graph.reduce_sum %prod {axes = array<i64: 1>} : (!graph.tensor<16x32x8xf32>) -> !graph.tensor<16x8xf32>
  func.return %o : !graph.tensor<16x8xf32>
}

// BAD: graph-mark-realize: unknown target 'tpu'
