// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each wgsl verifier (and each custom parser) rejects what WGSL or the runtime's calling convention would, with a
// message that names the problem.

// expected-error@+1 {{wgsl.entry parameter %b is a buffer after the scalar %n: buffers come first (bindings 0..n-1), then the scalars (the uniform struct)}}
wgsl.entry @k(%a: !wgsl.storage<f32>, %n: i32, %b: !wgsl.storage<f32>) workgroup_size(1, 1, 1) {
}

// -----

// expected-error@+1 {{wgsl.entry parameter %n must be a !wgsl.storage or an i32 scalar, got ui32}}
wgsl.entry @k(%n: ui32) workgroup_size(1, 1, 1) {
}

// -----

// expected-error@+1 {{workgroup_size takes 3 sizes (x, y, z), got 2}}
wgsl.entry @k() workgroup_size(64, 1) {
}

// -----

// expected-error@+1 {{wgsl.entry workgroup_size must be 3 positive i64, got array<i64: 64, 0, 1>}}
wgsl.entry @k() workgroup_size(64, 0, 1) {
}

// -----

// expected-error@+1 {{!wgsl.storage element type must be one of the WGSL types f16, f32, i32, u32, got bool}}
wgsl.entry @k(%a: !wgsl.storage<i1>) workgroup_size(1, 1, 1) {
}

// -----

// expected-error@+1 {{!wgsl.storage element type must be one of the WGSL types f16, f32, i32, u32, got f64}}
wgsl.entry @k(%a: !wgsl.storage<f64>) workgroup_size(1, 1, 1) {
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  // expected-error@+1 {{!wgsl.workgroup size must be positive, got 0}}
  %l = wgsl.workgroup_array : !wgsl.workgroup<f32, 0>
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  wgsl.for %i = %n to %n : i32 {
    // expected-error@+1 {{'wgsl.workgroup_array' expects parent op 'wgsl.entry'}}
    %l = wgsl.workgroup_array : !wgsl.workgroup<f32, 4>
  }
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  // expected-error@+1 {{unknown wgsl.builtin 'subgroup_id.x' (expected <name>.<x|y|z>, name one of global_invocation_id, workgroup_id, local_invocation_id, num_workgroups)}}
  %g = wgsl.builtin subgroup_id.x
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  // expected-error@+1 {{unknown wgsl.builtin 'workgroup_id.w'}}
  %g = wgsl.builtin workgroup_id.w
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %lo = wgsl.literal 0.000000e+00 : f32
  // expected-error@+1 {{wgsl.for bounds must be one of the WGSL types i32, u32, got f32}}
  wgsl.for %i = %lo to %lo : f32 {
  }
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  %u = wgsl.literal 4 : ui32
  // expected-error@+1 {{wgsl.for bounds must have one type, got i32 and u32}}
  "wgsl.for"(%n, %u) ({
  ^bb0(%i: i32):
  }) : (i32, ui32) -> ()
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.for body must take one argument of the bound type i32 (the counter)}}
  "wgsl.for"(%n, %n) ({
  ^bb0(%i: ui32):
  }) : (i32, i32) -> ()
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %x = wgsl.literal 1.000000e+00 : f64
  // expected-error@+1 {{!wgsl.var value type must be one of the WGSL types bool, f16, f32, i32, u32, got f64}}
  %v = "wgsl.var"(%x) : (f64) -> !wgsl.var<f64>
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.literal type must be one of the WGSL types bool, f16, f32, i32, u32, got f64}}
  %x = wgsl.literal 1.000000e+00 : f64
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  %zero = wgsl.literal 0 : ui32
  %v = wgsl.var %zero : ui32
  // expected-error@+1 {{wgsl.assign of i32 to a !wgsl.var<ui32>}}
  "wgsl.assign"(%v, %n) : (!wgsl.var<ui32>, i32) -> ()
}

// -----

wgsl.entry @k(%a: !wgsl.storage<f32>) workgroup_size(1, 1, 1) {
  %i = wgsl.literal 0.000000e+00 : f32
  // expected-error@+1 {{wgsl.load index must be one of the WGSL types i32, u32, got f32}}
  %v = wgsl.load %a[%i] : f32
}

// -----

wgsl.entry @k(%a: !wgsl.storage<f32>, %n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.load from a !wgsl.storage<f32> gives f32, not i32}}
  %v = wgsl.load %a[%n] : i32
}

// -----

wgsl.entry @k(%a: !wgsl.storage<ui32>, %n: i32) workgroup_size(1, 1, 1) {
  %b = wgsl.literal true
  // expected-error@+1 {{wgsl.store of i1 into a !wgsl.storage<ui32>}}
  "wgsl.store"(%a, %n, %b) : (!wgsl.storage<ui32>, i32, i1) -> ()
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{expected a !wgsl.storage or !wgsl.workgroup value, got i32}}
  %v = wgsl.load %n[%n] : f32
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %u = wgsl.literal 1 : ui32
  // expected-error@+1 {{operator '-' operand must be one of the WGSL types f16, f32, i32, got u32}}
  %r = wgsl.unary "-" %u : ui32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{unknown unary operator '++' (known: - ~ !)}}
  %r = wgsl.unary "++" %n : i32
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %b = wgsl.literal true
  // expected-error@+1 {{operator '^' operand must be one of the WGSL types i32, u32, got bool}}
  %r = wgsl.binary "^" %b, %b : i1
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %b = wgsl.literal true
  // expected-error@+1 {{operator '<' operand must be one of the WGSL types f16, f32, i32, u32, got bool}}
  %r = wgsl.binary "<" %b, %b : i1
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.binary '<<' on i32 takes a u32 right operand, got i32}}
  %r = "wgsl.binary"(%n, %n) <{operator = "<<"}> : (i32, i32) -> i32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  %u = wgsl.literal 1 : ui32
  // expected-error@+1 {{wgsl.binary '+' on i32 takes a i32 right operand, got u32}}
  %r = "wgsl.binary"(%n, %u) <{operator = "+"}> : (i32, ui32) -> i32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{unknown binary operator '<=>'}}
  %r = wgsl.binary "<=>" %n, %n : i32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.binary '<' on i32 gives i1, not i32}}
  %r = "wgsl.binary"(%n, %n) <{operator = "<"}> : (i32, i32) -> i32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  %b = wgsl.literal true
  %u = wgsl.literal 1 : ui32
  // expected-error@+1 {{wgsl.select operands and result must have one type, got i32, ui32}}
  %r = "wgsl.select"(%b, %n, %u) : (i1, i32, ui32) -> i32
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %h = wgsl.literal 1.000000e+00 : f16
  // expected-error@+1 {{wgsl.bitcast needs two scalars of one width, got f16 -> i32}}
  %r = wgsl.bitcast %h : f16 -> i32
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %b = wgsl.literal true
  // expected-error@+1 {{wgsl.bitcast operand must be one of the WGSL types f16, f32, i32, u32, got bool}}
  %r = wgsl.bitcast %b : i1 -> i1
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %x = wgsl.literal 1.000000e+00 : f32
  // expected-error@+1 {{wgsl.call of unknown function 'erf' (not in the wgsl function table)}}
  %r = wgsl.call @erf(%x) : (f32) -> f32
}

// -----

wgsl.entry @k(%n: i32) workgroup_size(1, 1, 1) {
  // expected-error@+1 {{wgsl.call @exp takes (i32), but exp is (f32) -> f32 or (f16) -> f16}}
  %r = wgsl.call @exp(%n) : (i32) -> i32
}

// -----

wgsl.entry @k() workgroup_size(1, 1, 1) {
  %x = wgsl.literal 1.000000e+00 : f32
  // expected-error@+1 {{wgsl.call @exp gives f32, not f16}}
  %r = wgsl.call @exp(%x) : (f32) -> f16
}

// -----

// expected-error@+1 {{'wgsl.literal' expects ancestor op 'wgsl.entry'}}
%x = wgsl.literal 1 : i32
