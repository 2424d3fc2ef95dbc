// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// Upcast and unroll ranges have no loops: everything depending on them is copied once per value. A 4x4
// register tile of a matmul: the upcast range u over 4 output columns gives 4 accumulators that share one
// k loop; the unroll range v (4 steps of k) gives 4 products per accumulator update. Copies whose indices are
// consecutive become vector accesses: a row of a (over v) and rows of b (over u) are vector<4xf32> loads
// taken apart with uop.extract, and the 4 results are one vector store.

// CHECK-LABEL: uop.kernel @tiled
// CHECK-SAME:    opts = ["upcast(1,4)", "unroll(0,4)"]
// CHECK:         %i = uop.range
// CHECK:         %j = uop.range
// CHECK-COUNT-4: uop.define_acc
// CHECK:         %k = uop.range
// CHECK-NOT:     uop.range
// CHECK:         %[[A:.*]] = uop.load %a[%{{.*}}] : vector<4xf32>
// CHECK-NEXT:    %x = uop.extract %[[A]][0] : vector<4xf32>
// CHECK:         %[[B:.*]] = uop.load %b[%{{.*}}] : vector<4xf32>
// CHECK-NEXT:    %y = uop.extract %[[B]][0] : vector<4xf32>
// CHECK:         %x_3 = uop.extract %[[A]][3] : vector<4xf32>
// CHECK:         uop.acc_set
// CHECK:         uop.acc_set
// CHECK:         uop.acc_set
// CHECK:         uop.acc_set
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    %[[S0:.*]] = uop.acc_get
// CHECK-NEXT:    %[[S1:.*]] = uop.acc_get
// CHECK-NEXT:    %[[S2:.*]] = uop.acc_get
// CHECK-NEXT:    %[[S3:.*]] = uop.acc_get
// CHECK-NEXT:    %[[V:.*]] = uop.vectorize %[[S0]], %[[S1]], %[[S2]], %[[S3]] : vector<4xf32>
// CHECK-NEXT:    uop.store %out[%{{.*}}], %[[V]] : vector<4xf32>
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    uop.end %i

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
