// A two-layer MLP over a symbolic batch N: relu(x @ w1 + b1) @ w2 + b2.
// Run: kiln-run examples/mlp.mlir --input 4x64xf32=... (see README)
func.func @mlp(%x: !graph.tensor<Nx64xf32>, %w1: !graph.tensor<64x128xf32>, %b1: !graph.tensor<128xf32>,
               %w2: !graph.tensor<128x10xf32>, %b2: !graph.tensor<10xf32>) -> !graph.tensor<Nx10xf32>
    attributes {graph.dims = #graph.dims<N = [1, 4096]>} {
  %h = graph.matmul %x, %w1 : (!graph.tensor<Nx64xf32>, !graph.tensor<64x128xf32>) -> !graph.tensor<Nx128xf32>
  %hb = graph.add %h, %b1 : (!graph.tensor<Nx128xf32>, !graph.tensor<128xf32>) -> !graph.tensor<Nx128xf32>
  %a = graph.relu %hb : !graph.tensor<Nx128xf32>
  %o = graph.matmul %a, %w2 : (!graph.tensor<Nx128xf32>, !graph.tensor<128x10xf32>) -> !graph.tensor<Nx10xf32>
  %ob = graph.add %o, %b2 : (!graph.tensor<Nx10xf32>, !graph.tensor<10xf32>) -> !graph.tensor<Nx10xf32>
  func.return %ob : !graph.tensor<Nx10xf32>
}
