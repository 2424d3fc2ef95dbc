// RUN: kiln-opt %s -p lower-to-kernel --split-input-file --verify-diagnostics
// Kernels are formed from functions of graph ops: anything else is reported where it is, never an internal error.

func.func @plain_arith(%a: i32, %b: i32) -> i32 {
  // expected-error@+1 {{'arith.addi' is not a graph op: kernels are formed from functions of graph ops (lower-to-kernel takes the graph level)}}
  %c = arith.addi %a, %b : i32
  func.return %c : i32
}

// -----

// expected-error@+1 {{@scalar takes or returns i32: kernels are formed from functions of !graph.tensor values}}
func.func @scalar(%a: i32) -> i32 {
  func.return %a : i32
}

// -----

func.func @mixed(%x: !graph.tensor<4xf32>) -> (!graph.tensor<4xf32>, i32) {
  %e = graph.exp %x : !graph.tensor<4xf32>
  // expected-error@+1 {{'arith.constant' is not a graph op}}
  %c = arith.constant 1 : i32
  func.return %e, %c : !graph.tensor<4xf32>, i32
}

// -----

// A schedule function (kernel level: what the beam search times) has nothing left to schedule and passes through.
func.func @schedule() -> !kernel.buffer<4xf32> {
  %out = kernel.alloc : !kernel.buffer<4xf32>
  func.return %out : !kernel.buffer<4xf32>
}
