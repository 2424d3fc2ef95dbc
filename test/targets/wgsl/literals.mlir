// RUN: kiln-opt %s -t wgsl | filecheck %s
// Literals carry WGSL's suffixes (i, u, f, h); infinities and NaN, which WGSL cannot spell, are bit patterns;
// the most negative i32 is a conversion of an abstract int (2147483648i does not exist); a negative operand is
// parenthesized (`--` is WGSL's decrement). Any f16 in the module turns on `enable f16;`, and an f16 helper pulls
// in the f32 helpers it is built on.

// CHECK:       // kiln -t wgsl: literals
// CHECK-NEXT:  enable f16;
// CHECK-EMPTY:
// CHECK-NEXT:  fn kiln_isnan_f32(x: f32) -> bool
// CHECK:       fn kiln_fmod_f32(a: f32, b: f32) -> f32 {
// CHECK:       fn kiln_isnan_f16(x: f16) -> bool { return kiln_isnan_f32(f32(x)); }
// CHECK-NEXT:  {{^$}}
// CHECK-NEXT:  fn kiln_fmod_f16(a: f16, b: f16) -> f16 { return f16(kiln_fmod_f32(f32(a), f32(b))); }
// CHECK-EMPTY:
// CHECK-NEXT:  fn kiln_min_f16(a: f16, b: f16) -> f16 {
// CHECK-NEXT:    if (kiln_isnan_f16(b)) { return b; }
// CHECK-NEXT:    return select(b, a, a < b || kiln_isnan_f16(a));
// CHECK-NEXT:  }
// CHECK-NOT:   kiln_max
// CHECK:       fn literals() {
// CHECK-NEXT:    let neg = -(-1.5f);
// CHECK-NEXT:    let negz = -(-0.0f);
// CHECK-NEXT:    let sum = bitcast<f32>(0x7f800000u) + bitcast<f32>(0x7fc00000u);
// CHECK-NEXT:    let diff = 3.4028235e+38f - 1e-07f;
// CHECK-NEXT:    let m = kiln_min_f16(0.1h, f16(bitcast<f32>(0xff800000u)));
// CHECK-NEXT:    let r = kiln_fmod_f16(m, 6e+04h);
// CHECK-NEXT:    let big = i32(-2147483648) - (-7i);
// CHECK-NEXT:    let u = 4294967295u + 0u;
// CHECK-NEXT:    let b = select(false, true, true);
// CHECK-NEXT:    let bu = u32(b);
// CHECK-NEXT:    literals_of[0i] = neg;
// CHECK:         literals_ou[0i] = bu;
// CHECK-NEXT:  }
wgsl.entry @literals(%of: !wgsl.storage<f32>, %oh: !wgsl.storage<f16>, %oi: !wgsl.storage<i32>, %ou: !wgsl.storage<ui32>) workgroup_size(1, 1, 1) {
  %c0 = wgsl.literal 0 : i32
  %m15 = wgsl.literal -1.5 : f32
  %neg = wgsl.unary "-" %m15 : f32
  %mz = wgsl.literal -0.0 : f32
  %negz = wgsl.unary "-" %mz : f32
  %inf = wgsl.literal 0x7f800000 : f32
  %nan = wgsl.literal 0x7fc00001 : f32
  %sum = wgsl.binary "+" %inf, %nan : f32
  %big_f = wgsl.literal 3.4028234663852886e38 : f32
  %tiny = wgsl.literal 1.0e-7 : f32
  %diff = wgsl.binary "-" %big_f, %tiny : f32
  %h = wgsl.literal 0.1 : f16
  %hinf = wgsl.literal 0xfc00 : f16
  %m = wgsl.call @kiln_min_f16(%h, %hinf) : (f16, f16) -> f16
  %h6 = wgsl.literal 60000.0 : f16
  %r = wgsl.call @kiln_fmod_f16(%m, %h6) : (f16, f16) -> f16
  %min = wgsl.literal -2147483648 : i32
  %m7 = wgsl.literal -7 : i32
  %big = wgsl.binary "-" %min, %m7 : i32
  %umax = wgsl.literal 4294967295 : ui32
  %u0 = wgsl.literal 0 : ui32
  %u = wgsl.binary "+" %umax, %u0 : ui32
  %t = wgsl.literal true
  %f = wgsl.literal false
  %b = wgsl.select %t, %t, %f : i1
  %bu = wgsl.convert %b : i1 -> ui32
  wgsl.store %of[%c0] = %neg
  wgsl.store %of[%c0] = %negz
  wgsl.store %of[%c0] = %sum
  wgsl.store %of[%c0] = %diff
  wgsl.store %oh[%c0] = %r
  wgsl.store %oi[%c0] = %big
  wgsl.store %ou[%c0] = %u
  wgsl.store %ou[%c0] = %bu
}
