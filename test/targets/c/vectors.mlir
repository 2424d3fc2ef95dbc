// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -O3 -c -x c - -o /dev/null
// REQUIRES: cc
// Vectors as gcc/clang vector extension types: the value typedef and the unaligned access typedef per type
// used; loads and stores through the _u type; vector literals; lanes by subscript; kiln_where selects by a
// comparison's lane mask, nan-propagating max/min choose with it; gated vector loads give a zero vector.

// CHECK:      #pragma GCC diagnostic ignored "-Wpsabi"
// CHECK:      typedef float kiln_f32x8 __attribute__((vector_size(32)));
// CHECK-NEXT: typedef float kiln_f32x8_u __attribute__((vector_size(32), aligned(sizeof(float)), may_alias));
// CHECK:      typedef int32_t kiln_i32x8 __attribute__((vector_size(32)));
// CHECK:      static inline kiln_f32x8 kiln_where_f32x8(kiln_i32x8 m, kiln_f32x8 a, kiln_f32x8 b) {
// CHECK-NEXT:   return (kiln_f32x8)(((kiln_i32x8)a & m) | ((kiln_i32x8)b & ~m));
// CHECK-NEXT: }
// CHECK:      static inline kiln_f32x8 kiln_max_f32x8(kiln_f32x8 a, kiln_f32x8 b) {
// CHECK-NEXT:   return kiln_where_f32x8((a != a) | (a > b), a, b);
// CHECK-NEXT: }
// CHECK:      static inline kiln_f64x2 kiln_min_f64x2(kiln_f64x2 a, kiln_f64x2 b) {
// CHECK-NEXT:   return kiln_where_f64x2((a != a) | (a < b), a, b);

// CHECK-LABEL: void tile(
// CHECK-NEXT:    kiln_f32x8 zero = (kiln_f32x8){0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
// CHECK-NEXT:    kiln_f32x8 acc = zero;
// CHECK-NEXT:    for (int64_t k = core_start; k < core_end; k++) {
// CHECK-NEXT:      float x = a[k];
// CHECK-NEXT:      acc = acc + (kiln_f32x8){x, x, x, x, x, x, x, x} * (kiln_f32x8)*(const kiln_f32x8_u *)(b + k);
// CHECK-NEXT:    }
// CHECK-NEXT:    *(kiln_f32x8_u *)(out + core_start) = kiln_max_f32x8(acc, zero);
// CHECK-NEXT:  }
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

// CHECK-LABEL: void mixed(
// CHECK-NEXT:    _Bool in = core_start < core_end;
// CHECK-NEXT:    kiln_f64x2 v = in ? (kiln_f64x2)*(const kiln_f64x2_u *)(x + core_start) : (kiln_f64x2){0};
// CHECK-NEXT:    kiln_f64x2 n = -((kiln_f64x2){1.0, 1.0} / v);
// CHECK-NEXT:    kiln_f64x2 m = kiln_min_f64x2((kiln_f64x2){exp2(n[0]), exp2(n[1])}, v);
// CHECK-NEXT:    out[core_end] = m[1];
// CHECK-NEXT:    if (in) {
// CHECK-NEXT:      *(kiln_f64x2_u *)(out + core_start) = m;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
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

// The steps of uop-decompose's software exp on a vector stay vector statements: a comparison is a lane mask,
// where is kiln_where, bitcasts reinterpret, integer add wraps in the unsigned type, a shift by a constant below
// the width is the operator; a mask lane a scalar op takes is `!= 0`; a shift by a count that is not such a
// constant goes lane by lane (kiln_shl_i32).
// CHECK-LABEL: void exp_steps(
// CHECK:         kiln_i32x8 bits = (kiln_i32x8)kiln_where_f32x8(x < low, low, x);
// CHECK-NEXT:    kiln_i32x8 half = bits >> (kiln_i32x8){1, 1, 1, 1, 1, 1, 1, 1};
// CHECK-NEXT:    kiln_i32x8 sum = (kiln_i32x8)((kiln_ui32x8)half + (kiln_ui32x8)bits);
// CHECK-NEXT:    *(kiln_f32x8_u *)(out + core_start) = (kiln_f32x8)(kiln_i32x8)((kiln_ui32x8)sum << (kiln_ui32x8)(kiln_i32x8){23, 23, 23, 23, 23, 23, 23, 23});
// CHECK-NEXT:    if ((x < low)[3] != 0) {
// CHECK:         kiln_shl_i32(
uop.kernel @exp_steps attributes {symbols = []} {
  %in = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %ints = uop.param 2 : !uop.ptr<i32>
  %lo = uop.special core_start : index
  %x = uop.load %in[%lo] : vector<8xf32>
  %low = uop.const dense<-1.000000e+02> : vector<8xf32>
  %below = uop.cmplt %x, %low : vector<8xf32>
  %clamped = uop.where %below, %low, %x : vector<8xf32>
  %bits = uop.bitcast %clamped : vector<8xf32> -> vector<8xi32>
  %one = uop.const dense<1> : vector<8xi32>
  %half = uop.shr %bits, %one : vector<8xi32>
  %sum = uop.add %half, %bits : vector<8xi32>
  %c23 = uop.const dense<23> : vector<8xi32>
  %up = uop.shl %sum, %c23 : vector<8xi32>
  %f = uop.bitcast %up : vector<8xi32> -> vector<8xf32>
  uop.store %out[%lo], %f : vector<8xf32>
  %any = uop.cmplt %x, %low : vector<8xf32>
  %lane = uop.extract %any[3] : vector<8xi1>
  uop.if %lane
  %shifted = uop.shl %sum, %half : vector<8xi32>
  uop.store %ints[%lo], %shifted : vector<8xi32>
  uop.endif
}
