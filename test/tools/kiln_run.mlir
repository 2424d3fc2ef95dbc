// kiln-run compiles a function for a device, runs it on the inputs and prints the results in input syntax.
// RUN: kiln-run %s --device interp --input '2x3xf32=[[1 2 3][4 5 6]]' --input 3xf32=10,20,30 --input i32=7 | filecheck %s
// RUN: kiln-run %s --device interp --function affine --input '2x3xf32=[[1 2 3][4 5 6]]' --input 3xf32=0.5 --input 2 \
// RUN:   --output @%t.y.npy --output @%t.n.npy
// RUN: kiln-run %S/Inputs/identity.mlir --device interp --input @%t.y.npy | filecheck %s --check-prefix=SAVED

// CHECK:      2x3xf32=[[11 22 33][14 25 36]]
// CHECK-NEXT: i32=8
// SAVED:      2x3xf32=[[1.5 2.5 3.5][4.5 5.5 6.5]]

func.func @affine(%x: !graph.tensor<Nx3xf32>, %b: !graph.tensor<3xf32>, %n: !graph.tensor<i32>)
    -> (!graph.tensor<Nx3xf32>, !graph.tensor<i32>) attributes {graph.dims = #graph.dims<N = [1, 16]>} {
  %y = graph.add %x, %b : (!graph.tensor<Nx3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<Nx3xf32>
  %one = graph.constant 1 : i32 : !graph.tensor<i32>
  %m = graph.add %n, %one : (!graph.tensor<i32>, !graph.tensor<i32>) -> !graph.tensor<i32>
  func.return %y, %m : !graph.tensor<Nx3xf32>, !graph.tensor<i32>
}
