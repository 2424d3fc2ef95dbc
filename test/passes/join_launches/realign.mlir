// RUN: kiln-opt %s -p kernel-join-launches | filecheck %s
// kernel-join-launches moves another range of a launch's kernel into its core range's place when that makes it
// join: @panels walks 2 column panels outermost (its core range), then 8 heads; with the heads outermost, head h
// reads only what head h of @copy wrote, so the ranges swap and the launch joins. @panels_again reads %t the
// same way, but its kernel is launched twice (a swap would change the other launch too): it stays as it is. The
// second @copy reads head h of @panels' output per core index, as @panels (heads outermost now) writes it: joined.

// CHECK-LABEL: kernel.kernel @panels(
// CHECK:         %[[H:.*]] = kernel.range %{{.*}} global
// CHECK-NEXT:    %[[P:.*]] = kernel.range %{{.*}} global
// CHECK:         kernel.mul %[[H]], %{{.*}}
// CHECK-LABEL: kernel.kernel @panels_again(
// CHECK-NEXT:    kernel.const 2
// CHECK-NEXT:    kernel.const 8
// CHECK-NEXT:    kernel.const 4
// CHECK-NEXT:    %[[P2:.*]] = kernel.range %{{.*}} global
// CHECK-LABEL: func.func @f
// CHECK:         kernel.launch @copy(
// CHECK:         kernel.launch @panels({{.*}}) {joined} :
// CHECK:         kernel.launch @copy({{.*}}) {joined} :
// CHECK:         kernel.launch @panels_again({{.*}}) :
// CHECK:         kernel.launch @panels_again({{.*}}) :

kernel.kernel @copy(%out: !kernel.buffer<64xf32>, %in: !kernel.buffer<64xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %n = kernel.const 8 : index
  %h = kernel.range %n global
  %j = kernel.range %n global
  %hs = kernel.mul %h, %n : index
  %i = kernel.add %hs, %j : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @panels(%out: !kernel.buffer<64xf32>, %in: !kernel.buffer<64xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %two = kernel.const 2 : index
  %eight = kernel.const 8 : index
  %four = kernel.const 4 : index
  %p = kernel.range %two global
  %h = kernel.range %eight global
  %l = kernel.range %four upcast
  %ps = kernel.mul %p, %four : index
  %c = kernel.add %ps, %l : index
  %hs = kernel.mul %h, %eight : index
  %i = kernel.add %hs, %c : index
  %x = kernel.load %in[%i] : f32
  kernel.store %out[%i], %x
}
kernel.kernel @panels_again(%out: !kernel.buffer<64xf32>, %in: !kernel.buffer<64xf32>) attributes {inputs = ["output", "arg"], symbols = []} {
  %two = kernel.const 2 : index
  %eight = kernel.const 8 : index
  %four = kernel.const 4 : index
  %p = kernel.range %two global
  %h = kernel.range %eight global
  %l = kernel.range %four upcast
  %ps = kernel.mul %p, %four : index
  %c = kernel.add %ps, %l : index
  %hs = kernel.mul %h, %eight : index
  %i = kernel.add %hs, %c : index
  %x = kernel.load %in[%i] : f32
  %y = kernel.add %x, %x : f32
  kernel.store %out[%i], %y
}
func.func @f(%a: !kernel.buffer<64xf32>) -> !kernel.buffer<64xf32> {
  %t = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @copy(%t, %a) : !kernel.buffer<64xf32>, !kernel.buffer<64xf32>
  %u = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @panels(%u, %t) : !kernel.buffer<64xf32>, !kernel.buffer<64xf32>
  %v = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @copy(%v, %u) : !kernel.buffer<64xf32>, !kernel.buffer<64xf32>
  %w = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @panels_again(%w, %v) : !kernel.buffer<64xf32>, !kernel.buffer<64xf32>
  %z = kernel.alloc : !kernel.buffer<64xf32>
  kernel.launch @panels_again(%z, %w) : !kernel.buffer<64xf32>, !kernel.buffer<64xf32>
  func.return %z : !kernel.buffer<64xf32>
}
