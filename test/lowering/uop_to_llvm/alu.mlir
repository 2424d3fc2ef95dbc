// RUN: kiln-opt %s -p convert-uop-to-llvm | filecheck %s
// ALU ops and casts choose the signed or unsigned LLVM instruction, guard what LLVM leaves undefined (integer
// division by 0 and INT_MIN / -1, shifts by >= the bit width), use intrinsics for floats with the contract
// fast-math flag (reassoc only on a reduction's update: uop_to_llvm/kernel.mlir), and spell vector compares and selects with upstream llvm ops only.

// CHECK-LABEL: llvm.func @signed
// CHECK:         %[[X:x.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:         %[[Y:y.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// idiv: divide by 1 where y is 0 or -1, then negate for -1 and give 0 for 0.
// CHECK:         %[[ZERO:.*]] = llvm.icmp "eq" %[[Y]], %{{.*}} : i32
// CHECK:         %[[M1:.*]] = llvm.icmp "eq" %[[Y]], %{{.*}} : i32
// CHECK-NEXT:    %[[BAD:.*]] = llvm.or %[[ZERO]], %[[M1]] : i1
// CHECK:         %[[SAFE:.*]] = llvm.select %[[BAD]], %{{.*}}, %[[Y]] : i1, i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.sdiv %[[X]], %[[SAFE]] : i32
// CHECK:         %[[NEG:.*]] = llvm.sub %{{.*}}, %[[X]] : i32
// CHECK-NEXT:    %[[Q1:.*]] = llvm.select %[[M1]], %[[NEG]], %[[Q]] : i1, i32
// CHECK:         %q = llvm.select %[[ZERO]], %{{.*}}, %[[Q1]] : i1, i32
// CHECK:         llvm.srem %[[X]], %{{.*}} : i32
// CHECK:         %r = llvm.select
// shr on a signed type: arithmetic, by at most 31.
// CHECK:         %[[AMT:.*]] = llvm.call_intrinsic "llvm.umin.i32"(%[[Y]], %{{.*}}) : (i32, i32) -> i32
// CHECK-NEXT:    %s = llvm.ashr %[[X]], %[[AMT]] : i32
// shl: 0 when the amount is >= 32 (and the amount masked, so the shift itself is never poison).
// CHECK:         %[[FAR:.*]] = llvm.icmp "uge" %[[Y]], %{{.*}} : i32
// CHECK:         %[[MASKED:.*]] = llvm.and %[[Y]], %{{.*}} : i32
// CHECK-NEXT:    %[[SHL:.*]] = llvm.shl %[[X]], %[[MASKED]] : i32
// CHECK:         %l = llvm.select %[[FAR]], %{{.*}}, %[[SHL]] : i1, i32
// CHECK-NEXT:    %m = llvm.call_intrinsic "llvm.smax.i32"(%[[X]], %[[Y]]) : (i32, i32) -> i32
// CHECK-NEXT:    %t = llvm.icmp "slt" %[[X]], %[[Y]] : i32
// CHECK-NEXT:    %[[POISON:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %b = llvm.call_intrinsic "llvm.abs.i32"(%[[X]], %[[POISON]]) : (i32, i1) -> i32
uop.kernel @signed {
  %a = uop.param 0 : !uop.ptr<i32>
  %c0 = uop.const 0 : index
  %x = uop.load %a[%c0] : i32
  %y = uop.load %a[%c0] : i32
  %q = uop.idiv %x, %y : i32
  %r = uop.mod %x, %y : i32
  %s = uop.shr %x, %y : i32
  %l = uop.shl %x, %y : i32
  %m = uop.max %x, %y : i32
  %t = uop.cmplt %x, %y : i32
  %b = uop.abs %x : i32
}

// Unsigned types are signless i32 in LLVM; the ops say unsigned.
// CHECK-LABEL: llvm.func @unsigned
// CHECK:         %[[X:x.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:         %[[Y:y.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK:         %[[ZERO:.*]] = llvm.icmp "eq" %[[Y]], %{{.*}} : i32
// CHECK:         %[[SAFE:.*]] = llvm.select %[[ZERO]], %{{.*}}, %[[Y]] : i1, i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.udiv %[[X]], %[[SAFE]] : i32
// CHECK:         %q{{.*}} = llvm.select %[[ZERO]], %{{.*}}, %[[Q]] : i1, i32
// CHECK:         llvm.lshr %[[X]]
// CHECK:         %m{{.*}} = llvm.call_intrinsic "llvm.umin.i32"(%[[X]], %[[Y]]) : (i32, i32) -> i32
// CHECK-NEXT:    %t{{.*}} = llvm.icmp "ult" %[[X]], %[[Y]] : i32
// ui32 -> f32: zero-extend, then a signed conversion (xDSL's llvm dialect has no uitofp).
// CHECK-NEXT:    %[[WIDE:.*]] = llvm.zext %[[X]] : i32 to i64
// CHECK-NEXT:    %[[F:f.*]] = llvm.sitofp %[[WIDE]] : i64 to f32
// f32 -> ui8 truncates toward zero, saturating; f32 -> bool is x != 0 with NaN true.
// CHECK-NEXT:    %g = llvm.call_intrinsic "llvm.fptoui.sat.i8.f32"(%[[F]]) : (f32) -> i8
// CHECK-NEXT:    %[[FZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:    %h = llvm.fcmp "une" %[[F]], %[[FZERO]] : f32
uop.kernel @unsigned {
  %a = uop.param 0 : !uop.ptr<ui32>
  %c0 = uop.const 0 : index
  %x = uop.load %a[%c0] : ui32
  %y = uop.load %a[%c0] : ui32
  %q = uop.idiv %x, %y : ui32
  %s = uop.shr %x, %y : ui32
  %m = uop.min %x, %y : ui32
  %t = uop.cmplt %x, %y : ui32
  %f = uop.cast %x : ui32 -> f32
  %g = uop.cast %f : f32 -> ui8
  %h = uop.cast %f : f32 -> i1
}

// Floats: NaN-propagating llvm.maximum (not maxnum), fast-math contract. A vector fcmp is done lane by
// lane (shufflevector + bitcast reads a lane), a vector select is a bit mask; LLVM's O3 turns both back into
// vector instructions.
// CHECK-LABEL: llvm.func @floats
// CHECK:         %[[X:x.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xf32>
// CHECK:         %[[Y:y.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT:    %m{{.*}} = llvm.call_intrinsic "llvm.maximum.v4f32"(%[[X]], %[[Y]]) {fastmathFlags = #llvm.fastmath<contract>} : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-COUNT-4: llvm.fcmp "olt" %{{.*}}, %{{.*}} : f32
// CHECK:         %lt = llvm.insertelement %{{.*}}[%{{.*}} : i32] : vector<4xi1>
// CHECK-NEXT:    %[[MASK:.*]] = llvm.sext %lt : vector<4xi1> to vector<4xi32>
// CHECK:         %[[NOTMASK:.*]] = llvm.xor %[[MASK]], %{{.*}} : vector<4xi32>
// CHECK-NEXT:    %[[XB:.*]] = llvm.bitcast %[[X]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %[[YB:.*]] = llvm.bitcast %[[Y]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    %[[XM:.*]] = llvm.and %[[XB]], %[[MASK]] : vector<4xi32>
// CHECK-NEXT:    %[[YM:.*]] = llvm.and %[[YB]], %[[NOTMASK]] : vector<4xi32>
// CHECK-NEXT:    %[[W:.*]] = llvm.or %[[XM]], %[[YM]] : vector<4xi32>
// CHECK-NEXT:    %w = llvm.bitcast %[[W]] : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:    %[[LANE:.*]] = llvm.shufflevector %w, %w [3] : vector<4xf32>
// CHECK-NEXT:    %e = llvm.bitcast %[[LANE]] : vector<1xf32> to f32
// CHECK-NEXT:    %v = llvm.fadd %e, %e {fastmathFlags = #llvm.fastmath<contract>} : f32
// One value in every lane (a register tile's broadcast) is inserted once and shuffled into every lane.
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT:    %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.insertelement %v, %[[U]][%[[I0]] : i32] : vector<4xf32>
// CHECK-NEXT:    %[[B:b.*]] = llvm.shufflevector %[[ONE]], %[[ONE]] [0, 0, 0, 0] : vector<4xf32>
// CHECK-NEXT:    %p = llvm.fmul %[[B]], %[[X]] {fastmathFlags = #llvm.fastmath<contract>} : vector<4xf32>
uop.kernel @floats {
  %a = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %x = uop.load %a[%c0] : vector<4xf32>
  %y = uop.load %a[%c0] : vector<4xf32>
  %m = uop.max %x, %y : vector<4xf32>
  %lt = uop.cmplt %x, %y : vector<4xf32>
  %w = uop.where %lt, %x, %y : vector<4xf32>
  %e = uop.extract %w[3] : vector<4xf32>
  %v = uop.add %e, %e : f32
  %b = uop.vectorize %v, %v, %v, %v : vector<4xf32>
  %p = uop.mul %b, %x : vector<4xf32>
}
