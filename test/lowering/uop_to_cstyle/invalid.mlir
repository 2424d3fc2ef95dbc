// RUN: kiln-opt %s --split-input-file --verify-diagnostics -p convert-uop-to-cstyle
// What the C target cannot run is a located error: GPU launch ids, workgroup memory, barriers, tensor cores,
// and params that do not form a signature.

uop.kernel @k attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  // expected-error@+1 {{uop.special local_id.x is a GPU launch id; on the C target a kernel only has core_start and core_end}}
  %t = uop.special local_id.x : index
  %v = uop.load %x[%t] : f32
}

// -----

uop.kernel @k attributes {symbols = []} {
  // expected-error@+1 {{uop.define_local needs a GPU workgroup; the C target runs a kernel on CPU threads}}
  %l = uop.define_local 64 : !uop.ptr<f32, local>
}

// -----

uop.kernel @k attributes {symbols = []} {
  // expected-error@+1 {{uop.barrier needs a GPU workgroup}}
  uop.barrier
}

// -----

uop.kernel @k attributes {symbols = []} {
  %a = uop.const dense<1.000000e+00> : vector<8xf16>
  %b = uop.const dense<1.000000e+00> : vector<4xf16>
  %c = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.wmma needs a GPU workgroup}}
  %d = uop.wmma %a, %b, %c {m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
}

// -----

// expected-error@+1 {{uop.param indices must be 0..1; 1 is missing}}
uop.kernel @k attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %y = uop.param 2 : !uop.ptr<f32>
}
