// RUN: kiln-opt %s -p convert-kernel-to-uop | filecheck %s
// Nested reduces: the sum over j of the max over k. The max accumulator (identity -inf) is defined inside the
// j loop, so it restarts for every j; the sum accumulator outside it. Two reduces over the same range where
// one needs the other (softmax: the max over k, then the sum over k of exp(x - max)) get two loops over k, one
// after the other, both outside the j loop of the output.

// CHECK-LABEL: uop.kernel @sum_of_max
// CHECK-DAG:     %[[NEGINF:.*]] = uop.const 0xff800000 : f32
// CHECK-DAG:     %[[ZERO:.*]] = uop.const 0.000000e+00 : f32
// CHECK:         %i = uop.range
// CHECK-NEXT:    %[[SUM:.*]] = uop.define_acc %[[ZERO]] : f32
// CHECK:         %j = uop.range
// CHECK-NEXT:    %[[MAX:.*]] = uop.define_acc %[[NEGINF]] : f32
// CHECK:         %k = uop.range
// CHECK:         %v = uop.load
// CHECK:         uop.max %{{.*}}, %v : f32
// CHECK:         uop.end %k
// CHECK-NEXT:    %m = uop.acc_get %[[MAX]] : f32
// CHECK-NEXT:    %[[T:.*]] = uop.add %{{.*}}, %m : f32
// CHECK-NEXT:    uop.acc_set %[[SUM]], %[[T]]
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    %s = uop.acc_get %[[SUM]] : f32
// CHECK-NEXT:    uop.store %out[%i], %s
// CHECK-NEXT:    uop.end %i

kernel.kernel @sum_of_max(%x: !kernel.buffer<4x6x5xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c6 = kernel.const 6 : index
  %c5 = kernel.const 5 : index
  %c30 = kernel.const 30 : index
  %i = kernel.range %c4 global
  %j = kernel.range %c6 reduce
  %k = kernel.range %c5 reduce
  %i30 = kernel.mul %i, %c30 : index
  %j5 = kernel.mul %j, %c5 : index
  %a = kernel.add %i30, %j5 : index
  %idx = kernel.add %a, %k : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %k : f32
  %s = kernel.reduce add %m over %j : f32
  kernel.store %out[%i], %s
}

// CHECK-LABEL: uop.kernel @softmax
// CHECK:         %i = uop.range
// CHECK:         %[[MAX:.*]] = uop.define_acc
// CHECK:         %[[SUM:.*]] = uop.define_acc
// CHECK:         %k = uop.range
// CHECK:         uop.acc_set %[[MAX]]
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    %m = uop.acc_get %[[MAX]] : f32
// CHECK-NEXT:    %[[K2:.*]] = uop.range
// CHECK:         %d = uop.sub %{{.*}}, %m : f32
// CHECK:         uop.acc_set %[[SUM]]
// CHECK-NEXT:    uop.end %[[K2]]
// CHECK-NEXT:    %s = uop.acc_get %[[SUM]] : f32
// CHECK-NEXT:    %j = uop.range
// CHECK:         %r = uop.div %{{.*}}, %s : f32
// CHECK-NEXT:    uop.store %out[%{{.*}}], %r
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    uop.end %i

kernel.kernel @softmax(%x: !kernel.buffer<Nx8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c8 reduce
  %i8 = kernel.mul %i, %c8 : index
  %ik = kernel.add %i8, %k : index
  %xk = kernel.load %x[%ik] : f32
  %m = kernel.reduce max %xk over %k : f32
  %d = kernel.sub %xk, %m : f32
  %e = kernel.exp %d : f32
  %s = kernel.reduce add %e over %k : f32
  %ij = kernel.add %i8, %j : index
  %xj = kernel.load %x[%ij] : f32
  %dj = kernel.sub %xj, %m : f32
  %ej = kernel.exp %dj : f32
  %r = kernel.div %ej, %s : f32
  kernel.store %out[%ij], %r
}
