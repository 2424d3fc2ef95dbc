func.func @relu(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %0 = graph.relu %x : !graph.tensor<4x8xf32>
  func.return %0 : !graph.tensor<4x8xf32>
}
