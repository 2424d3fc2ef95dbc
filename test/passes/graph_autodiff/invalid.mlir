// RUN: not kiln-opt %s --split-input-file -p 'graph-autodiff{function=f}' 2>&1 | filecheck %s
// RUN: not kiln-opt %s --split-input-file -p 'graph-autodiff{function=f wrt=1}' 2>&1 | filecheck %s --check-prefix=WRT
// RUN: not kiln-opt %s --split-input-file -p 'graph-autodiff{function=nope}' 2>&1 | filecheck %s --check-prefix=MISSING

// A gradient cannot pass through a reinterpretation of bits; the error names the op.
// CHECK: error: graph-autodiff of @f: graph.bitcast is not differentiable: a gradient would have to flow through it
// WRT: error: graph-autodiff: argument 1 of @f is !graph.tensor<4xi16>; only floating-point arguments have gradients
// MISSING: error: graph-autodiff: no function @nope in the module (function=NAME)
func.func @f(%x: !graph.tensor<4xf16>, %i: !graph.tensor<4xi16>) -> !graph.tensor<4xbf16> {
  %0 = graph.bitcast %x : (!graph.tensor<4xf16>) -> !graph.tensor<4xbf16>
  func.return %0 : !graph.tensor<4xbf16>
}
