func.func @identity(%x: !graph.tensor<2x3xf32>) -> !graph.tensor<2x3xf32> {
  func.return %x : !graph.tensor<2x3xf32>
}
