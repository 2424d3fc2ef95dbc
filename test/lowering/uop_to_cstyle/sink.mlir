// RUN: kiln-opt %s -p convert-uop-to-cstyle | filecheck %s
// RUN: kiln-opt %s -p convert-uop-to-cstyle -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// REQUIRES: cc
// A value computed before a loop and used only after it moves down past the loop (gcc would hold it in a
// register across the loop): pure expressions and loads through a const pointer. A load of a buffer the kernel
// stores to, and a value the loop uses, stay where they are.

// The bias and its broadcast move after the reduce loop; the load of the output buffer stays before it.
// CHECK-LABEL: cstyle.func c @epilogue(
// CHECK:         %old = cstyle.load %out[%i] : f32
// CHECK-NEXT:    %[[ACC:.*]] = cstyle.decl
// CHECK-NEXT:    cstyle.for %k =
// CHECK:         }
// CHECK-NEXT:    %sum = cstyle.read %[[ACC]] : vector<8xf32>
// CHECK-NEXT:    %bias = cstyle.load %b[%i] : f32
// CHECK-NEXT:    %bb = cstyle.vector %bias, %bias, %bias, %bias, %bias, %bias, %bias, %bias : vector<8xf32>
// CHECK-NEXT:    %biased = cstyle.binary "+" %sum, %bb : vector<8xf32>
uop.kernel @epilogue attributes {symbols = []} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 1 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c64 = uop.const 64 : index
  %zero = uop.const dense<0.000000e+00> : vector<8xf32>
  %i = uop.range %lo, %hi : index
  %bias = uop.load %b[%i] : f32
  %bb = uop.vectorize %bias, %bias, %bias, %bias, %bias, %bias, %bias, %bias : vector<8xf32>
  %old = uop.load %out[%i] : f32
  %acc = uop.define_acc %zero : vector<8xf32>
  %k = uop.range %c0, %c64 : index
  %row = uop.load %a[%k] : vector<8xf32>
  %cur = uop.acc_get %acc : vector<8xf32>
  %nxt = uop.add %cur, %row : vector<8xf32>
  uop.acc_set %acc, %nxt
  uop.end %k
  %sum = uop.acc_get %acc : vector<8xf32>
  %biased = uop.add %sum, %bb : vector<8xf32>
  uop.store %out[%i], %biased : vector<8xf32>
  %first = uop.extract %biased[0] : vector<8xf32>
  %kept = uop.add %first, %old : f32
  uop.store %out[%c0], %kept : f32
  uop.end %i
}

// An outer loop of 2 around the reduce loop uses the bias only after it: the bias moves into that loop's body,
// past the reduce loop. %scale is used inside the reduce loop and stays before the loops.
// CHECK-LABEL: cstyle.func c @inner(
// CHECK:         %scale = cstyle.load %s[%i] : f32
// CHECK-NEXT:    cstyle.for %j =
// CHECK-NEXT:      %{{.*}} = cstyle.decl
// CHECK-NEXT:      cstyle.for %k =
// CHECK:           }
// CHECK-NEXT:      %sum = cstyle.read %{{.*}} : f32
// CHECK-NEXT:      %bias = cstyle.load %b[%i] : f32
// CHECK-NEXT:      %biased = cstyle.binary "+" %sum, %bias : f32
uop.kernel @inner attributes {symbols = []} {
  %a = uop.param 0 : !uop.ptr<f32>
  %b = uop.param 1 : !uop.ptr<f32>
  %s = uop.param 2 : !uop.ptr<f32>
  %out = uop.param 3 : !uop.ptr<f32>
  %lo = uop.special core_start : index
  %hi = uop.special core_end : index
  %c0 = uop.const 0 : index
  %c2 = uop.const 2 : index
  %c64 = uop.const 64 : index
  %zero = uop.const 0.000000e+00 : f32
  %i = uop.range %lo, %hi : index
  %bias = uop.load %b[%i] : f32
  %scale = uop.load %s[%i] : f32
  %j = uop.range %c0, %c2 : index
  %acc = uop.define_acc %zero : f32
  %k = uop.range %c0, %c64 : index
  %x = uop.load %a[%k] : f32
  %y = uop.mul %x, %scale : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %y : f32
  uop.acc_set %acc, %nxt
  uop.end %k
  %sum = uop.acc_get %acc : f32
  %biased = uop.add %sum, %bias : f32
  %at = uop.add %i, %j : index
  uop.store %out[%at], %biased : f32
  uop.end %j
  uop.end %i
}
