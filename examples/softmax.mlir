// Row-wise softmax over a symbolic number of rows.
func.func @softmax(%x: !graph.tensor<Nx256xf32>) -> !graph.tensor<Nx256xf32> attributes {graph.dims = #graph.dims<N = [1, 65536]>} {
  %y = graph.softmax %x {axis = 1 : i64} : (!graph.tensor<Nx256xf32>) -> !graph.tensor<Nx256xf32>
  func.return %y : !graph.tensor<Nx256xf32>
}
