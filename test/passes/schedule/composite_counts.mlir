// RUN: kiln-opt %s -p lower-to-kernel | filecheck %s
// Kernel-count targets through the whole lower-to-kernel pipeline (decompose, canonicalize, cse, schedule).

// CHECK-LABEL: func.func @dense
// CHECK-COUNT-1: kernel.launch
// CHECK-NOT: kernel.launch
func.func @dense(%x: !graph.tensor<Nx64xf32>, %w: !graph.tensor<64x32xf32>, %b: !graph.tensor<32xf32>) -> !graph.tensor<Nx32xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %0 = graph.matmul %x, %w : (!graph.tensor<Nx64xf32>, !graph.tensor<64x32xf32>) -> !graph.tensor<Nx32xf32>
  %1 = graph.add %0, %b : (!graph.tensor<Nx32xf32>, !graph.tensor<32xf32>) -> !graph.tensor<Nx32xf32>
  %2 = graph.relu %1 : !graph.tensor<Nx32xf32>
  func.return %2 : !graph.tensor<Nx32xf32>
}

// A two-layer MLP: the hidden layer is realized once (its reduce is consumed through a broadcast).
// CHECK-LABEL: func.func @mlp
// CHECK-COUNT-2: kernel.launch
// CHECK-NOT: kernel.launch
func.func @mlp(%x: !graph.tensor<Nx64xf32>, %w1: !graph.tensor<64x128xf32>, %b1: !graph.tensor<128xf32>, %w2: !graph.tensor<128x10xf32>, %b2: !graph.tensor<10xf32>) -> !graph.tensor<Nx10xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %h = graph.matmul %x, %w1 : (!graph.tensor<Nx64xf32>, !graph.tensor<64x128xf32>) -> !graph.tensor<Nx128xf32>
  %hb = graph.add %h, %b1 : (!graph.tensor<Nx128xf32>, !graph.tensor<128xf32>) -> !graph.tensor<Nx128xf32>
  %a = graph.relu %hb : !graph.tensor<Nx128xf32>
  %o = graph.matmul %a, %w2 : (!graph.tensor<Nx128xf32>, !graph.tensor<128x10xf32>) -> !graph.tensor<Nx10xf32>
  %ob = graph.add %o, %b2 : (!graph.tensor<Nx10xf32>, !graph.tensor<10xf32>) -> !graph.tensor<Nx10xf32>
  func.return %ob : !graph.tensor<Nx10xf32>
}

// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-3: kernel.launch
// CHECK-NOT: kernel.launch
func.func @softmax(%x: !graph.tensor<Nx256xf32>) -> !graph.tensor<Nx256xf32> attributes {graph.dims = #graph.dims<N = [1, 65536]>} {
  %y = graph.softmax %x {axis = 1 : i64} : (!graph.tensor<Nx256xf32>) -> !graph.tensor<Nx256xf32>
  func.return %y : !graph.tensor<Nx256xf32>
}

// CHECK-LABEL: func.func @layernorm
// CHECK-COUNT-3: kernel.launch
// CHECK-NOT: kernel.launch
func.func @layernorm(%x: !graph.tensor<Nx512xf32>, %g: !graph.tensor<512xf32>, %b: !graph.tensor<512xf32>) -> !graph.tensor<Nx512xf32> attributes {graph.dims = #graph.dims<N = [1, 8192]>} {
  %y = graph.layernorm %x affine(%g, %b) {axes = array<i64: 1>} : (!graph.tensor<Nx512xf32>, !graph.tensor<512xf32>, !graph.tensor<512xf32>) -> !graph.tensor<Nx512xf32>
  func.return %y : !graph.tensor<Nx512xf32>
}
