// RUN: kiln-opt %s -p kernel-join-launches --mlir-pass-statistics 2>%t.stats | filecheck %s
// RUN: filecheck %s --check-prefix=STATS < %t.stats
// kernel-join-launches: @rows (core range: 128 rows of 4) writes %t; @heads (core range: 16 heads of 32) reads
// only its head's elements of %t, the span of 32 that rows 8h..8h+7 write: joined. @transposed reads a column of
// %t per core index (every row's writes): alone. @overwrite writes %t, which @transposed, the group before it,
// reads: alone. @four reads %t per core index 128 apart, what @overwrite's rows (or its rows and columns merged)
// write, but a grid of 4 is below MIN_GRID: alone.

// CHECK-LABEL: func.func @f
// CHECK:         kernel.launch @rows(%[[T:.*]], %{{.*}}) :
// CHECK:         kernel.launch @heads(%{{.*}}, %[[T]]) {joined} :
// CHECK:         kernel.launch @transposed(%{{.*}}, %[[T]]) :
// CHECK:         kernel.launch @overwrite(%[[T]], %{{.*}}) :
// CHECK:         kernel.launch @four(%{{.*}}, %[[T]]) :

// STATS:      KernelJoinLaunches
// STATS-NEXT:   (S) 1 launches-joined - Number of kernel.launch ops joined to the launch before them

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
kernel.kernel @overwrite(%out: !kernel.buffer<512xf32>, %in: !kernel.buffer<4xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 128 : index
  %w = kernel.const 4 : index
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
  %s = kernel.alloc : !kernel.buffer<16xf32>
  kernel.launch @heads(%s, %t) : !kernel.buffer<16xf32>, !kernel.buffer<512xf32>
  %u = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @transposed(%u, %t) : !kernel.buffer<4xf32>, !kernel.buffer<512xf32>
  kernel.launch @overwrite(%t, %u) : !kernel.buffer<512xf32>, !kernel.buffer<4xf32>
  %v = kernel.alloc : !kernel.buffer<4xf32>
  kernel.launch @four(%v, %t) : !kernel.buffer<4xf32>, !kernel.buffer<512xf32>
  func.return %v : !kernel.buffer<4xf32>
}
