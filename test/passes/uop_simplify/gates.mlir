// RUN: kiln-opt %s -p uop-simplify | filecheck %s
// Gates decided by bounds: with 0 <= i < 8, i < 8 is always true (dropped from the load and the store, and a
// uop.if on it disappears with its endif), i < 0 always false (the store goes, the load is 0, a uop.if on it
// goes with everything inside). A gate bounds cannot decide stays.

// CHECK-LABEL: uop.kernel @gates
// CHECK:         %[[ZERO:.*]] = uop.const 0.000000e+00 : f32
// CHECK-NEXT:    %i = uop.range
// CHECK-NEXT:    %v = uop.load %x[%i] : f32
// CHECK-NEXT:    uop.store %out[%i], %v
// CHECK-NEXT:    %[[HALF:.*]] = uop.cmplt %i, %{{.*}} : index
// CHECK-NEXT:    %u = uop.load %x[%i], %[[HALF]] : f32
// CHECK-NEXT:    uop.store %out[%i], %u, %[[HALF]]
// CHECK-NEXT:    uop.store %out[%i], %[[ZERO]]
// CHECK-NEXT:    uop.store %out[%i], %v
// CHECK-NEXT:    uop.end %i
// CHECK-NEXT:  }

uop.kernel @gates attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c4 = uop.const 4 : index
  %c8 = uop.const 8 : index
  %i = uop.range %c0, %c8 : index
  %in = uop.cmplt %i, %c8 : index
  %never = uop.cmplt %i, %c0 : index
  %v = uop.load %x[%i], %in : f32
  uop.store %out[%i], %v, %in
  %half = uop.cmplt %i, %c4 : index
  %u = uop.load %x[%i], %half : f32
  uop.store %out[%i], %u, %half
  uop.store %out[%i], %v, %never
  %zero = uop.load %x[%i], %never : f32
  uop.store %out[%i], %zero
  uop.if %never
  %w = uop.load %x[%i] : f32
  uop.store %out[%i], %w
  uop.endif
  uop.if %in
  uop.store %out[%i], %v
  uop.endif
  uop.end %i
}
