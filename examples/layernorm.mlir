// Layer normalization over the feature axis, with a learned scale and shift.
func.func @layernorm(%x: !graph.tensor<Nx512xf32>, %g: !graph.tensor<512xf32>, %b: !graph.tensor<512xf32>) -> !graph.tensor<Nx512xf32>
    attributes {graph.dims = #graph.dims<N = [1, 8192]>} {
  %y = graph.layernorm %x affine(%g, %b) {axes = array<i64: 1>, epsilon = 1.0e-05 : f64} : (!graph.tensor<Nx512xf32>, !graph.tensor<512xf32>, !graph.tensor<512xf32>) -> !graph.tensor<Nx512xf32>
  func.return %y : !graph.tensor<Nx512xf32>
}
