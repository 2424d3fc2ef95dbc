// RUN: kiln-opt %s -t ptx | filecheck %s --match-full-lines
// RUN: kiln-opt %s -t ptx | python -c "import sys; from kiln.targets.ptx.toolchain import validate; validate(sys.stdin.read())"
// The entry of docs/dialects/ptx.md as PTX: the header for the module's sm, the .param list, .maxntid, one
// .reg line per class used (registers numbered per class in order of definition), constants as immediates,
// labels unindented, @%p / @!%p guards; it assembles for sm_80 and sm_90.

// CHECK: // kiln -t ptx: rowsum_k0
// CHECK-NEXT: .version 7.0
// CHECK-NEXT: .target sm_80
// CHECK-NEXT: .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry rowsum_k0(
// CHECK-NEXT:   .param .u64 p0_x,
// CHECK-NEXT:   .param .u64 p1_out,
// CHECK-NEXT:   .param .u32 p2_N
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 64, 1, 1
// CHECK-NEXT: {
// CHECK-NEXT:   .reg .pred %p<4>;
// CHECK-NEXT:   .reg .b32 %r<10>;
// CHECK-NEXT:   .reg .b64 %rd<9>;
// CHECK-NEXT:   .reg .f32 %f<6>;
// CHECK-EMPTY:
// CHECK-NEXT:   ld.param.u64 %rd1, [p0_x];
// CHECK-NEXT:   cvta.to.global.u64 %rd2, %rd1;
// CHECK-NEXT:   ld.param.u64 %rd3, [p1_out];
// CHECK-NEXT:   cvta.to.global.u64 %rd4, %rd3;
// CHECK-NEXT:   ld.param.u32 %r1, [p2_N];
// CHECK-NEXT:   mov.u32 %r2, %ctaid.x;
// CHECK-NEXT:   mov.u32 %r3, %ntid.x;
// CHECK-NEXT:   mov.u32 %r4, %tid.x;
// CHECK-NEXT:   mad.lo.s32 %r5, %r2, %r3, %r4;
// CHECK-NEXT:   setp.lt.s32 %p1, %r5, %r1;
// CHECK-NEXT:   @!%p1 bra endif1;
// CHECK-NEXT:   mov.f32 %f1, 0f00000000;
// CHECK-NEXT:   mov.b32 %r6, 0;
// CHECK-NEXT: loop2_k:
// CHECK-NEXT:   setp.ge.s32 %p2, %r6, 8;
// CHECK-NEXT:   @%p2 bra end2_k;
// CHECK-NEXT:   mul.lo.s32 %r7, %r5, 8;
// CHECK-NEXT:   add.s32 %r8, %r7, %r6;
// CHECK-NEXT:   mul.wide.s32 %rd5, %r8, 4;
// CHECK-NEXT:   add.s64 %rd6, %rd2, %rd5;
// CHECK-NEXT:   ld.global.f32 %f2, [%rd6];
// CHECK-NEXT:   mov.f32 %f3, %f1;
// CHECK-NEXT:   add.f32 %f4, %f3, %f2;
// CHECK-NEXT:   mov.f32 %f1, %f4;
// CHECK-NEXT:   add.s32 %r9, %r6, 1;
// CHECK-NEXT:   mov.b32 %r6, %r9;
// CHECK-NEXT:   bra loop2_k;
// CHECK-NEXT: end2_k:
// CHECK-NEXT:   mov.f32 %f5, %f1;
// CHECK-NEXT:   mul.wide.s32 %rd7, %r5, 4;
// CHECK-NEXT:   add.s64 %rd8, %rd4, %rd7;
// CHECK-NEXT:   setp.lt.f32 %p3, 0f00000000, %f5;
// CHECK-NEXT:   @%p3 st.global.f32 [%rd8], %f5;
// CHECK-NEXT: endif1:
// CHECK-NEXT:   ret;
// CHECK-NEXT: }

builtin.module attributes {ptx.target = "sm_80"} {
  ptx.entry @rowsum_k0(p0_x: u64, p1_out: u64, p2_N: u32) maxntid(64, 1, 1)
      attributes {global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64, 1, 1], symbols = ["N"]} {
    %0 = ptx.ld_param u64 p0_x : !ptx.reg<b64>
    %x = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
    %1 = ptx.ld_param u64 p1_out : !ptx.reg<b64>
    %out = ptx.cvta to.global.u64 %1 : !ptx.reg<b64>
    %N = ptx.ld_param u32 p2_N : !ptx.reg<b32>
    %c0 = ptx.const 0 : i32
    %c1 = ptx.const 1 : i32
    %c4 = ptx.const 4 : i32
    %c8 = ptx.const 8 : i32
    %zero = ptx.const 0.000000e+00 : f32
    %ctaid = ptx.sreg ctaid.x : !ptx.reg<b32>
    %ntid = ptx.sreg ntid.x : !ptx.reg<b32>
    %tid = ptx.sreg tid.x : !ptx.reg<b32>
    %i = ptx.mad lo.s32 %ctaid, %ntid, %tid : !ptx.reg<b32>
    %in = ptx.setp lt.s32 %i, %N : !ptx.reg<pred>
    ptx.bra endif1 unless %in
    %acc = ptx.reg : !ptx.reg<f32>
    ptx.assign %acc, %zero
    %k = ptx.reg : !ptx.reg<b32>
    ptx.assign %k, %c0
    ptx.label loop2_k
    %done = ptx.setp ge.s32 %k, %c8 : !ptx.reg<pred>
    ptx.bra end2_k if %done
    %row = ptx.mul lo.s32 %i, %c8 : !ptx.reg<b32>
    %idx = ptx.add s32 %row, %k : !ptx.reg<b32>
    %off = ptx.mul wide.s32 %idx, %c4 : !ptx.reg<b64>
    %addr = ptx.add s64 %x, %off : !ptx.reg<b64>
    %v = ptx.ld global.f32 [%addr] : !ptx.reg<f32>
    %cur = ptx.mov %acc : !ptx.reg<f32>
    %nxt = ptx.add f32 %cur, %v : !ptx.reg<f32>
    ptx.assign %acc, %nxt
    %k1 = ptx.add s32 %k, %c1 : !ptx.reg<b32>
    ptx.assign %k, %k1
    ptx.bra loop2_k
    ptx.label end2_k
    %r = ptx.mov %acc : !ptx.reg<f32>
    %ooff = ptx.mul wide.s32 %i, %c4 : !ptx.reg<b64>
    %oaddr = ptx.add s64 %out, %ooff : !ptx.reg<b64>
    %pos = ptx.setp lt.f32 %zero, %r : !ptx.reg<pred>
    ptx.st global.f32 [%oaddr], %r if %pos
    ptx.label endif1
    ptx.ret
  }
}
