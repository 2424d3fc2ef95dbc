// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -O3 -c -x c - -o /dev/null
// REQUIRES: cc
// Float vectors as gcc/clang vector extension types: the value typedef, the unaligned access typedef and the
// lane mask typedef per type used; loads and stores through the _u type; vector literals; lanes by subscript;
// nan-propagating max/min from the comparison masks; gated vector loads give a zero vector.

// CHECK:      #pragma GCC diagnostic ignored "-Wpsabi"
// CHECK:      typedef float kiln_f32x8 __attribute__((vector_size(32)));
// CHECK-NEXT: typedef float kiln_f32x8_u __attribute__((vector_size(32), aligned(sizeof(float)), may_alias));
// CHECK-NEXT: typedef int32_t kiln_f32x8_mask __attribute__((vector_size(32)));
// CHECK:      static inline kiln_f32x8 kiln_max_f32x8(kiln_f32x8 a, kiln_f32x8 b) {
// CHECK-NEXT:   kiln_f32x8_mask pick_a = (a != a) | (a > b);
// CHECK-NEXT:   return (kiln_f32x8)(((kiln_f32x8_mask)a & pick_a) | ((kiln_f32x8_mask)b & ~pick_a));
// CHECK-NEXT: }
// CHECK:      typedef double kiln_f64x2 __attribute__((vector_size(16)));
// CHECK:      static inline kiln_f64x2 kiln_min_f64x2(kiln_f64x2 a, kiln_f64x2 b) {
// CHECK-NEXT:   kiln_f64x2_mask pick_a = (a != a) | (a < b);

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
