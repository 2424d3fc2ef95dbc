// RUN: kiln-opt %s -p convert-uop-to-llvm | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-llvm | kiln-opt | filecheck %s
// A uop kernel becomes an llvm.func with the CPU calling convention (params in index order, buffers as noalias
// pointers, index as i64, then core_start/core_end) and the kernel's attributes; loops become header blocks whose
// argument is the counter, accumulators become entry-block allocas, gated loads and stores branch. The schedule
// func.func is left as it is.

// CHECK-LABEL: llvm.func @rows(%x: !llvm.ptr {llvm.noalias}, %out: !llvm.ptr {llvm.noalias}, %K: i64, %core_start: i64, %core_end: i64)
// CHECK-SAME:      attributes {core_extent = "M", core_work = 2 : i64, symbols = ["M", "K"]} {
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %acc = llvm.alloca %[[ONE]] x f32 {alignment = 4 : i64} : (i32) -> !llvm.ptr
// CHECK-NEXT:    %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %zero = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:    llvm.br ^i_loop(%core_start : i64)
// CHECK-NEXT:  ^i_loop(%i: i64):
// CHECK-NEXT:    %[[MORE:.*]] = llvm.icmp "slt" %i, %core_end : i64
// CHECK-NEXT:    llvm.cond_br %[[MORE]], ^i_body, ^i_end
// CHECK-NEXT:  ^i_body:
// CHECK-NEXT:    llvm.store %zero, %acc {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^k_loop(%c0 : i64)
// CHECK-NEXT:  ^k_loop(%k: i64):
// CHECK-NEXT:    %[[KMORE:.*]] = llvm.icmp "slt" %k, %K : i64
// CHECK-NEXT:    llvm.cond_br %[[KMORE]], ^k_body, ^k_end
// CHECK-NEXT:  ^k_body:
// CHECK-NEXT:    %row = llvm.mul %i, %K : i64
// CHECK-NEXT:    %at = llvm.add %row, %k : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %x[%at] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %v = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %cur = llvm.load %acc {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %nxt = llvm.fadd %cur, %v {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
// CHECK-NEXT:    llvm.store %nxt, %acc {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    %[[STEP:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    %[[NEXT:.*]] = llvm.add %k, %[[STEP]] : i64
// CHECK-NEXT:    llvm.br ^k_loop(%[[NEXT]] : i64)
// CHECK-NEXT:  ^k_end:
// CHECK-NEXT:    %s = llvm.load %acc {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[Q:.*]] = llvm.getelementptr inbounds %out[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %s, %[[Q]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK:         llvm.br ^i_loop
// CHECK-NEXT:  ^i_end:
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
uop.kernel @rows attributes {core_extent = "M", core_work = 2 : i64, symbols = ["M", "K"]} {
  %K = uop.param 2 : index
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %K : index
  %row = uop.mul %i, %K : index
  %at = uop.add %row, %k : index
  %v = uop.load %x[%at] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %v : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %s = uop.acc_get %acc : f32
  uop.store %out[%i], %s
  uop.end %i
}

// A max (or min) that updates an accumulator also carries nsz (which zero wins is as unspecified as the
// reduction's order; x86 then skips ordering -0 below +0); any other max keeps contract alone.
// CHECK-LABEL: llvm.func @row_max
// CHECK:         %m = llvm.call_intrinsic "llvm.maximum.f32"(%{{.*}}, %{{.*}}) {fastmathFlags = #llvm.fastmath<reassoc,nsz,contract>} : (f32, f32) -> f32
// CHECK:         %relu = llvm.call_intrinsic "llvm.maximum.f32"(%{{.*}}, %{{.*}}) {fastmathFlags = #llvm.fastmath<contract>} : (f32, f32) -> f32
uop.kernel @row_max {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %low = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %acc = uop.define_acc %low : f32
  %k = uop.range %c0, %c8 : index
  %v = uop.load %x[%k] : f32
  %cur = uop.acc_get %acc : f32
  %m = uop.max %cur, %v : f32
  uop.acc_set %acc, %m
  uop.end %k
  %s = uop.acc_get %acc : f32
  %relu = uop.max %s, %zero : f32
  uop.store %out[%c0], %relu
}

// A gated load branches around the load and merges 0 or the loaded value in a block argument; a gated store and
// a uop.if branch around the store.
// CHECK-LABEL: llvm.func @gates(%x{{.*}}: !llvm.ptr {llvm.noalias}, %flags: !llvm.ptr {llvm.noalias}, %core_start{{.*}}: i64, %core_end{{.*}}: i64) {
// CHECK:         %ok = llvm.icmp "slt" %[[I:.*]], %c4 : i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:    llvm.cond_br %ok, ^load, ^loaded(%[[ZERO]] : f32)
// CHECK-NEXT:  ^load:
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %x{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[P]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.br ^loaded(%[[V]] : f32)
// CHECK-NEXT:  ^loaded(%[[LOADED:.*]]: f32):
// CHECK-NEXT:    llvm.cond_br %ok, ^store, ^stored
// CHECK-NEXT:  ^store:
// CHECK-NEXT:    %[[Q:.*]] = llvm.getelementptr inbounds %x{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.store %[[LOADED]], %[[Q]] {alignment = 4 : i64} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.br ^stored
// CHECK-NEXT:  ^stored:
// CHECK-NEXT:    llvm.cond_br %ok, ^then, ^endif
// CHECK-NEXT:  ^then:
// Bools are bytes in memory: a loaded i8 is compared with 0, a stored i1 is zero-extended.
// CHECK-NEXT:    %[[BP:.*]] = llvm.getelementptr inbounds %flags[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[B:.*]] = llvm.load %[[BP]] {alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:    %[[B0:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT:    %flag = llvm.icmp "ne" %[[B]], %[[B0]] : i8
// CHECK-NEXT:    %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %flip = llvm.xor %flag, %[[TRUE]] : i1
// CHECK-NEXT:    %[[BYTE:.*]] = llvm.zext %flip : i1 to i8
// CHECK-NEXT:    %[[BQ:.*]] = llvm.getelementptr inbounds %flags[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[BYTE]], %[[BQ]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-NEXT:    llvm.br ^endif
// CHECK-NEXT:  ^endif:
uop.kernel @gates {
  %x = uop.param 0 : !uop.ptr<f32>
  %flags = uop.param 1 : !uop.ptr<i1>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c4 = uop.const 4 : index
  %i = uop.range %lo, %hi : index
  %ok = uop.cmplt %i, %c4 : index
  %v = uop.load %x[%i], %ok : f32
  uop.store %x[%i], %v, %ok
  uop.if %ok
  %flag = uop.load %flags[%i] : i1
  %flip = uop.not %flag : i1
  uop.store %flags[%i], %flip
  uop.endif
  uop.end %i
}

// CHECK-LABEL: func.func @schedule(%x{{.*}}: !kernel.buffer<4xf32>) {
// CHECK-NEXT:    func.return
func.func @schedule(%x: !kernel.buffer<4xf32>) {
  func.return
}
