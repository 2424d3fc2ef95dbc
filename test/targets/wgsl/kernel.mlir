// RUN: kiln-opt %s -t wgsl | filecheck %s
// -t wgsl writes one WGSL module: the helpers the entries call (and what those use), then per entry its
// module-scope declarations (storage bindings 0..n-1, the uniform struct of its scalars at binding n, its
// workgroup arrays; names prefixed with the kernel's) and its @compute function. Values are named by lets;
// literals, builtin components and scalar params are written where used. The schedule func.func is host code.

// CHECK:       // kiln -t wgsl: rows, copy
// CHECK-EMPTY:
// CHECK-NEXT:  fn kiln_isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
// CHECK-EMPTY:
// CHECK-NEXT:  fn kiln_max_f32(a: f32, b: f32) -> f32 {
// CHECK-NEXT:    if (kiln_isnan_f32(b)) { return b; }
// CHECK-NEXT:    return select(b, a, a > b || kiln_isnan_f32(a));
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  // @rows: dispatch_workgroups(ceildiv(M, 64), 1, 1)
// CHECK-NEXT:  @group(0) @binding(0) var<storage, read_write> rows_x: array<f32>;
// CHECK-NEXT:  @group(0) @binding(1) var<storage, read_write> rows_out: array<f32>;
// CHECK-NEXT:  struct rows_Params { M: i32, K: i32 }
// CHECK-NEXT:  @group(0) @binding(2) var<uniform> rows_params: rows_Params;
// CHECK-NEXT:  var<workgroup> rows_tile: array<f32, 64>;
// CHECK-EMPTY:
// CHECK-NEXT:  @compute @workgroup_size(64, 1, 1)
// CHECK-NEXT:  fn rows(@builtin(local_invocation_id) local_invocation_id: vec3<u32>, @builtin(workgroup_id) workgroup_id: vec3<u32>) {
// CHECK-NEXT:    let g = i32(workgroup_id.x);
// CHECK-NEXT:    let l = i32(local_invocation_id.x);
// CHECK-NEXT:    let base = g * 64i;
// CHECK-NEXT:    let i = base + l;
// CHECK-NEXT:    let inside = i < rows_params.M;
// CHECK-NEXT:    if (inside) {
// CHECK-NEXT:      var acc: f32 = bitcast<f32>(0xff800000u);
// CHECK-NEXT:      for (var k: i32 = 0i; k < rows_params.K; k++) {
// CHECK-NEXT:        let row = i * rows_params.K;
// CHECK-NEXT:        let at = row + k;
// CHECK-NEXT:        let safe = select(0i, at, inside);
// CHECK-NEXT:        let v = rows_x[safe];
// CHECK-NEXT:        let cur = acc;
// CHECK-NEXT:        let nxt = kiln_max_f32(cur, v);
// CHECK-NEXT:        acc = nxt;
// CHECK-NEXT:      }
// CHECK-NEXT:      let s = acc;
// CHECK-NEXT:      rows_tile[l] = s;
// CHECK-NEXT:    }
// CHECK-NEXT:    workgroupBarrier();
// CHECK-NEXT:    let t = rows_tile[l];
// CHECK-NEXT:    let neg = t * (-1.5f);
// CHECK-NEXT:    let safe_0 = select(0i, i, inside);
// CHECK-NEXT:    rows_out[safe_0] = neg;
// CHECK-NEXT:  }
wgsl.entry @rows(%x: !wgsl.storage<f32>, %out: !wgsl.storage<f32>, %M: i32, %K: i32) workgroup_size(64, 1, 1)
    attributes {global_size = ["ceildiv(M, 64)", "1", "1"], local_size = [64 : i64, 1 : i64, 1 : i64], symbols = ["M", "K"]} {
  %tile = wgsl.workgroup_array : !wgsl.workgroup<f32, 64>
  %gid = wgsl.builtin workgroup_id.x
  %g = wgsl.convert %gid : ui32 -> i32
  %lid = wgsl.builtin local_invocation_id.x
  %l = wgsl.convert %lid : ui32 -> i32
  %c0 = wgsl.literal 0 : i32
  %c64 = wgsl.literal 64 : i32
  %ninf = wgsl.literal 0xff800000 : f32
  %base = wgsl.binary "*" %g, %c64 : i32
  %i = wgsl.binary "+" %base, %l : i32
  %inside = wgsl.binary "<" %i, %M : i32
  %unused = wgsl.binary "-" %i, %l : i32
  wgsl.if %inside {
    %acc = wgsl.var %ninf : f32
    wgsl.for %k = %c0 to %K : i32 {
      %row = wgsl.binary "*" %i, %K : i32
      %at = wgsl.binary "+" %row, %k : i32
      %safe = wgsl.select %inside, %at, %c0 : i32
      %v = wgsl.load %x[%safe] : f32
      %cur = wgsl.read %acc : f32
      %nxt = wgsl.call @kiln_max_f32(%cur, %v) : (f32, f32) -> f32
      wgsl.assign %acc = %nxt
    }
    %s = wgsl.read %acc : f32
    wgsl.store %tile[%l] = %s
  }
  wgsl.barrier
  %t = wgsl.load %tile[%l] : f32
  %m = wgsl.literal -1.5 : f32
  %neg = wgsl.binary "*" %t, %m : f32
  %safe = wgsl.select %inside, %i, %c0 : i32
  wgsl.store %out[%safe] = %neg
}

// A second entry may reuse binding numbers; its module-scope names carry its own prefix. It has no scalars, so
// no uniform struct; names that WGSL reserves or that are taken get a fresh one.
// CHECK:       // @copy
// CHECK-NEXT:  @group(0) @binding(0) var<storage, read_write> copy_x: array<u32>;
// CHECK-NEXT:  @group(0) @binding(1) var<storage, read_write> copy_buf1: array<i32>;
// CHECK-EMPTY:
// CHECK-NEXT:  @compute @workgroup_size(1, 1, 1)
// CHECK-NEXT:  fn copy() {
// CHECK-NEXT:    let loop_0 = copy_x[0i];
// CHECK-NEXT:    let bits0 = bitcast<i32>(loop_0);
// CHECK-NEXT:    let f32_0 = i32(-2147483648) | bits0;
// CHECK-NEXT:    let alu0 = 4294967295u - loop_0;
// CHECK-NEXT:    let alu1 = ~alu0;
// CHECK-NEXT:    let alu2 = alu1 << 3u;
// CHECK-NEXT:    let cast0 = i32(alu2);
// CHECK-NEXT:    copy_buf1[f32_0] = cast0;
// CHECK-NEXT:  }
// CHECK-NOT:   schedule
wgsl.entry @copy(%x: !wgsl.storage<ui32>, %1: !wgsl.storage<i32>) workgroup_size(1, 1, 1) {
  %c0 = wgsl.literal 0 : i32
  %min = wgsl.literal -2147483648 : i32
  %umax = wgsl.literal 4294967295 : ui32
  %three = wgsl.literal 3 : ui32
  %loop = wgsl.load %x[%c0] : ui32
  %2 = wgsl.bitcast %loop : ui32 -> i32
  %f32 = wgsl.binary "|" %min, %2 : i32
  %3 = wgsl.binary "-" %umax, %loop : ui32
  %4 = wgsl.unary "~" %3 : ui32
  %5 = wgsl.binary "<<" %4, %three : ui32
  %6 = wgsl.convert %5 : ui32 -> i32
  wgsl.store %1[%f32] = %6
}
func.func @schedule() {
  func.return
}
