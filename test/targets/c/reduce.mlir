// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -O3 -c -x c - -o /dev/null
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | sed 's/ifdef KILN_HAS_SHUFFLEVECTOR/ifdef KILN_NEVER/' | cc -std=c11 -Wall -Wextra -Werror -O3 -c -x c - -o /dev/null
// REQUIRES: cc
// uop.reduce_lanes of a float vector (a row's vector accumulator folded after its loop) is one call of a prelude
// helper that combines the lanes pairwise (upper half onto lower half), the op's order, not N - 1 dependent scalar
// steps. A chain of scalar steps over extracted lanes is C as written, in its own order. The helpers' fallback
// without __builtin_shufflevector compiles too.

// CHECK:       static inline float kiln_reduce_add_f32x4(kiln_f32x4 v) {
// CHECK:         v = v + __builtin_shufflevector(v, v, 2, 3, 2, 3);
// CHECK:         return ((v[0] + v[2]) + (v[1] + v[3]));

// CHECK:       static inline float kiln_reduce_max_f32x8(kiln_f32x8 v) {
// CHECK-NEXT:  #ifdef KILN_HAS_SHUFFLEVECTOR
// CHECK-NEXT:    v = kiln_max_f32x8(v, __builtin_shufflevector(v, v, 4, 5, 6, 7, 4, 5, 6, 7));
// CHECK-NEXT:    v = kiln_max_f32x8(v, __builtin_shufflevector(v, v, 2, 3, 2, 3, 2, 3, 2, 3));
// CHECK-NEXT:    v = kiln_max_f32x8(v, __builtin_shufflevector(v, v, 1, 1, 1, 1, 1, 1, 1, 1));
// CHECK-NEXT:    return v[0];
// CHECK-NEXT:  #else
// CHECK-NEXT:    return kiln_max_f32(kiln_max_f32(kiln_max_f32(v[0], v[4]), kiln_max_f32(v[2], v[6])), kiln_max_f32(kiln_max_f32(v[1], v[5]), kiln_max_f32(v[3], v[7])));
// CHECK-NEXT:  #endif
// CHECK-NEXT:  }
// CHECK-LABEL: void rows(
// CHECK:         out[i] = kiln_reduce_max_f32x8((kiln_f32x8)*(const kiln_f32x8_u *)(x + i));
// CHECK-NEXT:    kiln_f32x4 s =
// CHECK-NEXT:    out[i + 1] = kiln_reduce_add_f32x4(s);
// CHECK-NEXT:    out[i + 2] = s[0] + s[1] + s[2] + s[3];
uop.kernel @rows attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c1 = uop.const 1 : index
  %c2 = uop.const 2 : index
  %i = uop.range %lo, %hi : index
  %m = uop.load %x[%i] : vector<8xf32>
  %a7 = uop.reduce_lanes max %m : vector<8xf32>
  uop.store %out[%i], %a7 : f32
  %s = uop.load %x[%i] : vector<4xf32>
  %s0 = uop.extract %s[0] : vector<4xf32>
  %s1 = uop.extract %s[1] : vector<4xf32>
  %s2 = uop.extract %s[2] : vector<4xf32>
  %s3 = uop.extract %s[3] : vector<4xf32>
  %b3 = uop.reduce_lanes add %s : vector<4xf32>
  %i1 = uop.add %i, %c1 : index
  uop.store %out[%i1], %b3 : f32
  %c1s = uop.add %s0, %s1 : f32
  %c2s = uop.add %c1s, %s2 : f32
  %c = uop.add %c2s, %s3 : f32
  %i2 = uop.add %i, %c2 : index
  uop.store %out[%i2], %c : f32
  uop.end %i
}
