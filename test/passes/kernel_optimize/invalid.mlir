// Illegal opts are rejected with the reason, at the kernel's location, and the kernel is left unchanged.
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="upcast:4:4"}' 2>&1 | filecheck %s --check-prefix=AXIS
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="thread:2:2"}' 2>&1 | filecheck %s --check-prefix=KIND
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="upcast:0:4"}' 2>&1 | filecheck %s --check-prefix=SYMBOLIC
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="upcast:1:5"}' 2>&1 | filecheck %s --check-prefix=DIVIDE
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="unroll:1:4"}' 2>&1 | filecheck %s --check-prefix=REDUCES
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="unroll:0:0"}' 2>&1 | filecheck %s --check-prefix=UNROLL
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="upcast:1:64,unroll:0:32"}' 2>&1 | filecheck %s --check-prefix=EXPANSION
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="local:1:4"}' 2>&1 | filecheck %s --check-prefix=LOCAL
// RUN: not kiln-opt %s -p 'kernel-optimize{target=cuda opts="thread:1:2"}' 2>&1 | filecheck %s --check-prefix=THREAD
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="padto:1:16"}' 2>&1 | filecheck %s --check-prefix=PAD
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="swap:1:0"}' 2>&1 | filecheck %s --check-prefix=SWAP
// RUN: not kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"}' 2>&1 | filecheck %s --check-prefix=TC
// RUN: not kiln-opt %s -p 'kernel-optimize{target=cuda opts="local:1:64,group:0:32"}' 2>&1 | filecheck %s --check-prefix=WORKGROUP
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="upcats:0:4"}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not kiln-opt %s -p 'kernel-optimize{search=greedy}' 2>&1 | filecheck %s --check-prefix=SEARCH
// RUN: not kiln-opt %s -p 'kernel-optimize{kernel=nope opts="upcast:1:4"}' 2>&1 | filecheck %s --check-prefix=NAME

// AXIS:      invalid.mlir:[[# @LINE + 17]]:1: error: 'kernel.kernel' op cannot apply opt #0 'upcast:4:4' to @mv: axis 4 does not exist (axes: 0: global %N, 1: global 64, 2: reduce 64)
// KIND:      cannot apply opt #0 'thread:2:2' to @mv: axis 2 is a reduce range; thread applies to global ranges
// SYMBOLIC:  cannot apply opt #0 'upcast:0:4' to @mv: the range has a symbolic size; upcast needs a constant size or one padded to a multiple of 4 (padto first)
// DIVIDE:    cannot apply opt #0 'upcast:1:5' to @mv: amount 5 does not divide the range's size 64 (padto first)
// REDUCES:   cannot apply opt #0 'unroll:1:4' to @mv: unroll counts reduce ranges and there are 1
// UNROLL:    cannot apply opt #0 'unroll:0:0' to @mv: unroll by at most 32 (got 64)
// EXPANSION: cannot apply opt #1 'unroll:0:32' to @mv: the body would be copied 2048 times per thread (at most 1024)
// LOCAL:     cannot apply opt #0 'local:1:4' to @mv: local needs workgroup-local memory, which target cpu-llvm does not have
// THREAD:    cannot apply opt #0 'thread:1:2' to @mv: target cuda does not split launches across CPU cores
// PAD:       cannot apply opt #0 'padto:1:16' to @mv: the size 64 is a multiple of 16 already
// SWAP:      cannot apply opt #0 'swap:1:0' to @mv: swap takes the smaller axis first (swap:0:1)
// TC:        cannot apply opt #0 'tc:0:0' to @mv: 0 matmul reduce(s) fit the m16n8k16 tensor core
// WORKGROUP: cannot apply opt #1 'group:0:32' to @mv: a workgroup of 2048 threads exceeds the target's 1024
// SYNTAX:    kernel-optimize: unknown opt 'upcats' in 'upcats:0:4' (expected one of upcast, unroll, local, group, grouptop, thread, padto, swap, nolocals, tc)
// SEARCH:    kernel-optimize: search must be one of heuristic, beam, none, got 'greedy'
// NAME:      kernel-optimize: no kernel.kernel @nope in the module

kernel.kernel @mv(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x64xf32>, %out: !kernel.buffer<Nx64xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 128]>, symbols = ["N"]} {
  %c64 = kernel.const 64 : index
  %i = kernel.range %N global
  %j = kernel.range %c64 global
  %k = kernel.range %c64 reduce
  %i64 = kernel.mul %i, %c64 : index
  %ix = kernel.add %i64, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %iw = kernel.add %k64, %j : index
  %a = kernel.load %x[%ix] : f32
  %b = kernel.load %w[%iw] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}
