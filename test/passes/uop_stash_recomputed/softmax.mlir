// RUN: kiln-opt %s -p uop-stash-recomputed | filecheck %s
// A softmax row as the linearizer writes it: the max loop, the sum loop computing exp(x - m), and the output
// loop computing exp(x - m) again. The sum loop now also stores e into the output row, and the output loop
// loads it back and scales it: one exp per element. The index of the stash is the one the sum loop computes
// already.

// CHECK-LABEL: uop.kernel @softmax
// CHECK:         %r1 = uop.range %c0, %n : index
// CHECK-NEXT:    %s = uop.acc_get %sum : f32
// CHECK-NEXT:    %i1 = uop.add %base, %r1 : index
// CHECK-NEXT:    %x1 = uop.load %x[%i1] : f32
// CHECK-NEXT:    %d1 = uop.sub %x1, %m : f32
// CHECK-NEXT:    %e1 = uop.exp %d1 : f32
// CHECK-NEXT:    %s2 = uop.add %s, %e1 : f32
// CHECK-NEXT:    uop.acc_set %sum, %s2
// CHECK-NEXT:    uop.store %out[%i1], %e1
// CHECK-NEXT:    uop.end %r1
// CHECK-NEXT:    %total = uop.acc_get %sum : f32
// CHECK-NEXT:    %r2 = uop.range %c0, %n : index
// CHECK-NEXT:    %i2 = uop.add %base, %r2 : index
// CHECK-NEXT:    %[[E:.*]] = uop.load %out[%i2] : f32
// CHECK-NEXT:    %y = uop.div %[[E]], %total : f32
// CHECK-NEXT:    uop.store %out[%i2], %y
// CHECK-NEXT:    uop.end %r2
// CHECK-NOT:     uop.exp

uop.kernel @softmax attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 64 : index
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
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %base, %r2 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %y = uop.div %e2, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
  uop.end %row
}
