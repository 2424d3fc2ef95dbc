// RUN: kiln-opt %s -p uop-stash-recomputed | filecheck %s
// What the pass leaves alone: each kernel computes exp(x - m) in a reduce loop and again in the output loop, and
// breaks one condition of the stash; the reduce loop gets no store and the output loop still computes its value.

// x - m and neg(x - m) cost 2: a load and a sub are cheaper than a store and a load.
// CHECK-LABEL: uop.kernel @cheap
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @cheap attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %r1, %c0 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.neg %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %r2, %c0 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.neg %d2 : f32
  %e3 = uop.add %e2, %zero : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
}

// The kernel loads the output: the stash would change what it reads.
// CHECK-LABEL: uop.kernel @reads_output
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @reads_output attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %r1, %c0 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %r2, %c0 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %old = uop.load %out[%i2] : f32
  %e3 = uop.add %e2, %old : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
}

// A gated store does not write every slot the stash would.
// CHECK-LABEL: uop.kernel @gated
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @gated attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %r1, %c0 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %r2, %c0 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %e3 = uop.add %e2, %zero : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y, %t
  uop.end %r2
}

// The reduce loop runs over 63 elements, the output loop over 64.
// CHECK-LABEL: uop.kernel @other_bounds
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @other_bounds attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %n1 = uop.const 63 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n1 : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %r1, %c0 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %r2, %c0 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %e3 = uop.add %e2, %zero : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
}

// r // 2: two iterations write one slot, so the stash of one would be read by the other.
// CHECK-LABEL: uop.kernel @not_affine
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @not_affine attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.idiv %r1, %c2 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.idiv %r2, %c2 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %e3 = uop.add %e2, %zero : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
}

// A workgroup barrier: cooperating threads could see each other's stash.
// CHECK-LABEL: uop.kernel @shares_memory
// CHECK-NOT:     uop.store %out[%i1]
// CHECK:         %r2 = uop.range
// CHECK-NEXT:    %i2 = 
// CHECK-NEXT:    %x2 = uop.load %x[%i2] : f32

uop.kernel @shares_memory attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 64 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %t = uop.const true : i1
  %sum = uop.define_acc %zero : f32
  uop.barrier
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %r1, %c0 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.add %r2, %c0 : index
  %x2 = uop.load %x[%i2] : f32
  %d2 = uop.sub %x2, %m : f32
  %e2 = uop.exp %d2 : f32
  %e3 = uop.add %e2, %zero : f32
  %y = uop.div %e3, %total : f32
  uop.store %out[%i2], %y
  uop.end %r2
}
