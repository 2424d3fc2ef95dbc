// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"},convert-kernel-to-uop{target=cuda}' | filecheck %s
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"},convert-kernel-to-uop{target=cuda},uop-simplify,convert-uop-to-ptx' | filecheck %s --check-prefix=PTX
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"},convert-kernel-to-uop{target=cuda},uop-simplify,convert-uop-to-ptx' -t ptx | python -c "import sys; from kiln.targets.ptx.toolchain import validate; validate(sys.stdin.read())"
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="tc:0:0"},convert-kernel-to-uop{target=cpu-llvm}' | filecheck %s --check-prefix=CPU
// Tensor cores (lowering/linearize/tensor_core.py): the tc opt splits M by 16, N by 8 (upcast) and K by 16
// (unroll) and marks the reduce; the linearizer spreads each 16x8x16 tile over a warp. local_size.x is 32 (the
// lanes; g = lane / 4, t = lane % 4), each K iteration loads the lane's 8 A and 4 B elements (the mma.m16n8k16
// layout), vectorizes them into fragments and runs uop.wmma on the vector<4xf32> accumulator; after the loop
// each lane extracts its 4 C elements and stores them at its (m, n) = (g + 8*(e/2), 2*t + e%2). Elements 2i and
// 2i+1 that are neighbours in memory (A's along k, C's along n; not B's here) are one vector access.

// CHECK-LABEL: uop.kernel @hmm
// CHECK-SAME:    global_size = ["2", "2", "1"], local_size = [32 : i64, 1 : i64, 1 : i64]
// CHECK:         %[[LID:.*]] = uop.special local_id.x : index
// CHECK:         %[[ZERO:.*]] = uop.const dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[ACC:.*]] = uop.define_acc %[[ZERO]] : vector<4xf32>
// CHECK:         %[[LANE:.*]] = uop.mod %[[LID]], %{{.*}} : index
// CHECK:         %[[G:.*]] = uop.idiv %[[LANE]], %{{.*}} : index
// CHECK:         %[[T:.*]] = uop.mod %[[LANE]], %{{.*}} : index
// CHECK:         %k = uop.range %{{.*}}, %{{.*}} : index
// CHECK:           %[[C:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// CHECK-COUNT-4:   uop.load %a[%{{.*}}] : vector<2xf16>
// CHECK-COUNT-4:   uop.load %b[%{{.*}}] : f16
// CHECK:           %[[FA:.*]] = uop.vectorize %x, %x_1, %x_2, %x_3, %x_4, %x_5, %x_6, %x_7 : vector<8xf16>
// CHECK-NEXT:      %[[FB:.*]] = uop.vectorize %y, %y_1, %y_2, %y_3 : vector<4xf16>
// CHECK-NEXT:      %[[D:.*]] = uop.wmma %[[FA]], %[[FB]], %[[C]] {m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
// CHECK-NEXT:      uop.acc_set %[[ACC]], %[[D]]
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    %[[SUM:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = uop.extract %[[SUM]][0] : vector<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = uop.extract %[[SUM]][1] : vector<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = uop.extract %[[SUM]][2] : vector<4xf32>
// CHECK-NEXT:    %[[E3:.*]] = uop.extract %[[SUM]][3] : vector<4xf32>
// CHECK-NEXT:    %[[V01:.*]] = uop.vectorize %[[E0]], %[[E1]] : vector<2xf32>
// CHECK-NEXT:    %[[V23:.*]] = uop.vectorize %[[E2]], %[[E3]] : vector<2xf32>
// CHECK-NEXT:    uop.store %out[%io], %[[V01]] : vector<2xf32>
// CHECK-NEXT:    uop.store %out[%{{.*}}], %[[V23]] : vector<2xf32>
// CHECK-NEXT:  }

// The fragments are packed two halves to a .b32 register (A in 4, B in 2) for mma.sync.
// PTX:         ptx.entry @hmm(p0_a: u64, p1_b: u64, p2_out: u64) maxntid(32, 1, 1)
// PTX-COUNT-6: ptx.pack %{{.*}}, %{{.*}} : !ptx.reg<b32>
// PTX-NEXT:    ptx.mma m16n8k16.row.col.f32.f16.f16.f32 {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}}, {%{{.*}}, %{{.*}}}, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}}

// A CPU has no tensor cores: the mark is ignored and one thread computes the tile (the kernel's meaning), in 128
// f32 accumulators, the lanes of vector accumulators as wide as the host's vectors.
// CPU-LABEL:      uop.kernel @hmm
// CPU-NOT:        uop.wmma
// CPU:            uop.define_acc %{{.*}} : vector<{{[0-9]+}}xf32>
// CPU-NOT:        uop.define_acc %{{.*}} : f32
// CPU-NOT:        uop.wmma

kernel.kernel @hmm(%a: !kernel.buffer<32x64xf16>, %b: !kernel.buffer<64x16xf16>, %out: !kernel.buffer<32x16xf32>) attributes {symbols = []} {
  %c16 = kernel.const 16 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c32 global
  %j = kernel.range %c16 global
  %k = kernel.range %c64 reduce
  %i64 = kernel.mul %i, %c64 : index
  %ia = kernel.add %i64, %k : index
  %k16 = kernel.mul %k, %c16 : index
  %ib = kernel.add %k16, %j : index
  %x = kernel.load %a[%ia] : f16
  %y = kernel.load %b[%ib] : f16
  %xf = kernel.cast %x : f16 -> f32
  %yf = kernel.cast %y : f16 -> f32
  %p = kernel.mul %xf, %yf : f32
  %s = kernel.reduce add %p over %k : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %j : index
  kernel.store %out[%io], %s
}
