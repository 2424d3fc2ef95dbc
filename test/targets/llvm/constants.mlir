// RUN: kiln-opt %s -t llvm | filecheck %s
// Constants of every kind the conversion produces: integers printed signed (the bit pattern of unsigned
// values), i1 as true/false, bf16 in LLVM's 0xR form, vector splats, NaN and infinity as hex bit patterns.

// CHECK-LABEL: define void @"constants"(ptr %"p")
// CHECK:         store i32 -1, ptr %"p", align 4
// CHECK-NEXT:    store i8 -128, ptr %"p", align 1
// CHECK-NEXT:    store i1 true, ptr %"p", align 1
// CHECK-NEXT:    store bfloat 0xR3FC0, ptr %"p", align 2
// CHECK-NEXT:    store half {{ *}}0x3ff8000000000000, ptr %"p", align 2
// CHECK-NEXT:    store float {{ *}}0x7ff0000000000000, ptr %"p", align 4
// CHECK-NEXT:    store double {{ *}}0x7ff8000000000000, ptr %"p", align 8
// CHECK-NEXT:    store <4 x i16> <i16 -1, i16 -1, i16 -1, i16 -1>, ptr %"p", align 2
// CHECK-NEXT:    store <2 x bfloat> <bfloat 0xR3F80, bfloat 0xRC000>, ptr %"p", align 2
// CHECK-NEXT:    ret void
llvm.func @constants(%p: !llvm.ptr) {
  %u32 = llvm.mlir.constant(4294967295 : i32) : i32
  %u8 = llvm.mlir.constant(128 : i8) : i8
  %t = llvm.mlir.constant(true) : i1
  %bf = llvm.mlir.constant(1.500000e+00 : bf16) : bf16
  %h = llvm.mlir.constant(1.500000e+00 : f16) : f16
  %inf = llvm.mlir.constant(0x7F800000 : f32) : f32
  %nan = llvm.mlir.constant(0x7FF8000000000000 : f64) : f64
  %v = llvm.mlir.constant(dense<65535> : vector<4xi16>) : vector<4xi16>
  %w = llvm.mlir.constant(dense<[1.000000e+00, -2.000000e+00]> : vector<2xbf16>) : vector<2xbf16>
  llvm.store %u32, %p {alignment = 4 : i64} : i32, !llvm.ptr
  llvm.store %u8, %p {alignment = 1 : i64} : i8, !llvm.ptr
  llvm.store %t, %p {alignment = 1 : i64} : i1, !llvm.ptr
  llvm.store %bf, %p {alignment = 2 : i64} : bf16, !llvm.ptr
  llvm.store %h, %p {alignment = 2 : i64} : f16, !llvm.ptr
  llvm.store %inf, %p {alignment = 4 : i64} : f32, !llvm.ptr
  llvm.store %nan, %p {alignment = 8 : i64} : f64, !llvm.ptr
  llvm.store %v, %p {alignment = 2 : i64} : vector<4xi16>, !llvm.ptr
  llvm.store %w, %p {alignment = 2 : i64} : vector<2xbf16>, !llvm.ptr
  llvm.return
}
