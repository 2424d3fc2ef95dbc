// RUN: kiln-opt %s -p convert-uop-to-cstyle | filecheck %s
// A uop.kernel becomes a cstyle.func with the CPU calling convention: params in index order (read-only buffers
// are const, all are restrict; index is i64), then core_start and core_end. Brackets become regions,
// accumulators local variables, and the kernel's attributes stay on the function.

// CHECK-LABEL: cstyle.func c @rowsum_k0(%x: !cstyle.ptr<const f32, restrict>, %out: !cstyle.ptr<f32, restrict>, %N: i64, %core_start: i64, %core_end: i64) attributes {symbols = ["N"], core_extent = "N", core_work = 8 : i64} {
// CHECK-NEXT:    %c0 = cstyle.literal 0 : i64
// CHECK-NEXT:    %c8 = cstyle.literal 8 : i64
// CHECK-NEXT:    %zero = cstyle.literal 0.000000e+00 : f32
// CHECK-NEXT:    cstyle.for %i = %core_start to %core_end : i64 {
// CHECK-NEXT:      %acc = cstyle.decl %zero : f32
// CHECK-NEXT:      cstyle.for %k = %c0 to %c8 : i64 {
// CHECK-NEXT:        %row = cstyle.binary "*" %i, %c8 : i64
// CHECK-NEXT:        %idx = cstyle.binary "+" %row, %k : i64
// CHECK-NEXT:        %v = cstyle.load %x[%idx] : f32
// CHECK-NEXT:        %cur = cstyle.read %acc : f32
// CHECK-NEXT:        %nxt = cstyle.binary "+" %cur, %v : f32
// CHECK-NEXT:        cstyle.assign %acc = %nxt
// CHECK-NEXT:      }
// CHECK-NEXT:      %r = cstyle.read %acc : f32
// CHECK-NEXT:      cstyle.store %out[%i] = %r
// CHECK-NEXT:    }
// CHECK-NEXT:  }
uop.kernel @rowsum_k0 attributes {symbols = ["N"], core_extent = "N", core_work = 8 : i64} {
  %out = uop.param 1 : !uop.ptr<f32>
  %x = uop.param 0 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %row = uop.mul %i, %c8 : index
  %idx = uop.add %row, %k : index
  %v = uop.load %x[%idx] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  uop.store %out[%i], %r
  uop.end %i
}

// Gated loads keep their gate (nothing is read where it is false); gated stores and uop.if become cstyle.if.
// Params without a name are called p<n>; an i32 param stays i32.
// CHECK-LABEL: cstyle.func c @gates(%p0: !cstyle.ptr<f32, restrict>, %p1: i32, %core_start: i64, %core_end: i64) attributes {symbols = []} {
// CHECK:         %v = cstyle.load %p0[%{{.*}}] if %in : f32
// CHECK-NEXT:    cstyle.if %in {
// CHECK-NEXT:      cstyle.store %p0[%{{.*}}] = %v
// CHECK-NEXT:    }
// CHECK-NEXT:    cstyle.if %in {
// CHECK-NEXT:      cstyle.store %p0[%core_start] = %v
// CHECK-NEXT:    }
uop.kernel @gates attributes {symbols = []} {
  %0 = uop.param 0 : !uop.ptr<f32>
  %1 = uop.param 1 : i32
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %n = uop.cast %1 : i32 -> index
  %in = uop.cmplt %lo, %n : index
  %v = uop.load %0[%hi], %in : f32
  uop.store %0[%hi], %v, %in
  uop.if %in
  uop.store %0[%lo], %v
  uop.endif
}

// Integer vectors stay C vectors; their wrapping add is computed in the unsigned vector type (bitcasts keep the
// bits); lanes by subscript. (f32/f64 and the exp's ops: vectors.mlir.)
// CHECK-LABEL: cstyle.func c @vectors(
// CHECK-NEXT:    %v = cstyle.load %x[%core_start] : vector<2xi32>
// CHECK-NEXT:    %[[A:.*]] = cstyle.bitcast %v : vector<2xi32> -> vector<2xui32>
// CHECK-NEXT:    %[[B:.*]] = cstyle.bitcast %v : vector<2xi32> -> vector<2xui32>
// CHECK-NEXT:    %[[S:.*]] = cstyle.binary "+" %[[A]], %[[B]] : vector<2xui32>
// CHECK-NEXT:    %s = cstyle.bitcast %[[S]] : vector<2xui32> -> vector<2xi32>
// CHECK-NEXT:    %hi = cstyle.extract %s[1] : vector<2xi32>
// CHECK-NEXT:    %lo = cstyle.extract %s[0] : vector<2xi32>
// CHECK-NEXT:    %swapped = cstyle.vector %hi, %lo : vector<2xi32>
// CHECK-NEXT:    cstyle.store %out[%core_start] = %swapped : vector<2xi32>
uop.kernel @vectors attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<i32>
  %out = uop.param 1 : !uop.ptr<i32>
  %i = uop.special core_start : index
  %v = uop.load %x[%i] : vector<2xi32>
  %s = uop.add %v, %v : vector<2xi32>
  %hi = uop.extract %s[1] : vector<2xi32>
  %lo = uop.extract %s[0] : vector<2xi32>
  %swapped = uop.vectorize %hi, %lo : vector<2xi32>
  uop.store %out[%i], %swapped : vector<2xi32>
}

// A float max/min that steps an accumulator declared outside its loop calls kiln_running_max_* (a loop-carried
// chain gcc keeps scalar); the same op on an accumulator declared in its own block, and any other max, calls
// kiln_max_* (the form gcc's SLP vectorizer packs).
// CHECK-LABEL: cstyle.func c @rowmax(
// CHECK:           cstyle.for %k = %{{.*}} to %{{.*}} : i64 {
// CHECK:             %nxt = cstyle.call @kiln_running_max_f32(%cur, %v) : (f32, f32) -> f32
// CHECK-NEXT:        cstyle.assign %acc = %nxt
// CHECK-NEXT:      }
// CHECK:           %once = cstyle.call @kiln_max_f32(%cur2, %r) : (f32, f32) -> f32
// CHECK:           %relu = cstyle.call @kiln_min_f32(%once, %zero) : (f32, f32) -> f32
uop.kernel @rowmax attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %row = uop.mul %i, %c8 : index
  %idx = uop.add %row, %k : index
  %v = uop.load %x[%idx] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.max %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  %acc2 = uop.define_acc %zero : f32
  %cur2 = uop.acc_get %acc2 : f32
  %once = uop.max %cur2, %r : f32
  uop.acc_set %acc2, %once
  %relu = uop.min %once, %zero : f32
  uop.store %out[%i], %relu
  uop.end %i
}

// Two max steps of two accumulators in one loop (a pool's upcast lanes) are independent chains: kiln_max_f32,
// which gcc's SLP vectorizer packs into one vector max, not kiln_running_max_f32.
// CHECK-LABEL: cstyle.func c @poollanes(
// CHECK:             %n0 = cstyle.call @kiln_max_f32(%c0, %v0) : (f32, f32) -> f32
// CHECK:             %n1 = cstyle.call @kiln_max_f32(%c1, %v1) : (f32, f32) -> f32
uop.kernel @poollanes attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %one = uop.const 1 : index
  %ninf = uop.const 0xFF800000 : f32
  %a0 = uop.define_acc %ninf : f32
  %a1 = uop.define_acc %ninf : f32
  %k = uop.range %lo, %hi : index
  %k1 = uop.add %k, %one : index
  %v0 = uop.load %x[%k] : f32
  %v1 = uop.load %x[%k1] : f32
  %c0 = uop.acc_get %a0 : f32
  %n0 = uop.max %c0, %v0 : f32
  uop.acc_set %a0, %n0
  %c1 = uop.acc_get %a1 : f32
  %n1 = uop.max %c1, %v1 : f32
  uop.acc_set %a1, %n1
  uop.end %k
  %r0 = uop.acc_get %a0 : f32
  %r1 = uop.acc_get %a1 : f32
  uop.store %out[%lo], %r0
  uop.store %out[%one], %r1
}

// With gated loads (a padded pool) the steps stay branches gcc's SLP cannot pack: kiln_running_max_f32.
// CHECK-LABEL: cstyle.func c @gatedlanes(
// CHECK:             %n0 = cstyle.call @kiln_running_max_f32(%c0, %v0) : (f32, f32) -> f32
// CHECK:             %n1 = cstyle.call @kiln_running_max_f32(%c1, %v1) : (f32, f32) -> f32
uop.kernel @gatedlanes attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %one = uop.const 1 : index
  %ninf = uop.const 0xFF800000 : f32
  %a0 = uop.define_acc %ninf : f32
  %a1 = uop.define_acc %ninf : f32
  %k = uop.range %lo, %hi : index
  %k1 = uop.add %k, %one : index
  %in = uop.cmplt %lo, %k : index
  %v0 = uop.load %x[%k], %in : f32
  %v1 = uop.load %x[%k1], %in : f32
  %c0 = uop.acc_get %a0 : f32
  %n0 = uop.max %c0, %v0 : f32
  uop.acc_set %a0, %n0
  %c1 = uop.acc_get %a1 : f32
  %n1 = uop.max %c1, %v1 : f32
  uop.acc_set %a1, %n1
  uop.end %k
  %r0 = uop.acc_get %a0 : f32
  %r1 = uop.acc_get %a1 : f32
  uop.store %out[%lo], %r0
  uop.store %out[%one], %r1
}
