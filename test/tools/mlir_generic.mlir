// kiln's IR in the generic form is valid MLIR: upstream mlir-opt parses it (kiln's dialects as unregistered).
// REQUIRES: mlir-opt
// RUN: kiln-opt %s --print-op-generic | %mlir-opt --allow-unregistered-dialect | filecheck %s

// CHECK:      func.func @dense(%arg0: !graph.tensor<Nx4xf32>, %arg1: !graph.tensor<4x3xf32>) -> !graph.tensor<Nx3xf32> attributes {graph.dims = #graph.dims<N = [1, 64]>}
// CHECK-NEXT:   %0 = "graph.matmul"(%arg0, %arg1) : (!graph.tensor<Nx4xf32>, !graph.tensor<4x3xf32>) -> !graph.tensor<Nx3xf32>
// CHECK-NEXT:   %1 = "graph.constant"() <{value = 0.000000e+00 : f32}> : () -> !graph.tensor<f32>
// CHECK-NEXT:   %2 = "graph.max"(%0, %1)
// CHECK-NEXT:   return %2 : !graph.tensor<Nx3xf32>

func.func @dense(%x: !graph.tensor<Nx4xf32>, %w: !graph.tensor<4x3xf32>) -> !graph.tensor<Nx3xf32>
    attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  %0 = graph.matmul %x, %w : (!graph.tensor<Nx4xf32>, !graph.tensor<4x3xf32>) -> !graph.tensor<Nx3xf32>
  %zero = graph.constant 0.0 : f32 : !graph.tensor<f32>
  %1 = graph.max %0, %zero : (!graph.tensor<Nx3xf32>, !graph.tensor<f32>) -> !graph.tensor<Nx3xf32>
  func.return %1 : !graph.tensor<Nx3xf32>
}
