// RUN: kiln-opt %s -p convert-uop-to-wgsl --split-input-file | filecheck %s
// Each ALU op family keeps kiln's meaning in WGSL: floats take NaN-propagating max/min, a NaN-keeping sign and an
// exact fmod from kiln_* helpers, cmpne is !(a == b) (true for NaN), rsqrt and recip divide; integers use WGSL's
// wrapping operators, u32 negation is 0 - x, shifts go through helpers for amounts >= 32; bools use logical
// operators (cmplt is !a & b); index math is i32.

// CHECK-LABEL: wgsl.entry @floats
// CHECK:         %max = wgsl.call @kiln_max_f32(%a, %b) : (f32, f32) -> f32
// CHECK-NEXT:    %min = wgsl.call @kiln_min_f32(%a, %b) : (f32, f32) -> f32
// CHECK-NEXT:    %sign = wgsl.call @kiln_sign_f32(%a) : (f32) -> f32
// CHECK-NEXT:    %mod = wgsl.call @kiln_fmod_f32(%a, %b) : (f32, f32) -> f32
// CHECK-NEXT:    %[[Q:.*]] = wgsl.binary "/" %a, %b : f32
// CHECK-NEXT:    %idiv = wgsl.call @trunc(%[[Q]]) : (f32) -> f32
// CHECK-NEXT:    %[[EQ:.*]] = wgsl.binary "==" %a, %b : f32
// CHECK-NEXT:    %ne = wgsl.unary "!" %[[EQ]] : i1
// CHECK-NEXT:    %lt = wgsl.binary "<" %a, %b : f32
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1.000000e+00 : f32
// CHECK-NEXT:    %[[SQRT:.*]] = wgsl.call @sqrt(%a) : (f32) -> f32
// CHECK-NEXT:    %rsqrt = wgsl.binary "/" %[[ONE]], %[[SQRT]] : f32
// CHECK-NEXT:    %[[ONE2:.*]] = wgsl.literal 1.000000e+00 : f32
// CHECK-NEXT:    %recip = wgsl.binary "/" %[[ONE2]], %a : f32
// CHECK-NEXT:    %neg = wgsl.unary "-" %a : f32
// CHECK-NEXT:    %cosh = wgsl.call @cosh(%a) : (f32) -> f32
// CHECK-NEXT:    %fma = wgsl.call @fma(%a, %b, %a) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %sel = wgsl.select %lt, %a, %b : f32
uop.kernel @floats attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %p = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c1 = uop.const 1 : index
  %a = uop.load %p[%c0] : f32
  %b = uop.load %p[%c1] : f32
  %max = uop.max %a, %b : f32
  %min = uop.min %a, %b : f32
  %sign = uop.sign %a : f32
  %mod = uop.mod %a, %b : f32
  %idiv = uop.idiv %a, %b : f32
  %ne = uop.cmpne %a, %b : f32
  %lt = uop.cmplt %a, %b : f32
  %rsqrt = uop.rsqrt %a : f32
  %recip = uop.recip %a : f32
  %neg = uop.neg %a : f32
  %cosh = uop.cosh %a : f32
  %fma = uop.fma %a, %b, %a : f32
  %sel = uop.where %lt, %a, %b : f32
  uop.store %p[%c0], %sel
}

// -----

// CHECK-LABEL: wgsl.entry @signed
// CHECK:         %y = wgsl.load
// CHECK-NEXT:    %q = wgsl.binary "/" %x, %y : i32
// CHECK-NEXT:    %r = wgsl.binary "%" %x, %y : i32
// CHECK-NEXT:    %s = wgsl.call @kiln_shr_i32(%x, %y) : (i32, i32) -> i32
// CHECK-NEXT:    %l = wgsl.call @kiln_shl_i32(%x, %y) : (i32, i32) -> i32
// CHECK-NEXT:    %m = wgsl.call @max(%x, %y) : (i32, i32) -> i32
// CHECK-NEXT:    %b = wgsl.call @abs(%x) : (i32) -> i32
// CHECK-NEXT:    %n = wgsl.unary "-" %x : i32
// CHECK-NEXT:    %[[Z0:.*]] = wgsl.literal 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1 : i32
// CHECK-NEXT:    %[[NEG:.*]] = wgsl.binary "<" %x, %[[Z0]] : i32
// CHECK-NEXT:    %[[M1:.*]] = wgsl.literal -1 : i32
// CHECK-NEXT:    %[[LOW:.*]] = wgsl.select %[[NEG]], %[[M1]], %[[Z0]] : i32
// CHECK-NEXT:    %[[POS:.*]] = wgsl.binary ">" %x, %[[Z0]] : i32
// CHECK-NEXT:    %sg = wgsl.select %[[POS]], %[[ONE]], %[[LOW]] : i32
// CHECK-NEXT:    %[[XY:.*]] = wgsl.binary "*" %x, %y : i32
// CHECK-NEXT:    %f = wgsl.binary "+" %[[XY]], %x : i32
// CHECK-NEXT:    %t = wgsl.unary "~" %x : i32
uop.kernel @signed attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %a = uop.param 0 : !uop.ptr<i32>
  %c0 = uop.const 0 : index
  %x = uop.load %a[%c0] : i32
  %y = uop.load %a[%c0] : i32
  %q = uop.idiv %x, %y : i32
  %r = uop.mod %x, %y : i32
  %s = uop.shr %x, %y : i32
  %l = uop.shl %x, %y : i32
  %m = uop.max %x, %y : i32
  %b = uop.abs %x : i32
  %n = uop.neg %x : i32
  %sg = uop.sign %x : i32
  %f = uop.fma %x, %y, %x : i32
  %t = uop.not %x : i32
  uop.store %a[%c0], %t
}

// -----

// CHECK-LABEL: wgsl.entry @unsigned
// CHECK:         %[[Z:.*]] = wgsl.literal 0 : ui32
// CHECK-NEXT:    %n = wgsl.binary "-" %[[Z]], %x : ui32
// CHECK-NEXT:    %s = wgsl.call @kiln_shr_u32(%x, %x) : (ui32, ui32) -> ui32
// CHECK-NEXT:    %[[Z0:.*]] = wgsl.literal 0 : ui32
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1 : ui32
// CHECK-NEXT:    %[[NZ:.*]] = wgsl.binary "!=" %x, %[[Z0]] : ui32
// CHECK-NEXT:    %sg = wgsl.select %[[NZ]], %[[ONE]], %[[Z0]] : ui32
// CHECK-NOT:     wgsl.call @abs
// CHECK:         wgsl.store %a[%c0] = %x
uop.kernel @unsigned attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %a = uop.param 0 : !uop.ptr<ui32>
  %c0 = uop.const 0 : index
  %x = uop.load %a[%c0] : ui32
  %n = uop.neg %x : ui32
  %s = uop.shr %x, %x : ui32
  %sg = uop.sign %x : ui32
  %b = uop.abs %x : ui32
  uop.store %a[%c0], %b
}

// -----

// CHECK-LABEL: wgsl.entry @bools
// CHECK:         %[[NA:.*]] = wgsl.unary "!" %a : i1
// CHECK-NEXT:    %lt = wgsl.binary "&" %[[NA]], %b : i1
// CHECK-NEXT:    %[[NA2:.*]] = wgsl.unary "!" %a : i1
// CHECK-NEXT:    %le = wgsl.binary "|" %[[NA2]], %b : i1
// CHECK-NEXT:    %x = wgsl.binary "!=" %a, %b : i1
// CHECK-NEXT:    %mx = wgsl.binary "|" %a, %b : i1
// CHECK-NEXT:    %mn = wgsl.binary "&" %a, %b : i1
// CHECK-NEXT:    %w = wgsl.select %lt, %a, %b : i1
uop.kernel @bools attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %p = uop.param 0 : !uop.ptr<i1>
  %c0 = uop.const 0 : index
  %a = uop.load %p[%c0] : i1
  %b = uop.load %p[%c0] : i1
  %lt = uop.cmplt %a, %b : i1
  %le = uop.cmple %a, %b : i1
  %x = uop.xor %a, %b : i1
  %mx = uop.max %a, %b : i1
  %mn = uop.min %a, %b : i1
  %w = uop.where %lt, %a, %b : i1
  uop.store %p[%c0], %w
}

// -----

// Casts: float -> bool is !(x == 0) (NaN is true), bool -> number selects 1 or 0, index -> ui32 and float -> int
// are WGSL conversions, index <-> i32 is nothing. Constants: infinities and NaN stay literals (the emitter writes
// their bits), the most negative i32 is an ordinary literal, vector constants are splat per lane.

// CHECK-LABEL: wgsl.entry @casts
// CHECK:         %[[Z:.*]] = wgsl.literal 0.000000e+00 : f32
// CHECK-NEXT:    %[[EQ:.*]] = wgsl.binary "==" %f, %[[Z]] : f32
// CHECK-NEXT:    %fb = wgsl.unary "!" %[[EQ]] : i1
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1.000000e+00 : f32
// CHECK-NEXT:    %[[ZERO:.*]] = wgsl.literal 0.000000e+00 : f32
// CHECK-NEXT:    %bf = wgsl.select %fb, %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT:    %fi = wgsl.convert %f : f32 -> i32
// CHECK-NEXT:    %[[IZ:.*]] = wgsl.literal 0 : i32
// CHECK-NEXT:    %ib = wgsl.binary "!=" %fi, %[[IZ]] : i32
// CHECK-NEXT:    %iu = wgsl.convert %c0 : i32 -> ui32
// CHECK-NEXT:    %bits = wgsl.bitcast %f : f32 -> ui32
// CHECK-NEXT:    %inf = wgsl.literal 0x7f800000 : f32
// CHECK-NEXT:    %nan = wgsl.literal 0x7fc00000 : f32
// CHECK-NEXT:    %min = wgsl.literal -2147483648 : i32
// CHECK-NEXT:    %splat = wgsl.literal 2.500000e+00 : f32
// CHECK-NEXT:    %splat_1 = wgsl.literal 2.500000e+00 : f32
// CHECK-NEXT:    %sum = wgsl.binary "+" %fi, %min : i32
// CHECK-NEXT:    wgsl.store %p[%sum] = %f
uop.kernel @casts attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %p = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %f = uop.load %p[%c0] : f32
  %fb = uop.cast %f : f32 -> i1
  %bf = uop.cast %fb : i1 -> f32
  %fi = uop.cast %f : f32 -> i32
  %ib = uop.cast %fi : i32 -> i1
  %iu = uop.cast %c0 : index -> ui32
  %bits = uop.bitcast %f : f32 -> ui32
  %inf = uop.const 0x7f800000 : f32
  %nan = uop.const 0x7fc00000 : f32
  %min = uop.const -2147483648 : i32
  %splat = uop.const dense<2.500000e+00> : vector<2xf32>
  %sum = uop.add %fi, %min : i32
  %back = uop.cast %sum : i32 -> index
  uop.store %p[%back], %f
}
