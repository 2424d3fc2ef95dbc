// RUN: kiln-opt %s -p uop-simplify | filecheck %s
// Bounds of specials come from the launch: group_id.x < global_size[0] (= ceildiv(N, 64) with N <= 4096, so at
// most 63), local_id.x < 64. So group_id.x*64 + local_id.x < 4096 always holds, and a workgroup never needs
// more than 64 rows: (g*64 + l) // 64 is g and % 64 is l. On a CPU, core_start/core_end lie within core_extent.

// CHECK-LABEL: uop.kernel @gpu
// CHECK:         %g = uop.special group_id.x : index
// CHECK-NEXT:    %l = uop.special local_id.x : index
// CHECK-NOT:     uop.cmplt
// CHECK-NOT:     uop.if
// CHECK:         %[[G:.*]] = uop.mul %g, %{{.*}} : index
// CHECK-NEXT:    %i = uop.add %[[G]], %l : index
// CHECK-NEXT:    %v = uop.load %x[%i] : f32
// CHECK-NEXT:    uop.store %out[%g], %v
// CHECK-NEXT:    uop.store %out[%l], %v
// CHECK-NEXT:  }

uop.kernel @gpu attributes {graph.dims = #graph.dims<N = [1, 4096]>, symbols = ["N"], global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %g = uop.special group_id.x : index
  %l = uop.special local_id.x : index
  %c64 = uop.const 64 : index
  %c4096 = uop.const 4096 : index
  %g64 = uop.mul %g, %c64 : index
  %i = uop.add %g64, %l : index
  %in = uop.cmplt %i, %c4096 : index
  uop.if %in
  %v = uop.load %x[%i] : f32
  %row = uop.idiv %i, %c64 : index
  %col = uop.mod %i, %c64 : index
  uop.store %out[%row], %v
  uop.store %out[%col], %v
  uop.endif
}

// CHECK-LABEL: uop.kernel @cpu
// CHECK:         %i = uop.range
// CHECK-NEXT:    %v = uop.load %x[%i] : f32
// CHECK-NEXT:    uop.store %out[%i], %v
// CHECK-NEXT:    uop.end %i

uop.kernel @cpu attributes {graph.dims = #graph.dims<M = [1, 100]>, symbols = ["M"], core_extent = "M", core_work = 2 : i64} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %M = uop.param 2 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c100 = uop.const 100 : index
  %i = uop.range %lo, %hi : index
  %in = uop.cmplt %i, %c100 : index
  %v = uop.load %x[%i], %in : f32
  uop.store %out[%i], %v
  uop.end %i
}
