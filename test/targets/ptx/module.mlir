// RUN: kiln-opt %s -t ptx | filecheck %s --match-full-lines
// RUN: kiln-opt %s -t ptx | python -c "import sys; from kiln.targets.ptx.toolchain import assemble; assemble(sys.stdin.read(), 'sm_90')"
// A module for sm_90 (PTX 7.8) with two entries: f16/bf16 constants in registers (PTX's half instructions take no
// immediates), a guarded vector load zeroing its registers first, a .shared array and bar.sync, 64-bit and
// f64 immediates, an entry without params, and a tensor-core entry (packed pairs, mma.sync).

// CHECK: // kiln -t ptx: halves, empty, tensor_core
// CHECK-NEXT: .version 7.8
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry halves(
// CHECK-NEXT:   .param .u64 p0_h
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 32, 1, 1
// CHECK-NEXT: {
// CHECK-NEXT:   .reg .pred %p<2>;
// CHECK-NEXT:   .reg .b16 %rs<8>;
// CHECK-NEXT:   .reg .b32 %r<5>;
// CHECK-NEXT:   .reg .b64 %rd<6>;
// CHECK-NEXT:   .reg .f64 %fd<3>;
// CHECK-NEXT:   .shared .align 16 .b8 smem0[64];
// CHECK-EMPTY:
// CHECK-NEXT:   ld.param.u64 %rd1, [p0_h];
// CHECK-NEXT:   cvta.to.global.u64 %rd2, %rd1;
// CHECK-NEXT:   mov.b16 %rs1, 0x3C00;
// CHECK-NEXT:   mov.b16 %rs2, 0x3F00;
// CHECK-NEXT:   mov.u32 %r1, %tid.x;
// CHECK-NEXT:   and.b32 %r2, %r1, 2;
// CHECK-NEXT:   setp.eq.s32 %p1, %r2, 0;
// CHECK-NEXT:   mul.wide.s32 %rd3, %r1, 2;
// CHECK-NEXT:   add.s64 %rd4, %rd2, %rd3;
// CHECK-NEXT:   mov.b16 %rs3, 0;
// CHECK-NEXT:   mov.b16 %rs4, 0;
// CHECK-NEXT:   @%p1 ld.global.v2.b16 {%rs3, %rs4}, [%rd4];
// CHECK-NEXT:   fma.rn.f16 %rs5, %rs3, %rs1, %rs4;
// CHECK-NEXT:   max.NaN.bf16 %rs6, %rs5, %rs2;
// CHECK-NEXT:   mov.u32 %r3, smem0;
// CHECK-NEXT:   mad.lo.s32 %r4, %r1, 2, %r3;
// CHECK-NEXT:   st.shared.b16 [%r4], %rs6;
// CHECK-NEXT:   bar.sync 0;
// CHECK-NEXT:   ld.shared.b16 %rs7, [%r4];
// CHECK-NEXT:   and.b64 %rd5, %rd4, -4294967296;
// CHECK-NEXT:   cvt.rn.f64.s64 %fd1, %rd5;
// CHECK-NEXT:   mul.f64 %fd2, %fd1, 0d400921FB54442D18;
// CHECK-NEXT:   @!%p1 bra done;
// CHECK-NEXT:   st.global.b16 [%rd4], %rs7;
// CHECK-NEXT: done:
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry empty()
// CHECK-NEXT: {
// CHECK-EMPTY:
// CHECK-NEXT:   ret;
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry tensor_core(
// CHECK:        mov.b32 %r1, {%rs1, %rs2};
// CHECK-NEXT:   mov.f32 %f1, 0f00000000;
// CHECK-NEXT:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};
// CHECK-NEXT:   st.global.v4.f32 [%rd2], {%f2, %f3, %f4, %f5};

builtin.module attributes {ptx.target = "sm_90"} {
  ptx.entry @halves(p0_h: u64) maxntid(32, 1, 1) {
    %0 = ptx.ld_param u64 p0_h : !ptx.reg<b64>
    %h = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
    %one = ptx.const 1.000000e+00 : f16
    %half = ptx.const 5.000000e-01 : bf16
    %c2 = ptx.const 2 : i32
    %big = ptx.const -4294967296 : i64
    %pi = ptx.const 3.1415926535897931 : f64
    %t = ptx.sreg tid.x : !ptx.reg<b32>
    %odd = ptx.and b32 %t, %c2 : !ptx.reg<b32>
    %c0 = ptx.const 0 : i32
    %even = ptx.setp eq.s32 %odd, %c0 : !ptx.reg<pred>
    %off = ptx.mul wide.s32 %t, %c2 : !ptx.reg<b64>
    %a = ptx.add s64 %h, %off : !ptx.reg<b64>
    %x, %y = ptx.ld global.v2.b16 [%a] if %even : !ptx.reg<b16>, !ptx.reg<b16>
    %s = ptx.fma rn.f16 %x, %one, %y : !ptx.reg<b16>
    %m = ptx.max NaN.bf16 %s, %half : !ptx.reg<b16>
    %sm = ptx.shared 64 align 16 : !ptx.reg<b32>
    %sa = ptx.mad lo.s32 %t, %c2, %sm : !ptx.reg<b32>
    ptx.st shared.b16 [%sa], %m
    ptx.bar_sync 0
    %back = ptx.ld shared.b16 [%sa] : !ptx.reg<b16>
    %wide = ptx.and b64 %a, %big : !ptx.reg<b64>
    %f = ptx.cvt rn.f64.s64 %wide : !ptx.reg<f64>
    %g = ptx.mul f64 %f, %pi : !ptx.reg<f64>
    ptx.bra done unless %even
    ptx.st global.b16 [%a], %back
    ptx.label done
    ptx.ret
  }
  ptx.entry @empty() {
    ptx.ret
  }
  ptx.entry @tensor_core(p0: u64) {
    %0 = ptx.ld_param u64 p0 : !ptx.reg<b64>
    %g = ptx.cvta to.global.u64 %0 : !ptx.reg<b64>
    %h0, %h1 = ptx.ld global.v2.b16 [%g] : !ptx.reg<b16>, !ptx.reg<b16>
    %a = ptx.pack %h0, %h1 : !ptx.reg<b32>
    %z = ptx.const 0.000000e+00 : f32
    %d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.f16.f16.f32 {%a, %a, %a, %a}, {%a, %a}, {%z, %z, %z, %z} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
    ptx.st global.v4.f32 [%g], %d0, %d1, %d2, %d3
    ptx.ret
  }
}
