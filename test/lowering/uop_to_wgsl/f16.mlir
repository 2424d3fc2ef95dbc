// RUN: kiln-opt %s -p 'convert-uop-to-wgsl{features=shader-f16}' | filecheck %s
// f16 is allowed where the device has shader-f16 (the features option): values, memory and the f16 helpers.

// CHECK-LABEL: wgsl.entry @half(%h: !wgsl.storage<f16>) workgroup_size(1, 1, 1)
// CHECK:         %m = wgsl.call @kiln_max_f16(%v, %v) : (f16, f16) -> f16
uop.kernel @half attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %h = uop.param 0 : !uop.ptr<f16>
  %c0 = uop.const 0 : index
  %v = uop.load %h[%c0] : f16
  %m = uop.max %v, %v : f16
  uop.store %h[%c0], %m
}
