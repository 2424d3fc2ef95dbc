// RUN: kiln-opt %s -p convert-uop-to-cstyle | filecheck %s
// Float vectors stay C vectors: loads, stores, accumulators, + - * / neg recip max min, broadcasts and
// constants as cstyle.vector; an op C has no vector form for (exp2) takes the lanes through cstyle.extract.

// A register tile: a vector accumulator, a vector load, a broadcast, vector * and +, a vector relu and store.
// CHECK-LABEL: cstyle.func c @tile(
// CHECK:         %[[ZERO:.*]] = cstyle.vector %{{.*}} : vector<8xf32>
// CHECK-NEXT:    %acc = cstyle.decl %[[ZERO]] : vector<8xf32>
// CHECK-NEXT:    cstyle.for %k = %core_start to %core_end : i64 {
// CHECK-NEXT:      %x = cstyle.load %a[%k] : f32
// CHECK-NEXT:      %row = cstyle.load %b[%k] : vector<8xf32>
// CHECK-NEXT:      %bx = cstyle.vector %x, %x, %x, %x, %x, %x, %x, %x : vector<8xf32>
// CHECK-NEXT:      %p = cstyle.binary "*" %bx, %row : vector<8xf32>
// CHECK-NEXT:      %cur = cstyle.read %acc : vector<8xf32>
// CHECK-NEXT:      %nxt = cstyle.binary "+" %cur, %p : vector<8xf32>
// CHECK-NEXT:      cstyle.assign %acc = %nxt
// CHECK-NEXT:    }
// CHECK-NEXT:    %sum = cstyle.read %acc : vector<8xf32>
// CHECK-NEXT:    %relu = cstyle.call @kiln_max_f32x8(%sum, %[[ZERO]]) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:    cstyle.store %out[%core_start] = %relu : vector<8xf32>
uop.kernel @tile attributes {symbols = []} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 1 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %zero = uop.const dense<0.000000e+00> : vector<8xf32>
  %acc = uop.define_acc %zero : vector<8xf32>
  %k = uop.range %lo, %hi : index
  %x = uop.load %a[%k] : f32
  %row = uop.load %b[%k] : vector<8xf32>
  %bx = uop.vectorize %x, %x, %x, %x, %x, %x, %x, %x : vector<8xf32>
  %p = uop.mul %bx, %row : vector<8xf32>
  %cur = uop.acc_get %acc : vector<8xf32>
  %nxt = uop.add %cur, %p : vector<8xf32>
  uop.acc_set %acc, %nxt
  uop.end %k
  %sum = uop.acc_get %acc : vector<8xf32>
  %relu = uop.max %sum, %zero : vector<8xf32>
  uop.store %out[%lo], %relu : vector<8xf32>
}

// f64 lanes, a gated vector load and store, recip as 1 / x, and exp2 lane by lane between vector ops.
// CHECK-LABEL: cstyle.func c @mixed(
// CHECK:         %v = cstyle.load %x[%core_start] if %in : vector<2xf64>
// CHECK-NEXT:    %[[ONE:.*]] = cstyle.literal 1.000000e+00 : f64
// CHECK-NEXT:    %[[ONES:.*]] = cstyle.vector %[[ONE]], %[[ONE]] : vector<2xf64>
// CHECK-NEXT:    %r = cstyle.binary "/" %[[ONES]], %v : vector<2xf64>
// CHECK-NEXT:    %n = cstyle.unary "-" %r : vector<2xf64>
// CHECK-NEXT:    %[[N0:.*]] = cstyle.extract %n[0] : vector<2xf64>
// CHECK-NEXT:    %[[N1:.*]] = cstyle.extract %n[1] : vector<2xf64>
// CHECK-NEXT:    %e = cstyle.call @exp2(%[[N0]]) : (f64) -> f64
// CHECK-NEXT:    %[[E1:.*]] = cstyle.call @exp2(%[[N1]]) : (f64) -> f64
// CHECK-NEXT:    %[[E:.*]] = cstyle.vector %e, %[[E1]] : vector<2xf64>
// CHECK-NEXT:    %m = cstyle.call @kiln_min_f64x2(%[[E]], %v) : (vector<2xf64>, vector<2xf64>) -> vector<2xf64>
// CHECK-NEXT:    %l = cstyle.extract %m[1] : vector<2xf64>
// CHECK-NEXT:    cstyle.store %out[%core_end] = %l
// CHECK-NEXT:    cstyle.if %in {
// CHECK-NEXT:      cstyle.store %out[%core_start] = %m : vector<2xf64>
// CHECK-NEXT:    }
uop.kernel @mixed attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f64>
  %out = uop.param 1 : !uop.ptr<f64>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %in = uop.cmplt %lo, %hi : index
  %v = uop.load %x[%lo], %in : vector<2xf64>
  %r = uop.recip %v : vector<2xf64>
  %n = uop.neg %r : vector<2xf64>
  %e = uop.exp2 %n : vector<2xf64>
  %m = uop.min %e, %v : vector<2xf64>
  %l = uop.extract %m[1] : vector<2xf64>
  uop.store %out[%hi], %l
  uop.store %out[%lo], %m, %in : vector<2xf64>
}

// A lane of a vector built from scalars is the scalar itself; a lane of a loaded vector is a cstyle.extract.
// CHECK-LABEL: cstyle.func c @lanes(
// CHECK-NEXT:    %a = cstyle.load %x[%core_start] : f32
// CHECK-NEXT:    %v = cstyle.vector %a, %a : vector<2xf32>
// CHECK-NEXT:    %w = cstyle.load %x[%core_start] : vector<2xf32>
// CHECK-NEXT:    %m = cstyle.extract %w[0] : vector<2xf32>
// CHECK-NEXT:    %s = cstyle.binary "+" %a, %m : f32
uop.kernel @lanes attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %i = uop.special core_start : index
  %a = uop.load %x[%i] : f32
  %v = uop.vectorize %a, %a : vector<2xf32>
  %l = uop.extract %v[1] : vector<2xf32>
  %w = uop.load %x[%i] : vector<2xf32>
  %m = uop.extract %w[0] : vector<2xf32>
  %s = uop.add %l, %m : f32
  uop.store %x[%i], %s
}
