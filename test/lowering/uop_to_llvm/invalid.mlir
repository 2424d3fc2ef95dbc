// RUN: kiln-opt %s -p convert-uop-to-llvm --split-input-file --verify-diagnostics
// What a CPU kernel cannot contain is reported at the uop op, with what to do about it.

uop.kernel @gpu_id {
  // expected-error@+1 {{uop.special group_id.x is a GPU id; CPU kernels only have core_start and core_end}}
  %g = uop.special group_id.x : index
}

// -----

uop.kernel @local_memory {
  // expected-error@+1 {{uop.define_local cannot be lowered to LLVM for the CPU: the CPU has no workgroup-local memory}}
  %l = uop.define_local 16 : !uop.ptr<f32, local>
}

// -----

uop.kernel @barrier {
  // expected-error@+1 {{uop.barrier cannot be lowered to LLVM for the CPU: the CPU has no workgroups to synchronize}}
  uop.barrier
}

// -----

uop.kernel @not_decomposed {
  %x = uop.const 2.000000e+00 : f32
  // expected-error@+1 {{uop.rsqrt on f32 has no LLVM lowering; run uop-decompose{target=cpu-llvm} first}}
  %r = uop.rsqrt %x : f32
}

// -----

// expected-error@+1 {{uop.param indices must be 0..1; 1 is missing}}
uop.kernel @param_gap {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 2 : !uop.ptr<f32>
}
