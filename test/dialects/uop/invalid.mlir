// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each uop verifier (and each custom parser) rejects what it must, with a message that names the problem.
// Bracket-structure errors come from the uop.kernel verifier, so they are reported at the uop.kernel line.

// expected-error@+1 {{uop.end %i must close the innermost open bracket, which is loop %j}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  %j = uop.range %c, %c : index
  uop.end %i
  uop.end %j
}

// -----

// expected-error@+1 {{uop.end %i: loop %i is not open}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  uop.end %i
  uop.end %i
}

// -----

// expected-error@+1 {{loop %i is never closed (add uop.end %i)}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
}

// -----

// expected-error@+1 {{uop.if %t is never closed (add uop.endif)}}
uop.kernel @k {
  %t = uop.const true : i1
  uop.if %t
}

// -----

// expected-error@+1 {{uop.endif with no open uop.if}}
uop.kernel @k {
  uop.endif
}

// -----

// expected-error@+1 {{uop.endif inside loop %i: close it first}}
uop.kernel @k {
  %t = uop.const true : i1
  %c = uop.const 0 : index
  uop.if %t
  %i = uop.range %c, %c : index
  uop.endif
}

// -----

// expected-error@+1 {{uop.end %i must close the innermost open bracket, which is uop.if %t}}
uop.kernel @k {
  %t = uop.const true : i1
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  uop.if %t
  uop.end %i
}

// -----

// expected-error@+1 {{value %x defined inside loop %i used after uop.end (by uop.mul)}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  %x = uop.add %i, %c : index
  uop.end %i
  %y = uop.mul %x, %c : index
}

// -----

// expected-error@+1 {{value %i defined inside loop %i used after uop.end (by uop.mul)}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  uop.end %i
  %y = uop.mul %i, %c : index
}

// -----

// expected-error@+1 {{value %x defined inside loop %j used after uop.end (by uop.mul)}}
uop.kernel @k {
  %c = uop.const 0 : index
  %i = uop.range %c, %c : index
  %j = uop.range %c, %c : index
  %x = uop.add %j, %c : index
  uop.end %j
  uop.end %i
  %y = uop.mul %x, %c : index
}

// -----

// expected-error@+1 {{value %x defined inside uop.if %t used after uop.endif (by uop.add)}}
uop.kernel @k {
  %t = uop.const true : i1
  uop.if %t
  %x = uop.const 1 : index
  uop.endif
  %y = uop.add %x, %x : index
}

// -----

// expected-error@+1 {{uop.param index 0 is used twice (%p and %q)}}
uop.kernel @k {
  %p = uop.param 0 : !uop.ptr<f32>
  %q = uop.param 0 : !uop.ptr<f32>
}

// -----

// expected-error@+1 {{uop.kernel @k takes no block arguments (kernel parameters are uop.param ops)}}
uop.kernel @k {
^bb0(%a: index):
}

// -----

uop.kernel @k {
  %c = uop.const 0 : index
  // expected-error@+1 {{uop.end %c must name a uop.range result}}
  "uop.end"(%c) : (index) -> ()
}

// -----

uop.kernel @k {
  // expected-error@+1 {{unknown uop.special 'thread_id.x' (expected one of group_id.x, group_id.y, group_id.z, local_id.x, local_id.y, local_id.z, global_id.x, global_id.y, global_id.z, core_start, core_end)}}
  %s = uop.special thread_id.x : index
}

// -----

uop.kernel @k {
  // expected-error@+1 {{uop.param type must be a global !uop.ptr, index or an integer type, got f32}}
  %p = uop.param 0 : f32
}

// -----

uop.kernel @k {
  // expected-error@+1 {{uop.param type must be a global !uop.ptr, index or an integer type, got !uop.ptr<f32, local>}}
  %p = uop.param 0 : !uop.ptr<f32, local>
}

// -----

uop.kernel @k {
  // expected-error@+1 {{expected address space 'global' or 'local', got 'shared'}}
  %p = uop.param 0 : !uop.ptr<f32, shared>
}

// -----

func.func @f(%c: index) {
  // expected-error@+1 {{'uop.range' expects parent op 'uop.kernel'}}
  %i = uop.range %c, %c : index
  func.return
}

// -----

uop.kernel @k {
  %p = uop.param 0 : !uop.ptr<f32>
  %c = uop.const 0 : index
  // expected-error@+1 {{uop.load value type f16 must be f32 or a vector of it (the pointer is !uop.ptr<f32>)}}
  %v = uop.load %p[%c] : f16
}

// -----

uop.kernel @k {
  %p = uop.param 0 : !uop.ptr<f32>
  %c = uop.const 0 : index
  %v = uop.const dense<1> : vector<4xi32>
  // expected-error@+1 {{uop.store value type vector<4xi32> must be f32 or a vector of it (the pointer is !uop.ptr<f32>)}}
  uop.store %p[%c], %v : vector<4xi32>
}

// -----

uop.kernel @k {
  %p = uop.param 0 : !uop.ptr<f32>
  %c = uop.const 0 : i32
  // expected-error@+1 {{uop.load index must be index, got i32}}
  %v = "uop.load"(%p, %c) : (!uop.ptr<f32>, i32) -> f32
}

// -----

uop.kernel @k {
  %p = uop.param 0 : !uop.ptr<f32>
  %c = uop.const 0 : index
  %g = uop.const 0 : i32
  // expected-error@+1 {{uop.store gate must be i1, got i32}}
  "uop.store"(%p, %c, %c, %g) : (!uop.ptr<f32>, index, index, i32) -> ()
}

// -----

uop.kernel @k {
  %c = uop.const 0 : index
  // expected-error@+1 {{expected a !uop.ptr value, got index}}
  %v = uop.load %c[%c] : f32
}

// -----

uop.kernel @k {
  // expected-error@+1 {{uop.define_local result must be a local pointer (!uop.ptr<T, local>), got !uop.ptr<f32>}}
  %l = uop.define_local 16 : !uop.ptr<f32>
}

// -----

uop.kernel @k {
  // expected-error@+1 {{uop.define_local size must be positive, got 0}}
  %l = uop.define_local 0 : !uop.ptr<f32, local>
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  // expected-error@+1 {{uop.define_acc of f32 must produce !uop.acc<f32>, got !uop.acc<i32>}}
  %a = "uop.define_acc"(%z) : (f32) -> !uop.acc<i32>
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  %a = uop.define_acc %z : f32
  // expected-error@+1 {{uop.acc_get result type i32 must be f32 (the acc is !uop.acc<f32>)}}
  %v = "uop.acc_get"(%a) : (!uop.acc<f32>) -> i32
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  %a = uop.define_acc %z : f32
  %v = uop.const 1 : i32
  // expected-error@+1 {{uop.acc_set value type i32 must be f32 (the acc is !uop.acc<f32>)}}
  "uop.acc_set"(%a, %v) : (!uop.acc<f32>, i32) -> ()
}

// -----

uop.kernel @k {
  %c = uop.const 0 : index
  // expected-error@+1 {{expected a !uop.acc value, got index}}
  uop.acc_set %c, %c
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  // expected-error@+1 {{uop.vectorize to vector<4xf32> needs 4 operands, got 2}}
  %v = uop.vectorize %z, %z : vector<4xf32>
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  %h = uop.const 0.000000e+00 : f16
  // expected-error@+1 {{uop.vectorize to vector<2xf32> takes f32 operands, got f16}}
  %v = "uop.vectorize"(%z, %h) : (f32, f16) -> vector<2xf32>
}

// -----

uop.kernel @k {
  %c = uop.const 0 : index
  // expected-error@+1 {{uop.vectorize produces a vector type, got index}}
  %v = uop.vectorize %c, %c : index
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.extract lane 4 is out of range for vector<4xf32>}}
  %e = uop.extract %z[4] : vector<4xf32>
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.reduce_lanes combines lanes with add, mul, max, min, got sub}}
  %s = uop.reduce_lanes sub %z : vector<4xf32>
}

// -----

uop.kernel @k {
  %z = uop.const 0.000000e+00 : f32
  // expected-error@+1 {{uop.reduce_lanes reads a vector type, got f32}}
  %s = uop.reduce_lanes add %z : f32
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<3xf32>
  // expected-error@+1 {{uop.reduce_lanes needs a vector of a power of two lanes (at least 2), got vector<3xf32>}}
  %s = uop.reduce_lanes add %z : vector<3xf32>
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<1xf32>
  // expected-error@+1 {{uop.reduce_lanes needs a vector of a power of two lanes (at least 2), got vector<1xf32>}}
  %s = uop.reduce_lanes add %z : vector<1xf32>
}

// -----

uop.kernel @k {
  %z = uop.const dense<true> : vector<4xi1>
  // expected-error@+1 {{uop.reduce_lanes add does not accept vector<4xi1>}}
  %s = uop.reduce_lanes add %z : vector<4xi1>
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.reduce_lanes result type f64 must be f32}}
  %s = "uop.reduce_lanes"(%z) <{kind = "add"}> : (vector<4xf32>) -> f64
}

// -----

uop.kernel @k {
  %a = uop.const dense<0.000000e+00> : vector<4xf16>
  %c = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.wmma operand a holds 4 elements per thread; a 16x16 matrix over 32 threads needs 8}}
  %d = uop.wmma %a, %a, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<4xf16>, vector<4xf16> -> vector<4xf32>
}

// -----

uop.kernel @k {
  %a = uop.const dense<0.000000e+00> : vector<8xf16>
  %b = uop.const dense<0.000000e+00> : vector<4xbf16>
  %c = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.wmma a and b must have the same element type, got f16 and bf16}}
  %d = uop.wmma %a, %b, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xbf16> -> vector<4xf32>
}

// -----

uop.kernel @k {
  %a = uop.const dense<0.000000e+00> : vector<8xf16>
  %b = uop.const dense<0.000000e+00> : vector<4xf16>
  %c = uop.const dense<0> : vector<4xi32>
  // expected-error@+1 {{uop.wmma multiplies floats into floats or integers into integers, got f16 x f16 + i32}}
  %d = uop.wmma %a, %b, %c {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xi32>
}

// -----

uop.kernel @k {
  %a = uop.const dense<0.000000e+00> : vector<8xf16>
  %b = uop.const dense<0.000000e+00> : vector<4xf16>
  %c = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.wmma: a 3x16 matrix does not split evenly over 32 threads}}
  %d = uop.wmma %a, %b, %c {k = 16 : i64, m = 3 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
}

// -----

uop.kernel @k {
  %v = "test.op"() : () -> vector<4xf32>
  %m = "test.op"() : () -> i1
  // expected-error@+1 {{uop.where condition must be vector<4xi1> to match vector<4xf32>, got i1}}
  %r = "uop.where"(%m, %v, %v) : (i1, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
}

// -----

uop.kernel @k {
  %v = "test.op"() : () -> vector<4xf32>
  // expected-error@+1 {{uop.cmplt result type must be vector<4xi1>, got i1}}
  %r = "uop.cmplt"(%v, %v) : (vector<4xf32>, vector<4xf32>) -> i1
}

// -----

uop.kernel @k {
  %v = "test.op"() : () -> vector<2x2xf32>
  // expected-error@+1 {{uop.add operand must be a 1-D fixed-size vector<NxT>, got vector<2x2xf32>}}
  %r = uop.add %v, %v : vector<2x2xf32>
}

// -----

uop.kernel @k {
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  // expected-error@+1 {{uop.cast must keep the number of lanes: vector<4xf32> -> vector<2xf32>}}
  %h = uop.cast %z : vector<4xf32> -> vector<2xf32>
}

// -----

uop.kernel @k {
  // expected-error@+1 {{uop.const: a dense value must have a vector type, got tensor<4xf32>}}
  %z = uop.const dense<0.000000e+00> : tensor<4xf32>
}

// -----

// Every target forms its signature from the params: their indices are 0..n-1.
// expected-error@+1 {{uop.param indices must be 0..1; 1 is missing}}
uop.kernel @param_gap {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 2 : !uop.ptr<f32>
}
