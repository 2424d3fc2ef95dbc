// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each ptx verifier (and each custom parser) rejects what ptxas would, with a message that names the problem.
// Program-order errors (labels, definitions, parameters, the final ret) come from the ptx.entry verifier, so
// they are reported at the ptx.entry line.

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{add.lo.s32 is not a PTX instruction kiln knows (add: d = a + b)}}
  %r = ptx.add lo.s32 %n, %n : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{fma.f32 is not a PTX instruction kiln knows (fma: d = a * b + c rounded once)}}
  %f = ptx.fma f32 %n, %n, %n : !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: f32) {
  %x = ptx.ld_param f32 p0 : !ptx.reg<f32>
  // expected-error@+1 {{add.s32 operand 0 must be !ptx.reg<b32>, got %x of type !ptx.reg<f32>}}
  %r = ptx.add s32 %x, %x : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{setp.lt.s32 result must be !ptx.reg<pred>}}
  %p = ptx.setp lt.s32 %n, %n : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{mul.wide.s32 result must be !ptx.reg<b64>}}
  %p = ptx.mul wide.s32 %n, %n : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{add.s32 takes 2 operands, got 1}}
  %r = ptx.add s32 %n : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // expected-error@+1 {{shl.b64 operand 1 must be !ptx.reg<b32>}}
  %r = ptx.shl b64 %a, %a : !ptx.reg<b64>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{cvt.f32.s32: converting s32 to f32 takes rm or rn or rp or rz}}
  %f = ptx.cvt f32.s32 %n : !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: f32) {
  %x = ptx.ld_param f32 p0 : !ptx.reg<f32>
  // expected-error@+1 {{cvt.rn.f64.f32: converting f32 to f64 takes no rounding modifier}}
  %f = ptx.cvt rn.f64.f32 %x : !ptx.reg<f64>
  ptx.ret
}

// -----

ptx.entry @k(p0: f32) {
  %x = ptx.ld_param f32 p0 : !ptx.reg<f32>
  // expected-error@+1 {{cvt.rzi.s32.f64 operand must be !ptx.reg<f64>, got %x of type !ptx.reg<f32>}}
  %i = ptx.cvt rzi.s32.f64 %x : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{cvt.b32.u32: cvt converts between integer and float types}}
  %r = ptx.cvt b32.u32 %n : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{ptx.const value must be an i1, i32, i64, f16, bf16, f32 or f64 number, got 1 : i16}}
  %c = "ptx.const"() <{value = 1 : i16}> : () -> !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{ptx.const of i32 defines a !ptx.reg<b32>, got !ptx.reg<b64>}}
  %c = "ptx.const"() <{value = 1 : i32}> : () -> !ptx.reg<b64>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  %m = ptx.add s32 %n, %n : !ptx.reg<b32>
  // expected-error@+1 {{ptx.assign writes registers made by ptx.reg; %m is defined by an instruction}}
  ptx.assign %m, %n
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  %acc = ptx.reg : !ptx.reg<f32>
  // expected-error@+1 {{ptx.assign of a !ptx.reg<b32> to a !ptx.reg<f32>: the classes must match}}
  ptx.assign %acc, %n
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{ptx.mov from !ptx.reg<b32> to !ptx.reg<f64>: the registers must have the same width}}
  %d = ptx.mov %n : !ptx.reg<f64>
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{unknown special register %laneid}}
  %l = ptx.sreg laneid : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // expected-error@+1 {{ptx.ld state space must be one of global, shared, got 'local'}}
  %x = ptx.ld local.f32 [%a] : !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  // expected-error@+1 {{ptx.ld global address must be !ptx.reg<b64>, got %n of type !ptx.reg<b32>}}
  %x = ptx.ld global.f32 [%n] : !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // expected-error@+1 {{ptx.ld.global.v4.f32 moves 4 value(s), got 2}}
  %x, %y = ptx.ld global.v4.f32 [%a] : !ptx.reg<f32>, !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  // expected-error@+1 {{expected <space>[.v2|.v4].<type>, got 'global.v3.f32'}}
  %x, %y, %z = ptx.ld global.v3.f32 [%a] : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  %c = ptx.const 1 : i32
  // expected-error@+1 {{ptx.st guard must be !ptx.reg<pred>, got %c of type !ptx.reg<b32>}}
  ptx.st global.u32 [%a], %c if %c
  ptx.ret
}

// -----

ptx.entry @k(p0: u64) {
  %a = ptx.ld_param u64 p0 : !ptx.reg<b64>
  %h = ptx.const 1.000000e+00 : f16
  // expected-error@+1 {{ptx.st.global.f32 value must be !ptx.reg<f32>, got %h of type !ptx.reg<b16>}}
  ptx.st global.f32 [%a], %h
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{ptx.shared alignment must be a power of two, got 12}}
  %s = ptx.shared 64 align 12 : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{ptx.bar_sync barrier must be 0..15, got 16}}
  ptx.bar_sync 16
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{ptx.bra: only a guarded branch can be negated}}
  "ptx.bra"() <{target = "L", negated}> : () -> ()
  ptx.label L
  ptx.ret
}

// -----

// expected-error@+1 {{label L is defined twice}}
ptx.entry @k() {
  ptx.label L
  ptx.label L
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.bra to nowhere, which is not a label of @k}}
ptx.entry @k() {
  ptx.bra nowhere
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.entry @k must end with ptx.ret}}
ptx.entry @k() {
  ptx.bar_sync 0
}

// -----

// expected-error@+1 {{ptx.ld_param u32 p1: the entry parameter is not declared}}
ptx.entry @k(p0: u32) {
  %n = ptx.ld_param u32 p1 : !ptx.reg<b32>
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.ld_param u32 p0: the entry parameter is declared as u64}}
ptx.entry @k(p0: u64) {
  %n = ptx.ld_param u32 p0 : !ptx.reg<b32>
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.entry parameter 'p0' is declared twice}}
ptx.entry @k(p0: u32, p0: u64) {
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.entry parameter 'p0' has type 'pred'; expected one of b32, b64, f32, f64, s32, s64, u32, u64}}
ptx.entry @k(p0: pred) {
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.entry maxntid must be three positive sizes, got [64, 0, 1]}}
ptx.entry @k() maxntid(64, 0, 1) {
  ptx.ret
}

// -----

// expected-error@+1 {{register %b is read by ptx.add before it is defined}}
ptx.entry @k() {
  %a = "ptx.add"(%b, %b) <{opcode = "s32"}> : (!ptx.reg<b32>, !ptx.reg<b32>) -> !ptx.reg<b32>
  %b = ptx.const 1 : i32
  ptx.ret
}

// -----

ptx.entry @k() {
  // expected-error@+1 {{expected a PTX register class (pred, b16, b32, b64, f32, f64), got 'b8'}}
  %r = ptx.reg : !ptx.reg<b8>
  ptx.ret
}

// -----

ptx.entry @k() {
  %c = ptx.const 1 : i32
  // expected-error@+1 {{ptx.pack low half must be !ptx.reg<b16>, got %c of type !ptx.reg<b32>}}
  %p = ptx.pack %c, %c : !ptx.reg<b32>
  ptx.ret
}

// -----

ptx.entry @k() {
  %r = ptx.const 1 : i32
  %z = ptx.const 0.000000e+00 : f32
  // expected-error@+1 {{mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32: kiln emits shapes m16n8k16 with f16 or bf16 inputs (the same for A and B)}}
  %d0, %d1, %d2, %d3 = ptx.mma m16n8k8.row.col.f32.f16.f16.f32 {%r, %r, %r, %r}, {%r, %r}, {%z, %z, %z, %z} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k() {
  %r = ptx.const 1 : i32
  %z = ptx.const 0.000000e+00 : f32
  // expected-error@+1 {{mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 takes 2 B registers per thread, got 1}}
  %d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.f16.f16.f32 {%r, %r, %r, %r}, {%r}, {%z, %z, %z, %z} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  ptx.ret
}

// -----

ptx.entry @k() {
  %r = ptx.const 1 : i32
  // expected-error@+1 {{mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 C fragment must be !ptx.reg<f32>, got %r of type !ptx.reg<b32>}}
  %d0, %d1, %d2, %d3 = ptx.mma m16n8k16.row.col.f32.bf16.bf16.f32 {%r, %r, %r, %r}, {%r, %r}, {%r, %r, %r, %r} : !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>, !ptx.reg<f32>
  ptx.ret
}
