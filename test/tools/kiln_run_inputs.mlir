// kiln-run checks every input against the function's signature before compiling anything:
// count, dtype, shape, and symbolic dims (one value across inputs, within the declared bounds).
// RUN: not kiln-run %s --input 2x4xf32=1 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not kiln-run %s --input 2x4xf32=1 --input 4xf64=0 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: not kiln-run %s --input 2x5xf32=1 --input 4xf32=0 2>&1 | filecheck %s --check-prefix=SHAPE
// RUN: not kiln-run %s --input 9x4xf32=1 --input 4xf32=0 2>&1 | filecheck %s --check-prefix=BOUND
// RUN: not kiln-run %s --input 2x4xf32=1,2 --input 4xf32=0 2>&1 | filecheck %s --check-prefix=COUNTVALUES
// RUN: not kiln-run %s --input 2x4xf32=1 --input 4xf32=[0 2>&1 | filecheck %s --check-prefix=BRACKET
// RUN: not kiln-run %s --input 2x4xf32=1 --input 7 2>&1 | filecheck %s --check-prefix=BARE
// RUN: not kiln-run %s --input @%t.missing.npy --input 4xf32=0 2>&1 | filecheck %s --check-prefix=NPY
// RUN: not kiln-run %s --function nope 2>&1 | filecheck %s --check-prefix=FUNC
// RUN: not kiln-run %s --input 2x4xf32=1 --input 4xf32=0 --output out.npy 2>&1 | filecheck %s --check-prefix=OUTPUT

// COUNT:       kiln-run: error: @scale_rows takes 2 inputs (Nx4xf32, 4xf32); got 1 --input
// DTYPE:       kiln-run: error: @scale_rows: input 1: expected 4xf32, got 4xf64
// SHAPE:       kiln-run: error: @scale_rows: input 0: expected Nx4xf32, got 2x5xf32 (dim 1 is 5, not 4)
// BOUND:       kiln-run: error: @scale_rows: input 0 (dim 0) gives N = 9, outside its declared bounds [1, 8]
// COUNTVALUES: kiln-run: error: input 0: input '2x4xf32=1,2' has 2 values; its shape [2, 4] needs 8
// BRACKET:     kiln-run: error: input 1: unclosed '[' in input '4xf32=[0'
// BARE:        kiln-run: error: input 1: bare value '7' given for argument 4xf32; a bare value is for a rank-0 argument
// NPY:         kiln-run: error: input 0: cannot read input array '{{.*}}.missing.npy'
// FUNC:        kiln-run: error: no function @nope in the module (public functions: scale_rows)
// OUTPUT:      kiln-run: error: --output takes @FILE.npy, got 'out.npy'

func.func @scale_rows(%x: !graph.tensor<Nx4xf32>, %s: !graph.tensor<4xf32>) -> !graph.tensor<Nx4xf32>
    attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  %0 = graph.mul %x, %s : (!graph.tensor<Nx4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<Nx4xf32>
  func.return %0 : !graph.tensor<Nx4xf32>
}
