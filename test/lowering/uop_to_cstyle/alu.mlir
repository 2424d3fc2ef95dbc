// RUN: kiln-opt %s -p convert-uop-to-cstyle | filecheck %s
// ALU ops, casts and constants spell kiln's meaning in C without undefined behaviour: integers wrap through
// unsigned types, division and shifts go through guarded helpers (plain C for a positive literal divisor),
// operators never see integers narrower than int, bf16 computes in f32 and rounds back, float max/min
// propagate nan, float -> int truncates through a saturating helper.

// CHECK-LABEL: cstyle.func c @ints(
// CHECK:         %x = cstyle.load %p[%c0] : i32
// CHECK-NEXT:    %y = cstyle.load %q[%c0] : ui8
// Signed add and neg wrap: computed in ui32.
// CHECK-NEXT:    %[[XU:.*]] = cstyle.cast %x : i32 -> ui32
// CHECK-NEXT:    %[[XU2:.*]] = cstyle.cast %x : i32 -> ui32
// CHECK-NEXT:    %[[SUMU:.*]] = cstyle.binary "+" %[[XU]], %[[XU2]] : ui32
// CHECK-NEXT:    %sum = cstyle.cast %[[SUMU]] : ui32 -> i32
// CHECK-NEXT:    %[[XU3:.*]] = cstyle.cast %x : i32 -> ui32
// CHECK-NEXT:    %[[NEGU:.*]] = cstyle.unary "-" %[[XU3]] : ui32
// CHECK-NEXT:    %neg = cstyle.cast %[[NEGU]] : ui32 -> i32
// CHECK-NEXT:    %q1 = cstyle.call @kiln_idiv_i32(%x, %sum) : (i32, i32) -> i32
// CHECK-NEXT:    %c4 = cstyle.literal 4 : i32
// CHECK-NEXT:    %q4 = cstyle.binary "/" %x, %c4 : i32
// CHECK-NEXT:    %r4 = cstyle.binary "%" %x, %c4 : i32
// CHECK-NEXT:    %sh = cstyle.call @kiln_shr_i32(%x, %neg) : (i32, i32) -> i32
// CHECK-NEXT:    %[[GT:.*]] = cstyle.binary ">" %x, %q1 : i32
// CHECK-NEXT:    %m = cstyle.select %[[GT]], %x, %q1 : i32
// A ui8 product is computed in ui32 (C would promote to int, where 255 * 255 * ... could overflow).
// CHECK-NEXT:    %[[Y1:.*]] = cstyle.cast %y : ui8 -> ui32
// CHECK-NEXT:    %[[Y2:.*]] = cstyle.cast %y : ui8 -> ui32
// CHECK-NEXT:    %[[P:.*]] = cstyle.binary "*" %[[Y1]], %[[Y2]] : ui32
// CHECK-NEXT:    %prod = cstyle.cast %[[P]] : ui32 -> ui8
// CHECK-NEXT:    %[[Y3:.*]] = cstyle.cast %y : ui8 -> ui32
// CHECK-NEXT:    %[[NOT:.*]] = cstyle.unary "~" %[[Y3]] : ui32
// CHECK-NEXT:    %inv = cstyle.cast %[[NOT]] : ui32 -> ui8
// Index division by a non-literal divisor (here a zero) is guarded too.
// CHECK-NEXT:    %ix = cstyle.call @kiln_idiv_i64(%c0, %c0) : (i64, i64) -> i64
// CHECK:         %s = cstyle.select
// CHECK:         %a = cstyle.select
// CHECK-NEXT:    cstyle.store %p[%c0] = %sh
// CHECK-NEXT:    cstyle.store %q[%c0] = %prod
uop.kernel @ints attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<i32>
  %q = uop.param 1 : !uop.ptr<ui8>
  %c0 = uop.const 0 : index
  %x = uop.load %p[%c0] : i32
  %y = uop.load %q[%c0] : ui8
  %sum = uop.add %x, %x : i32
  %neg = uop.neg %x : i32
  %q1 = uop.idiv %x, %sum : i32
  %c4 = uop.const 4 : i32
  %q4 = uop.idiv %x, %c4 : i32
  %r4 = uop.mod %x, %c4 : i32
  %sh = uop.shr %x, %neg : i32
  %m = uop.max %x, %q1 : i32
  %prod = uop.mul %y, %y : ui8
  %inv = uop.not %y : ui8
  %ix = uop.idiv %c0, %c0 : index
  %s = uop.sign %x : i32
  %a = uop.abs %x : i32
  uop.store %p[%c0], %sh
  uop.store %q[%c0], %prod
}

// CHECK-LABEL: cstyle.func c @floats(
// A bf16 constant is an f64 literal rounded once.
// CHECK:         %[[HALF64:.*]] = cstyle.literal 5.000000e-01 : f64
// CHECK-NEXT:    %half = cstyle.call @kiln_f64_to_bf16(%[[HALF64]]) : (f64) -> bf16
// CHECK-NEXT:    %[[XF:.*]] = cstyle.call @kiln_bf16_to_f32(%x) : (bf16) -> f32
// CHECK-NEXT:    %[[HF:.*]] = cstyle.call @kiln_bf16_to_f32(%half) : (bf16) -> f32
// CHECK-NEXT:    %[[S:.*]] = cstyle.binary "+" %[[XF]], %[[HF]] : f32
// CHECK-NEXT:    %sum = cstyle.call @kiln_f32_to_bf16(%[[S]]) : (f32) -> bf16
// A comparison of bf16 compares the f32 values; nothing to round back.
// CHECK:         %lt = cstyle.binary "<" %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    %e = cstyle.call @exp(%y) : (f64) -> f64
// CHECK-NEXT:    %mx = cstyle.call @kiln_max_f64(%y, %e) : (f64, f64) -> f64
// sign: 1, -1, 0 for either zero, and nan for nan.
// CHECK:         %sg = cstyle.select
// CHECK:         %[[ROOT:.*]] = cstyle.call @sqrt(%y) : (f64) -> f64
// CHECK-NEXT:    %rs = cstyle.binary "/" %{{.*}}, %[[ROOT]] : f64
// CHECK-NEXT:    %[[WIDE:.*]] = cstyle.call @kiln_f64_to_i64(%y) : (f64) -> i64
// CHECK-NEXT:    %i = cstyle.cast %[[WIDE]] : i64 -> i16
// CHECK-NEXT:    %u = cstyle.call @kiln_f64_to_ui64(%y) : (f64) -> ui64
// CHECK-NEXT:    %[[I64:.*]] = cstyle.cast %i : i16 -> f64
// CHECK-NEXT:    %b = cstyle.call @kiln_f64_to_bf16(%[[I64]]) : (f64) -> bf16
// CHECK-NEXT:    %[[ZERO:.*]] = cstyle.literal 0.000000e+00 : f64
// CHECK-NEXT:    %t = cstyle.binary "!=" %y, %[[ZERO]] : f64
// CHECK-NEXT:    %[[X32:.*]] = cstyle.call @kiln_bf16_to_f32(%x) : (bf16) -> f32
// CHECK-NEXT:    %h = cstyle.call @kiln_f32_to_f16(%[[X32]]) : (f32) -> f16
// CHECK-NEXT:    %bits = cstyle.bitcast %y : f64 -> i64
uop.kernel @floats attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<bf16>
  %f = uop.param 1 : !uop.ptr<f64>
  %c0 = uop.const 0 : index
  %x = uop.load %p[%c0] : bf16
  %y = uop.load %f[%c0] : f64
  %half = uop.const 5.000000e-01 : bf16
  %sum = uop.add %x, %half : bf16
  %lt = uop.cmplt %x, %half : bf16
  %e = uop.exp %y : f64
  %mx = uop.max %y, %e : f64
  %sg = uop.sign %y : f64
  %rs = uop.rsqrt %y : f64
  %i = uop.cast %y : f64 -> i16
  %u = uop.cast %y : f64 -> ui64
  %b = uop.cast %i : i16 -> bf16
  %t = uop.cast %y : f64 -> i1
  %h = uop.cast %x : bf16 -> f16
  %bits = uop.bitcast %y : f64 -> i64
  uop.store %p[%c0], %sum
}
