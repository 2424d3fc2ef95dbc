// RUN: kiln-opt %s -p 'graph-legalize-dtypes{target=webgpu}' | filecheck %s
// RUN: kiln-opt %s -p 'graph-legalize-dtypes{target=cpu-llvm}' | filecheck %s --check-prefix=CPU

// WGSL has no i64: arguments, results, constants and argmax's index become i32; the function type follows.
// CHECK-LABEL: func.func @ints(%x: !graph.tensor<3xi32>, %f: !graph.tensor<3xf32>) -> (!graph.tensor<3xi32>, !graph.tensor<i32>)
// CHECK-NEXT:    %c = graph.constant 7 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %d = graph.constant dense<[1, 2, 3]> : tensor<3xi32> : !graph.tensor<3xi32>
// CHECK-NEXT:    %s = graph.add %x, %c : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %m = graph.mul %s, %d : (!graph.tensor<3xi32>, !graph.tensor<3xi32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %a = graph.argmax %f {axis = 0 : i64} : (!graph.tensor<3xf32>) -> !graph.tensor<i32>
// CPU-LABEL: func.func @ints(%x: !graph.tensor<3xi64>, %f: !graph.tensor<3xf32>) -> (!graph.tensor<3xi64>, !graph.tensor<i64>)
func.func @ints(%x: !graph.tensor<3xi64>, %f: !graph.tensor<3xf32>) -> (!graph.tensor<3xi64>, !graph.tensor<i64>) {
  %c = graph.constant 7 : i64 : !graph.tensor<i64>
  %d = graph.constant dense<[1, 2, 3]> : tensor<3xi64> : !graph.tensor<3xi64>
  %s = graph.add %x, %c : (!graph.tensor<3xi64>, !graph.tensor<i64>) -> !graph.tensor<3xi64>
  %m = graph.mul %s, %d : (!graph.tensor<3xi64>, !graph.tensor<3xi64>) -> !graph.tensor<3xi64>
  %a = graph.argmax %f {axis = 0 : i64} : (!graph.tensor<3xf32>) -> !graph.tensor<i64>
  func.return %m, %a : !graph.tensor<3xi64>, !graph.tensor<i64>
}

