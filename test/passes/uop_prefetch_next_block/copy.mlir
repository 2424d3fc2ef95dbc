// RUN: kiln-opt %s -p uop-prefetch-next-block | filecheck %s
// A transposing copy of a 64 x 64 matrix into 2 panels of 32 columns (as attention's copy of k^T): each panel
// reads a block of 32 source rows (8 KiB) column by column, 4 lanes from rows 64 floats apart. Each iteration of
// the column loop first prefetches its 32 floats (2 lines) of the next panel's block.

// CHECK-LABEL: uop.kernel @panels
// CHECK:         %col = uop.range %c0, %c64 : index
// CHECK-NEXT:    %[[ZERO:.*]] = uop.const 0 : index
// CHECK-NEXT:    %[[ONE:.*]] = uop.const 1 : index
// CHECK-NEXT:    %[[NEXT:.*]] = uop.add %panel, %[[ONE]] : index
// CHECK-NEXT:    %[[BASE:.*]] = uop.mul %[[NEXT]], %c2048 : index
// CHECK-NEXT:    %[[ROW:.*]] = uop.mul %[[ZERO]], %c256 : index
// CHECK-NEXT:    %[[A:.*]] = uop.add %[[BASE]], %[[ROW]] : index
// CHECK-NEXT:    %[[B:.*]] = uop.add %[[A]], %[[ZERO]] : index
// CHECK-NEXT:    %[[SHARE:.*]] = uop.const 32 : index
// CHECK-NEXT:    %[[STEP:.*]] = uop.mul %col, %[[SHARE]] : index
// CHECK-NEXT:    %[[AT:.*]] = uop.add %[[B]], %[[STEP]] : index
// CHECK-NEXT:    uop.prefetch %x[%[[AT]]] : !uop.ptr<f32>
// CHECK-NEXT:    %[[LINE:.*]] = uop.const 16 : index
// CHECK-NEXT:    %[[AT2:.*]] = uop.add %[[AT]], %[[LINE]] : index
// CHECK-NEXT:    uop.prefetch %x[%[[AT2]]] : !uop.ptr<f32>
// CHECK-NEXT:    %quad = uop.range %c0, %c8 : index
// CHECK-NOT:     uop.prefetch

uop.kernel @panels attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %c4 = uop.const 4 : index
  %c8 = uop.const 8 : index
  %c32 = uop.const 32 : index
  %c64 = uop.const 64 : index
  %c128 = uop.const 128 : index
  %c192 = uop.const 192 : index
  %c256 = uop.const 256 : index
  %c2048 = uop.const 2048 : index
  %panel = uop.range %c0, %c2 : index
  %base = uop.mul %panel, %c2048 : index
  %col = uop.range %c0, %c64 : index
  %quad = uop.range %c0, %c8 : index
  %row = uop.mul %quad, %c256 : index
  %at = uop.add %base, %row : index
  %i0 = uop.add %at, %col : index
  %i1 = uop.add %i0, %c64 : index
  %i2 = uop.add %i0, %c128 : index
  %i3 = uop.add %i0, %c192 : index
  %x0 = uop.load %x[%i0] : f32
  %x1 = uop.load %x[%i1] : f32
  %x2 = uop.load %x[%i2] : f32
  %x3 = uop.load %x[%i3] : f32
  %v = uop.vectorize %x0, %x1, %x2, %x3 : vector<4xf32>
  %o0 = uop.mul %col, %c32 : index
  %o1 = uop.mul %quad, %c4 : index
  %o2 = uop.add %o0, %o1 : index
  %o3 = uop.add %base, %o2 : index
  uop.store %out[%o3], %v : vector<4xf32>
  uop.end %quad
  uop.end %col
  uop.end %panel
}
