// A named pipeline from kiln.compiler.registry.PIPELINES expands inline, between the passes around it.
// RUN: kiln-opt %s -p dce,lower-to-kernel,cse --mlir-print-ir-after-all -o %t.mlir 2>&1 | filecheck %s

// CHECK:      IR Dump After {{[A-Za-z]+}} (dce)
// CHECK-NEXT: builtin.module
// CHECK:      IR Dump After {{[A-Za-z]+}} (graph-decompose)
// CHECK:      IR Dump After {{[A-Za-z]+}} (graph-canonicalize)
// CHECK:      IR Dump After {{[A-Za-z]+}} (cse)
// CHECK:      IR Dump After {{[A-Za-z]+}} (graph-mark-realize)
// CHECK:      IR Dump After {{[A-Za-z]+}} (convert-graph-to-kernel)
// CHECK:      IR Dump After {{[A-Za-z]+}} (kernel-plan-memory)
// CHECK:      kernel.kernel
// CHECK:      IR Dump After {{[A-Za-z]+}} (cse)
// CHECK-NOT:  IR Dump

func.func @biased_relu(%x: !graph.tensor<4x8xf32>, %b: !graph.tensor<8xf32>) -> !graph.tensor<4x8xf32> {
  %0 = graph.add %x, %b : (!graph.tensor<4x8xf32>, !graph.tensor<8xf32>) -> !graph.tensor<4x8xf32>
  %1 = graph.relu %0 : !graph.tensor<4x8xf32>
  func.return %1 : !graph.tensor<4x8xf32>
}
