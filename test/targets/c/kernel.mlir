// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// REQUIRES: cc
// All kernels of a module in one C11 unit: the includes and prelude helpers they use, one void function each
// with the CPU calling convention, single-use values inlined, unused parameters marked, each followed by its
// uniform entry (arguments from pointer-sized slots; an int64 as the slot's bits).

// CHECK:       // kiln -t c: dense_k0, scale_bf16
// CHECK-NEXT:  #include <stdint.h>
// CHECK-NOT:   #include
// CHECK-EMPTY:
// CHECK-NEXT:  typedef uint16_t kiln_bf16; /* bfloat16 bits */
// CHECK-EMPTY:
// CHECK:       static inline float kiln_f64_to_f32_odd(double x) {
// CHECK:       static inline float kiln_bf16_to_f32(kiln_bf16 x) {
// CHECK:       static inline kiln_bf16 kiln_f32_to_bf16(float x) {
// CHECK:       static inline kiln_bf16 kiln_f64_to_bf16(double x) { return kiln_f32_to_bf16(kiln_f64_to_f32_odd(x)); }
// CHECK:       static inline float kiln_max_f32(float a, float b) {
// CHECK-NEXT:    union { float f; uint32_t u; } x = { a }, y = { b };
// CHECK-NEXT:    uint32_t pick_a = (uint32_t)0 - (uint32_t)((a != a) | (a > b));
// CHECK-NEXT:    x.u = (x.u & pick_a) | (y.u & ~pick_a);
// CHECK-NEXT:    return x.f;
// CHECK-NEXT:  }
// CHECK-NOT:   kiln_f16

// CHECK-LABEL: void dense_k0(const float *restrict x, const float *restrict w, float *restrict out, int64_t N, int64_t core_start, int64_t core_end) {
// CHECK-NEXT:    (void)N;
// CHECK-NEXT:    for (int64_t i = core_start; i < core_end; i++) {
// CHECK-NEXT:      for (int64_t j = 0; j < 32; j++) {
// CHECK-NEXT:        float acc = 0.0f;
// CHECK-NEXT:        for (int64_t k = 0; k < 64; k++) {
// CHECK-NEXT:          acc = acc + x[i * 64 + k] * w[k * 32 + j];
// CHECK-NEXT:        }
// CHECK-NEXT:        out[i * 32 + j] = kiln_max_f32(acc, 0.0f);
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  void dense_k0__entry(void **args, int64_t lo, int64_t hi) { dense_k0(args[0], args[1], args[2], (int64_t)(intptr_t)args[3], lo, hi); }
uop.kernel @dense_k0 attributes {symbols = ["N"], core_extent = "N", core_work = 4160 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %w = uop.param 1 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  %N = uop.param 3 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c32 = uop.const 32 : index
  %c64 = uop.const 64 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %j = uop.range %c0, %c32 : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c64 : index
  %ia = uop.mul %i, %c64 : index
  %ia2 = uop.add %ia, %k : index
  %kb = uop.mul %k, %c32 : index
  %ib = uop.add %kb, %j : index
  %a = uop.load %x[%ia2] : f32
  %b = uop.load %w[%ib] : f32
  %p = uop.mul %a, %b : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %p : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  %relu = uop.max %r, %zero : f32
  %io = uop.mul %i, %c32 : index
  %io2 = uop.add %io, %j : index
  uop.store %out[%io2], %relu
  uop.end %j
  uop.end %i
}

// CHECK-LABEL: void scale_bf16(const kiln_bf16 *restrict x, kiln_bf16 *restrict out, int64_t core_start, int64_t core_end) {
// CHECK-NEXT:    kiln_bf16 zero = kiln_f64_to_bf16(0.0);
// CHECK-NEXT:    for (int64_t i = core_start; i < core_end; i++) {
// CHECK-NEXT:      kiln_bf16 v = x[i];
// CHECK-NEXT:      out[i] = kiln_bf16_to_f32(v) < kiln_bf16_to_f32(zero) ? zero : v;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  void scale_bf16__entry(void **args, int64_t lo, int64_t hi) { scale_bf16(args[0], args[1], lo, hi); }
uop.kernel @scale_bf16 attributes {symbols = [], core_extent = "1", core_work = 1 : i64} {
  %x = uop.param 0 : !uop.ptr<bf16>
  %out = uop.param 1 : !uop.ptr<bf16>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %zero = uop.const 0.000000e+00 : bf16
  %i = uop.range %lo, %hi : index
  %v = uop.load %x[%i] : bf16
  %neg = uop.cmplt %v, %zero : bf16
  %r = uop.where %neg, %zero, %v : bf16
  uop.store %out[%i], %r
  uop.end %i
}
