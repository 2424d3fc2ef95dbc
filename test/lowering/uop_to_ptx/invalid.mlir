// RUN: kiln-opt %s --split-input-file --verify-diagnostics -p convert-uop-to-ptx
// RUN: not kiln-opt %s --split-input-file -p 'convert-uop-to-ptx{arch=sm_70}' 2>&1 | filecheck %s --check-prefix=ARCH
// What PTX cannot express is a located error naming the op and its dtype: f64 transcendentals (f32-only
// instructions), ops the cuda target decomposes, tensor-core shapes the sm lacks, CPU thread bounds, scalars
// the calling convention does not pass; and an unknown sm.

// ARCH: convert-uop-to-ptx: unsupported CUDA architecture 'sm_70' (expected one of sm_80, sm_90)

uop.kernel @k attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f64>
  %i = uop.special local_id.x : index
  %v = uop.load %x[%i] : f64
  // expected-error@+1 {{uop.exp2 on f64 cannot be lowered to PTX: PTX has no f64 instruction for exp2; uop-decompose{target=cuda} must rewrite it for f64}}
  %e = uop.exp2 %v : f64
  uop.store %x[%i], %e
}

// -----

uop.kernel @k attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %i = uop.special local_id.x : index
  %v = uop.load %x[%i] : f32
  // expected-error@+1 {{uop.pow on f32 cannot be lowered to PTX: the cuda target has no instruction for it; run uop-decompose{target=cuda} first}}
  %e = uop.pow %v, %v : f32
  uop.store %x[%i], %e
}

// -----

uop.kernel @k attributes {symbols = []} {
  %a = uop.const dense<1.000000e+00> : vector<8xf16>
  %c = uop.const dense<0.000000e+00> : vector<8xf32>
  // expected-error@+1 {{uop.wmma m16n16k16 of f16 over 32 threads: sm_80 has mma.sync m16n8k16 of f16 or bf16 over 32 threads}}
  %d = uop.wmma %a, %a, %c {m = 16 : i64, n = 16 : i64, k = 16 : i64, threads = 32 : i64} : vector<8xf16>, vector<8xf16> -> vector<8xf32>
}

// -----

uop.kernel @k attributes {symbols = []} {
  // expected-error@+1 {{uop.special core_start is a CPU thread bound; a CUDA kernel has block and thread ids}}
  %lo = uop.special core_start : index
}

// -----

uop.kernel @k attributes {symbols = []} {
  // expected-error@+1 {{uop.param of type i64: the CUDA calling convention passes scalars as 32-bit integers}}
  %n = uop.param 0 : i64
}
