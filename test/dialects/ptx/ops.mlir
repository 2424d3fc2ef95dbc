// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every ptx op prints and parses back to the same text (custom and generic form): parameters, constants of
// every register class, special registers, integer/float/half/predicate instructions, cvt, vector and guarded
// loads and stores, shared memory, a barrier, registers written by ptx.assign, labels and branches; packed
// pairs and mma.sync.

// CHECK-LABEL: ptx.entry @everything(p0: u64, p1: u32, p2: s64) maxntid(128, 2, 1) attributes {global_size = ["N", "1", "1"], local_size = [128 : i64, 2 : i64, 1 : i64]} {
ptx.entry @everything(p0: u64, p1: u32, p2: s64) maxntid(128, 2, 1) attributes {global_size = ["N", "1", "1"], local_size = [128 : i64, 2 : i64, 1 : i64]} {
  // CHECK-NEXT: %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // CHECK-NEXT: %g = ptx.cvta to.global.u64 %a : !ptx.reg<b64>
  %g = ptx.cvta to.global.u64 %a : !ptx.reg<b64>
  // CHECK-NEXT: %n = ptx.ld_param u32 p1 : !ptx.reg<b32>
  %n = ptx.ld_param u32 p1 : !ptx.reg<b32>
  // CHECK-NEXT: %w = ptx.ld_param s64 p2 : !ptx.reg<b64>
  %w = ptx.ld_param s64 p2 : !ptx.reg<b64>
  // CHECK-NEXT: %t = ptx.const true : i1
  %t = ptx.const true : i1
  // CHECK-NEXT: %c4 = ptx.const 4 : i32
  %c4 = ptx.const 4 : i32
  // CHECK-NEXT: %c64 = ptx.const -64 : i64
  %c64 = ptx.const -64 : i64
  // CHECK-NEXT: %h = ptx.const 1.000000e+00 : f16
  %h = ptx.const 1.000000e+00 : f16
  // CHECK-NEXT: %bh = ptx.const 5.000000e-01 : bf16
  %bh = ptx.const 5.000000e-01 : bf16
  // CHECK-NEXT: %one = ptx.const 1.000000e+00 : f32
  %one = ptx.const 1.000000e+00 : f32
  // CHECK-NEXT: %d = ptx.const 0x7ff8000000000000 : f64
  %d = ptx.const 0x7FF8000000000000 : f64
  // CHECK-NEXT: %tid = ptx.sreg tid.x : !ptx.reg<b32>
  %tid = ptx.sreg tid.x : !ptx.reg<b32>
  // CHECK-NEXT: %ctaid = ptx.sreg ctaid.y : !ptx.reg<b32>
  %ctaid = ptx.sreg ctaid.y : !ptx.reg<b32>
  // CHECK-NEXT: %ntid = ptx.sreg ntid.z : !ptx.reg<b32>
  %ntid = ptx.sreg ntid.z : !ptx.reg<b32>
  // CHECK-NEXT: %nctaid = ptx.sreg nctaid.x : !ptx.reg<b32>
  %nctaid = ptx.sreg nctaid.x : !ptx.reg<b32>
  // CHECK-NEXT: %i = ptx.mad lo.s32 %ctaid, %ntid, %tid : !ptx.reg<b32>
  %i = ptx.mad lo.s32 %ctaid, %ntid, %tid : !ptx.reg<b32>
  // CHECK-NEXT: %off = ptx.mul wide.s32 %i, %c4 : !ptx.reg<b64>
  %off = ptx.mul wide.s32 %i, %c4 : !ptx.reg<b64>
  // CHECK-NEXT: %wide = ptx.mad wide.u32 %i, %c4, %off : !ptx.reg<b64>
  %wide = ptx.mad wide.u32 %i, %c4, %off : !ptx.reg<b64>
  // CHECK-NEXT: %addr = ptx.add s64 %g, %off : !ptx.reg<b64>
  %addr = ptx.add s64 %g, %off : !ptx.reg<b64>
  // CHECK-NEXT: %in = ptx.setp lt.s32 %i, %n : !ptx.reg<pred>
  %in = ptx.setp lt.s32 %i, %n : !ptx.reg<pred>
  // CHECK-NEXT: ptx.bra skip1 unless %in
  ptx.bra skip1 unless %in
  // CHECK-NEXT: %x = ptx.ld global.f32 [%addr] : !ptx.reg<f32>
  %x = ptx.ld global.f32 [%addr] : !ptx.reg<f32>
  // CHECK-NEXT: %y, %z = ptx.ld global.v2.f32 [%addr] if %in : !ptx.reg<f32>, !ptx.reg<f32>
  %y, %z = ptx.ld global.v2.f32 [%addr] if %in : !ptx.reg<f32>, !ptx.reg<f32>
  // CHECK-NEXT: %b0, %b1, %b2, %b3 = ptx.ld global.v4.s8 [%addr] : !ptx.reg<b32>, !ptx.reg<b32>, !ptx.reg<b32>, !ptx.reg<b32>
  %b0, %b1, %b2, %b3 = ptx.ld global.v4.s8 [%addr] : !ptx.reg<b32>, !ptx.reg<b32>, !ptx.reg<b32>, !ptx.reg<b32>
  // CHECK-NEXT: %s = ptx.add f32 %x, %one : !ptx.reg<f32>
  %s = ptx.add f32 %x, %one : !ptx.reg<f32>
  // CHECK-NEXT: %s2 = ptx.sub rn.f32 %s, %y : !ptx.reg<f32>
  %s2 = ptx.sub rn.f32 %s, %y : !ptx.reg<f32>
  // CHECK-NEXT: %m = ptx.mul f32 %s2, %z : !ptx.reg<f32>
  %m = ptx.mul f32 %s2, %z : !ptx.reg<f32>
  // CHECK-NEXT: %f = ptx.fma rn.f32 %m, %m, %one : !ptx.reg<f32>
  %f = ptx.fma rn.f32 %m, %m, %one : !ptx.reg<f32>
  // CHECK-NEXT: %q = ptx.div rn.f32 %f, %m : !ptx.reg<f32>
  %q = ptx.div rn.f32 %f, %m : !ptx.reg<f32>
  // CHECK-NEXT: %mx = ptx.max NaN.f32 %q, %f : !ptx.reg<f32>
  %mx = ptx.max NaN.f32 %q, %f : !ptx.reg<f32>
  // CHECK-NEXT: %mn = ptx.min f64 %d, %d : !ptx.reg<f64>
  %mn = ptx.min f64 %d, %d : !ptx.reg<f64>
  // CHECK-NEXT: %ng = ptx.neg f32 %mx : !ptx.reg<f32>
  %ng = ptx.neg f32 %mx : !ptx.reg<f32>
  // CHECK-NEXT: %ab = ptx.abs f32 %ng : !ptx.reg<f32>
  %ab = ptx.abs f32 %ng : !ptx.reg<f32>
  // CHECK-NEXT: %e = ptx.ex2 approx.f32 %ab : !ptx.reg<f32>
  %e = ptx.ex2 approx.f32 %ab : !ptx.reg<f32>
  // CHECK-NEXT: %l = ptx.lg2 approx.f32 %e : !ptx.reg<f32>
  %l = ptx.lg2 approx.f32 %e : !ptx.reg<f32>
  // CHECK-NEXT: %si = ptx.sin approx.f32 %l : !ptx.reg<f32>
  %si = ptx.sin approx.f32 %l : !ptx.reg<f32>
  // CHECK-NEXT: %co = ptx.cos approx.f32 %si : !ptx.reg<f32>
  %co = ptx.cos approx.f32 %si : !ptx.reg<f32>
  // CHECK-NEXT: %sq = ptx.sqrt rn.f32 %co : !ptx.reg<f32>
  %sq = ptx.sqrt rn.f32 %co : !ptx.reg<f32>
  // CHECK-NEXT: %rc = ptx.rcp rn.f32 %sq : !ptx.reg<f32>
  %rc = ptx.rcp rn.f32 %sq : !ptx.reg<f32>
  // CHECK-NEXT: %rs = ptx.rsqrt approx.f32 %rc : !ptx.reg<f32>
  %rs = ptx.rsqrt approx.f32 %rc : !ptx.reg<f32>
  // CHECK-NEXT: %cs = ptx.copysign f64 %d, %mn : !ptx.reg<f64>
  %cs = ptx.copysign f64 %d, %mn : !ptx.reg<f64>
  // CHECK-NEXT: %hf = ptx.fma rn.f16 %h, %h, %h : !ptx.reg<b16>
  %hf = ptx.fma rn.f16 %h, %h, %h : !ptx.reg<b16>
  // CHECK-NEXT: %hm = ptx.max NaN.bf16 %bh, %hf : !ptx.reg<b16>
  %hm = ptx.max NaN.bf16 %bh, %hf : !ptx.reg<b16>
  // CHECK-NEXT: %sel = ptx.selp f32 %rs, %one, %in : !ptx.reg<f32>
  %sel = ptx.selp f32 %rs, %one, %in : !ptx.reg<f32>
  // CHECK-NEXT: %lt = ptx.setp neu.f32 %sel, %one : !ptx.reg<pred>
  %lt = ptx.setp neu.f32 %sel, %one : !ptx.reg<pred>
  // CHECK-NEXT: %pa = ptx.and pred %lt, %t : !ptx.reg<pred>
  %pa = ptx.and pred %lt, %t : !ptx.reg<pred>
  // CHECK-NEXT: %po = ptx.or pred %pa, %in : !ptx.reg<pred>
  %po = ptx.or pred %pa, %in : !ptx.reg<pred>
  // CHECK-NEXT: %px = ptx.xor pred %po, %t : !ptx.reg<pred>
  %px = ptx.xor pred %po, %t : !ptx.reg<pred>
  // CHECK-NEXT: %pn = ptx.not pred %px : !ptx.reg<pred>
  %pn = ptx.not pred %px : !ptx.reg<pred>
  // CHECK-NEXT: %bits = ptx.mov %sel : !ptx.reg<b32>
  %bits = ptx.mov %sel : !ptx.reg<b32>
  // CHECK-NEXT: %sh = ptx.shl b32 %bits, %c4 : !ptx.reg<b32>
  %sh = ptx.shl b32 %bits, %c4 : !ptx.reg<b32>
  // CHECK-NEXT: %sr = ptx.shr s64 %w, %c4 : !ptx.reg<b64>
  %sr = ptx.shr s64 %w, %c4 : !ptx.reg<b64>
  // CHECK-NEXT: %dv = ptx.div s32 %sh, %c4 : !ptx.reg<b32>
  %dv = ptx.div s32 %sh, %c4 : !ptx.reg<b32>
  // CHECK-NEXT: %rm = ptx.rem u32 %dv, %c4 : !ptx.reg<b32>
  %rm = ptx.rem u32 %dv, %c4 : !ptx.reg<b32>
  // CHECK-NEXT: %an = ptx.and b64 %sr, %c64 : !ptx.reg<b64>
  %an = ptx.and b64 %sr, %c64 : !ptx.reg<b64>
  // CHECK-NEXT: %i8 = ptx.cvt s32.s8 %rm : !ptx.reg<b32>
  %i8 = ptx.cvt s32.s8 %rm : !ptx.reg<b32>
  // CHECK-NEXT: %fl = ptx.cvt rn.f32.s32 %i8 : !ptx.reg<f32>
  %fl = ptx.cvt rn.f32.s32 %i8 : !ptx.reg<f32>
  // CHECK-NEXT: %tr = ptx.cvt rzi.f32.f32 %fl : !ptx.reg<f32>
  %tr = ptx.cvt rzi.f32.f32 %fl : !ptx.reg<f32>
  // CHECK-NEXT: %ih = ptx.cvt rzi.s64.f32 %tr : !ptx.reg<b64>
  %ih = ptx.cvt rzi.s64.f32 %tr : !ptx.reg<b64>
  // CHECK-NEXT: %hb = ptx.cvt u16.u32 %i8 : !ptx.reg<b16>
  %hb = ptx.cvt u16.u32 %i8 : !ptx.reg<b16>
  // CHECK-NEXT: %acc = ptx.reg : !ptx.reg<f32>
  %acc = ptx.reg : !ptx.reg<f32>
  // CHECK-NEXT: ptx.assign %acc, %tr
  ptx.assign %acc, %tr
  // CHECK-NEXT: ptx.st global.f32 [%addr], %acc if %pn
  ptx.st global.f32 [%addr], %acc if %pn
  // CHECK-NEXT: ptx.st global.v2.f32 [%addr], %y, %z
  ptx.st global.v2.f32 [%addr], %y, %z
  // CHECK-NEXT: ptx.st global.u8 [%addr], %b0
  ptx.st global.u8 [%addr], %b0
  // CHECK-NEXT: %sm = ptx.shared 512 align 16 : !ptx.reg<b32>
  %sm = ptx.shared 512 align 16 : !ptx.reg<b32>
  // CHECK-NEXT: %sa = ptx.mad lo.s32 %tid, %c4, %sm : !ptx.reg<b32>
  %sa = ptx.mad lo.s32 %tid, %c4, %sm : !ptx.reg<b32>
  // CHECK-NEXT: ptx.st shared.f32 [%sa], %x
  ptx.st shared.f32 [%sa], %x
  // CHECK-NEXT: ptx.bar_sync 0
  ptx.bar_sync 0
  // CHECK-NEXT: %back = ptx.ld shared.f32 [%sa] : !ptx.reg<f32>
  %back = ptx.ld shared.f32 [%sa] : !ptx.reg<f32>
  // CHECK-NEXT: ptx.label skip1
  ptx.label skip1
  // CHECK-NEXT: ptx.ret
  ptx.ret
// CHECK-NEXT: }
}

// Tensor cores: f16/bf16 pairs packed into 32-bit registers, and mma.sync on a warp's fragments.
// CHECK-LABEL: ptx.entry @tensor_core(p0: u64) {
ptx.entry @tensor_core(p0: u64) {
  // CHECK-NEXT: %0 = ptx.ld_param u64 p0 : !ptx.reg<b64>
  %0 = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // CHECK-NEXT: %g = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
  %g = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
  // CHECK-NEXT: %h0, %h1, %h2, %h3 = ptx.ld global.v4.b16 [%g] : !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>
  %h0, %h1, %h2, %h3 = ptx.ld global.v4.b16 [%g] : !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>
  // CHECK-NEXT: %a0 = ptx.pack %h0, %h1 : !ptx.reg<b32>
  %a0 = ptx.pack %h0, %h1 : !ptx.reg<b32>
  // CHECK-NEXT: %a1 = ptx.pack %h2, %h3 : !ptx.reg<b32>
  %a1 = ptx.pack %h2, %h3 : !ptx.reg<b32>
  // CHECK-NEXT: %z = ptx.const 0.000000e+00 : f32
  %z = ptx.const 0.000000e+00 : f32
  // CHECK-NEXT: %d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.bf16.bf16.f32 {%a0, %a1, %a0, %a1}, {%a0, %a1}, {%z, %z, %z, %z} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  %d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.bf16.bf16.f32 {%a0, %a1, %a0, %a1}, {%a0, %a1}, {%z, %z, %z, %z} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  // CHECK-NEXT: ptx.st global.v4.f32 [%g], %d0, %d1, %d2, %d3
  ptx.st global.v4.f32 [%g], %d0, %d1, %d2, %d3
  // CHECK-NEXT: ptx.ret
  ptx.ret
// CHECK-NEXT: }
}
