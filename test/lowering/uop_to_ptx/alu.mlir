// RUN: kiln-opt %s -p convert-uop-to-ptx | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-ptx -t ptx | python -c "import sys; from kiln.targets.ptx.toolchain import validate; validate(sys.stdin.read())"
// What each ALU op family and cast becomes in PTX, lane by lane (kiln.lowering.ptx.alu and .casts), and the
// result assembles for sm_80 and sm_90.

// Integer division by a register divides by 1 where the divisor is 0 (and gives 0 there) and, when signed,
// negates for -1; a constant divisor other than 0 and -1 needs no guard.
// CHECK-LABEL: ptx.entry @int_division
// CHECK-DAG:   %[[ZERO:.*]] = ptx.const 0 : i32
// CHECK-DAG:   %[[ONE:.*]] = ptx.const 1 : i32
// CHECK-DAG:   %[[MINUS1:.*]] = ptx.const -1 : i32
// CHECK-DAG:   %c7 = ptx.const 7 : i32
// CHECK:       %[[BY0:.*]] = ptx.setp eq.s32 %a, %[[ZERO]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[BYM1:.*]] = ptx.setp eq.s32 %a, %[[MINUS1]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[UNSAFE:.*]] = ptx.or pred %[[BY0]], %[[BYM1]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[SAFE:.*]] = ptx.selp s32 %[[ONE]], %a, %[[UNSAFE]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[Q:.*]] = ptx.div s32 %a, %[[SAFE]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[NEG:.*]] = ptx.neg s32 %a : !ptx.reg<b32>
// CHECK-NEXT:  %[[Q2:.*]] = ptx.selp s32 %[[NEG]], %[[Q]], %[[BYM1]] : !ptx.reg<b32>
// CHECK-NEXT:  %d = ptx.selp s32 %[[ZERO]], %[[Q2]], %[[BY0]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[UBY0:.*]] = ptx.setp eq.u32 %b, %[[ZERO]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[USAFE:.*]] = ptx.selp u32 %[[ONE]], %b, %[[UBY0]] : !ptx.reg<b32>
// CHECK-NEXT:  %m = ptx.rem u32 %b, %[[USAFE]] : !ptx.reg<b32>
// CHECK-NEXT:  %e = ptx.div s32 %d, %c7 : !ptx.reg<b32>
uop.kernel @int_division attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<i32>
  %q = uop.param 1 : !uop.ptr<ui32>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : i32
  %b = uop.load %q[%i] : ui32
  %d = uop.idiv %a, %a : i32
  %m = uop.mod %b, %b : ui32
  %c7 = uop.const 7 : i32
  %e = uop.idiv %d, %c7 : i32
  uop.store %p[%i], %e
  uop.store %q[%i], %m
}

// 8-bit integers compute in 32-bit registers and are narrowed again after ops that can leave the range.
// CHECK-LABEL: ptx.entry @narrow_ints
// CHECK:       %a = ptx.ld global.s8 [%{{.*}}] : !ptx.reg<b32>
// CHECK:       %b = ptx.ld global.u8 [%{{.*}}] : !ptx.reg<b32>
// CHECK-NEXT:  %[[SUM:.*]] = ptx.add s32 %a, %a : !ptx.reg<b32>
// CHECK-NEXT:  %s = ptx.cvt s32.s8 %[[SUM]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[NOT:.*]] = ptx.not b32 %b : !ptx.reg<b32>
// CHECK-NEXT:  %n = ptx.cvt u32.u8 %[[NOT]] : !ptx.reg<b32>
// CHECK-NEXT:  %x = ptx.max s32 %s, %a : !ptx.reg<b32>
uop.kernel @narrow_ints attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<i8>
  %q = uop.param 1 : !uop.ptr<ui8>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : i8
  %b = uop.load %q[%i] : ui8
  %s = uop.add %a, %a : i8
  %n = uop.not %b : ui8
  %x = uop.max %s, %a : i8
  uop.store %p[%i], %x
  uop.store %q[%i], %n
}

// PTX clamps shift amounts to the width (kiln's rule); a 64-bit amount is clamped to 64 before it becomes
// the 32-bit operand.
// CHECK-LABEL: ptx.entry @shifts
// CHECK:       %[[C64:.*]] = ptx.const 64 : i64
// CHECK:       %[[CLAMPED:.*]] = ptx.min u64 %a, %[[C64]] : !ptx.reg<b64>
// CHECK-NEXT:  %[[AMOUNT:.*]] = ptx.cvt u32.u64 %[[CLAMPED]] : !ptx.reg<b32>
// CHECK-NEXT:  %l = ptx.shl b64 %a, %[[AMOUNT]] : !ptx.reg<b64>
// CHECK-NEXT:  %r = ptx.shr s32 %b, %b : !ptx.reg<b32>
uop.kernel @shifts attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<i64>
  %q = uop.param 1 : !uop.ptr<i32>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : i64
  %b = uop.load %q[%i] : i32
  %l = uop.shl %a, %a : i64
  %r = uop.shr %b, %b : i32
  uop.store %p[%i], %l
  uop.store %q[%i], %r
}

// max/min propagate NaN (f64 has no max.NaN); transcendentals are f32 approx instructions; f64 rsqrt is
// rcp(sqrt) correctly rounded twice; != is unordered; floor is cvt.rmi.
// CHECK-LABEL: ptx.entry @floats
// CHECK:       %mx = ptx.max NaN.f32 %a, %a : !ptx.reg<f32>
// CHECK-NEXT:  %[[NAN:.*]] = ptx.setp nan.f64 %b, %b : !ptx.reg<pred>
// CHECK-NEXT:  %[[PROPAGATED:.*]] = ptx.add f64 %b, %b : !ptx.reg<f64>
// CHECK-NEXT:  %[[MAX:.*]] = ptx.max f64 %b, %b : !ptx.reg<f64>
// CHECK-NEXT:  %mxd = ptx.selp f64 %[[PROPAGATED]], %[[MAX]], %[[NAN]] : !ptx.reg<f64>
// CHECK-NEXT:  %e = ptx.ex2 approx.f32 %mx : !ptx.reg<f32>
// CHECK-NEXT:  %l = ptx.lg2 approx.f32 %e : !ptx.reg<f32>
// CHECK-NEXT:  %s = ptx.sin approx.f32 %l : !ptx.reg<f32>
// CHECK-NEXT:  %c = ptx.cos approx.f32 %s : !ptx.reg<f32>
// CHECK-NEXT:  %r = ptx.rsqrt approx.f32 %c : !ptx.reg<f32>
// CHECK-NEXT:  %[[SQRT:.*]] = ptx.sqrt rn.f64 %mxd : !ptx.reg<f64>
// CHECK-NEXT:  %rd = ptx.rcp rn.f64 %[[SQRT]] : !ptx.reg<f64>
// CHECK-NEXT:  %dv = ptx.div rn.f32 %r, %a : !ptx.reg<f32>
// CHECK-NEXT:  %fl = ptx.cvt rmi.f32.f32 %dv : !ptx.reg<f32>
// CHECK-NEXT:  %ne = ptx.setp neu.f32 %fl, %a : !ptx.reg<pred>
// CHECK-NEXT:  %w = ptx.selp f32 %fl, %a, %ne : !ptx.reg<f32>
uop.kernel @floats attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<f32>
  %q = uop.param 1 : !uop.ptr<f64>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : f32
  %b = uop.load %q[%i] : f64
  %mx = uop.max %a, %a : f32
  %mxd = uop.max %b, %b : f64
  %e = uop.exp2 %mx : f32
  %l = uop.log2 %e : f32
  %s = uop.sin %l : f32
  %c = uop.cos %s : f32
  %r = uop.rsqrt %c : f32
  %rd = uop.rsqrt %mxd : f64
  %dv = uop.div %r, %a : f32
  %fl = uop.floor %dv : f32
  %ne = uop.cmpne %fl, %a : f32
  %w = uop.where %ne, %fl, %a : f32
  uop.store %p[%i], %w
  uop.store %q[%i], %rd
}

// f32 fmod computes in f64. Five remainders by y * 2^k come first (k: the exponents' gap less 50, clamped to
// [0, 300], which keeps each exact: 1 mod 1e-30 needs them), then the remainder by y itself: x - trunc(x / y) * y
// with one fma, corrected when the quotient rounded up, with the sign of x, and x itself where |x| < |y| (also for
// an infinite y).
// CHECK-LABEL: ptx.entry @fmod
// CHECK:       %[[X:.*]] = ptx.cvt f64.f32 %a : !ptx.reg<f64>
// CHECK-NEXT:  %[[Y:.*]] = ptx.cvt f64.f32 %a : !ptx.reg<f64>
// CHECK-NEXT:  %[[XB:.*]] = ptx.mov %[[X]] : !ptx.reg<b64>
// CHECK-NEXT:  %[[XS:.*]] = ptx.shr u64 %[[XB]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[XE:.*]] = ptx.and b64 %[[XS]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[YB:.*]] = ptx.mov %[[Y]] : !ptx.reg<b64>
// CHECK-NEXT:  %[[YS:.*]] = ptx.shr u64 %[[YB]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[YE:.*]] = ptx.and b64 %[[YS]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[GAP:.*]] = ptx.sub s64 %[[XE]], %[[YE]] : !ptx.reg<b64>
// CHECK-NEXT:  %[[K0:.*]] = ptx.sub s64 %[[GAP]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[K1:.*]] = ptx.max s64 %[[K0]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[K:.*]] = ptx.min s64 %[[K1]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[BIASED:.*]] = ptx.add s64 %[[K]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[BITS:.*]] = ptx.shl b64 %[[BIASED]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[SCALE:.*]] = ptx.mov %[[BITS]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[NEAR:.*]] = ptx.mul f64 %[[Y]], %[[SCALE]] : !ptx.reg<f64>
// CHECK-NEXT:  %{{.*}} = ptx.div rn.f64 %[[X]], %[[NEAR]] : !ptx.reg<f64>
// CHECK-COUNT-4: ptx.mul f64 %[[Y]], %{{.*}} : !ptx.reg<f64>
// CHECK:       %[[DIV:.*]] = ptx.div rn.f64 %[[W:.*]], %[[Y]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[Q:.*]] = ptx.cvt rzi.f64.f64 %[[DIV]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[NQ:.*]] = ptx.neg f64 %[[Q]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[R:.*]] = ptx.fma rn.f64 %[[NQ]], %[[Y]], %[[W]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[SIGNED:.*]] = ptx.copysign f64 %[[W]], %[[R]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[OVERSHOT:.*]] = ptx.setp neu.f64 %[[SIGNED]], %[[R]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[STEP:.*]] = ptx.copysign f64 %[[W]], %[[Y]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[FIXED:.*]] = ptx.add f64 %[[R]], %[[STEP]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[R2:.*]] = ptx.selp f64 %[[FIXED]], %[[R]], %[[OVERSHOT]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[R3:.*]] = ptx.copysign f64 %[[W]], %[[R2]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[AX:.*]] = ptx.abs f64 %[[W]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[AY:.*]] = ptx.abs f64 %[[Y]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[SMALL:.*]] = ptx.setp lt.f64 %[[AX]], %[[AY]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[R4:.*]] = ptx.selp f64 %[[W]], %[[R3]], %[[SMALL]] : !ptx.reg<f64>
// CHECK-NEXT:  %m = ptx.cvt rn.f32.f64 %[[R4]] : !ptx.reg<f32>
uop.kernel @fmod attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<f32>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : f32
  %m = uop.mod %a, %a : f32
  uop.store %p[%i], %m
}

// f16/bf16 add and mul compute in f32 (each operand widened once) and round back; fma and max are native.
// bf16 widens by shifting its bits into an f32 (cvt.f32.bf16 needs PTX 7.1).
// CHECK-LABEL: ptx.entry @halves
// CHECK:       %[[C16:.*]] = ptx.const 16 : i32
// CHECK:       %a = ptx.ld global.b16 [%{{.*}}] : !ptx.reg<b16>
// CHECK:       %b = ptx.ld global.b16 [%{{.*}}] : !ptx.reg<b16>
// CHECK-NEXT:  %[[AF:.*]] = ptx.cvt f32.f16 %a : !ptx.reg<f32>
// CHECK-NEXT:  %[[SF:.*]] = ptx.add f32 %[[AF]], %[[AF]] : !ptx.reg<f32>
// CHECK-NEXT:  %s = ptx.cvt rn.f16.f32 %[[SF]] : !ptx.reg<b16>
// CHECK-NEXT:  %f = ptx.fma rn.f16 %s, %a, %a : !ptx.reg<b16>
// CHECK-NEXT:  %[[BW:.*]] = ptx.cvt u32.u16 %b : !ptx.reg<b32>
// CHECK-NEXT:  %[[BS:.*]] = ptx.shl b32 %[[BW]], %[[C16]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[BF:.*]] = ptx.mov %[[BS]] : !ptx.reg<f32>
// CHECK-NEXT:  %[[TF:.*]] = ptx.mul f32 %[[BF]], %[[BF]] : !ptx.reg<f32>
// CHECK-NEXT:  %t = ptx.cvt rn.bf16.f32 %[[TF]] : !ptx.reg<b16>
// CHECK-NEXT:  %m = ptx.max NaN.bf16 %t, %b : !ptx.reg<b16>
uop.kernel @halves attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<f16>
  %q = uop.param 1 : !uop.ptr<bf16>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : f16
  %b = uop.load %q[%i] : bf16
  %s = uop.add %a, %a : f16
  %f = uop.fma %s, %a, %a : f16
  %t = uop.mul %b, %b : bf16
  %m = uop.max %t, %b : bf16
  uop.store %p[%i], %f
  uop.store %q[%i], %m
}

// i1 values are predicates (bytes in memory); comparisons and where on them are predicate logic.
// CHECK-LABEL: ptx.entry @bools
// CHECK-DAG:   %[[ONE:.*]] = ptx.const 1 : i32
// CHECK-DAG:   %[[ZERO:.*]] = ptx.const 0 : i32
// CHECK-DAG:   %true = ptx.const true : i1
// CHECK:       %[[BYTE:.*]] = ptx.ld global.u8 [%{{.*}}] : !ptx.reg<b32>
// CHECK-NEXT:  %a = ptx.setp ne.u32 %[[BYTE]], %[[ZERO]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[NA:.*]] = ptx.not pred %a : !ptx.reg<pred>
// CHECK-NEXT:  %lt = ptx.and pred %[[NA]], %true : !ptx.reg<pred>
// CHECK-NEXT:  %[[T:.*]] = ptx.and pred %lt, %a : !ptx.reg<pred>
// CHECK-NEXT:  %[[NLT:.*]] = ptx.not pred %lt : !ptx.reg<pred>
// CHECK-NEXT:  %[[F:.*]] = ptx.and pred %[[NLT]], %true : !ptx.reg<pred>
// CHECK-NEXT:  %w = ptx.or pred %[[T]], %[[F]] : !ptx.reg<pred>
// CHECK-NEXT:  %[[OUT:.*]] = ptx.selp b32 %[[ONE]], %[[ZERO]], %w : !ptx.reg<b32>
// CHECK:       ptx.st global.u8 [%{{.*}}], %[[OUT]]
uop.kernel @bools attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<i1>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : i1
  %true = uop.const true : i1
  %lt = uop.cmplt %a, %true : i1
  %w = uop.where %lt, %a, %true : i1
  uop.store %p[%i], %w
}

// float -> i8 truncates to s64 (saturating) and wraps; f64 -> bf16 rounds to f32 to odd first; x -> i1 is
// x != 0 (unordered); i1 -> f32 selects 1 or 0; ui32 -> i64 zero-extends; bitcasts move or re-extend bits.
// CHECK-LABEL: ptx.entry @casts
// CHECK-DAG:   %[[ONE:.*]] = ptx.const 1 : i32
// CHECK-DAG:   %[[ZERO:.*]] = ptx.const 0 : i32
// CHECK-DAG:   %[[FZERO:.*]] = ptx.const 0.000000e+00 : f32
// CHECK-DAG:   %[[FONE:.*]] = ptx.const 1.000000e+00 : f32
// CHECK:       %[[WIDE:.*]] = ptx.cvt rzi.s64.f32 %a : !ptx.reg<b64>
// CHECK-NEXT:  %[[LOW:.*]] = ptx.cvt u32.u64 %[[WIDE]] : !ptx.reg<b32>
// CHECK-NEXT:  %to8 = ptx.cvt s32.s8 %[[LOW]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[RZ:.*]] = ptx.cvt rz.f32.f64 %b : !ptx.reg<f32>
// CHECK-NEXT:  %[[BACK:.*]] = ptx.cvt f64.f32 %[[RZ]] : !ptx.reg<f64>
// CHECK-NEXT:  %[[INEXACT:.*]] = ptx.setp neu.f64 %[[BACK]], %b : !ptx.reg<pred>
// CHECK-NEXT:  %[[STICKY:.*]] = ptx.selp b32 %[[ONE]], %[[ZERO]], %[[INEXACT]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[BITS:.*]] = ptx.mov %[[RZ]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[ODD:.*]] = ptx.or b32 %[[BITS]], %[[STICKY]] : !ptx.reg<b32>
// CHECK-NEXT:  %[[ODDF:.*]] = ptx.mov %[[ODD]] : !ptx.reg<f32>
// CHECK-NEXT:  %tobf = ptx.cvt rn.bf16.f32 %[[ODDF]] : !ptx.reg<b16>
// CHECK-NEXT:  %nz = ptx.setp neu.f32 %a, %[[FZERO]] : !ptx.reg<pred>
// CHECK-NEXT:  %one = ptx.selp f32 %[[FONE]], %[[FZERO]], %nz : !ptx.reg<f32>
// CHECK-NEXT:  %u = ptx.mov %one : !ptx.reg<b32>
// CHECK-NEXT:  %w = ptx.cvt s64.u32 %u : !ptx.reg<b64>
// CHECK-NEXT:  %h = ptx.cvt rn.f16.f32 %a : !ptx.reg<b16>
// CHECK-NEXT:  %hb = ptx.cvt s32.s16 %h : !ptx.reg<b32>
uop.kernel @casts attributes {symbols = []} {
  %p = uop.param 0 : !uop.ptr<f32>
  %q = uop.param 1 : !uop.ptr<f64>
  %o8 = uop.param 2 : !uop.ptr<i8>
  %ob = uop.param 3 : !uop.ptr<bf16>
  %o64 = uop.param 4 : !uop.ptr<i64>
  %oh = uop.param 5 : !uop.ptr<i16>
  %i = uop.special local_id.x : index
  %a = uop.load %p[%i] : f32
  %b = uop.load %q[%i] : f64
  %to8 = uop.cast %a : f32 -> i8
  %tobf = uop.cast %b : f64 -> bf16
  %nz = uop.cast %a : f32 -> i1
  %one = uop.cast %nz : i1 -> f32
  %u = uop.bitcast %one : f32 -> ui32
  %w = uop.cast %u : ui32 -> i64
  %h = uop.cast %a : f32 -> f16
  %hb = uop.bitcast %h : f16 -> i16
  uop.store %o8[%i], %to8
  uop.store %ob[%i], %tobf
  uop.store %o64[%i], %w
  uop.store %oh[%i], %hb
}
