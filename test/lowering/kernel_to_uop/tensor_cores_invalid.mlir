// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=cuda}" --split-input-file --verify-diagnostics
// A reduce marked tensor_core that the warp cannot compute is reported at the reduce, never lowered wrongly.

kernel.kernel @max_of_products(%a: !kernel.buffer<16x16xf16>, %b: !kernel.buffer<16x8xf16>, %out: !kernel.buffer<16x8xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %i = kernel.range %c16 upcast
  %j = kernel.range %c8 upcast
  %k = kernel.range %c16 unroll
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  // expected-error@+1 {{a reduce on tensor core m16n8k16 must be an f32 sum of cast(f16/bf16) products}}
  %s = kernel.reduce max %p over %k {tensor_core = "m16n8k16"} : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %s
}

// -----

kernel.kernel @unknown_shape(%a: !kernel.buffer<16x16xf16>, %b: !kernel.buffer<16x8xf16>, %out: !kernel.buffer<16x8xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %i = kernel.range %c16 upcast
  %j = kernel.range %c8 upcast
  %k = kernel.range %c16 unroll
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  // expected-error@+1 {{target cuda has no tensor core 'm8n8k4' (it has m16n8k16)}}
  %s = kernel.reduce add %p over %k {tensor_core = "m8n8k4"} : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %s
}

// -----

// The tile is not split as the tc opt splits it (N is a global range, not an upcast of 8).
kernel.kernel @not_split(%a: !kernel.buffer<16x16xf16>, %b: !kernel.buffer<16x8xf16>, %out: !kernel.buffer<16x8xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %i = kernel.range %c16 upcast
  %j = kernel.range %c8 global
  %k = kernel.range %c16 unroll
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  // expected-error@+1 {{a reduce on tensor core m16n8k16 needs the ranges the tc opt made (upcast M by 16, N by 8, unroll K by 16)}}
  %s = kernel.reduce add %p over %k {tensor_core = "m16n8k16"} : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %s
}
