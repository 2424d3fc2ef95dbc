// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// A matmul + relu: the reduce over k becomes an accumulator defined before the k loop (identity 0), read,
// combined and written inside it, and read once more after it for the reduced value, which then feeds the
// relu before the store. Index math that depends only on outer ranges is computed outside inner loops: i*16
// once per i, the output index once per (i, j), outside the k loop.

// CHECK-LABEL: uop.kernel @dense
// CHECK-SAME:    core_extent = "N", core_work = 922 : i64
// CHECK:         %[[ZERO:.*]] = uop.const 0.000000e+00 : f32
// CHECK:         %i = uop.range
// CHECK-NEXT:    %i8 = uop.mul %i, %{{.*}} : index
// CHECK-NEXT:    %i16 = uop.mul %i, %{{.*}} : index
// CHECK-NEXT:    %j = uop.range
// CHECK-NEXT:    %[[ACC:.*]] = uop.define_acc %[[ZERO]] : f32
// CHECK-NEXT:    %io = uop.add %i8, %j : index
// CHECK-NEXT:    %k = uop.range
// CHECK-NEXT:    %[[CUR:.*]] = uop.acc_get %[[ACC]] : f32
// CHECK-NEXT:    %ia = uop.add %i16, %k : index
// CHECK-NEXT:    %a = uop.load %x[%ia] : f32
// CHECK-NEXT:    %k8 = uop.mul %k, %{{.*}} : index
// CHECK-NEXT:    %ib = uop.add %k8, %j : index
// CHECK-NEXT:    %b = uop.load %w[%ib] : f32
// CHECK-NEXT:    %p = uop.mul %a, %b : f32
// CHECK-NEXT:    %[[NEXT:.*]] = uop.add %[[CUR]], %p : f32
// CHECK-NEXT:    uop.acc_set %[[ACC]], %[[NEXT]]
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    %s = uop.acc_get %[[ACC]] : f32
// CHECK-NEXT:    %r = uop.max %s, %[[ZERO]] : f32
// CHECK-NEXT:    uop.store %out[%io], %r
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    uop.end %i

kernel.kernel @dense(%x: !kernel.buffer<Nx16xf32>, %w: !kernel.buffer<16x8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %c8 = kernel.const 8 : index
  %zero = kernel.const 0.0 : f32
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c16 reduce
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %r = kernel.max %s, %zero : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %r
}
