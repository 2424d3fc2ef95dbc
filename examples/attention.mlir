// Single-head scaled dot-product attention over a symbolic sequence length S:
// softmax(q @ k^T / sqrt(64)) @ v.
func.func @attention(%q: !graph.tensor<Sx64xf32>, %k: !graph.tensor<Sx64xf32>, %v: !graph.tensor<Sx64xf32>) -> !graph.tensor<Sx64xf32>
    attributes {graph.dims = #graph.dims<S = [1, 2048]>} {
  %kt = graph.permute %k {perm = array<i64: 1, 0>} : (!graph.tensor<Sx64xf32>) -> !graph.tensor<64xSxf32>
  %s = graph.matmul %q, %kt : (!graph.tensor<Sx64xf32>, !graph.tensor<64xSxf32>) -> !graph.tensor<SxSxf32>
  %c = graph.constant 0.125 : f32 : !graph.tensor<f32>
  %ss = graph.mul %s, %c : (!graph.tensor<SxSxf32>, !graph.tensor<f32>) -> !graph.tensor<SxSxf32>
  %p = graph.softmax %ss {axis = 1 : i64} : (!graph.tensor<SxSxf32>) -> !graph.tensor<SxSxf32>
  %o = graph.matmul %p, %v : (!graph.tensor<SxSxf32>, !graph.tensor<Sx64xf32>) -> !graph.tensor<Sx64xf32>
  func.return %o : !graph.tensor<Sx64xf32>
}
