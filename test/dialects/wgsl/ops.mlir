// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every wgsl op and type prints and parses back to the same text: a whole entry point (builtins, a workgroup
// array, a loop, a variable, a guarded store, a barrier), then each expression op.

// CHECK-LABEL: wgsl.entry @sum_k0(%x: !wgsl.storage<f32>, %out: !wgsl.storage<f32>, %N: i32) workgroup_size(64, 1, 1) attributes {global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["N"]} {
wgsl.entry @sum_k0(%x: !wgsl.storage<f32>, %out: !wgsl.storage<f32>, %N: i32) workgroup_size(64, 1, 1)
    attributes {global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["N"]} {
  // CHECK-NEXT: %tile = wgsl.workgroup_array : !wgsl.workgroup<f32, 64>
  %tile = wgsl.workgroup_array : !wgsl.workgroup<f32, 64>
  // CHECK-NEXT: %gid = wgsl.builtin global_invocation_id.x
  %gid = wgsl.builtin global_invocation_id.x
  // CHECK-NEXT: %lid = wgsl.builtin local_invocation_id.x
  %lid = wgsl.builtin local_invocation_id.x
  // CHECK-NEXT: %i = wgsl.convert %gid : ui32 -> i32
  %i = wgsl.convert %gid : ui32 -> i32
  // CHECK-NEXT: %l = wgsl.convert %lid : ui32 -> i32
  %l = wgsl.convert %lid : ui32 -> i32
  // CHECK-NEXT: %zero = wgsl.literal 0.000000e+00 : f32
  %zero = wgsl.literal 0.000000e+00 : f32
  // CHECK-NEXT: %c0 = wgsl.literal 0 : i32
  %c0 = wgsl.literal 0 : i32
  // CHECK-NEXT: %c8 = wgsl.literal 8 : i32
  %c8 = wgsl.literal 8 : i32
  // CHECK-NEXT: %acc = wgsl.var %zero : f32
  %acc = wgsl.var %zero : f32
  // CHECK-NEXT: wgsl.for %k = %c0 to %c8 : i32 {
  wgsl.for %k = %c0 to %c8 : i32 {
    // CHECK-NEXT: %row = wgsl.binary "*" %i, %c8 : i32
    %row = wgsl.binary "*" %i, %c8 : i32
    // CHECK-NEXT: %at = wgsl.binary "+" %row, %k : i32
    %at = wgsl.binary "+" %row, %k : i32
    // CHECK-NEXT: %inside = wgsl.binary "<" %i, %N : i32
    %inside = wgsl.binary "<" %i, %N : i32
    // CHECK-NEXT: %safe = wgsl.select %inside, %at, %c0 : i32
    %safe = wgsl.select %inside, %at, %c0 : i32
    // CHECK-NEXT: %v = wgsl.load %x[%safe] : f32
    %v = wgsl.load %x[%safe] : f32
    // CHECK-NEXT: %cur = wgsl.read %acc : f32
    %cur = wgsl.read %acc : f32
    // CHECK-NEXT: %nxt = wgsl.binary "+" %cur, %v : f32
    %nxt = wgsl.binary "+" %cur, %v : f32
    // CHECK-NEXT: wgsl.assign %acc = %nxt
    wgsl.assign %acc = %nxt
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: %s = wgsl.read %acc : f32
  %s = wgsl.read %acc : f32
  // CHECK-NEXT: wgsl.store %tile[%l] = %s
  wgsl.store %tile[%l] = %s
  // CHECK-NEXT: wgsl.barrier
  wgsl.barrier
  // CHECK-NEXT: %first = wgsl.binary "==" %l, %c0 : i32
  %first = wgsl.binary "==" %l, %c0 : i32
  // CHECK-NEXT: wgsl.if %first {
  wgsl.if %first {
    // CHECK-NEXT: %t = wgsl.load %tile[%c0] : f32
    %t = wgsl.load %tile[%c0] : f32
    // CHECK-NEXT: wgsl.store %out[%i] = %t
    wgsl.store %out[%i] = %t
  // CHECK-NEXT: }
  }
// CHECK-NEXT: }
}

// An entry without parameters or a body.
// CHECK-LABEL: wgsl.entry @empty() workgroup_size(1, 1, 1) {
// CHECK-NEXT:  }
wgsl.entry @empty() workgroup_size(1, 1, 1) {
}

// Every expression op, with the types WGSL gives them.
// CHECK-LABEL: wgsl.entry @expressions
wgsl.entry @expressions(%n: i32) workgroup_size(1, 1, 1) {
  // CHECK-NEXT: %f = wgsl.literal 1.500000e+00 : f32
  %f = wgsl.literal 1.5 : f32
  // CHECK-NEXT: %inf = wgsl.literal 0x7f800000 : f32
  %inf = wgsl.literal 0x7F800000 : f32
  // CHECK-NEXT: %h = wgsl.literal 2.500000e-01 : f16
  %h = wgsl.literal 0.25 : f16
  // CHECK-NEXT: %u = wgsl.literal 7 : ui32
  %u = wgsl.literal 7 : ui32
  // CHECK-NEXT: %b = wgsl.literal true
  %b = wgsl.literal true
  // CHECK-NEXT: %neg = wgsl.unary "-" %f : f32
  %neg = wgsl.unary "-" %f : f32
  // CHECK-NEXT: %inv = wgsl.unary "~" %u : ui32
  %inv = wgsl.unary "~" %u : ui32
  // CHECK-NEXT: %not = wgsl.unary "!" %b : i1
  %not = wgsl.unary "!" %b : i1
  // CHECK-NEXT: %shl = wgsl.binary "<<" %n, %u : i32
  %shl = wgsl.binary "<<" %n, %u : i32
  // CHECK-NEXT: %both = wgsl.binary "&" %b, %not : i1
  %both = wgsl.binary "&" %b, %not : i1
  // CHECK-NEXT: %either = wgsl.binary "||" %b, %not : i1
  %either = wgsl.binary "||" %b, %not : i1
  // CHECK-NEXT: %rem = wgsl.binary "%" %f, %neg : f32
  %rem = wgsl.binary "%" %f, %neg : f32
  // CHECK-NEXT: %bits = wgsl.bitcast %f : f32 -> ui32
  %bits = wgsl.bitcast %f : f32 -> ui32
  // CHECK-NEXT: %wide = wgsl.convert %h : f16 -> f32
  %wide = wgsl.convert %h : f16 -> f32
  // CHECK-NEXT: %e = wgsl.call @exp(%wide) : (f32) -> f32
  %e = wgsl.call @exp(%wide) : (f32) -> f32
  // CHECK-NEXT: %m = wgsl.call @kiln_max_f16(%h, %h) : (f16, f16) -> f16
  %m = wgsl.call @kiln_max_f16(%h, %h) : (f16, f16) -> f16
  // CHECK-NEXT: %r = wgsl.call @kiln_shr_i32(%n, %n) : (i32, i32) -> i32
  %r = wgsl.call @kiln_shr_i32(%n, %n) : (i32, i32) -> i32
  // CHECK-NEXT: %nwg = wgsl.builtin num_workgroups.z
  %nwg = wgsl.builtin num_workgroups.z
// CHECK-NEXT: }
}
