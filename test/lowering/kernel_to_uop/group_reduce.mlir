// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=webgpu}" --split-input-file | filecheck %s --check-prefixes=CHECK,WGPU
// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=cuda}" --split-input-file | filecheck %s --check-prefixes=CHECK,CUDA
// Grouped reductions (lowering/linearize/group.py): a group_reduce range is a workgroup dimension (local_id);
// each thread accumulates its partial over the reduce ranges, stores it in local memory at its position in the
// workgroup, and after a barrier every thread combines the partials of its row. Stores are made by the thread
// with local_id == 0 along every workgroup dimension they do not depend on.

// A row sum of a 64x1000 matrix with G = 32 (padded to 32x32 columns by the load's gate): one workgroup of 32
// threads per row.

// CHECK-LABEL: uop.kernel @row_sum
// CHECK-SAME:    global_size = ["64", "1", "1"], local_size = [32 : i64, 1 : i64, 1 : i64]
// CHECK:         %[[LID:.*]] = uop.special local_id.x : index
// CHECK-NEXT:    %[[GID:.*]] = uop.special group_id.x : index
// CHECK-DAG:     %[[C0:.*]] = uop.const 0 : index
// CHECK-DAG:     %[[C32:.*]] = uop.const 32 : index
// CHECK:         %[[BUF:.*]] = uop.define_local 32 : !uop.ptr<f32, local>
// CHECK:         %[[FIRST:.*]] = uop.cmpeq %[[LID]], %[[C0]] : index
// CHECK:         %k = uop.range %[[C0]], %[[C32]] : index
// CHECK:           %[[COL:.*]] = uop.add %{{.*}}, %[[LID]] : index
// CHECK:           %v = uop.load %x[%{{.*}}], %valid : f32
// CHECK:         uop.end %k
// CHECK-NEXT:    %[[PARTIAL:.*]] = uop.acc_get
// CHECK-NEXT:    uop.store %[[BUF]][%[[LID]]], %[[PARTIAL]]
// CHECK-NEXT:    uop.barrier
// CHECK-NEXT:    %g = uop.range %[[C0]], %[[C32]] : index
// CHECK-NEXT:      %[[P:.*]] = uop.load %[[BUF]][%g] : f32
// CHECK-NEXT:      %[[CUR:.*]] = uop.acc_get %[[ACC:.*]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = uop.add %[[CUR]], %[[P]] : f32
// CHECK-NEXT:      uop.acc_set %[[ACC]], %[[SUM]]
// CHECK-NEXT:    uop.end %g
// CHECK-NEXT:    %s = uop.acc_get %[[ACC]] : f32
// CHECK-NEXT:    uop.store %out[%[[GID]]], %s, %[[FIRST]]
// CHECK-NEXT:  }
// CHECK-NOT:   uop.if

kernel.kernel @row_sum(%x: !kernel.buffer<64x1000xf32>, %out: !kernel.buffer<64xf32>) attributes {symbols = []} {
  %c64 = kernel.const 64 : index
  %c32 = kernel.const 32 : index
  %c1000 = kernel.const 1000 : index
  %i = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %g = kernel.range %c32 group_reduce
  %k32 = kernel.mul %k, %c32 : index
  %col = kernel.add %k32, %g : index
  %valid = kernel.cmplt %col, %c1000 : index
  %row = kernel.mul %i, %c1000 : index
  %idx = kernel.add %row, %col : index
  %v = kernel.load %x[%idx], %valid : f32
  %s = kernel.reduce add %v over %k, %g : f32
  kernel.store %out[%i], %s
}

// -----

// A max whose result feeds elementwise ops before the store; only G, no reduce loop: the partial is the
// loaded value itself.

// CHECK-LABEL: uop.kernel @shifted_max
// CHECK-SAME:    local_size = [16 : i64, 1 : i64, 1 : i64]
// CHECK:         %[[NINF:.*]] = uop.const 0xff800000 : f32
// CHECK:         %[[BUF:.*]] = uop.define_local 16 : !uop.ptr<f32, local>
// CHECK:         %[[ACC:.*]] = uop.define_acc %[[NINF]] : f32
// CHECK:         %v = uop.load %x
// CHECK:         uop.store %[[BUF]][%{{.*}}], %v
// CHECK-NEXT:    uop.barrier
// CHECK-NEXT:    %g = uop.range
// CHECK:           uop.max
// CHECK:         uop.end %g
// CHECK-NEXT:    %m = uop.acc_get %[[ACC]] : f32
// CHECK:         %e = uop.exp %{{.*}} : f32
// CHECK:         uop.store %out[%{{.*}}], %e, %{{.*}}

kernel.kernel @shifted_max(%x: !kernel.buffer<8x16xf32>, %out: !kernel.buffer<8xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %one = kernel.const 1.0 : f32
  %i = kernel.range %c8 global
  %g = kernel.range %c16 group_reduce
  %i16 = kernel.mul %i, %c16 : index
  %idx = kernel.add %i16, %g : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %g : f32
  %d = kernel.sub %m, %one : f32
  %e = kernel.exp %d : f32
  kernel.store %out[%i], %e
}

// -----

// A 16x4 workgroup: the group range g is x (last), the local range jl is y. Partials sit at lid.y*16 + lid.x;
// the combine of row lid.y reads lid.y*16 + g. The store depends on jl, so only local_id.x must be 0.

// CHECK-LABEL: uop.kernel @tile
// CHECK-SAME:    global_size = ["2", "4", "1"], local_size = [16 : i64, 4 : i64, 1 : i64]
// CHECK:         %[[LX:.*]] = uop.special local_id.x : index
// CHECK-NEXT:    %[[LY:.*]] = uop.special local_id.y : index
// CHECK:         %[[BUF:.*]] = uop.define_local 64 : !uop.ptr<f32, local>
// CHECK:         %[[ROW:.*]] = uop.mul %[[LY]], %{{.*}} : index
// CHECK-NEXT:    %[[SLOT:.*]] = uop.add %[[ROW]], %[[LX]] : index
// CHECK-NEXT:    %[[FIRST:.*]] = uop.cmpeq %[[LX]], %{{.*}} : index
// CHECK:         uop.store %[[BUF]][%[[SLOT]]], %{{.*}}
// CHECK-NEXT:    uop.barrier
// CHECK-NEXT:    %g = uop.range
// CHECK-NEXT:      %[[AT:.*]] = uop.add %[[ROW]], %g : index
// CHECK-NEXT:      uop.load %[[BUF]][%[[AT]]] : f32
// CHECK:         uop.store %out[%o], %s, %[[FIRST]]

kernel.kernel @tile(%x: !kernel.buffer<4x64xf32>, %w: !kernel.buffer<64x8xf32>, %out: !kernel.buffer<4x8xf32>)
    attributes {symbols = []} {
  %c2 = kernel.const 2 : index
  %c4 = kernel.const 4 : index
  %c8 = kernel.const 8 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c4 global
  %jg = kernel.range %c2 global
  %jl = kernel.range %c4 local
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %jg4 = kernel.mul %jg, %c4 : index
  %j = kernel.add %jg4, %jl : index
  %g4 = kernel.mul %g, %c4 : index
  %kk = kernel.add %g4, %k : index
  %i64 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i64, %kk : index
  %k8 = kernel.mul %kk, %c8 : index
  %ib = kernel.add %k8, %j : index
  %a = kernel.load %x[%ia] : f32
  %b = kernel.load %w[%ib] : f32
  %p = kernel.mul %a, %b : f32
  %s = kernel.reduce add %p over %k, %g : f32
  %i8 = kernel.mul %i, %c8 : index
  %o = kernel.add %i8, %j : index
  kernel.store %out[%o], %s
}

// -----

// Inside a sequential loop the buffer is reused every iteration: a second barrier after the combine.

// CHECK-LABEL: uop.kernel @looped
// CHECK:         %j = uop.range
// CHECK:           uop.store %partials
// CHECK-NEXT:      uop.barrier
// CHECK-NEXT:      %g = uop.range
// CHECK:           uop.end %g
// CHECK-NEXT:      uop.barrier
// CHECK-NEXT:      %s = uop.acc_get
// CHECK:         uop.end %j

kernel.kernel @looped(%x: !kernel.buffer<4x3x64xi32>, %out: !kernel.buffer<4x3xi32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c3 = kernel.const 3 : index
  %c16 = kernel.const 16 : index
  %c64 = kernel.const 64 : index
  %c192 = kernel.const 192 : index
  %i = kernel.range %c4 global
  %j = kernel.range %c3 loop
  %k = kernel.range %c4 reduce
  %g = kernel.range %c16 group_reduce
  %i192 = kernel.mul %i, %c192 : index
  %j64 = kernel.mul %j, %c64 : index
  %k16 = kernel.mul %k, %c16 : index
  %a = kernel.add %i192, %j64 : index
  %b = kernel.add %a, %k16 : index
  %idx = kernel.add %b, %g : index
  %v = kernel.load %x[%idx] : i32
  %s = kernel.reduce min %v over %k, %g : i32
  %i3 = kernel.mul %i, %c3 : index
  %o = kernel.add %i3, %j : index
  kernel.store %out[%o], %s
}

// -----

// Up to 100000 rows: webgpu spreads the workgroups over two grid axes, which overshoot, so there is a guard;
// the barrier must be reached by every thread, so the guard gates the load and the store instead of an
// uop.if around them. cuda's x axis holds all rows: no guard.

// CHECK-LABEL: uop.kernel @many_rows
// WGPU-SAME:     global_size = ["ceildiv(N, ceildiv(N, 65535))", "ceildiv(N, 65535)", "1"]
// CUDA-SAME:     global_size = ["N", "1", "1"]
// CHECK-NOT:     uop.if
// WGPU:          %[[IN:.*]] = uop.cmplt %[[ROW:.*]], %N : index
// WGPU:          %v = uop.load %x[%{{.*}}], %[[IN]] : f32
// WGPU-NEXT:     %[[FIRST:.*]] = uop.cmpeq
// WGPU-NEXT:     %[[BOTH:.*]] = uop.and %[[IN]], %[[FIRST]] : i1
// CUDA:          %v = uop.load %x[%{{.*}}] : f32
// CHECK:         uop.barrier
// WGPU:          uop.store %out[%[[ROW]]], %s, %[[BOTH]]
// CUDA:          uop.store %out[%{{.*}}], %s, %{{.*}}
// CHECK-NOT:     uop.if

kernel.kernel @many_rows(%x: !kernel.buffer<Nx16xf32>, %out: !kernel.buffer<Nxf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 100000]>, symbols = ["N"]} {
  %c16 = kernel.const 16 : index
  %i = kernel.range %N global
  %g = kernel.range %c16 group_reduce
  %i16 = kernel.mul %i, %c16 : index
  %idx = kernel.add %i16, %g : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce max %v over %g : f32
  kernel.store %out[%i], %s
}
