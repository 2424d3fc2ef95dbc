// Ops a pass builds in place of another keep its location: graph-decompose's core ops carry the composite's
// line, so a kernel made of them (and an error about that kernel) points at the composite in the input.
// RUN: kiln-opt %s -p graph-decompose --mlir-print-debuginfo | filecheck %s
// RUN: not kiln-opt %s -p 'lower-to-kernel,kernel-optimize{opts="upcast:7:4"}' 2>&1 | filecheck %s --check-prefix=ERROR

func.func @f(%a: !graph.tensor<4x8xf32>, %b: !graph.tensor<8x3xf32>) -> !graph.tensor<4x3xf32> {
  %m = graph.matmul %a, %b : (!graph.tensor<4x8xf32>, !graph.tensor<8x3xf32>) -> !graph.tensor<4x3xf32>
  %s = graph.softmax %m {axis = 1 : i64} : (!graph.tensor<4x3xf32>) -> !graph.tensor<4x3xf32>
  func.return %s : !graph.tensor<4x3xf32>
}

// CHECK:      func.func @f
// CHECK:        graph.reshape {{.*}} loc("{{.*}}print_debuginfo_decomposed.mlir":7:3)
// CHECK:        graph.reduce_sum {{.*}} loc("{{.*}}print_debuginfo_decomposed.mlir":7:3)
// CHECK:        graph.reduce_max {{.*}} loc("{{.*}}print_debuginfo_decomposed.mlir":8:3)
// CHECK:        graph.exp_nonpositive {{.*}} loc("{{.*}}print_debuginfo_decomposed.mlir":8:3)
// CHECK:        graph.div {{.*}} loc("{{.*}}print_debuginfo_decomposed.mlir":8:3)
// CHECK-NOT:    loc(unknown)
// CHECK:        func.return
// ERROR:      print_debuginfo_decomposed.mlir:7:3: error: 'kernel.kernel' op cannot apply opt #0 'upcast:7:4' to @f_r0
// ERROR-NEXT:   %m = graph.matmul
