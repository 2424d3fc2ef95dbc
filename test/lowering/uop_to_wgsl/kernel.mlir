// RUN: kiln-opt %s -p convert-uop-to-wgsl --split-input-file | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-wgsl --split-input-file | kiln-opt --split-input-file | filecheck %s
// A GPU uop kernel becomes a wgsl.entry with the runtime's calling convention: buffer params in index order
// (bindings 0..n-1), then the index params as i32 scalars named by the kernel's symbols; the workgroup size is
// local_size and every kernel attribute stays for the runtime. Specials are builtin components converted to
// i32, ranges wgsl.for, guards wgsl.if, accumulators vars; a gated load reads element 0 where the gate is false
// and gives 0 there, a gated store is an if. The schedule func.func is left as it is.

// CHECK-LABEL: wgsl.entry @rows(%x: !wgsl.storage<f32>, %out: !wgsl.storage<f32>, %M: i32, %K: i32) workgroup_size(64, 1, 1)
// CHECK-SAME:      attributes {global_size = ["ceildiv(M, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["M", "K"]} {
// CHECK-NEXT:    %[[G:.*]] = wgsl.builtin workgroup_id.x
// CHECK-NEXT:    %g = wgsl.convert %[[G]] : ui32 -> i32
// CHECK-NEXT:    %[[L:.*]] = wgsl.builtin local_invocation_id.x
// CHECK-NEXT:    %l = wgsl.convert %[[L]] : ui32 -> i32
// CHECK-NEXT:    %c0 = wgsl.literal 0 : i32
// CHECK-NEXT:    %c64 = wgsl.literal 64 : i32
// CHECK-NEXT:    %zero = wgsl.literal 0.000000e+00 : f32
// CHECK-NEXT:    %base = wgsl.binary "*" %g, %c64 : i32
// CHECK-NEXT:    %i = wgsl.binary "+" %base, %l : i32
// CHECK-NEXT:    %inside = wgsl.binary "<" %i, %M : i32
// CHECK-NEXT:    wgsl.if %inside {
// CHECK-NEXT:      %acc = wgsl.var %zero : f32
// CHECK-NEXT:      wgsl.for %k = %c0 to %K : i32 {
// CHECK-NEXT:        %row = wgsl.binary "*" %i, %K : i32
// CHECK-NEXT:        %at = wgsl.binary "+" %row, %k : i32
// CHECK-NEXT:        %odd = wgsl.binary "&" %k, %l : i32
// CHECK-NEXT:        %gate = wgsl.binary "==" %odd, %c0 : i32
// CHECK-NEXT:        %[[C0:.*]] = wgsl.literal 0 : i32
// CHECK-NEXT:        %[[SAFE:.*]] = wgsl.select %gate, %at, %[[C0]] : i32
// CHECK-NEXT:        %[[V:.*]] = wgsl.load %x[%[[SAFE]]] : f32
// CHECK-NEXT:        %[[Z:.*]] = wgsl.literal 0.000000e+00 : f32
// CHECK-NEXT:        %v = wgsl.select %gate, %[[V]], %[[Z]] : f32
// CHECK-NEXT:        %cur = wgsl.read %acc : f32
// CHECK-NEXT:        %nxt = wgsl.binary "+" %cur, %v : f32
// CHECK-NEXT:        wgsl.assign %acc = %nxt
// CHECK-NEXT:      }
// CHECK-NEXT:      %s = wgsl.read %acc : f32
// CHECK-NEXT:      %pos = wgsl.binary "<" %zero, %s : f32
// CHECK-NEXT:      wgsl.if %pos {
// CHECK-NEXT:        wgsl.store %out[%i] = %s
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @schedule
uop.kernel @rows attributes {global_size = ["ceildiv(M, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["M", "K"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %0 = uop.param 2 : index
  %1 = uop.param 3 : index
  %g = uop.special group_id.x : index
  %l = uop.special local_id.x : index
  %c0 = uop.const 0 : index
  %c64 = uop.const 64 : index
  %zero = uop.const 0.000000e+00 : f32
  %base = uop.mul %g, %c64 : index
  %i = uop.add %base, %l : index
  %inside = uop.cmplt %i, %0 : index
  uop.if %inside
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %1 : index
  %row = uop.mul %i, %1 : index
  %at = uop.add %row, %k : index
  %odd = uop.and %k, %l : index
  %gate = uop.cmpeq %odd, %c0 : index
  %v = uop.load %x[%at], %gate : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %s = uop.acc_get %acc : f32
  %pos = uop.cmplt %zero, %s : f32
  uop.store %out[%i], %s, %pos
  uop.endif
}
func.func @schedule() {
  func.return
}

// -----

// Workgroup memory: uop.define_local becomes a wgsl.workgroup_array at the top of the entry (it is module scope
// in WGSL) wherever it stood; uop.barrier is wgsl.barrier. Vectors are scalarized: a vector<4xf32> load is four
// loads of consecutive elements, and lanes are used one by one.

// CHECK-LABEL: wgsl.entry @tile(%x: !wgsl.storage<f32>, %out: !wgsl.storage<f32>) workgroup_size(16, 1, 1)
// CHECK-NEXT:    %tmp = wgsl.workgroup_array : !wgsl.workgroup<f32, 64>
// CHECK-NEXT:    %[[L:.*]] = wgsl.builtin local_invocation_id.x
// CHECK-NEXT:    %l = wgsl.convert %[[L]] : ui32 -> i32
// CHECK-NEXT:    %c4 = wgsl.literal 4 : i32
// CHECK-NEXT:    %at = wgsl.binary "*" %l, %c4 : i32
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1 : i32
// CHECK-NEXT:    %[[AT1:.*]] = wgsl.binary "+" %at, %[[ONE]] : i32
// CHECK-NEXT:    %[[TWO:.*]] = wgsl.literal 2 : i32
// CHECK-NEXT:    %[[AT2:.*]] = wgsl.binary "+" %at, %[[TWO]] : i32
// CHECK-NEXT:    %[[THREE:.*]] = wgsl.literal 3 : i32
// CHECK-NEXT:    %[[AT3:.*]] = wgsl.binary "+" %at, %[[THREE]] : i32
// CHECK-NEXT:    %v = wgsl.load %x[%at] : f32
// CHECK-NEXT:    %[[V1:.*]] = wgsl.load %x[%[[AT1]]] : f32
// CHECK-NEXT:    %[[V2:.*]] = wgsl.load %x[%[[AT2]]] : f32
// CHECK-NEXT:    %[[V3:.*]] = wgsl.load %x[%[[AT3]]] : f32
// CHECK-NEXT:    %sum = wgsl.binary "+" %v, %[[V3]] : f32
// CHECK-NEXT:    wgsl.store %tmp[%l] = %sum
// CHECK-NEXT:    wgsl.barrier
// CHECK-NEXT:    %t = wgsl.load %tmp[%l] : f32
// CHECK:         wgsl.store %out[%at] = %t
// CHECK-NEXT:    wgsl.store %out[%{{.*}}] = %v
// CHECK-NEXT:    wgsl.store %out[%{{.*}}] = %v
// CHECK-NEXT:    wgsl.store %out[%{{.*}}] = %[[V3]]
uop.kernel @tile attributes {global_size = ["1", "1", "1"], local_size = [16 : i64, 1 : i64, 1 : i64]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %l = uop.special local_id.x : index
  %c4 = uop.const 4 : index
  %at = uop.mul %l, %c4 : index
  %v = uop.load %x[%at] : vector<4xf32>
  %v0 = uop.extract %v[0] : vector<4xf32>
  %v3 = uop.extract %v[3] : vector<4xf32>
  %sum = uop.add %v0, %v3 : f32
  %tmp = uop.define_local 64 : !uop.ptr<f32, local>
  uop.store %tmp[%l], %sum
  uop.barrier
  %t = uop.load %tmp[%l] : f32
  %w = uop.vectorize %t, %v0, %v0, %v3 : vector<4xf32>
  uop.store %out[%at], %w : vector<4xf32>
}

// -----

// Booleans: i1 memory holds one u32 per element (0 or 1), so a load compares with 0 and a store selects 1 or 0.

// CHECK-LABEL: wgsl.entry @flags(%m: !wgsl.storage<ui32>, %out: !wgsl.storage<ui32>) workgroup_size(1, 1, 1)
// CHECK:         %[[W:.*]] = wgsl.load %m[%c0] : ui32
// CHECK-NEXT:    %[[Z:.*]] = wgsl.literal 0 : ui32
// CHECK-NEXT:    %b = wgsl.binary "!=" %[[W]], %[[Z]] : ui32
// CHECK-NEXT:    %nb = wgsl.unary "!" %b : i1
// CHECK-NEXT:    %[[ONE:.*]] = wgsl.literal 1 : ui32
// CHECK-NEXT:    %[[ZERO:.*]] = wgsl.literal 0 : ui32
// CHECK-NEXT:    %[[BIT:.*]] = wgsl.select %nb, %[[ONE]], %[[ZERO]] : ui32
// CHECK-NEXT:    wgsl.store %out[%c0] = %[[BIT]]
uop.kernel @flags attributes {local_size = [1 : i64, 1 : i64, 1 : i64]} {
  %m = uop.param 0 : !uop.ptr<i1>
  %out = uop.param 1 : !uop.ptr<i1>
  %c0 = uop.const 0 : index
  %b = uop.load %m[%c0] : i1
  %nb = uop.not %b : i1
  uop.store %out[%c0], %nb
}
