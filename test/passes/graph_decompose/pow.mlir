// RUN: kiln-opt %s --split-input-file -p graph-decompose | filecheck %s

// LRN's ** 0.75: sqrt(x) * sqrt(sqrt(x)), then numpy's special values: ±0 -> +0, -inf -> +inf.
// CHECK-LABEL: func.func @three_quarters
// CHECK-NEXT:    %c = graph.constant 7.500000e-01
// CHECK-NEXT:    %[[S:.*]] = graph.sqrt %x : !graph.tensor<4x8xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.sqrt %[[S]] : !graph.tensor<4x8xf32>
// CHECK-NEXT:    %[[P:.*]] = graph.mul %[[S]], %[[Q]]
// CHECK-NEXT:    %[[Z:.*]] = graph.constant 0.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[ISZ:.*]] = graph.eq %x, %[[Z]]
// CHECK-NEXT:    %[[Z2:.*]] = graph.constant 0.000000e+00 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[P2:.*]] = graph.where %[[ISZ]], %[[Z2]], %[[P]]
// CHECK-NEXT:    %[[NINF:.*]] = graph.constant 0xff800000 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %[[ISNINF:.*]] = graph.eq %x, %[[NINF]]
// CHECK-NEXT:    %[[INF:.*]] = graph.constant 0x7f800000 : f32 : !graph.tensor<f32>
// CHECK-NEXT:    %r = graph.where %[[ISNINF]], %[[INF]], %[[P2]]
// CHECK-NEXT:    func.return %r
func.func @three_quarters(%x: !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32> {
  %c = graph.constant 7.500000e-01 : f32 : !graph.tensor<f32>
  %r = graph.pow %x, %c : (!graph.tensor<4x8xf32>, !graph.tensor<f32>) -> !graph.tensor<4x8xf32>
  func.return %r : !graph.tensor<4x8xf32>
}

// -----

// A whole exponent: squaring, no special-value selects; f16 computes in f32 and casts back.
// CHECK-LABEL: func.func @cube
// CHECK-NEXT:    %c = graph.constant 3.000000e+00
// CHECK-NEXT:    %[[X:.*]] = graph.cast %x : (!graph.tensor<8xf16>) -> !graph.tensor<8xf32>
// CHECK-NEXT:    %[[SQ:.*]] = graph.mul %[[X]], %[[X]]
// CHECK-NEXT:    %[[CU:.*]] = graph.mul %[[X]], %[[SQ]]
// CHECK-NEXT:    %r = graph.cast %[[CU]] : (!graph.tensor<8xf32>) -> !graph.tensor<8xf16>
// CHECK-NEXT:    func.return %r
func.func @cube(%x: !graph.tensor<8xf16>) -> !graph.tensor<8xf16> {
  %c = graph.constant 3.000000e+00 : f16 : !graph.tensor<f16>
  %r = graph.pow %x, %c : (!graph.tensor<8xf16>, !graph.tensor<f16>) -> !graph.tensor<8xf16>
  func.return %r : !graph.tensor<8xf16>
}

// -----

// A negative exponent is the reciprocal; 0.5 is sqrt with C pow's special values whatever the exponent's shape.
// CHECK-LABEL: func.func @roots
// CHECK:         %[[S:.*]] = graph.sqrt %x : !graph.tensor<8xf32>
// CHECK:         %[[Z:.*]] = graph.where %{{.*}}, %{{.*}}, %[[S]]
// CHECK:         %[[W:.*]] = graph.where %{{.*}}, %{{.*}}, %[[Z]]
// CHECK-NEXT:    %a = graph.reciprocal %[[W]]
// CHECK:         %[[S1:.*]] = graph.sqrt %x : !graph.tensor<8xf32>
// CHECK:         %[[Z1:.*]] = graph.where %{{.*}}, %{{.*}}, %[[S1]]
// CHECK:         %b = graph.where %{{.*}}, %{{.*}}, %[[Z1]]
// CHECK:         %[[S2:.*]] = graph.sqrt %x : !graph.tensor<8xf32>
// CHECK:         %[[Z2:.*]] = graph.where %{{.*}}, %{{.*}}, %[[S2]]
// CHECK:         %c = graph.where %{{.*}}, %{{.*}}, %[[Z2]]
// CHECK-NEXT:    func.return %a, %b, %c
func.func @roots(%x: !graph.tensor<8xf32>) -> (!graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>) {
  %m = graph.constant -5.000000e-01 : f32 : !graph.tensor<f32>
  %a = graph.pow %x, %m : (!graph.tensor<8xf32>, !graph.tensor<f32>) -> !graph.tensor<8xf32>
  %h = graph.constant 5.000000e-01 : f32 : !graph.tensor<f32>
  %b = graph.pow %x, %h : (!graph.tensor<8xf32>, !graph.tensor<f32>) -> !graph.tensor<8xf32>
  %hs = graph.constant 5.000000e-01 : f32 : !graph.tensor<8xf32>
  %c = graph.pow %x, %hs : (!graph.tensor<8xf32>, !graph.tensor<8xf32>) -> !graph.tensor<8xf32>
  func.return %a, %b, %c : !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>
}

// -----

// Kept: an exponent that is not a quarter, beyond 4, below -1, or not a constant; or x broadcast by the exponent.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: graph.pow
// CHECK-NOT:     graph.sqrt
// CHECK-NOT:     graph.mul
func.func @kept(%x: !graph.tensor<8xf32>, %y: !graph.tensor<8xf32>) -> (!graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<2x8xf32>) {
  %third = graph.constant 3.333333e-01 : f32 : !graph.tensor<f32>
  %a = graph.pow %x, %third : (!graph.tensor<8xf32>, !graph.tensor<f32>) -> !graph.tensor<8xf32>
  %five = graph.constant 5.000000e+00 : f32 : !graph.tensor<f32>
  %b = graph.pow %x, %five : (!graph.tensor<8xf32>, !graph.tensor<f32>) -> !graph.tensor<8xf32>
  %m2 = graph.constant -2.000000e+00 : f32 : !graph.tensor<f32>
  %c = graph.pow %x, %m2 : (!graph.tensor<8xf32>, !graph.tensor<f32>) -> !graph.tensor<8xf32>
  %d = graph.pow %x, %y : (!graph.tensor<8xf32>, !graph.tensor<8xf32>) -> !graph.tensor<8xf32>
  %two = graph.constant 2.000000e+00 : f32 : !graph.tensor<2x8xf32>
  %e = graph.pow %x, %two : (!graph.tensor<8xf32>, !graph.tensor<2x8xf32>) -> !graph.tensor<2x8xf32>
  func.return %a, %b, %c, %d, %e : !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<8xf32>, !graph.tensor<2x8xf32>
}
