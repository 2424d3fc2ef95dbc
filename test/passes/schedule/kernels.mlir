// RUN: kiln-opt %s -p graph-mark-realize,convert-graph-to-kernel,kernel-plan-memory | filecheck %s
// Kernel-count targets of the scheduler, on programs already in core ops (graph-decompose output).

// matmul + bias + relu: the reduction fuses with its elementwise consumers: one kernel.
// CHECK-LABEL: kernel.kernel @dense_r0(%0: !kernel.buffer<Nx32xf32>, %1: !kernel.buffer<Nx64xf32>, %2: !kernel.buffer<64x32xf32>, %3: !kernel.buffer<32xf32>, %4: index)
// CHECK-SAME: inputs = ["output", "arg", "arg", "arg"], symbols = ["N"]
// CHECK: %[[K:.*]] = kernel.range %{{.*}} reduce
// CHECK: %[[S:.*]] = kernel.reduce add %{{.*}} over %[[K]] : f32
// CHECK: kernel.max
// CHECK-NOT: kernel.kernel @dense_
// CHECK-LABEL: func.func @dense
// CHECK-NEXT: kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx32xf32>
// CHECK-NEXT: %[[N:.*]] = kernel.symbol "N" : index
// CHECK-NEXT: kernel.launch @dense_r0
// CHECK-NOT: kernel.launch
func.func @dense(%x: !graph.tensor<Nx64xf32>, %w: !graph.tensor<64x32xf32>, %b: !graph.tensor<32xf32>) -> !graph.tensor<Nx32xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %xr = graph.reshape %x : (!graph.tensor<Nx64xf32>) -> !graph.tensor<Nx1x64xf32>
  %xe = graph.expand %xr : (!graph.tensor<Nx1x64xf32>) -> !graph.tensor<Nx32x64xf32>
  %wt = graph.permute %w {perm = array<i64: 1, 0>} : (!graph.tensor<64x32xf32>) -> !graph.tensor<32x64xf32>
  %we = graph.expand %wt : (!graph.tensor<32x64xf32>) -> !graph.tensor<Nx32x64xf32>
  %m = graph.mul %xe, %we : (!graph.tensor<Nx32x64xf32>, !graph.tensor<Nx32x64xf32>) -> !graph.tensor<Nx32x64xf32>
  %s = graph.reduce_sum %m {axes = array<i64: 2>} : (!graph.tensor<Nx32x64xf32>) -> !graph.tensor<Nx32xf32>
  %1 = graph.add %s, %b : (!graph.tensor<Nx32xf32>, !graph.tensor<32xf32>) -> !graph.tensor<Nx32xf32>
  %2 = graph.relu %1 : !graph.tensor<Nx32xf32>
  func.return %2 : !graph.tensor<Nx32xf32>
}

// softmax: the max and the sum are broadcast back, so they are realized: three kernels.
// CHECK-LABEL: kernel.kernel @softmax_r0
// CHECK-SAME: inputs = ["output", "arg"]
// CHECK: kernel.reduce max
// CHECK-LABEL: kernel.kernel @softmax_r1
// CHECK-SAME: inputs = ["output", "arg", "reduce broadcast"]
// CHECK: kernel.reduce add
// CHECK-LABEL: kernel.kernel @softmax_e2
// CHECK-SAME: inputs = ["output", "arg", "reduce broadcast", "reduce broadcast"]
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-3: kernel.launch
// CHECK-NOT: kernel.launch
func.func @softmax(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %m = graph.reduce_max %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4x1xf32>
  %d = graph.sub %x, %m : (!graph.tensor<4x8xf32>, !graph.tensor<4x1xf32>) -> !graph.tensor<4x8xf32>
  %e = graph.exp %d : !graph.tensor<4x8xf32>
  %s = graph.reduce_sum %e {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4x1xf32>
  %r = graph.div %e, %s : (!graph.tensor<4x8xf32>, !graph.tensor<4x1xf32>) -> !graph.tensor<4x8xf32>
  func.return %r : !graph.tensor<4x8xf32>
}

// An elementwise chain of 20 ops is one kernel.
// CHECK-LABEL: kernel.kernel @chain_e0
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: kernel.launch
// CHECK-NOT: kernel.launch
func.func @chain(%x: !graph.tensor<Nx16xf32>) -> !graph.tensor<Nx16xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %0 = graph.exp %x : !graph.tensor<Nx16xf32>
  %1 = graph.neg %0 : !graph.tensor<Nx16xf32>
  %2 = graph.sqrt %1 : !graph.tensor<Nx16xf32>
  %3 = graph.abs %2 : !graph.tensor<Nx16xf32>
  %4 = graph.sin %3 : !graph.tensor<Nx16xf32>
  %5 = graph.cos %4 : !graph.tensor<Nx16xf32>
  %6 = graph.tanh %5 : !graph.tensor<Nx16xf32>
  %7 = graph.sigmoid %6 : !graph.tensor<Nx16xf32>
  %8 = graph.relu %7 : !graph.tensor<Nx16xf32>
  %9 = graph.gelu %8 : !graph.tensor<Nx16xf32>
  %10 = graph.exp %9 : !graph.tensor<Nx16xf32>
  %11 = graph.neg %10 : !graph.tensor<Nx16xf32>
  %12 = graph.sqrt %11 : !graph.tensor<Nx16xf32>
  %13 = graph.abs %12 : !graph.tensor<Nx16xf32>
  %14 = graph.sin %13 : !graph.tensor<Nx16xf32>
  %15 = graph.cos %14 : !graph.tensor<Nx16xf32>
  %16 = graph.tanh %15 : !graph.tensor<Nx16xf32>
  %17 = graph.sigmoid %16 : !graph.tensor<Nx16xf32>
  %18 = graph.relu %17 : !graph.tensor<Nx16xf32>
  %19 = graph.gelu %18 : !graph.tensor<Nx16xf32>
  func.return %19 : !graph.tensor<Nx16xf32>
}

// Ten layers realized one after another live in two alternating slots (plus the result's own slot).
// CHECK-LABEL: func.func @deep
// CHECK-SAME: kernel.peak_bytes = 768 : i64, kernel.unplanned_bytes = 2560 : i64
// CHECK-COUNT-5: kernel.alloc {slot = 0 : i64}
func.func @deep(%x: !graph.tensor<64xf32>, %w: !graph.tensor<64xf32>) -> !graph.tensor<64xf32> {
  %a0 = graph.mul %x, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l0 = graph.contiguous %a0 : !graph.tensor<64xf32>
  %a1 = graph.mul %l0, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l1 = graph.contiguous %a1 : !graph.tensor<64xf32>
  %a2 = graph.mul %l1, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l2 = graph.contiguous %a2 : !graph.tensor<64xf32>
  %a3 = graph.mul %l2, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l3 = graph.contiguous %a3 : !graph.tensor<64xf32>
  %a4 = graph.mul %l3, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l4 = graph.contiguous %a4 : !graph.tensor<64xf32>
  %a5 = graph.mul %l4, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l5 = graph.contiguous %a5 : !graph.tensor<64xf32>
  %a6 = graph.mul %l5, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l6 = graph.contiguous %a6 : !graph.tensor<64xf32>
  %a7 = graph.mul %l6, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l7 = graph.contiguous %a7 : !graph.tensor<64xf32>
  %a8 = graph.mul %l7, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l8 = graph.contiguous %a8 : !graph.tensor<64xf32>
  %a9 = graph.mul %l8, %w : (!graph.tensor<64xf32>, !graph.tensor<64xf32>) -> !graph.tensor<64xf32>
  %l9 = graph.contiguous %a9 : !graph.tensor<64xf32>
  func.return %l9 : !graph.tensor<64xf32>
}
