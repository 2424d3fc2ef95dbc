// RUN: kiln-opt %s -p convert-uop-to-cstyle | filecheck %s
// uop.reduce_lanes of a float vector C keeps as a vector (add, max, min) is the prelude's pairwise helper;
// any other is its lanes combined in the op's order: lane k with lane k + N/2, then again on the halves.

// CHECK-LABEL: cstyle.func c @reduce
// CHECK:         %v = cstyle.load
// CHECK-NEXT:    %s = cstyle.call @kiln_reduce_add_f32x8(%v) : (vector<8xf32>) -> f32
// CHECK:         %m = cstyle.call @kiln_reduce_max_f32x8(%v) : (vector<8xf32>) -> f32
// CHECK:         %w = cstyle.load
// CHECK-NEXT:    %[[W0:.*]] = cstyle.extract %w[0] : vector<4xi32>
// CHECK-NEXT:    %[[W1:.*]] = cstyle.extract %w[1] : vector<4xi32>
// CHECK-NEXT:    %[[W2:.*]] = cstyle.extract %w[2] : vector<4xi32>
// CHECK-NEXT:    %[[W3:.*]] = cstyle.extract %w[3] : vector<4xi32>
// CHECK-NEXT:    %[[A0:.*]] = cstyle.cast %[[W0]] : i32 -> ui32
// CHECK-NEXT:    %[[A2:.*]] = cstyle.cast %[[W2]] : i32 -> ui32
// CHECK-NEXT:    %[[P02:.*]] = cstyle.binary "*" %[[A0]], %[[A2]] : ui32
// CHECK-NEXT:    %[[Q02:.*]] = cstyle.cast %[[P02]] : ui32 -> i32
// CHECK-NEXT:    %[[A1:.*]] = cstyle.cast %[[W1]] : i32 -> ui32
// CHECK-NEXT:    %[[A3:.*]] = cstyle.cast %[[W3]] : i32 -> ui32
// CHECK-NEXT:    %[[P13:.*]] = cstyle.binary "*" %[[A1]], %[[A3]] : ui32
// CHECK-NEXT:    %[[Q13:.*]] = cstyle.cast %[[P13]] : ui32 -> i32
// CHECK-NEXT:    %[[B02:.*]] = cstyle.cast %[[Q02]] : i32 -> ui32
// CHECK-NEXT:    %[[B13:.*]] = cstyle.cast %[[Q13]] : i32 -> ui32
// CHECK-NEXT:    %[[P:.*]] = cstyle.binary "*" %[[B02]], %[[B13]] : ui32
// CHECK-NEXT:    %p = cstyle.cast %[[P]] : ui32 -> i32
// CHECK-NEXT:    cstyle.store %n[%c0] = %p
uop.kernel @reduce attributes {core_extent = "1", core_work = 8 : i64, symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %n = uop.param 1 : !uop.ptr<i32>
  %c0 = uop.const 0 : index
  %v = uop.load %x[%c0] : vector<8xf32>
  %s = uop.reduce_lanes add %v : vector<8xf32>
  uop.store %x[%c0], %s
  %m = uop.reduce_lanes max %v : vector<8xf32>
  uop.store %x[%c0], %m
  %w = uop.load %n[%c0] : vector<4xi32>
  %p = uop.reduce_lanes mul %w : vector<4xi32>
  uop.store %n[%c0], %p
}
