// RUN: not kiln-opt %s -t wgsl --split-input-file 2>&1 | filecheck %s
// What the WGSL emitter cannot print is a located error: a kernel that was not converted, an op that is not an
// entry point, a kernel name WGSL cannot use as the entry point's name (the runtime looks entry points up by the
// kernel's name, so it cannot be renamed).

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'uop.kernel' op uop.kernel reached the WGSL emitter: run convert-uop-to-wgsl first
uop.kernel @k {
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'cstyle.func' op cstyle.func is not a wgsl.entry: the WGSL emitter cannot emit it
cstyle.func c @k() {
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'wgsl.entry' op kernel name 'loop' is not a usable WGSL entry point name
wgsl.entry @loop() workgroup_size(1, 1, 1) {
}

// -----

// CHECK: invalid.mlir:[[# @LINE + 1]]:1: error: 'wgsl.entry' op kernel name 'a-b' is not a usable WGSL entry point name
wgsl.entry @"a-b"() workgroup_size(1, 1, 1) {
}
