// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// RUN: kiln-opt %s -p 'convert-kernel-to-uop{vector_alu=false}' | filecheck %s --check-prefix=SCALAR
// Upcast and unroll ranges have no loops: everything depending on them is copied once per value. A 4x4
// register tile of a matmul: the upcast range u over 4 output columns gives 4 accumulators that share one
// k loop; the unroll range v (4 steps of k) gives 4 products per accumulator update. Copies whose indices are
// consecutive become vector accesses: a row of a (over v) and rows of b (over u) are vector<4xf32> loads.
// The linearizer instantiates u a row (4 lanes) at a time: one vector<4xf32> accumulator, one vector load of
// b, mul and add per step of v (a's elements broadcast), and the vector result stored as it is.

// CHECK-LABEL: uop.kernel @tiled
// CHECK-SAME:    opts = ["upcast(1,4)", "unroll(0,4)"]
// CHECK:         %[[ZERO:.*]] = uop.const dense<0.000000e+00> : vector<4xf32>
// CHECK:         %i = uop.range
// CHECK:         %j = uop.range
// CHECK-NEXT:    %[[ACC:.*]] = uop.define_acc %[[ZERO]] : vector<4xf32>
// CHECK-NOT:     uop.define_acc
// CHECK:         %k = uop.range
// CHECK-NOT:     uop.range
// CHECK:         %[[GET:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// CHECK:         %[[A:.*]] = uop.load %a[%{{.*}}] : vector<4xf32>
// CHECK-NEXT:    %x = uop.extract %[[A]][0] : vector<4xf32>
// CHECK:         %y = uop.load %b[%{{.*}}] : vector<4xf32>
// CHECK-NEXT:    %[[X0:.*]] = uop.vectorize %x, %x, %x, %x : vector<4xf32>
// CHECK-NEXT:    %p = uop.mul %[[X0]], %y : vector<4xf32>
// CHECK-COUNT-2: uop.mul %{{.*}} : vector<4xf32>
// CHECK:         %x_3 = uop.extract %[[A]][3] : vector<4xf32>
// CHECK:         %y_3 = uop.load %b[%{{.*}}] : vector<4xf32>
// CHECK-NEXT:    %[[X3:.*]] = uop.vectorize %x_3, %x_3, %x_3, %x_3 : vector<4xf32>
// CHECK-NEXT:    %p_3 = uop.mul %[[X3]], %y_3 : vector<4xf32>
// CHECK-NEXT:    %[[S0:.*]] = uop.add %[[GET]], %p : vector<4xf32>
// CHECK-NEXT:    %[[S1:.*]] = uop.add %[[S0]], %p_1 : vector<4xf32>
// CHECK-NEXT:    %[[S2:.*]] = uop.add %[[S1]], %p_2 : vector<4xf32>
// CHECK-NEXT:    %[[S3:.*]] = uop.add %[[S2]], %p_3 : vector<4xf32>
// CHECK-NEXT:    uop.acc_set %[[ACC]], %[[S3]]
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    %s = uop.acc_get %[[ACC]] : vector<4xf32>
// CHECK-NEXT:    uop.store %out[%{{.*}}], %s : vector<4xf32>
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    uop.end %i

// Without vector_alu (as before issue 12): 4 scalar accumulators, 16 scalar mul/add pairs on lanes taken apart
// from the loads with uop.extract, and a uop.vectorize of the 4 results for the store.
// SCALAR-LABEL: uop.kernel @tiled
// SCALAR:         %i = uop.range
// SCALAR:         %j = uop.range
// SCALAR-COUNT-4: uop.define_acc %{{.*}} : f32
// SCALAR:         %k = uop.range
// SCALAR-NOT:     uop.range
// SCALAR:         %[[A:.*]] = uop.load %a[%{{.*}}] : vector<4xf32>
// SCALAR-NEXT:    %x = uop.extract %[[A]][0] : vector<4xf32>
// SCALAR:         %[[B:.*]] = uop.load %b[%{{.*}}] : vector<4xf32>
// SCALAR-NEXT:    %y = uop.extract %[[B]][0] : vector<4xf32>
// SCALAR:         %x_3 = uop.extract %[[A]][3] : vector<4xf32>
// SCALAR-COUNT-4: uop.acc_set
// SCALAR-NEXT:    uop.end %k
// SCALAR-NEXT:    %[[S0:.*]] = uop.acc_get
// SCALAR-NEXT:    %[[S1:.*]] = uop.acc_get
// SCALAR-NEXT:    %[[S2:.*]] = uop.acc_get
// SCALAR-NEXT:    %[[S3:.*]] = uop.acc_get
// SCALAR-NEXT:    %[[V:.*]] = uop.vectorize %[[S0]], %[[S1]], %[[S2]], %[[S3]] : vector<4xf32>
// SCALAR-NEXT:    uop.store %out[%{{.*}}], %[[V]] : vector<4xf32>

kernel.kernel @tiled(%a: !kernel.buffer<6x8xf32>, %b: !kernel.buffer<8x16xf32>, %out: !kernel.buffer<6x16xf32>)
    attributes {symbols = [], opts = ["upcast(1,4)", "unroll(0,4)"]} {
  %c16 = kernel.const 16 : index
  %c6 = kernel.const 6 : index
  %c4 = kernel.const 4 : index
  %c2 = kernel.const 2 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %c6 global
  %j = kernel.range %c4 global
  %u = kernel.range %c4 upcast
  %k = kernel.range %c2 reduce
  %v = kernel.range %c4 unroll
  %j4 = kernel.mul %j, %c4 : index
  %jj = kernel.add %j4, %u : index
  %k4 = kernel.mul %k, %c4 : index
  %kk = kernel.add %k4, %v : index
  %i8 = kernel.mul %i, %c8 : index
  %ia = kernel.add %i8, %kk : index
  %k16 = kernel.mul %kk, %c16 : index
  %ib = kernel.add %k16, %jj : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k, %v : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %jj : index
  kernel.store %out[%io], %s
}
