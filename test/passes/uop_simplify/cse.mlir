// RUN: kiln-opt %s -p uop-simplify | filecheck %s
// Equal index math is computed once where the first copy is still in scope: j*8 + 3 written twice (once as
// 3 + 8*j) in the j loop is one mul and one add. The same math in a later loop is computed again there: a value
// computed inside a loop is never reused after the loop closed.

// CHECK-LABEL: uop.kernel @cse
// CHECK:         %j = uop.range
// CHECK-NEXT:    %a = uop.mul %j, %{{.*}} : index
// CHECK-NEXT:    %b = uop.add %a, %{{.*}} : index
// CHECK-NEXT:    %v = uop.load %x[%b] : f32
// CHECK-NEXT:    uop.store %out[%b], %v
// CHECK-NEXT:    uop.end %j
// CHECK-NEXT:    %k = uop.range
// CHECK-NEXT:    %[[A2:.*]] = uop.mul %k, %{{.*}} : index
// CHECK-NEXT:    %[[B2:.*]] = uop.add %[[A2]], %{{.*}} : index
// CHECK-NEXT:    %w = uop.load %x[%[[B2]]] : f32
// CHECK-NEXT:    uop.store %out[%{{.*}}], %w
// CHECK-NEXT:    uop.end %k

uop.kernel @cse attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c3 = uop.const 3 : index
  %c8 = uop.const 8 : index
  %j = uop.range %c0, %c8 : index
  %a = uop.mul %j, %c8 : index
  %b = uop.add %a, %c3 : index
  %v = uop.load %x[%b] : f32
  %a2 = uop.mul %c8, %j : index
  %b2 = uop.add %c3, %a2 : index
  uop.store %out[%b2], %v
  uop.end %j
  %k = uop.range %c0, %c8 : index
  %ka = uop.mul %k, %c8 : index
  %kb = uop.add %ka, %c3 : index
  %w = uop.load %x[%kb] : f32
  uop.store %out[%c0], %w
  uop.end %k
}
