// RUN: kiln-opt %s -p kernel-join-launches --mlir-pass-statistics 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// kernel-join-launches marks a buffer chunk-local when only one joined group uses it and every access of every
// stage spans the same elements per core range. The four launches before @transposed join (grid 16): %t
// (written by @rows, 128 rows of 4, read per head by @heads, 16 heads of 32) spans 512 in both; %u, the same,
// is read again by @transposed after the group, and %s and %w are returned: not chunk-local.

// CHECK-LABEL: func.func @f
// CHECK:         %[[T:.*]] = kernel.alloc {chunk_span = 512 : i64} :
// CHECK-NEXT:    kernel.launch @rows(%[[T]], %{{.*}}) :
// CHECK-NEXT:    %[[S:.*]] = kernel.alloc :
// CHECK-NEXT:    kernel.launch @heads(%[[S]], %[[T]]) {joined} :
// CHECK-NEXT:    %[[U:.*]] = kernel.alloc :
// CHECK-NEXT:    kernel.launch @rows(%[[U]], %{{.*}}) {joined} :
// CHECK-NEXT:    %[[W:.*]] = kernel.alloc :
// CHECK-NEXT:    kernel.launch @heads(%[[W]], %[[U]]) {joined} :
// CHECK-NEXT:    %[[V:.*]] = kernel.alloc :
// CHECK-NEXT:    kernel.launch @transposed(%[[V]], %[[U]]) :

// STATS:      KernelJoinLaunches
// STATS:        (S) 1 chunk-local-buffers - Number of kernel.alloc buffers marked chunk-local

kernel.kernel @rows(%out: !kernel.buffer<512xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 128 : index
  %w = kernel.const 4 : index
  %r = kernel.range %n global
  %c = kernel.range %w global
  %rw = kernel.mul %r, %w : index
  %i = kernel.add %rw, %c : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @heads(%out: !kernel.buffer<16xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %h16 = kernel.const 16 : index
  %stride = kernel.const 32 : index
  %h = kernel.range %h16 global
  %k = kernel.range %stride reduce
  %hs = kernel.mul %h, %stride : index
  %i = kernel.add %hs, %k : index
  %x = kernel.load %in[%i] : f32
  %s = kernel.reduce add %x over %k : f32
  kernel.store %out[%h], %s
}
kernel.kernel @transposed(%out: !kernel.buffer<4xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %w = kernel.const 4 : index
  %n = kernel.const 128 : index
  %c = kernel.range %w global
  %r = kernel.range %n reduce
  %rw = kernel.mul %r, %w : index
  %i = kernel.add %rw, %c : index
  %x = kernel.load %in[%i] : f32
  %s = kernel.reduce add %x over %r : f32
  kernel.store %out[%c], %s
}

func.func @f(%a: !kernel.buffer<512xf32>) -> (!kernel.buffer<16xf32>, !kernel.buffer<16xf32>, !kernel.buffer<4xf32>) {
  %t = kernel.alloc : !kernel.buffer<512xf32>
  kernel.launch @rows(%t, %a) : !kernel.buffer<512xf32>, !kernel.buffer<512xf32>
  %s = kernel.alloc : !kernel.buffer<16xf32>
  kernel.launch @heads(%s, %t) : !kernel.buffer<16xf32>, !kernel.buffer<512xf32>
  %u = kernel.alloc : !kernel.buffer<512xf32>
  kernel.launch @rows(%u, %a) : !kernel.buffer<512xf32>, !kernel.buffer<512xf32>
  %w = kernel.alloc : !kernel.buffer<16xf32>
  kernel.launch @heads(%w, %u) : !kernel.buffer<16xf32>, !kernel.buffer<512xf32>
  %v = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @transposed(%v, %u) : !kernel.buffer<4xf32>, !kernel.buffer<512xf32>
  func.return %s, %w, %v : !kernel.buffer<16xf32>, !kernel.buffer<16xf32>, !kernel.buffer<4xf32>
}
