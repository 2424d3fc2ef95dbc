// RUN: kiln-opt %s -p convert-uop-to-llvm | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-llvm -t llvm | filecheck %s --check-prefix=IR

// A loop that sets two accumulators itself (a register tile's reduce loop, here 2 rows) keeps LLVM's loop
// vectorizer off: its latch is marked, and the LLVM IR carries llvm.loop.vectorize.enable = false there. The
// outer loop sets none itself and stays unmarked, as does a loop with one accumulator (@one).
// CHECK-LABEL: llvm.func @tile
// CHECK:         llvm.br ^k_loop(%{{.*}} : i64) {kiln.no_loop_vectorize}
// CHECK-NEXT:  ^k_end:
// CHECK:         llvm.br ^i_loop(%{{.*}} : i64)
// CHECK-NOT:     kiln.no_loop_vectorize
// CHECK-NEXT:  ^i_end:
// CHECK-LABEL: llvm.func @one
// CHECK-NOT:     kiln.no_loop_vectorize
// CHECK:         llvm.return
// IR-LABEL: define void @"tile"
// IR:         br label %"k_loop", !llvm.loop ![[LOOP:[0-9]+]]
// IR:         br label %"i_loop"{{$}}
// IR-LABEL: define void @"one"
// IR-NOT:     !llvm.loop
// IR:         ret void
// IR-DAG:   ![[OFF:[0-9]+]] = !{ !"llvm.loop.vectorize.enable", i1 0 }
// IR-DAG:   ![[LOOP]] = !{ ![[LOOP]], ![[OFF]] }
uop.kernel @tile attributes {core_extent = "4", core_work = 2 : i64, symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc0 = uop.define_acc %zero : f32
  %acc1 = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %v = uop.load %x[%k] : f32
  %a0 = uop.acc_get %acc0 : f32
  %n0 = uop.add %a0, %v : f32
  uop.acc_set %acc0, %n0
  %a1 = uop.acc_get %acc1 : f32
  %n1 = uop.mul %a1, %v : f32
  uop.acc_set %acc1, %n1
  uop.end %k
  %s0 = uop.acc_get %acc0 : f32
  %s1 = uop.acc_get %acc1 : f32
  %s = uop.add %s0, %s1 : f32
  uop.store %out[%i], %s
  uop.end %i
}
uop.kernel @one attributes {core_extent = "4", core_work = 2 : i64, symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c8 : index
  %v = uop.load %x[%k] : f32
  %a = uop.acc_get %acc : f32
  %n = uop.add %a, %v : f32
  uop.acc_set %acc, %n
  uop.end %k
  %s = uop.acc_get %acc : f32
  uop.store %out[%i], %s
  uop.end %i
}
