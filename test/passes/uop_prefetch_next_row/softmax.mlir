// RUN: kiln-opt %s -p uop-prefetch-next-row | filecheck %s
// A stashed softmax row of 4096 floats: the max loop reads the row from memory, the exp loop reads it again.
// The exp loop becomes 16 chunks of 256; each first prefetches its 16 cache lines of the next row, then runs its
// 256 iterations. The max loop and the output loop (it reads the written output) stay as they were.

// CHECK-LABEL: uop.kernel @softmax
// CHECK:         %r0 = uop.range %c0, %n : index
// CHECK:         uop.end %r0
// CHECK-NEXT:    %m = uop.acc_get %max : f32
// CHECK-NEXT:    %[[ZERO:.*]] = uop.const 0 : index
// CHECK-NEXT:    %[[ONE:.*]] = uop.const 1 : index
// CHECK-NEXT:    %[[SIXTEEN:.*]] = uop.const 16 : index
// CHECK-NEXT:    %[[C:.*]] = uop.range %[[ZERO]], %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[CHUNK:.*]] = uop.const 256 : index
// CHECK-NEXT:    %[[START:.*]] = uop.mul %[[C]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[L:.*]] = uop.range %[[ZERO]], %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[LINE:.*]] = uop.mul %[[L]], %[[SIXTEEN]] : index
// CHECK-NEXT:    %[[AT:.*]] = uop.add %[[START]], %[[LINE]] : index
// CHECK-NEXT:    %[[NEXT:.*]] = uop.add %row, %[[ONE]] : index
// CHECK-NEXT:    %[[BASE:.*]] = uop.mul %[[NEXT]], %n : index
// CHECK-NEXT:    %[[P:.*]] = uop.add %[[BASE]], %[[AT]] : index
// CHECK-NEXT:    uop.prefetch %x[%[[P]]] : !uop.ptr<f32>
// CHECK-NEXT:    uop.end %[[L]]
// CHECK-NEXT:    %[[J:.*]] = uop.range %[[ZERO]], %[[CHUNK]] : index
// CHECK-NEXT:    %[[R1:.*]] = uop.add %[[START]], %[[J]] : index
// CHECK-NEXT:    %s = uop.acc_get %sum : f32
// CHECK-NEXT:    %i1 = uop.add %base, %[[R1]] : index
// CHECK-NEXT:    %x1 = uop.load %x[%i1] : f32
// CHECK:         uop.store %out[%i1], %e1
// CHECK-NEXT:    uop.end %[[J]]
// CHECK-NEXT:    uop.end %[[C]]
// CHECK-NEXT:    %total = uop.acc_get %sum : f32
// CHECK-NEXT:    %r2 = uop.range %c0, %n : index
// CHECK-NOT:     uop.prefetch

uop.kernel @softmax attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4096 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %c0, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %base, %r2 : index
  %e2 = uop.load %out[%i2] : f32
  %y = uop.div %e2, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
  uop.end %row
}
