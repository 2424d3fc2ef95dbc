// A small convnet block: 3x3 conv (padding 1) + bias + relu, 2x2 max pool, then a 1x1 conv.
func.func @convnet(%x: !graph.tensor<2x3x16x16xf32>, %w1: !graph.tensor<8x3x3x3xf32>, %b1: !graph.tensor<8xf32>,
                   %w2: !graph.tensor<4x8x1x1xf32>) -> !graph.tensor<2x4x8x8xf32> {
  %c = graph.conv2d %x, %w1 bias %b1 {padding = array<i64: 1, 1>} : (!graph.tensor<2x3x16x16xf32>, !graph.tensor<8x3x3x3xf32>, !graph.tensor<8xf32>) -> !graph.tensor<2x8x16x16xf32>
  %r = graph.relu %c : !graph.tensor<2x8x16x16xf32>
  %p = graph.max_pool2d %r {kernel = array<i64: 2, 2>} : (!graph.tensor<2x8x16x16xf32>) -> !graph.tensor<2x8x8x8xf32>
  %y = graph.conv2d %p, %w2 : (!graph.tensor<2x8x8x8xf32>, !graph.tensor<4x8x1x1xf32>) -> !graph.tensor<2x4x8x8xf32>
  func.return %y : !graph.tensor<2x4x8x8xf32>
}
