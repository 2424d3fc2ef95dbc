// RUN: kiln-opt %s -p convert-uop-to-ptx | filecheck %s
// RUN: kiln-opt %s -p 'convert-uop-to-ptx{arch=sm_90}' | filecheck %s --check-prefix=SM90
// A uop.kernel becomes a ptx.entry with the CUDA calling convention (buffers as u64, converted to global
// addresses, then index params as u32, each group in index order), the kernel's attributes kept and local_size
// as maxntid. Constants and parameters are loaded first; brackets become labels and branches (a loop's counter
// and an accumulator are ptx.reg registers written by ptx.assign); gated loads and stores are guarded ld/st.

// SM90: builtin.module attributes {ptx.target = "sm_90"}

// global_id is ctaid * ntid + tid; the grid guard (uop.if) skips to the endif; a loop with an accumulator.
// CHECK-LABEL: ptx.entry @rowsum_k0(p0_x: u64, p1_out: u64, p2_N: u32) maxntid(64, 1, 1) attributes {symbols = ["N"], global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64]} {
// CHECK-NEXT: %0 = ptx.ld_param u64 p0_x : !ptx.reg<b64>
// CHECK-NEXT: %x = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
// CHECK-NEXT: %1 = ptx.ld_param u64 p1_out : !ptx.reg<b64>
// CHECK-NEXT: %out = ptx.cvta to.global.u64 %1 : !ptx.reg<b64>
// CHECK-NEXT: %N = ptx.ld_param u32 p2_N : !ptx.reg<b32>
// CHECK-NEXT: %c0 = ptx.const 0 : i32
// CHECK-NEXT: %c8 = ptx.const 8 : i32
// CHECK-NEXT: %zero = ptx.const 0.000000e+00 : f32
// CHECK-NEXT: %2 = ptx.const 4 : i32
// CHECK-NEXT: %3 = ptx.const 1 : i32
// CHECK-NEXT: %4 = ptx.sreg ctaid.x : !ptx.reg<b32>
// CHECK-NEXT: %5 = ptx.sreg ntid.x : !ptx.reg<b32>
// CHECK-NEXT: %6 = ptx.sreg tid.x : !ptx.reg<b32>
// CHECK-NEXT: %i = ptx.mad lo.s32 %4, %5, %6 : !ptx.reg<b32>
// CHECK-NEXT: %in = ptx.setp lt.s32 %i, %N : !ptx.reg<pred>
// CHECK-NEXT: ptx.bra endif1 unless %in
// CHECK-NEXT: %acc = ptx.reg : !ptx.reg<f32>
// CHECK-NEXT: ptx.assign %acc, %zero
// CHECK-NEXT: %k = ptx.reg : !ptx.reg<b32>
// CHECK-NEXT: ptx.assign %k, %c0
// CHECK-NEXT: ptx.label loop2_k
// CHECK-NEXT: %7 = ptx.setp ge.s32 %k, %c8 : !ptx.reg<pred>
// CHECK-NEXT: ptx.bra end2_k if %7
// CHECK-NEXT: %row = ptx.mul lo.s32 %i, %c8 : !ptx.reg<b32>
// CHECK-NEXT: %idx = ptx.add s32 %row, %k : !ptx.reg<b32>
// CHECK-NEXT: %8 = ptx.mul wide.s32 %idx, %2 : !ptx.reg<b64>
// CHECK-NEXT: %9 = ptx.add s64 %x, %8 : !ptx.reg<b64>
// CHECK-NEXT: %v = ptx.ld global.f32 [%9] : !ptx.reg<f32>
// CHECK-NEXT: %cur = ptx.mov %acc : !ptx.reg<f32>
// CHECK-NEXT: %nxt = ptx.add f32 %cur, %v : !ptx.reg<f32>
// CHECK-NEXT: ptx.assign %acc, %nxt
// CHECK-NEXT: %10 = ptx.add s32 %k, %3 : !ptx.reg<b32>
// CHECK-NEXT: ptx.assign %k, %10
// CHECK-NEXT: ptx.bra loop2_k
// CHECK-NEXT: ptx.label end2_k
// CHECK-NEXT: %r = ptx.mov %acc : !ptx.reg<f32>
// CHECK-NEXT: %11 = ptx.mul wide.s32 %i, %2 : !ptx.reg<b64>
// CHECK-NEXT: %12 = ptx.add s64 %out, %11 : !ptx.reg<b64>
// CHECK-NEXT: ptx.st global.f32 [%12], %r
// CHECK-NEXT: ptx.label endif1
// CHECK-NEXT: ptx.ret
// CHECK-NEXT: }
uop.kernel @rowsum_k0 attributes {symbols = ["N"], global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64, 1, 1]} {
  %out = uop.param 1 : !uop.ptr<f32>
  %x = uop.param 0 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %i = uop.special global_id.x : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %in = uop.cmplt %i, %N : index
  uop.if %in
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %row = uop.mul %i, %c8 : index
  %idx = uop.add %row, %k : index
  %v = uop.load %x[%idx] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %r = uop.acc_get %acc : f32
  uop.store %out[%i], %r
  uop.endif
}

// Bools are bytes in memory; a gated load is a guarded ld (0 where false); shared memory and bar.sync;
// a vector access is one .v4 ld/st, scalarized into four registers.
// CHECK-LABEL: ptx.entry @gates(p0_x: u64, p1_mask: u64) maxntid(32, 1, 1) attributes {symbols = [], global_size = ["4", "1", "1"], local_size = [32 : i64, 1 : i64, 1 : i64]} {
// CHECK-NEXT: %0 = ptx.ld_param u64 p0_x : !ptx.reg<b64>
// CHECK-NEXT: %x = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
// CHECK-NEXT: %1 = ptx.ld_param u64 p1_mask : !ptx.reg<b64>
// CHECK-NEXT: %mask = ptx.cvta to.global.u64 %1 : !ptx.reg<b64>
// CHECK-NEXT: %c4 = ptx.const 4 : i32
// CHECK-NEXT: %c32 = ptx.const 32 : i32
// CHECK-NEXT: %2 = ptx.const 1 : i32
// CHECK-NEXT: %3 = ptx.const 0 : i32
// CHECK-NEXT: %g = ptx.sreg ctaid.x : !ptx.reg<b32>
// CHECK-NEXT: %t = ptx.sreg tid.x : !ptx.reg<b32>
// CHECK-NEXT: %base = ptx.mul lo.s32 %g, %c32 : !ptx.reg<b32>
// CHECK-NEXT: %i = ptx.add s32 %base, %t : !ptx.reg<b32>
// CHECK-NEXT: %4 = ptx.mul wide.s32 %i, %2 : !ptx.reg<b64>
// CHECK-NEXT: %5 = ptx.add s64 %mask, %4 : !ptx.reg<b64>
// CHECK-NEXT: %6 = ptx.ld global.u8 [%5] : !ptx.reg<b32>
// CHECK-NEXT: %on = ptx.setp ne.u32 %6, %3 : !ptx.reg<pred>
// CHECK-NEXT: %7 = ptx.mul wide.s32 %i, %c4 : !ptx.reg<b64>
// CHECK-NEXT: %8 = ptx.add s64 %x, %7 : !ptx.reg<b64>
// CHECK-NEXT: %v = ptx.ld global.f32 [%8] if %on : !ptx.reg<f32>
// CHECK-NEXT: %l = ptx.shared 128 align 16 : !ptx.reg<b32>
// CHECK-NEXT: %9 = ptx.mad lo.s32 %t, %c4, %l : !ptx.reg<b32>
// CHECK-NEXT: ptx.st shared.f32 [%9], %v
// CHECK-NEXT: ptx.bar_sync 0
// CHECK-NEXT: %10 = ptx.mad lo.s32 %t, %c4, %l : !ptx.reg<b32>
// CHECK-NEXT: %w = ptx.ld shared.f32 [%10] : !ptx.reg<f32>
// CHECK-NEXT: %pos = ptx.setp lt.f32 %v, %w : !ptx.reg<pred>
// CHECK-NEXT: %11 = ptx.mul wide.s32 %i, %c4 : !ptx.reg<b64>
// CHECK-NEXT: %12 = ptx.add s64 %x, %11 : !ptx.reg<b64>
// CHECK-NEXT: ptx.st global.f32 [%12], %w if %pos
// CHECK-NEXT: %13 = ptx.selp b32 %2, %3, %pos : !ptx.reg<b32>
// CHECK-NEXT: %14 = ptx.mul wide.s32 %i, %2 : !ptx.reg<b64>
// CHECK-NEXT: %15 = ptx.add s64 %mask, %14 : !ptx.reg<b64>
// CHECK-NEXT: ptx.st global.u8 [%15], %13
// CHECK-NEXT: %j = ptx.mul lo.s32 %i, %c4 : !ptx.reg<b32>
// CHECK-NEXT: %16 = ptx.mul wide.s32 %j, %c4 : !ptx.reg<b64>
// CHECK-NEXT: %17 = ptx.add s64 %x, %16 : !ptx.reg<b64>
// CHECK-NEXT: %vec, %vec_1, %vec_2, %vec_3 = ptx.ld global.v4.f32 [%17] if %on : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
// CHECK-NEXT: %18 = ptx.mul wide.s32 %j, %c4 : !ptx.reg<b64>
// CHECK-NEXT: %19 = ptx.add s64 %x, %18 : !ptx.reg<b64>
// CHECK-NEXT: ptx.st global.v4.f32 [%19], %vec_2, %vec_2, %vec_2, %vec_2
// CHECK-NEXT: ptx.ret
// CHECK-NEXT: }
uop.kernel @gates attributes {symbols = [], global_size = ["4", "1", "1"], local_size = [32, 1, 1]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %mask = uop.param 1 : !uop.ptr<i1>
  %g = uop.special group_id.x : index
  %t = uop.special local_id.x : index
  %c4 = uop.const 4 : index
  %c32 = uop.const 32 : index
  %base = uop.mul %g, %c32 : index
  %i = uop.add %base, %t : index
  %on = uop.load %mask[%i] : i1
  %v = uop.load %x[%i], %on : f32
  %l = uop.define_local 32 : !uop.ptr<f32, local>
  uop.store %l[%t], %v
  uop.barrier
  %w = uop.load %l[%t] : f32
  %pos = uop.cmplt %v, %w : f32
  uop.store %x[%i], %w, %pos
  uop.store %mask[%i], %pos
  %j = uop.mul %i, %c4 : index
  %vec = uop.load %x[%j], %on : vector<4xf32>
  %lane = uop.extract %vec[2] : vector<4xf32>
  %sum = uop.vectorize %lane, %lane, %lane, %lane : vector<4xf32>
  uop.store %x[%j], %sum : vector<4xf32>
}

// The runtime passes all buffers, then all scalars: params are ordered that way whatever their indices.
// CHECK-LABEL: ptx.entry @interleaved(p0_x: u64, p2_y: u64, p1_N: u32) attributes {symbols = ["N"]} {
// CHECK-NEXT:    %0 = ptx.ld_param u64 p0_x : !ptx.reg<b64>
// CHECK-NEXT:    %x = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
// CHECK-NEXT:    %1 = ptx.ld_param u64 p2_y : !ptx.reg<b64>
// CHECK-NEXT:    %y = ptx.cvta to.global.u64 %1 : !ptx.reg<b64>
// CHECK-NEXT:    %N = ptx.ld_param u32 p1_N : !ptx.reg<b32>
uop.kernel @interleaved attributes {symbols = ["N"]} {
  %N = uop.param 1 : index
  %x = uop.param 0 : !uop.ptr<f32>
  %y = uop.param 2 : !uop.ptr<f32>
  %i = uop.special local_id.x : index
  %v = uop.load %x[%N] : f32
  uop.store %y[%i], %v
}

// uop.wmma is mma.sync m16n8k16: the f16 fragments packed in pairs (lane 2i low), C and D as f32 registers;
// an 8-lane f16 load is two .v4 loads, the second 8 bytes further.
// CHECK-LABEL: ptx.entry @tc(p0_a: u64, p1_b: u64, p2_c: u64) maxntid(32, 1, 1) attributes {symbols = [], global_size = ["1", "1", "1"], local_size = [32 : i64, 1 : i64, 1 : i64]} {
// CHECK:       %[[A:.*]] = ptx.add s64 %a, %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %[[A8:.*]] = ptx.add s64 %[[A]], %{{.*}} : !ptx.reg<b64>
// CHECK-NEXT:  %fa, %fa_1, %fa_2, %fa_3 = ptx.ld global.v4.b16 [%[[A]]] : !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>
// CHECK-NEXT:  %fa_4, %fa_5, %fa_6, %fa_7 = ptx.ld global.v4.b16 [%[[A8]]] : !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>, !ptx.reg<b16>
// CHECK:       %12 = ptx.pack %fa, %fa_1 : !ptx.reg<b32>
// CHECK-NEXT:  %13 = ptx.pack %fa_2, %fa_3 : !ptx.reg<b32>
// CHECK-NEXT:  %14 = ptx.pack %fa_4, %fa_5 : !ptx.reg<b32>
// CHECK-NEXT:  %15 = ptx.pack %fa_6, %fa_7 : !ptx.reg<b32>
// CHECK-NEXT:  %16 = ptx.pack %fb, %fb_1 : !ptx.reg<b32>
// CHECK-NEXT:  %17 = ptx.pack %fb_2, %fb_3 : !ptx.reg<b32>
// CHECK-NEXT:  %d, %d_1, %d_2, %d_3 = ptx.mma m16n8k16.row.col.f32.f16.f16.f32 {%12, %13, %14, %15}, {%16, %17}, {%fc, %fc_1, %fc_2, %fc_3} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
uop.kernel @tc attributes {symbols = [], global_size = ["1", "1", "1"], local_size = [32, 1, 1]} {
  %a = uop.param 0 : !uop.ptr<f16>
  %b = uop.param 1 : !uop.ptr<f16>
  %c = uop.param 2 : !uop.ptr<f32>
  %t = uop.special local_id.x : index
  %c8 = uop.const 8 : index
  %c4 = uop.const 4 : index
  %ia = uop.mul %t, %c8 : index
  %ib = uop.mul %t, %c4 : index
  %fa = uop.load %a[%ia] : vector<8xf16>
  %fb = uop.load %b[%ib] : vector<4xf16>
  %fc = uop.load %c[%ib] : vector<4xf32>
  %d = uop.wmma %fa, %fb, %fc {m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
  uop.store %c[%ib], %d : vector<4xf32>
}
