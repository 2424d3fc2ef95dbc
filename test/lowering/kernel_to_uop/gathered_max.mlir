// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=cpu-c}" | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=cpu-llvm}" | filecheck %s --check-prefix=SCALAR
// RUN: kiln-opt %s -p "convert-kernel-to-uop{target=webgpu}" | filecheck %s --check-prefix=SCALAR
// A stride-2 max pool with 4 upcast output lanes: each lane's window element is a scalar load (the lanes are 2
// apart, no vector load). On cpu-c (no loop vectorizer) the 4 running maxima are still one vector accumulator,
// stepped by one vector max of the 4 gathered loads: gcc's scalar NaN-propagating max costs several integer
// operations per lane. On cpu-llvm they stay 4 scalar accumulators, which LLVM's vectorizers pack themselves, and
// on GPUs too.

// C-LABEL: uop.kernel @pool
// C:         %[[ACC:.*]] = uop.define_acc %{{.*}} : vector<4xf32>
// C-NOT:     uop.define_acc
// C:         %w = uop.range
// C-COUNT-4: uop.load %x[%{{.*}}] : f32
// C-NEXT:    %[[GET:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// C-NEXT:    %[[LANES:.*]] = uop.vectorize %v, %v_1, %v_2, %v_3 : vector<4xf32>
// C-NEXT:    %[[MAX:.*]] = uop.max %[[GET]], %[[LANES]] : vector<4xf32>
// C-NEXT:    uop.acc_set %[[ACC]], %[[MAX]]
// C-NEXT:    uop.end %w
// C-NEXT:    %[[M:.*]] = uop.acc_get %[[ACC]] : vector<4xf32>
// C-NEXT:    uop.store %out[%{{.*}}], %[[M]] : vector<4xf32>

// SCALAR-LABEL: uop.kernel @pool
// SCALAR-COUNT-4: uop.define_acc %{{.*}} : f32
// SCALAR:       %w = uop.range
// SCALAR-COUNT-4: uop.max %{{.*}} : f32

kernel.kernel @pool(%x: !kernel.buffer<64xf32>, %out: !kernel.buffer<31xf32>)
    attributes {symbols = [], opts = ["upcast(0,4)"]} {
  %c2 = kernel.const 2 : index
  %c3 = kernel.const 3 : index
  %c4 = kernel.const 4 : index
  %c7 = kernel.const 7 : index
  %i = kernel.range %c7 global
  %u = kernel.range %c4 upcast
  %w = kernel.range %c3 reduce
  %i4 = kernel.mul %i, %c4 : index
  %o = kernel.add %i4, %u : index
  %o2 = kernel.mul %o, %c2 : index
  %at = kernel.add %o2, %w : index
  %v = kernel.load %x[%at] : f32
  %m = kernel.reduce max %v over %w : f32
  kernel.store %out[%o], %m
}
