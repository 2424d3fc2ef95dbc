// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=webgpu}" --split-input-file | filecheck %s
// GPU mapping: the last global range is x, cut into workgroups of 64 threads: index = group_id*64 + local_id,
// guarded by uop.if (index < N) because N is symbolic; global_size counts workgroups (ceildiv(N, 64)), local_size
// threads. A range of 2^24 elements needs 262144 workgroups, more than WebGPU's 65535 per grid dimension: the
// groups spread over x and y (52429 x 5) and the guard drops the overshoot.

// CHECK-LABEL: uop.kernel @scale
// CHECK-SAME:    global_size = ["ceildiv(N, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64]
// CHECK-NOT:     core_extent
// CHECK:         %N = uop.param 2 : index
// CHECK-NEXT:    %[[G:.*]] = uop.special group_id.x : index
// CHECK-NEXT:    %[[L:.*]] = uop.special local_id.x : index
// CHECK-NEXT:    %[[C64:.*]] = uop.const 64 : index
// CHECK:         %[[GL:.*]] = uop.mul %[[G]], %[[C64]] : index
// CHECK-NEXT:    %[[I:.*]] = uop.add %[[GL]], %[[L]] : index
// CHECK-NEXT:    %[[IN:.*]] = uop.cmplt %[[I]], %N : index
// CHECK-NEXT:    uop.if %[[IN]]
// CHECK-NEXT:    %v = uop.load %x[%[[I]]] : f32
// CHECK-NEXT:    %r = uop.mul %v, %{{.*}} : f32
// CHECK-NEXT:    uop.store %out[%[[I]]], %r
// CHECK-NEXT:    uop.endif
// CHECK-NEXT:  }

kernel.kernel @scale(%x: !kernel.buffer<Nxf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 1000000]>, symbols = ["N"]} {
  %two = kernel.const 2.0 : f32
  %i = kernel.range %N global
  %v = kernel.load %x[%i] : f32
  %r = kernel.mul %v, %two : f32
  kernel.store %out[%i], %r
}

// -----

// CHECK-LABEL: uop.kernel @big
// CHECK-SAME:    global_size = ["52429", "5", "1"], local_size = [64 : i64, 1 : i64, 1 : i64]
// CHECK:         %[[GY:.*]] = uop.special group_id.y : index
// CHECK-NEXT:    %[[GX:.*]] = uop.special group_id.x : index
// CHECK-NEXT:    %[[L:.*]] = uop.special local_id.x : index
// CHECK-DAG:     %[[TOTAL:.*]] = uop.const 16777216 : index
// CHECK-DAG:     %[[C64:.*]] = uop.const 64 : index
// CHECK-DAG:     %[[COLS:.*]] = uop.const 52429 : index
// CHECK:         %[[ROW:.*]] = uop.mul %[[GY]], %[[COLS]] : index
// CHECK-NEXT:    %[[GROUP:.*]] = uop.add %[[ROW]], %[[GX]] : index
// CHECK-NEXT:    %[[BASE:.*]] = uop.mul %[[GROUP]], %[[C64]] : index
// CHECK-NEXT:    %[[I:.*]] = uop.add %[[BASE]], %[[L]] : index
// CHECK-NEXT:    %[[IN:.*]] = uop.cmplt %[[I]], %[[TOTAL]] : index
// CHECK-NEXT:    uop.if %[[IN]]

kernel.kernel @big(%x: !kernel.buffer<16777216xf32>, %out: !kernel.buffer<16777216xf32>) attributes {symbols = []} {
  %n = kernel.const 16777216 : index
  %i = kernel.range %n global
  %v = kernel.load %x[%i] : f32
  %e = kernel.neg %v : f32
  kernel.store %out[%i], %e
}

// -----

// A matmul on a GPU: i is y (N workgroups), j (8 columns) is x with an 8-thread workgroup, so no guard; the
// reduce stays a loop in each thread.

// CHECK-LABEL: uop.kernel @dense
// CHECK-SAME:    global_size = ["1", "N", "1"], local_size = [8 : i64, 1 : i64, 1 : i64]
// CHECK-NOT:     uop.if
// CHECK:         %k = uop.range
// CHECK:         uop.end %k

kernel.kernel @dense(%x: !kernel.buffer<Nx16xf32>, %w: !kernel.buffer<16x8xf32>, %out: !kernel.buffer<Nx8xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 64]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %c8 = kernel.const 8 : index
  %i = kernel.range %N global
  %j = kernel.range %c8 global
  %k = kernel.range %c16 reduce
  %i16 = kernel.mul %i, %c16 : index
  %ia = kernel.add %i16, %k : index
  %k8 = kernel.mul %k, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k : f32
  %i8 = kernel.mul %i, %c8 : index
  %io = kernel.add %i8, %j : index
  kernel.store %out[%io], %s
}
