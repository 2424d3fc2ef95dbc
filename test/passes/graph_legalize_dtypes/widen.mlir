// RUN: kiln-opt %s --split-input-file -p 'graph-legalize-dtypes{target=webgpu}' | filecheck %s
// RUN: kiln-opt %s --split-input-file -p 'graph-legalize-dtypes{target=cpu-llvm}' | filecheck %s --check-prefix=CPU

// WGSL has no 8/16-bit integers: i8/i16 become i32, ui8/ui16 ui32. An op whose 32-bit result can leave the
// declared range (add, not on unsigned, a cast that narrows, a bitcast) is followed by its wrap: x & 0xff for
// ui8, ((x & 0xff) ^ 0x80) - 0x80 for i8; ops that stay in range (max, not on signed, a widening cast) get none.
// CHECK-LABEL: func.func @ints(%x: !graph.tensor<3xi32>, %y: !graph.tensor<3xui32>) -> (!graph.tensor<3xi32>, !graph.tensor<3xui32>, !graph.tensor<3xi32>, !graph.tensor<3xi32>, !graph.tensor<3xui32>)
// CHECK-NEXT:    %c = graph.constant 100 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %s = graph.add %x, %c : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %0 = graph.constant 255 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %1 = graph.and %s, %0 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %2 = graph.constant 128 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %3 = graph.xor %1, %2 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %s_1 = graph.sub %3, %2 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %m = graph.max %s_1, %x : (!graph.tensor<3xi32>, !graph.tensor<3xi32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %n = graph.not %m : !graph.tensor<3xi32>
// CHECK-NEXT:    %b = graph.bitcast %n : (!graph.tensor<3xi32>) -> !graph.tensor<3xui32>
// CHECK-NEXT:    %4 = graph.constant 255 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %b_1 = graph.and %b, %4 : (!graph.tensor<3xui32>, !graph.tensor<ui32>) -> !graph.tensor<3xui32>
// CHECK-NEXT:    %u = graph.not %y : !graph.tensor<3xui32>
// CHECK-NEXT:    %5 = graph.constant 255 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %u_1 = graph.and %u, %5 : (!graph.tensor<3xui32>, !graph.tensor<ui32>) -> !graph.tensor<3xui32>
// CHECK-NEXT:    %w = graph.cast %y : (!graph.tensor<3xui32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %v = graph.cast %y : (!graph.tensor<3xui32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %6 = graph.constant 255 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %7 = graph.and %v, %6 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %8 = graph.constant 128 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %9 = graph.xor %7, %8 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    %v_1 = graph.sub %9, %8 : (!graph.tensor<3xi32>, !graph.tensor<i32>) -> !graph.tensor<3xi32>
// CHECK-NEXT:    func.return %m, %b_1, %v_1, %w, %u_1 : !graph.tensor<3xi32>, !graph.tensor<3xui32>, !graph.tensor<3xi32>, !graph.tensor<3xi32>, !graph.tensor<3xui32>
// CPU-LABEL: func.func @ints(%x: !graph.tensor<3xi8>, %y: !graph.tensor<3xui8>)
// CPU-NEXT:    %c = graph.constant 100 : i8 : !graph.tensor<i8>
// CPU-NEXT:    %s = graph.add %x, %c : (!graph.tensor<3xi8>, !graph.tensor<i8>) -> !graph.tensor<3xi8>
// CPU-NEXT:    %m = graph.max
func.func @ints(%x: !graph.tensor<3xi8>, %y: !graph.tensor<3xui8>) -> (!graph.tensor<3xi8>, !graph.tensor<3xui8>, !graph.tensor<3xi8>, !graph.tensor<3xi16>, !graph.tensor<3xui8>) {
  %c = graph.constant 100 : i8 : !graph.tensor<i8>
  %s = graph.add %x, %c : (!graph.tensor<3xi8>, !graph.tensor<i8>) -> !graph.tensor<3xi8>
  %m = graph.max %s, %x : (!graph.tensor<3xi8>, !graph.tensor<3xi8>) -> !graph.tensor<3xi8>
  %n = graph.not %m : !graph.tensor<3xi8>
  %b = graph.bitcast %n : (!graph.tensor<3xi8>) -> !graph.tensor<3xui8>
  %u = graph.not %y : !graph.tensor<3xui8>
  %w = graph.cast %y : (!graph.tensor<3xui8>) -> !graph.tensor<3xi16>
  %v = graph.cast %y : (!graph.tensor<3xui8>) -> !graph.tensor<3xi8>
  func.return %m, %b, %v, %w, %u : !graph.tensor<3xi8>, !graph.tensor<3xui8>, !graph.tensor<3xi8>, !graph.tensor<3xi16>, !graph.tensor<3xui8>
}

// -----

// i16 wraps at 16 bits: a sum over an axis is wrapped once, after the reduction.
// CHECK-LABEL: func.func @sum(%x: !graph.tensor<4x5xi32>) -> !graph.tensor<4xi32>
// CHECK-NEXT:    %s = graph.reduce_sum %x {axes = array<i64: 1>} : (!graph.tensor<4x5xi32>) -> !graph.tensor<4xi32>
// CHECK-NEXT:    %0 = graph.constant 65535 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %1 = graph.and %s, %0
// CHECK-NEXT:    %2 = graph.constant 32768 : i32 : !graph.tensor<i32>
// CHECK-NEXT:    %3 = graph.xor %1, %2
// CHECK-NEXT:    %s_1 = graph.sub %3, %2
// CHECK-NEXT:    func.return %s_1 : !graph.tensor<4xi32>
func.func @sum(%x: !graph.tensor<4x5xi16>) -> !graph.tensor<4xi16> {
  %s = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : (!graph.tensor<4x5xi16>) -> !graph.tensor<4xi16>
  func.return %s : !graph.tensor<4xi16>
}

// -----

// bf16 is computed in f32 and rounded to bf16 after an op that can leave it (half to even on the bits, NaN
// kept); max selects a bf16 value and is not rounded.
// CHECK-LABEL: func.func @half(%x: !graph.tensor<3xf32>, %y: !graph.tensor<3xf32>) -> !graph.tensor<3xf32>
// CHECK-NEXT:    %s = graph.add %x, %y : (!graph.tensor<3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<3xf32>
// CHECK-NEXT:    %0 = graph.bitcast %s : (!graph.tensor<3xf32>) -> !graph.tensor<3xui32>
// CHECK-NEXT:    %1 = graph.constant 16 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %2 = graph.shr %0, %1
// CHECK-NEXT:    %3 = graph.constant 1 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %4 = graph.and %2, %3
// CHECK-NEXT:    %5 = graph.constant 32767 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %6 = graph.add %0, %5
// CHECK-NEXT:    %7 = graph.add %6, %4
// CHECK-NEXT:    %8 = graph.constant 4294901760 : ui32 : !graph.tensor<ui32>
// CHECK-NEXT:    %9 = graph.and %7, %8
// CHECK-NEXT:    %10 = graph.bitcast %9 : (!graph.tensor<3xui32>) -> !graph.tensor<3xf32>
// CHECK-NEXT:    %11 = graph.isnan %s : (!graph.tensor<3xf32>) -> !graph.tensor<3xi1>
// CHECK-NEXT:    %s_1 = graph.where %11, %s, %10
// CHECK-NEXT:    %m = graph.max %s_1, %x : (!graph.tensor<3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<3xf32>
// CHECK-NEXT:    func.return %m : !graph.tensor<3xf32>
func.func @half(%x: !graph.tensor<3xbf16>, %y: !graph.tensor<3xbf16>) -> !graph.tensor<3xbf16> {
  %s = graph.add %x, %y : (!graph.tensor<3xbf16>, !graph.tensor<3xbf16>) -> !graph.tensor<3xbf16>
  %m = graph.max %s, %x : (!graph.tensor<3xbf16>, !graph.tensor<3xbf16>) -> !graph.tensor<3xbf16>
  func.return %m : !graph.tensor<3xbf16>
}
