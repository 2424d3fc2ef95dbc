// RUN: kiln-opt %s -p uop-stash-recomputed | filecheck %s
// Upcast lanes (cpu-c's softmax): the output loop stores a uop.vectorize of two lanes, each exp(x - m) / s. The
// sum loop stores the vector of its two exps; the output loop loads it and takes the lanes apart.

// CHECK-LABEL: uop.kernel @lanes
// CHECK:         %r1 = uop.range %c0, %n : index
// CHECK:         %[[V:.*]] = uop.vectorize %e1a, %e1b : vector<2xf32>
// CHECK-NEXT:    uop.store %out[%i1], %[[V]] : vector<2xf32>
// CHECK-NEXT:    uop.end %r1
// CHECK:         %r2 = uop.range %c0, %n : index
// CHECK:         %[[L:.*]] = uop.load %out[%i2] : vector<2xf32>
// CHECK-NEXT:    %[[A:.*]] = uop.extract %[[L]][0] : vector<2xf32>
// CHECK-NEXT:    %[[B:.*]] = uop.extract %[[L]][1] : vector<2xf32>
// CHECK-NEXT:    %ya = uop.div %[[A]], %total : f32
// CHECK-NEXT:    %yb = uop.div %[[B]], %total : f32
// CHECK-NEXT:    %y = uop.vectorize %ya, %yb : vector<2xf32>
// CHECK-NEXT:    uop.store %out[%i2], %y : vector<2xf32>
// CHECK-NOT:     uop.exp

uop.kernel @lanes attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %n = uop.const 32 : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %m = uop.const 1.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  %sum = uop.define_acc %zero : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.mul %r1, %c2 : index
  %x1 = uop.load %x[%i1] : vector<2xf32>
  %x1a = uop.extract %x1[0] : vector<2xf32>
  %d1a = uop.sub %x1a, %m : f32
  %e1a = uop.exp %d1a : f32
  %x1b = uop.extract %x1[1] : vector<2xf32>
  %d1b = uop.sub %x1b, %m : f32
  %e1b = uop.exp %d1b : f32
  %s1 = uop.add %s, %e1a : f32
  %s2 = uop.add %s1, %e1b : f32
  uop.acc_set %sum, %s2
  uop.end %r1
  %total = uop.acc_get %sum : f32
  %r2 = uop.range %c0, %n : index
  %i2 = uop.mul %r2, %c2 : index
  %x2 = uop.load %x[%i2] : vector<2xf32>
  %x2a = uop.extract %x2[0] : vector<2xf32>
  %d2a = uop.sub %x2a, %m : f32
  %e2a = uop.exp %d2a : f32
  %ya = uop.div %e2a, %total : f32
  %x2b = uop.extract %x2[1] : vector<2xf32>
  %d2b = uop.sub %x2b, %m : f32
  %e2b = uop.exp %d2b : f32
  %yb = uop.div %e2b, %total : f32
  %y = uop.vectorize %ya, %yb : vector<2xf32>
  uop.store %out[%i2], %y : vector<2xf32>
  uop.end %r2
}
