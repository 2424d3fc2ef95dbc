// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every cstyle op and type prints and parses back to the same text: a whole kernel (loops, an accumulator, a
// gated load, a guarded store), then each expression op.

// CHECK-LABEL: cstyle.func c @sum_k0(%x: !cstyle.ptr<const f32, restrict>, %out: !cstyle.ptr<f32, restrict>, %N: i64, %core_start: i64, %core_end: i64) attributes {core_extent = "N", core_work = 3 : i64, symbols = ["N"]} {
cstyle.func c @sum_k0(%x: !cstyle.ptr<const f32, restrict>, %out: !cstyle.ptr<f32, restrict>, %N: i64, %core_start: i64, %core_end: i64)
    attributes {core_extent = "N", core_work = 3 : i64, symbols = ["N"]} {
  // CHECK-NEXT: %zero = cstyle.literal 0.000000e+00 : f32
  %zero = cstyle.literal 0.000000e+00 : f32
  // CHECK-NEXT: %c64 = cstyle.literal 64 : i64
  %c64 = cstyle.literal 64 : i64
  // CHECK-NEXT: cstyle.for %i = %core_start to %core_end : i64 {
  cstyle.for %i = %core_start to %core_end : i64 {
    // CHECK-NEXT: %acc = cstyle.decl %zero : f32
    %acc = cstyle.decl %zero : f32
    // CHECK-NEXT: %c0 = cstyle.literal 0 : i64
    %c0 = cstyle.literal 0 : i64
    // CHECK-NEXT: cstyle.for %k = %c0 to %c64 : i64 {
    cstyle.for %k = %c0 to %c64 : i64 {
      // CHECK-NEXT: %row = cstyle.binary "*" %i, %c64 : i64
      %row = cstyle.binary "*" %i, %c64 : i64
      // CHECK-NEXT: %idx = cstyle.binary "+" %row, %k : i64
      %idx = cstyle.binary "+" %row, %k : i64
      // CHECK-NEXT: %inside = cstyle.binary "<" %idx, %N : i64
      %inside = cstyle.binary "<" %idx, %N : i64
      // CHECK-NEXT: %v = cstyle.load %x[%idx] if %inside : f32
      %v = cstyle.load %x[%idx] if %inside : f32
      // CHECK-NEXT: %a = cstyle.read %acc : f32
      %a = cstyle.read %acc : f32
      // CHECK-NEXT: %s = cstyle.binary "+" %a, %v : f32
      %s = cstyle.binary "+" %a, %v : f32
      // CHECK-NEXT: cstyle.assign %acc = %s
      cstyle.assign %acc = %s
    // CHECK-NEXT: }
    }
    // CHECK-NEXT: %r = cstyle.read %acc : f32
    %r = cstyle.read %acc : f32
    // CHECK-NEXT: %positive = cstyle.binary ">" %r, %zero : f32
    %positive = cstyle.binary ">" %r, %zero : f32
    // CHECK-NEXT: cstyle.if %positive {
    cstyle.if %positive {
      // CHECK-NEXT: cstyle.store %out[%i] = %r
      cstyle.store %out[%i] = %r
    // CHECK-NEXT: }
    }
  // CHECK-NEXT: }
  }
// CHECK-NEXT: }
}

// CHECK-LABEL: cstyle.func c @expressions(%p: !cstyle.ptr<bf16>, %q: !cstyle.ptr<i8, restrict>, %n: i32) {
cstyle.func c @expressions(%p: !cstyle.ptr<bf16>, %q: !cstyle.ptr<i8, restrict>, %n: i32) {
  // CHECK-NEXT: %t = cstyle.literal true
  %t = cstyle.literal true
  // CHECK-NEXT: %half = cstyle.literal 5.000000e-01 : f64
  %half = cstyle.literal 5.000000e-01 : f64
  // CHECK-NEXT: %inf = cstyle.literal 0x7f800000 : f32
  %inf = cstyle.literal 0x7f800000 : f32
  // CHECK-NEXT: %big = cstyle.literal 18446744073709551615 : ui64
  %big = cstyle.literal 18446744073709551615 : ui64
  // CHECK-NEXT: %neg = cstyle.unary "-" %n : i32
  %neg = cstyle.unary "-" %n : i32
  // CHECK-NEXT: %inv = cstyle.unary "~" %n : i32
  %inv = cstyle.unary "~" %n : i32
  // CHECK-NEXT: %f = cstyle.unary "!" %t : i1
  %f = cstyle.unary "!" %t : i1
  // CHECK-NEXT: %both = cstyle.binary "&&" %t, %f : i1
  %both = cstyle.binary "&&" %t, %f : i1
  // CHECK-NEXT: %bits = cstyle.binary "^" %t, %f : i1
  %bits = cstyle.binary "^" %t, %f : i1
  // CHECK-NEXT: %sh = cstyle.binary "<<" %n, %inv : i32
  %sh = cstyle.binary "<<" %n, %inv : i32
  // CHECK-NEXT: %rem = cstyle.binary "%" %big, %big : ui64
  %rem = cstyle.binary "%" %big, %big : ui64
  // CHECK-NEXT: %pick = cstyle.select %both, %neg, %sh : i32
  %pick = cstyle.select %both, %neg, %sh : i32
  // CHECK-NEXT: %wide = cstyle.cast %pick : i32 -> f64
  %wide = cstyle.cast %pick : i32 -> f64
  // CHECK-NEXT: %bits32 = cstyle.bitcast %inf : f32 -> ui32
  %bits32 = cstyle.bitcast %inf : f32 -> ui32
  // CHECK-NEXT: %pw = cstyle.call @pow(%wide, %half) : (f64, f64) -> f64
  %pw = cstyle.call @pow(%wide, %half) : (f64, f64) -> f64
  // CHECK-NEXT: %b = cstyle.call @kiln_f64_to_bf16(%pw) : (f64) -> bf16
  %b = cstyle.call @kiln_f64_to_bf16(%pw) : (f64) -> bf16
  // CHECK-NEXT: %c0 = cstyle.literal 0 : i32
  %c0 = cstyle.literal 0 : i32
  // CHECK-NEXT: cstyle.store %p[%c0] = %b
  cstyle.store %p[%c0] = %b
  // CHECK-NEXT: %e = cstyle.load %q[%n] : i8
  %e = cstyle.load %q[%n] : i8
  // CHECK-NEXT: %e32 = cstyle.cast %e : i8 -> i32
  %e32 = cstyle.cast %e : i8 -> i32
  // CHECK-NEXT: %q2 = cstyle.call @kiln_idiv_i8(%e, %e) : (i8, i8) -> i8
  %q2 = cstyle.call @kiln_idiv_i8(%e, %e) : (i8, i8) -> i8
  // CHECK-NEXT: cstyle.store %q[%e32] = %q2
  cstyle.store %q[%e32] = %q2
// CHECK-NEXT: }
}

// Float vectors: load, build, extract, arithmetic, a vector variable, the max helper, a gated load, a store.
// CHECK-LABEL: cstyle.func c @vectors(%p: !cstyle.ptr<f32>, %i: i64, %g: i1) {
cstyle.func c @vectors(%p: !cstyle.ptr<f32>, %i: i64, %g: i1) {
  // CHECK-NEXT: %v = cstyle.load %p[%i] : vector<4xf32>
  %v = cstyle.load %p[%i] : vector<4xf32>
  // CHECK-NEXT: %w = cstyle.load %p[%i] if %g : vector<4xf32>
  %w = cstyle.load %p[%i] if %g : vector<4xf32>
  // CHECK-NEXT: %x = cstyle.extract %v[3] : vector<4xf32>
  %x = cstyle.extract %v[3] : vector<4xf32>
  // CHECK-NEXT: %b = cstyle.vector %x, %x, %x, %x : vector<4xf32>
  %b = cstyle.vector %x, %x, %x, %x : vector<4xf32>
  // CHECK-NEXT: %s = cstyle.binary "*" %b, %w : vector<4xf32>
  %s = cstyle.binary "*" %b, %w : vector<4xf32>
  // CHECK-NEXT: %n = cstyle.unary "-" %s : vector<4xf32>
  %n = cstyle.unary "-" %s : vector<4xf32>
  // CHECK-NEXT: %acc = cstyle.decl %n : vector<4xf32>
  %acc = cstyle.decl %n : vector<4xf32>
  // CHECK-NEXT: %cur = cstyle.read %acc : vector<4xf32>
  %cur = cstyle.read %acc : vector<4xf32>
  // CHECK-NEXT: %m = cstyle.call @kiln_max_f32x4(%cur, %v) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  %m = cstyle.call @kiln_max_f32x4(%cur, %v) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  // CHECK-NEXT: cstyle.assign %acc = %m
  cstyle.assign %acc = %m
  // CHECK-NEXT: cstyle.store %p[%i] = %m : vector<4xf32>
  cstyle.store %p[%i] = %m : vector<4xf32>
// CHECK-NEXT: }
}
