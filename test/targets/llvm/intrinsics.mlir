// RUN: kiln-opt %s -p convert-uop-to-llvm -t llvm | filecheck %s
// Every float ALU op that has an LLVM intrinsic calls it (never a polynomial), with the contract fast-math flag
// (no reassoc outside a reduction's update) and never nnan/ninf; min/max are the NaN-propagating llvm.minimum/llvm.maximum. Integer
// min/max/abs and float -> int casts use their intrinsics too.

// CHECK-LABEL: define void @"float_ops"
// CHECK-NOT:     nnan
// CHECK-NOT:     ninf
// CHECK:         %"e" = call contract float @"llvm.exp.f32"(float %"x")
// CHECK-NEXT:    %"e2" = call contract float @"llvm.exp2.f32"(float %"x")
// CHECK-NEXT:    %"l" = call contract float @"llvm.log.f32"(float %"x")
// CHECK-NEXT:    %"l2" = call contract float @"llvm.log2.f32"(float %"x")
// CHECK-NEXT:    %"s" = call contract float @"llvm.sin.f32"(float %"x")
// CHECK-NEXT:    %"c" = call contract float @"llvm.cos.f32"(float %"x")
// CHECK-NEXT:    %"r" = call contract float @"llvm.sqrt.f32"(float %"x")
// CHECK-NEXT:    %"t" = call contract float @"llvm.trunc.f32"(float %"x")
// CHECK-NEXT:    %"f" = call contract float @"llvm.floor.f32"(float %"x")
// CHECK-NEXT:    %"u" = call contract float @"llvm.ceil.f32"(float %"x")
// CHECK-NEXT:    %"a" = call contract float @"llvm.fabs.f32"(float %"x")
// CHECK-NEXT:    %"h" = call contract float @"llvm.tanh.f32"(float %"x")
// CHECK-NEXT:    %"mx" = call contract float @"llvm.maximum.f32"(float %"x", float %"y")
// CHECK-NEXT:    %"mn" = call contract float @"llvm.minimum.f32"(float %"x", float %"y")
// CHECK-NEXT:    %"p2" = call contract float @"llvm.pow.f32"(float %"x", float %"y")
// CHECK-NEXT:    %"fm" = call contract float @"llvm.fma.f32"(float %"x", float %"y", float %"x")
// CHECK-NEXT:    %[[Q:.*]] = fdiv contract float %"x", %"y"
// CHECK-NEXT:    %"id" = call contract float @"llvm.trunc.f32"(float %[[Q]])
// CHECK-NEXT:    %"md" = frem contract float %"x", %"y"
// CHECK-NEXT:    %"rc" = fdiv contract float {{ *}}0x3ff0000000000000, %"x"
// CHECK-NEXT:    %"ng" = fneg contract float %"x"
// CHECK-NEXT:    %"i" = call i32 @"llvm.fptosi.sat.i32.f32"(float %"x")
// CHECK-NEXT:    %"ui" = call i64 @"llvm.fptoui.sat.i64.f32"(float %"x")
uop.kernel @float_ops {
  %p = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %x = uop.load %p[%c0] : f32
  %y = uop.load %p[%c0] : f32
  %e = uop.exp %x : f32
  %e2 = uop.exp2 %x : f32
  %l = uop.log %x : f32
  %l2 = uop.log2 %x : f32
  %s = uop.sin %x : f32
  %c = uop.cos %x : f32
  %r = uop.sqrt %x : f32
  %t = uop.trunc %x : f32
  %f = uop.floor %x : f32
  %u = uop.ceil %x : f32
  %a = uop.abs %x : f32
  %h = uop.tanh %x : f32
  %mx = uop.max %x, %y : f32
  %mn = uop.min %x, %y : f32
  %p2 = uop.pow %x, %y : f32
  %fm = uop.fma %x, %y, %x : f32
  %id = uop.idiv %x, %y : f32
  %md = uop.mod %x, %y : f32
  %rc = uop.recip %x : f32
  %ng = uop.neg %x : f32
  %i = uop.cast %x : f32 -> i32
  %ui = uop.cast %x : f32 -> ui64
}

// CHECK-LABEL: define void @"int_ops"
// CHECK:         %"smax" = call <4 x i64> @"llvm.smax.v4i64"(<4 x i64> %"x", <4 x i64> %"y")
// CHECK-NEXT:    %"smin" = call <4 x i64> @"llvm.smin.v4i64"(<4 x i64> %"x", <4 x i64> %"y")
// CHECK-NEXT:    %"abs" = call <4 x i64> @"llvm.abs.v4i64"(<4 x i64> %"x", i1 false)
// CHECK:         %"umax" = call i8 @"llvm.umax.i8"(i8 %"b", i8 %"b")
// CHECK-NEXT:    %"umin" = call i8 @"llvm.umin.i8"(i8 %"b", i8 %"b")
// Intrinsics are declared once each, after the functions.
// CHECK:       declare float @"llvm.exp.f32"(float
// CHECK:       declare i64 @"llvm.fptoui.sat.i64.f32"(float
// CHECK:       declare <4 x i64> @"llvm.abs.v4i64"(<4 x i64> {{.*}}, i1
uop.kernel @int_ops {
  %p = uop.param 0 : !uop.ptr<i64>
  %q = uop.param 1 : !uop.ptr<ui8>
  %c0 = uop.const 0 : index
  %x = uop.load %p[%c0] : vector<4xi64>
  %y = uop.load %p[%c0] : vector<4xi64>
  %smax = uop.max %x, %y : vector<4xi64>
  %smin = uop.min %x, %y : vector<4xi64>
  %abs = uop.abs %x : vector<4xi64>
  %b = uop.load %q[%c0] : ui8
  %umax = uop.max %b, %b : ui8
  %umin = uop.min %b, %b : ui8
}
