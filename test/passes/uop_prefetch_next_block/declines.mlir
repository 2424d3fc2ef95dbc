// RUN: kiln-opt %s -p uop-prefetch-next-block | filecheck %s
// What the pass leaves alone: each kernel is @panels of copy.mlir with one condition broken (docs in
// passes/uop_prefetch_next_block.py), and nothing is prefetched.
// CHECK-NOT: uop.prefetch

// Lanes 1 float apart, a contiguous read the hardware prefetches.
uop.kernel @contiguous_lanes attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c1 = uop.const 1 : index
  %c2 = uop.const 2 : index
  %c3 = uop.const 3 : index
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
  %i1 = uop.add %i0, %c1 : index
  %i2 = uop.add %i0, %c2 : index
  %i3 = uop.add %i0, %c3 : index
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

// Panels 4096 floats apart: each reads 2048 of them, not one dense block after the other.
uop.kernel @gaps attributes {symbols = []} {
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
  %c4096 = uop.const 4096 : index
  %panel = uop.range %c0, %c2 : index
  %base = uop.mul %panel, %c4096 : index
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

// The kernel writes the buffer it reads.
uop.kernel @in_place attributes {symbols = []} {
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
  uop.store %x[%o3], %v : vector<4xf32>
  uop.end %quad
  uop.end %col
  uop.end %panel
}
