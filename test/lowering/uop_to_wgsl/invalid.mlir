// RUN: kiln-opt %s -p convert-uop-to-wgsl --split-input-file --verify-diagnostics
// RUN: not kiln-opt %s --split-input-file -p 'convert-uop-to-wgsl{features=shader-f64}' 2>&1 | filecheck %s --check-prefix=FEATURE
// FEATURE: error: convert-uop-to-wgsl: unknown WebGPU feature(s) shader-f64 (known: shader-f16)
// What WGSL or the webgpu runtime cannot take is reported at the uop op, naming the op and the dtype, with what
// to do about it.

uop.kernel @byte_buffer attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  // expected-error@+1 {{uop.param uses i8, which webgpu does not support: WGSL has no 64-bit, 8-bit or 16-bit integer types, no f64 and no bf16 (supported: f32, i1, i32, ui32)}}
  %p = uop.param 0 : !uop.ptr<i8>
}

// -----

uop.kernel @half_without_feature attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  // expected-error@+1 {{uop.const uses f16, which webgpu does not support: f16 needs the shader-f16 feature (convert-uop-to-wgsl{features=shader-f16})}}
  %h = uop.const 1.000000e+00 : f16
}

// -----

uop.kernel @double_math attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %p = uop.param 0 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %x = uop.load %p[%c0] : f32
  // expected-error@+1 {{uop.cast uses f64, which webgpu does not support}}
  %d = uop.cast %x : f32 -> f64
}

// -----

uop.kernel @wide_scalar attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  // expected-error@+1 {{uop.param of i64: webgpu passes scalars as i32 fields of a uniform struct}}
  %n = uop.param 0 : i64
}

// -----

uop.kernel @scalar_first attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %n = uop.param 0 : index
  // expected-error@+1 {{buffer param 1 comes after scalar param 0: webgpu kernels take their buffers first (bindings 0..n-1), then their scalars (one uniform struct)}}
  %p = uop.param 1 : !uop.ptr<f32>
}

// -----

// expected-error@+1 {{uop.param indices must be 0..1; 1 is missing}}
uop.kernel @param_gap attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 2 : !uop.ptr<f32>
}

// -----

// expected-error@+1 {{uop.kernel @cpu_kernel has no local_size: linearize it for webgpu (convert-kernel-to-uop{target=webgpu})}}
uop.kernel @cpu_kernel attributes {core_extent = "1", core_work = 1 : i64} {
}

// -----

// expected-error@+1 {{uop.kernel @symbolic_workgroup local_size must be 3 integers (a constant workgroup size)}}
uop.kernel @symbolic_workgroup attributes {local_size = ["N", "1", "1"]} {
}

// -----

uop.kernel @cpu_special attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  // expected-error@+1 {{uop.special core_start is a CPU thread bound; a webgpu kernel has only GPU ids}}
  %lo = uop.special core_start : index
}

// -----

uop.kernel @not_decomposed attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %x = uop.const 2.000000e+00 : f32
  // expected-error@+1 {{uop.pow on f32 is not native on webgpu (targets/wgsl/description.py): run uop-decompose{target=webgpu} before convert-uop-to-wgsl}}
  %r = uop.pow %x, %x : f32
}

// -----

uop.kernel @big_index attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  // expected-error@+1 {{constant 4294967296 does not fit WGSL's i32 (webgpu's index type)}}
  %c = uop.const 4294967296 : index
}

// -----

uop.kernel @too_much_local attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %a = uop.define_local 4096 : !uop.ptr<f32, local>
  // expected-error@+1 {{workgroup memory of 16388 bytes exceeds webgpu's 16384 bytes}}
  %b = uop.define_local 1 : !uop.ptr<i32, local>
}

// -----

uop.kernel @tensor_cores attributes {local_size = [32 : i64, 1 : i64, 1 : i64]} {
  %a = uop.const dense<1.000000e+00> : vector<8xf32>
  %b = uop.const dense<1.000000e+00> : vector<4xf32>
  %c = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.wmma needs tensor cores; WGSL has no matrix-multiply instruction}}
  %d = uop.wmma %a, %b, %c {m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64} : vector<8xf32>, vector<4xf32> -> vector<4xf32>
}
