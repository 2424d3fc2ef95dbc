// RUN: kiln-opt %s -p kernel-join-launches --mlir-pass-statistics 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// kernel-join-launches: @rows (core range: 64 rows of 8) writes %t; @heads (core range: 8 heads of 8 rows) reads
// only its head's rows of %t, the span of 64 elements per head that rows 8h..8h+7 write: joined. @transposed
// reads a column of %t per core index (other rows' writes): alone. @overwrite writes %t, which @heads of its
// group reads: alone. @four has a core range of 4 (< 8 grid chunks): alone.

// CHECK-LABEL: func.func @f
// CHECK:         kernel.launch @rows(%[[T:.*]], %{{.*}}) :
// CHECK:         kernel.launch @heads(%{{.*}}, %[[T]]) {joined} :
// CHECK:         kernel.launch @transposed(%{{.*}}, %[[T]]) :
// CHECK:         kernel.launch @overwrite(%[[T]], %{{.*}}) :
// CHECK:         kernel.launch @four(%{{.*}}, %[[T]]) :

// STATS:      KernelJoinLaunches
// STATS-NEXT:   (S) 1 launches-joined - Number of kernel.launch ops joined to the launch before them

kernel.kernel @rows(%out: !kernel.buffer<512xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 64 : index
  %w = kernel.const 8 : index
  %r = kernel.range %n global
  %c = kernel.range %w global
  %rw = kernel.mul %r, %w : index
  %i = kernel.add %rw, %c : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @heads(%out: !kernel.buffer<64xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %h8 = kernel.const 8 : index
  %stride = kernel.const 64 : index
  %h = kernel.range %h8 global
  %k = kernel.range %stride reduce
  %hs = kernel.mul %h, %stride : index
  %i = kernel.add %hs, %k : index
  %x = kernel.load %in[%i] : f32
  %s = kernel.reduce add %x over %k : f32
  kernel.store %out[%h], %s
}
kernel.kernel @transposed(%out: !kernel.buffer<8xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %w = kernel.const 8 : index
  %n = kernel.const 64 : index
  %c = kernel.range %w global
  %r = kernel.range %n reduce
  %rw = kernel.mul %r, %w : index
  %i = kernel.add %rw, %c : index
  %x = kernel.load %in[%i] : f32
  %s = kernel.reduce add %x over %r : f32
  kernel.store %out[%c], %s
}
kernel.kernel @overwrite(%out: !kernel.buffer<512xf32>, %in: !kernel.buffer<8xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 64 : index
  %w = kernel.const 8 : index
  %r = kernel.range %n global
  %c = kernel.range %w global
  %rw = kernel.mul %r, %w : index
  %i = kernel.add %rw, %c : index
  %x = kernel.load %in[%c] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @four(%out: !kernel.buffer<4xf32>, %in: !kernel.buffer<512xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n4 = kernel.const 4 : index
  %stride = kernel.const 128 : index
  %h = kernel.range %n4 global
  %hs = kernel.mul %h, %stride : index
  %x = kernel.load %in[%hs] : f32
  kernel.store %out[%h], %x
}
func.func @f(%a: !kernel.buffer<512xf32>) -> !kernel.buffer<4xf32> {
  %t = kernel.alloc : !kernel.buffer<512xf32>
  kernel.launch @rows(%t, %a) : !kernel.buffer<512xf32>, !kernel.buffer<512xf32>
  %s = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @heads(%s, %t) : !kernel.buffer<64xf32>, !kernel.buffer<512xf32>
  %u = kernel.alloc : !kernel.buffer<8xf32>
  kernel.launch @transposed(%u, %t) : !kernel.buffer<8xf32>, !kernel.buffer<512xf32>
  kernel.launch @overwrite(%t, %u) : !kernel.buffer<512xf32>, !kernel.buffer<8xf32>
  %v = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @four(%v, %t) : !kernel.buffer<4xf32>, !kernel.buffer<512xf32>
  func.return %v : !kernel.buffer<4xf32>
}
