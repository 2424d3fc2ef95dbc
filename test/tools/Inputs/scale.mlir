func.func @scale(%x: !graph.tensor<NxMxf32>) -> !graph.tensor<NxMxf32>
    attributes {graph.dims = #graph.dims<N = [1, 4096], M = [1, 4096]>} {
  %y = graph.add %x, %x : (!graph.tensor<NxMxf32>, !graph.tensor<NxMxf32>) -> !graph.tensor<NxMxf32>
  func.return %y : !graph.tensor<NxMxf32>
}
