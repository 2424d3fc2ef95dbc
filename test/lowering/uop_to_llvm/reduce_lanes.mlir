// RUN: kiln-opt %s -p convert-uop-to-llvm | filecheck %s
// uop.reduce_lanes is the upper half of the lanes combined onto the lower half until one lane is left: two
// shufflevectors and the ALU op on vectors half as wide per step, the last step on the two scalar lanes. A max
// is llvm.maximum at every step (nan propagates), an integer sum a plain add.

// CHECK-LABEL: llvm.func @sum
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK-NEXT:    %[[LO4:.*]] = llvm.shufflevector %[[V]], %[[V]] [0, 1, 2, 3] : vector<8xf32>
// CHECK-NEXT:    %[[HI4:.*]] = llvm.shufflevector %[[V]], %[[V]] [4, 5, 6, 7] : vector<8xf32>
// CHECK-NEXT:    %[[S4:.*]] = llvm.fadd %[[LO4]], %[[HI4]] {fastmathFlags = #llvm.fastmath<contract>} : vector<4xf32>
// CHECK-NEXT:    %[[LO2:.*]] = llvm.shufflevector %[[S4]], %[[S4]] [0, 1] : vector<4xf32>
// CHECK-NEXT:    %[[HI2:.*]] = llvm.shufflevector %[[S4]], %[[S4]] [2, 3] : vector<4xf32>
// CHECK-NEXT:    %[[S2:.*]] = llvm.fadd %[[LO2]], %[[HI2]] {fastmathFlags = #llvm.fastmath<contract>} : vector<2xf32>
// CHECK-NEXT:    %[[LO1:.*]] = llvm.shufflevector %[[S2]], %[[S2]] [0] : vector<2xf32>
// CHECK-NEXT:    %[[HI1:.*]] = llvm.shufflevector %[[S2]], %[[S2]] [1] : vector<2xf32>
// CHECK-NEXT:    %[[A:.*]] = llvm.bitcast %[[LO1]] : vector<1xf32> to f32
// CHECK-NEXT:    %[[B:.*]] = llvm.bitcast %[[HI1]] : vector<1xf32> to f32
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[A]], %[[B]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK:         llvm.store %[[S]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr
uop.kernel @sum attributes {core_extent = "1", core_work = 8 : i64, symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %v = uop.load %x[%c0] : vector<8xf32>
  %s = uop.reduce_lanes add %v : vector<8xf32>
  uop.store %out[%c0], %s
}

// CHECK-LABEL: llvm.func @extremes
// CHECK:         llvm.call_intrinsic "llvm.maximum.v2f32"
// CHECK:         llvm.call_intrinsic "llvm.maximum.f32"
// CHECK:         llvm.add %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK:         llvm.add %{{.*}}, %{{.*}} : i32
uop.kernel @extremes attributes {core_extent = "1", core_work = 8 : i64, symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %n = uop.param 1 : !uop.ptr<i32>
  %c0 = uop.const 0 : index
  %v = uop.load %x[%c0] : vector<4xf32>
  %m = uop.reduce_lanes max %v : vector<4xf32>
  uop.store %x[%c0], %m
  %w = uop.load %n[%c0] : vector<4xi32>
  %t = uop.reduce_lanes add %w : vector<4xi32>
  uop.store %n[%c0], %t
}
