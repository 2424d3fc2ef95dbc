// RUN: kiln-opt %s -p uop-simplify | filecheck %s
// Constant folding, identities and reassociation of index arithmetic: x+0, x*1, x//1 are x; x*0 and x%1 are
// 0; (x+3)+4 is x+7; 2*3+1 is 7 (new constants join the others at the top). Unused ops are deleted, params
// never are.

// CHECK-LABEL: uop.kernel @fold
// CHECK-NEXT:    %out = uop.param 0 : !uop.ptr<i64>
// CHECK-NEXT:    %unused = uop.param 1 : !uop.ptr<f32>
// CHECK-NEXT:    %[[C0:.*]] = uop.const 0 : index
// CHECK-NEXT:    %[[C8:.*]] = uop.const 8 : index
// CHECK-NEXT:    %[[C7:.*]] = uop.const 7 : index
// CHECK-NEXT:    %i = uop.range %[[C0]], %[[C8]] : index
// CHECK-NEXT:    %v1 = uop.cast %i : index -> i64
// CHECK-NEXT:    uop.store %out[%i], %v1
// CHECK-NEXT:    %v2 = uop.cast %[[C0]] : index -> i64
// CHECK-NEXT:    uop.store %out[%i], %v2
// CHECK-NEXT:    %[[I7:.*]] = uop.add %i, %[[C7]] : index
// CHECK-NEXT:    %v3 = uop.cast %[[I7]] : index -> i64
// CHECK-NEXT:    uop.store %out[%i], %v3
// CHECK-NEXT:    %v4 = uop.cast %[[C7]] : index -> i64
// CHECK-NEXT:    uop.store %out[%i], %v4
// CHECK-NEXT:    uop.end %i
// CHECK-NEXT:  }

uop.kernel @fold attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<i64>
  %unused = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %c1 = uop.const 1 : index
  %c2 = uop.const 2 : index
  %c3 = uop.const 3 : index
  %c4 = uop.const 4 : index
  %c8 = uop.const 8 : index
  %i = uop.range %c0, %c8 : index
  %a = uop.add %i, %c0 : index
  %b = uop.mul %a, %c1 : index
  %d = uop.idiv %b, %c1 : index
  %v1 = uop.cast %d : index -> i64
  uop.store %out[%i], %v1
  %z = uop.mul %i, %c0 : index
  %m = uop.mod %i, %c1 : index
  %zm = uop.add %z, %m : index
  %v2 = uop.cast %zm : index -> i64
  uop.store %out[%i], %v2
  %p3 = uop.add %i, %c3 : index
  %p7 = uop.add %p3, %c4 : index
  %v3 = uop.cast %p7 : index -> i64
  uop.store %out[%i], %v3
  %six = uop.mul %c2, %c3 : index
  %seven = uop.add %six, %c1 : index
  %dead = uop.mul %seven, %i : index
  %v4 = uop.cast %seven : index -> i64
  uop.store %out[%i], %v4
  uop.end %i
}
