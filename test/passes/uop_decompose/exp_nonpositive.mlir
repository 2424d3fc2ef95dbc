// RUN: kiln-opt %s -p 'uop-decompose{target=cpu-llvm}' | filecheck %s
// f32 exp in a loop without inner loops is e^r * 2^k in software (Cody-Waite reduction, minimax polynomial);
// its argument is first clamped to [-200 ln2, 200 ln2] (nan stays nan). `exp_nonpositive` (softmax's
// exp(x - max), x <= 0 or nan) is the same code without the clamp from above; the clamp from below stays, so
// -inf still gives 0 and subnormal results are rounded once. f64 stays a libm call either way.

// CHECK-LABEL: uop.kernel @exp_f32
// CHECK-NOT:     uop.exp
// CHECK:         %[[HIGH:.*]] = uop.const 138.62944 : f32
// CHECK-NEXT:    %[[LOW:.*]] = uop.const -138.62944 : f32
// CHECK-NEXT:    %[[ABOVE:.*]] = uop.cmplt %[[HIGH]], %v : f32
// CHECK-NEXT:    %[[X1:.*]] = uop.where %[[ABOVE]], %[[HIGH]], %v : f32
// CHECK-NEXT:    %[[BELOW:.*]] = uop.cmplt %[[X1]], %[[LOW]] : f32
// CHECK-NEXT:    %[[X:.*]] = uop.where %[[BELOW]], %[[LOW]], %[[X1]] : f32
// CHECK-NEXT:    %[[LOG2E:.*]] = uop.const 1.44269502 : f32
// CHECK-NEXT:    uop.mul %[[X]], %[[LOG2E]] : f32
// CHECK:         %r = uop.mul
// CHECK-NEXT:    uop.store %out[%c0], %r

// CHECK-LABEL: uop.kernel @exp_nonpositive_f32
// CHECK-NOT:     uop.exp
// CHECK-NOT:     uop.const 138.62944
// CHECK:         %[[LOW:.*]] = uop.const -138.62944 : f32
// CHECK-NEXT:    %[[BELOW:.*]] = uop.cmplt %v, %[[LOW]] : f32
// CHECK-NEXT:    %[[X:.*]] = uop.where %[[BELOW]], %[[LOW]], %v : f32
// CHECK-NEXT:    %[[LOG2E:.*]] = uop.const 1.44269502 : f32
// CHECK-NEXT:    uop.mul %[[X]], %[[LOG2E]] : f32
// CHECK:         %r = uop.mul
// CHECK-NEXT:    uop.store %out[%c0], %r

// CHECK-LABEL: uop.kernel @exp_nonpositive_f64
// CHECK:         %r = uop.exp_nonpositive %v : f64

uop.kernel @exp_f32 attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %v = uop.load %x[%c0] : f32
  %r = uop.exp %v : f32
  uop.store %out[%c0], %r
  uop.end %c0
}

uop.kernel @exp_nonpositive_f32 attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %v = uop.load %x[%c0] : f32
  %r = uop.exp_nonpositive %v : f32
  uop.store %out[%c0], %r
  uop.end %c0
}

uop.kernel @exp_nonpositive_f64 attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f64>
  %out = uop.param 1 : !uop.ptr<f64>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %v = uop.load %x[%c0] : f64
  %r = uop.exp_nonpositive %v : f64
  uop.store %out[%c0], %r
  uop.end %c0
}
