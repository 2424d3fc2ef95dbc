// RUN: kiln-opt %s -p convert-uop-to-llvm -t llvm | filecheck %s
// The LLVM IR of a kernel: the CPU calling convention with noalias buffers, loops as phis, the accumulator as an
// entry-block alloca (O3's SROA promotes it), unaligned-safe vector accesses (align = element size), fast-math
// contract on float arithmetic and intrinsic calls, reassoc too on the accumulator's update. The schedule function
// is not emitted. Each kernel is followed by its uniform entry.

// CHECK-NOT:   @schedule
// CHECK-LABEL: define void @"vsum"(ptr noalias %"x", ptr noalias %"out", i64 %"N", i64 %"core_start", i64 %"core_end")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    %"acc" = alloca <8 x float>, i32 1, align 32
// CHECK-NEXT:    br label %"i_loop"
// CHECK-NEXT:  i_loop:
// CHECK-NEXT:    %"i" = phi  i64 [%"core_start", %"entry"], [%[[NEXT:.*]], %"k_end"]
// CHECK-NEXT:    %[[MORE:.*]] = icmp slt i64 %"i", %"core_end"
// CHECK-NEXT:    br i1 %[[MORE]], label %"i_body", label %"i_end"
// CHECK-NEXT:  i_body:
// CHECK-NEXT:    store <8 x float> <float {{ *}}0x0, {{.*}}>, ptr %"acc", align 32
// CHECK:       k_body:
// CHECK:         %[[P:.*]] = getelementptr inbounds float, ptr %"x", i64 %"at"
// CHECK-NEXT:    %"v" = load <8 x float>, ptr %[[P]], align 4
// CHECK-NEXT:    %"cur" = load <8 x float>, ptr %"acc", align 32
// CHECK-NEXT:    %"nxt" = fadd contract reassoc <8 x float> %"cur", %"v"
// CHECK-NEXT:    store <8 x float> %"nxt", ptr %"acc", align 32
// CHECK:       k_end:
// CHECK-NEXT:    %"s" = load <8 x float>, ptr %"acc", align 32
// CHECK-NEXT:    %"r" = call contract <8 x float> @"llvm.sqrt.v8f32"(<8 x float> %"s")
// CHECK:         store <8 x float> %"r", ptr %{{.*}}, align 4
// CHECK:       i_end:
// CHECK-NEXT:    ret void
// CHECK-NEXT:  }
// Its uniform entry for the native runner: each argument from a pointer-sized slot, then a tail call.
// CHECK-LABEL: define void @"vsum__entry"(ptr %"args", i64 %"lo", i64 %"hi")
// CHECK:         load ptr, ptr
// CHECK:         load ptr, ptr
// CHECK:         [[N:%".*"]] = load i64, ptr
// CHECK-NEXT:    tail call void @"vsum"(ptr {{.*}}, ptr {{.*}}, i64 [[N]], i64 %"lo", i64 %"hi") noinline
// CHECK-NEXT:    ret void
// CHECK:       declare <8 x float> @"llvm.sqrt.v8f32"(<8 x float>
uop.kernel @vsum attributes {core_extent = "N", core_work = 16 : i64, symbols = ["N"]} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %N = uop.param 2 : index
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c8 = uop.const 8 : index
  %c4 = uop.const 4 : index
  %zero = uop.const dense<0.000000e+00> : vector<8xf32>
  %i = uop.range %lo, %hi : index
  %acc = uop.define_acc %zero : vector<8xf32>
  %k = uop.range %c0, %c4 : index
  %row = uop.mul %i, %c4 : index
  %blk = uop.add %row, %k : index
  %at = uop.mul %blk, %c8 : index
  %v = uop.load %x[%at] : vector<8xf32>
  %cur = uop.acc_get %acc : vector<8xf32>
  %nxt = uop.add %cur, %v : vector<8xf32>
  uop.acc_set %acc, %nxt
  uop.end %k
  %s = uop.acc_get %acc : vector<8xf32>
  %r = uop.sqrt %s : vector<8xf32>
  %o = uop.mul %i, %c8 : index
  uop.store %out[%o], %r : vector<8xf32>
  uop.end %i
}

func.func @schedule(%x: !kernel.buffer<4xf32>) {
  func.return
}
