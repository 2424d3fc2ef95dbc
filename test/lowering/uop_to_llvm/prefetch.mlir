// RUN: kiln-opt %s -p convert-uop-to-llvm -t llvm | filecheck %s
// uop.prefetch becomes llvm.prefetch (read, locality 3, data) of a getelementptr without inbounds: the element
// may lie past the buffer (the row after a thread's last row).

// CHECK-LABEL: define void @"ahead"
// CHECK:         %[[P:.*]] = getelementptr float, ptr %"x", i64 %"i"
// CHECK-NEXT:    call void @"llvm.prefetch.p0"(ptr %[[P]], i32 0, i32 3, i32 1)
// CHECK:       declare void @"llvm.prefetch.p0"(ptr %".1", i32 %".2", i32 %".3", i32 %".4")

uop.kernel @ahead attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %i = uop.param 1 : index
  uop.prefetch %x[%i] : !uop.ptr<f32>
}
