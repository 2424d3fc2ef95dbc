// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// A symbolic dim in a function signature must be declared even if no op uses the argument.

// expected-error@+1 {{@g: symbolic dim 'M' is not declared}}
func.func @g(%x: !graph.tensor<Mx4xf32>) {
  func.return
}

// -----

// expected-error@+1 {{@h: symbolic dim 'K' is not declared}}
func.func @h(%x: !graph.tensor<Nx4xf32>) -> !graph.tensor<Kxf32> attributes {graph.dims = #graph.dims<N = [1, 4]>} {
  %0 = "test.op"() : () -> !graph.tensor<Kxf32>
  func.return %0 : !graph.tensor<Kxf32>
}
