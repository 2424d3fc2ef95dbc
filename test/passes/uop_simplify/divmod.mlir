// RUN: kiln-opt %s -p uop-simplify | filecheck %s
// Division and remainder by constants with the bounds of loop counters and symbols: for 0 <= k < 64,
// (i*64 + k) // 64 is i and (i*64 + k) % 64 is k; x // c is 0 and x % c is x when 0 <= x < c; a reshape's
// (x // 8) * 8 + x % 8 is x again; for N in [1, 4096], (N - 1) // 4096 is 0. A remainder that bounds cannot
// decide stays.

// CHECK-LABEL: uop.kernel @divmod
// CHECK:         %N = uop.param 1 : index
// CHECK:         %[[C0:.*]] = uop.const 0 : index
// CHECK:         %i = uop.range
// CHECK-NEXT:    %k = uop.range
// CHECK-NEXT:    %[[ROW:.*]] = uop.mul %i, %{{.*}} : index
// CHECK-NEXT:    %x = uop.add %[[ROW]], %k : index
// CHECK-NEXT:    %v1 = uop.cast %i : index -> i64
// CHECK-NEXT:    uop.store %out[%k], %v1
// CHECK-NEXT:    %v2 = uop.cast %k : index -> i64
// CHECK-NEXT:    uop.store %out[%k], %v2
// CHECK-NEXT:    %v3 = uop.cast %[[C0]] : index -> i64
// CHECK-NEXT:    uop.store %out[%k], %v3
// CHECK-NEXT:    %v4 = uop.cast %x : index -> i64
// CHECK-NEXT:    uop.store %out[%k], %v4
// CHECK-NEXT:    %[[R:.*]] = uop.mod %x, %{{.*}} : index
// CHECK-NEXT:    %v5 = uop.cast %[[R]] : index -> i64
// CHECK-NEXT:    uop.store %out[%k], %v5
// CHECK-NEXT:    uop.end %k
// CHECK-NEXT:    uop.end %i

uop.kernel @divmod attributes {graph.dims = #graph.dims<N = [1, 4096]>, symbols = ["N"]} {
  %out = uop.param 0 : !uop.ptr<i64>
  %N = uop.param 1 : index
  %c0 = uop.const 0 : index
  %c1 = uop.const 1 : index
  %c8 = uop.const 8 : index
  %c10 = uop.const 10 : index
  %c64 = uop.const 64 : index
  %c100 = uop.const 100 : index
  %c4096 = uop.const 4096 : index
  %i = uop.range %c0, %c10 : index
  %k = uop.range %c0, %c64 : index
  %i64 = uop.mul %i, %c64 : index
  %x = uop.add %i64, %k : index
  %q = uop.idiv %x, %c64 : index
  %v1 = uop.cast %q : index -> i64
  uop.store %out[%k], %v1
  %r = uop.mod %x, %c64 : index
  %kq = uop.idiv %r, %c100 : index
  %kr = uop.mod %r, %c100 : index
  %sum = uop.add %kq, %kr : index
  %v2 = uop.cast %sum : index -> i64
  uop.store %out[%k], %v2
  %n1 = uop.sub %N, %c1 : index
  %nq = uop.idiv %n1, %c4096 : index
  %v3 = uop.cast %nq : index -> i64
  uop.store %out[%k], %v3
  %x8 = uop.idiv %x, %c8 : index
  %x88 = uop.mul %x8, %c8 : index
  %xr = uop.mod %x, %c8 : index
  %back = uop.add %x88, %xr : index
  %v4 = uop.cast %back : index -> i64
  uop.store %out[%k], %v4
  %kept = uop.mod %x, %c100 : index
  %v5 = uop.cast %kept : index -> i64
  uop.store %out[%k], %v5
  uop.end %k
  uop.end %i
}
