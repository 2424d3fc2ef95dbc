// RUN: kiln-opt %s -p kernel-join-launches | filecheck %s
// kernel-join-launches gives a launch's kernel another core range when that makes it join, if the kernel is
// launched only there. @panels walks 2 column panels outermost (its core range), then 16 heads: with the heads
// outermost, head h reads only what head h of @copy wrote: the ranges swap and it joins. @panels_again reads
// the same way, but its kernel is launched twice: it stays alone. @scores (launched once) walks 2 panels, 4 heads,
// 8 rows; @rowsum's core index (32 rows) reads one row of 8: with heads and rows merged into one core range of
// 32 (``m / 8``, ``m % 8``), @scores writes row m per core index, so @scores is rewritten (the launch before,
// which started a group of its own) and @rowsum joins it.

// CHECK-LABEL: kernel.kernel @panels(
// CHECK:         %[[H:.*]] = kernel.range %{{.*}} global
// CHECK-NEXT:    %[[P:.*]] = kernel.range %{{.*}} global
// CHECK:         kernel.mul %[[H]], %{{.*}}
// CHECK-LABEL: kernel.kernel @panels_again(
// CHECK-NEXT:    kernel.const 2
// CHECK-NEXT:    kernel.const 16
// CHECK-NEXT:    kernel.const 4
// CHECK-NEXT:    kernel.const 8
// CHECK-NEXT:    kernel.range %{{.*}} global
// CHECK-LABEL: kernel.kernel @scores(
// CHECK:         %[[M:.*]] = kernel.range %[[C32:.*]] global
// CHECK-NEXT:    kernel.range %{{.*}} global
// CHECK-NEXT:    kernel.range %{{.*}} upcast
// CHECK-NEXT:    %[[Q:.*]] = kernel.idiv %[[M]], %[[C8:.*]] : index
// CHECK-NEXT:    %[[R:.*]] = kernel.mod %[[M]], %[[C8]] : index
// CHECK-LABEL: func.func @f
// CHECK:         kernel.launch @copy(
// CHECK:         kernel.launch @panels({{.*}}) {joined} :
// CHECK:         kernel.launch @panels_again({{.*}}) :
// CHECK:         kernel.launch @panels_again({{.*}}) :
// CHECK:         kernel.launch @scores({{.*}}) :
// CHECK:         kernel.launch @rowsum({{.*}}) {joined} :

kernel.kernel @copy(%out: !kernel.buffer<128xf32>, %in: !kernel.buffer<128xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 16 : index
  %w = kernel.const 8 : index
  %h = kernel.range %n global
  %j = kernel.range %w global
  %hs = kernel.mul %h, %w : index
  %i = kernel.add %hs, %j : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @panels(%out: !kernel.buffer<128xf32>, %in: !kernel.buffer<128xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %two = kernel.const 2 : index
  %sixteen = kernel.const 16 : index
  %four = kernel.const 4 : index
  %eight = kernel.const 8 : index
  %p = kernel.range %two global
  %h = kernel.range %sixteen global
  %l = kernel.range %four upcast
  %ps = kernel.mul %p, %four : index
  %c = kernel.add %ps, %l : index
  %hs = kernel.mul %h, %eight : index
  %i = kernel.add %hs, %c : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @panels_again(%out: !kernel.buffer<128xf32>, %in: !kernel.buffer<128xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %two = kernel.const 2 : index
  %sixteen = kernel.const 16 : index
  %four = kernel.const 4 : index
  %eight = kernel.const 8 : index
  %p = kernel.range %two global
  %h = kernel.range %sixteen global
  %l = kernel.range %four upcast
  %ps = kernel.mul %p, %four : index
  %c = kernel.add %ps, %l : index
  %hs = kernel.mul %h, %eight : index
  %i = kernel.add %hs, %c : index
  %x = kernel.load %in[%i] : f32
  %y = kernel.add %x, %x : f32
  kernel.store %out[%i], %y
}
kernel.kernel @scores(%out: !kernel.buffer<256xf32>, %in: !kernel.buffer<128xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %two = kernel.const 2 : index
  %four = kernel.const 4 : index
  %eight = kernel.const 8 : index
  %c64 = kernel.const 64 : index
  %p = kernel.range %two global
  %h = kernel.range %four global
  %r = kernel.range %eight global
  %l = kernel.range %four upcast
  %ps = kernel.mul %p, %four : index
  %c = kernel.add %ps, %l : index
  %hs = kernel.mul %h, %c64 : index
  %rs = kernel.mul %r, %eight : index
  %row = kernel.add %hs, %rs : index
  %i = kernel.add %row, %c : index
  %x = kernel.load %in[%c] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @rowsum(%out: !kernel.buffer<32xf32>, %in: !kernel.buffer<256xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 32 : index
  %eight = kernel.const 8 : index
  %r = kernel.range %n global
  %k = kernel.range %eight reduce
  %rs = kernel.mul %r, %eight : index
  %i = kernel.add %rs, %k : index
  %x = kernel.load %in[%i] : f32
  %s = kernel.reduce add %x over %k : f32
  kernel.store %out[%r], %s
}
func.func @f(%a: !kernel.buffer<128xf32>) -> !kernel.buffer<32xf32> {
  %t = kernel.alloc : !kernel.buffer<128xf32>
  kernel.launch @copy(%t, %a) : !kernel.buffer<128xf32>, !kernel.buffer<128xf32>
  %u = kernel.alloc : !kernel.buffer<128xf32>
  kernel.launch @panels(%u, %t) : !kernel.buffer<128xf32>, !kernel.buffer<128xf32>
  %w = kernel.alloc : !kernel.buffer<128xf32>
  kernel.launch @panels_again(%w, %u) : !kernel.buffer<128xf32>, !kernel.buffer<128xf32>
  %z = kernel.alloc : !kernel.buffer<128xf32>
  kernel.launch @panels_again(%z, %w) : !kernel.buffer<128xf32>, !kernel.buffer<128xf32>
  %s = kernel.alloc : !kernel.buffer<256xf32>
  kernel.launch @scores(%s, %z) : !kernel.buffer<256xf32>, !kernel.buffer<128xf32>
  %o = kernel.alloc : !kernel.buffer<32xf32>
  kernel.launch @rowsum(%o, %s) : !kernel.buffer<32xf32>, !kernel.buffer<256xf32>
  func.return %o : !kernel.buffer<32xf32>
}
