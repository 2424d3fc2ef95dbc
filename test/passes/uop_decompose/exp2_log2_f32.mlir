// RUN: kiln-opt %s -p 'uop-decompose{target=cpu-llvm}' | filecheck %s
// In loops without inner loops cpu-llvm leaves exp, exp2, log and log2 to libm on f64 only. On f32 they become
// branch-free code LLVM vectorizes (elsewhere, e.g. after a matmul's k loop, they stay libm calls): exp2 clamps x, rounds it to k by adding and subtracting 1.5 * 2^23, evaluates 2^(x - k) by
// Horner's rule and scales by 2^k as two powers of two, 2^floor(k/2) and 2^(k - floor(k/2)), built in the exponent
// bits from those of x + 1.5 * 2^23 (halved, biased, shifted); log2 splits x into
// exponent and mantissa from its bits. f16 math runs the f32 rule between casts.

// CHECK-LABEL: uop.kernel @exp2_f32
// CHECK-NOT:     uop.exp2
// CHECK:         %[[HIGH:.*]] = uop.const 2.000000e+02 : f32
// CHECK:         %[[LOW:.*]] = uop.const -2.000000e+02 : f32
// CHECK:         %[[ABOVE:.*]] = uop.cmplt %[[HIGH]], %v : f32
// CHECK-NEXT:    %[[X1:.*]] = uop.where %[[ABOVE]], %[[HIGH]], %v : f32
// CHECK-NEXT:    %[[BELOW:.*]] = uop.cmplt %[[X1]], %[[LOW]] : f32
// CHECK-NEXT:    %[[X:.*]] = uop.where %[[BELOW]], %[[LOW]], %[[X1]] : f32
// CHECK-NEXT:    %[[SHIFTER:.*]] = uop.const 0x4B400000 : f32
// CHECK-NEXT:    %[[XS:.*]] = uop.add %[[X]], %[[SHIFTER]] : f32
// CHECK-NEXT:    %[[K:.*]] = uop.sub %[[XS]], %[[SHIFTER]] : f32
// CHECK-NEXT:    %[[BITS:.*]] = uop.bitcast %[[XS]] : f32 -> i32
// CHECK-NEXT:    %[[F:.*]] = uop.sub %[[X]], %[[K]] : f32
// CHECK-NEXT:    %[[C7:.*]] = uop.const 1.52527336e-05 : f32
// CHECK-NEXT:    %{{.*}} = uop.mul %[[C7]], %[[F]] : f32
// CHECK:         %[[ONE:.*]] = uop.const 1.000000e+00 : f32
// CHECK-NEXT:    %[[P:.*]] = uop.add %{{.*}}, %[[ONE]] : f32
// CHECK-NEXT:    %[[C1:.*]] = uop.const 1 : i32
// CHECK-NEXT:    %[[HALF:.*]] = uop.shr %[[BITS]], %[[C1]] : i32
// CHECK-NEXT:    %[[REST:.*]] = uop.sub %[[BITS]], %[[HALF]] : i32
// CHECK-NEXT:    %[[BIAS:.*]] = uop.const -631242625 : i32
// CHECK-NEXT:    %[[C23:.*]] = uop.const 23 : i32
// CHECK-NEXT:    %[[BIASED:.*]] = uop.add %[[HALF]], %[[BIAS]] : i32
// CHECK-NEXT:    %[[POW:.*]] = uop.shl %[[BIASED]], %[[C23]] : i32
// CHECK-NEXT:    %[[TWO_TO_HALF:.*]] = uop.bitcast %[[POW]] : i32 -> f32
// CHECK-NEXT:    %[[SCALED:.*]] = uop.mul %[[P]], %[[TWO_TO_HALF]] : f32
// CHECK-NEXT:    %[[BIASED2:.*]] = uop.add %[[REST]], %[[BIAS]] : i32
// CHECK-NEXT:    %[[POW2:.*]] = uop.shl %[[BIASED2]], %[[C23]] : i32
// CHECK-NEXT:    %[[TWO_TO_REST:.*]] = uop.bitcast %[[POW2]] : i32 -> f32
// CHECK-NEXT:    %r = uop.mul %[[SCALED]], %[[TWO_TO_REST]] : f32
// CHECK-NEXT:    uop.store %out[%c0], %r

// CHECK-LABEL: uop.kernel @log2_f32
// CHECK-NOT:     uop.log2
// CHECK:         %[[BITS:.*]] = uop.bitcast %{{.*}} : f32 -> i32
// CHECK-NEXT:    %[[C23:.*]] = uop.const 23 : i32
// CHECK-NEXT:    %[[BIASED:.*]] = uop.shr %[[BITS]], %[[C23]] : i32
// CHECK-NEXT:    %{{.*}} = uop.cast %[[BIASED]] : i32 -> f32
// CHECK:         uop.div %{{.*}}, %{{.*}} : f32
// CHECK:         uop.const -4096 : i32
// CHECK:         uop.bitcast %v : f32 -> i32
// CHECK:         %r = uop.where %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    uop.store %out[%c0], %r

// CHECK-LABEL: uop.kernel @f16_and_f64
// CHECK:         uop.cast %vh : f16 -> f32
// CHECK-NOT:     uop.exp2 %{{.*}} : f32
// CHECK:         uop.const 0x4B400000 : f32
// CHECK:         %rh = uop.cast %{{.*}} : f32 -> f16
// CHECK-NEXT:    %rd = uop.exp2 %vd : f64
// CHECK-NEXT:    %rl = uop.log2 %vd : f64

// CHECK-LABEL: uop.kernel @outside_loops
// CHECK:         %r = uop.exp2 %v : f32

uop.kernel @exp2_f32 attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %v = uop.load %x[%c0] : f32
  %r = uop.exp2 %v : f32
  uop.store %out[%c0], %r
  uop.end %c0
}

uop.kernel @log2_f32 attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %v = uop.load %x[%c0] : f32
  %r = uop.log2 %v : f32
  uop.store %out[%c0], %r
  uop.end %c0
}

uop.kernel @f16_and_f64 attributes {symbols = []} {
  %h = uop.param 0 : !uop.ptr<f16>
  %d = uop.param 1 : !uop.ptr<f64>
  %z = uop.const 0 : index
  %n = uop.const 16 : index
  %c0 = uop.range %z, %n : index
  %vh = uop.load %h[%c0] : f16
  %vd = uop.load %d[%c0] : f64
  %rh = uop.exp2 %vh : f16
  %rd = uop.exp2 %vd : f64
  %rl = uop.log2 %vd : f64
  uop.store %h[%c0], %rh
  uop.store %d[%c0], %rd
  uop.store %d[%c0], %rl
  uop.end %c0
}

uop.kernel @outside_loops attributes {symbols = []} {
  %x = uop.param 0 : !uop.ptr<f32>
  %out = uop.param 1 : !uop.ptr<f32>
  %c0 = uop.const 0 : index
  %v = uop.load %x[%c0] : f32
  %r = uop.exp2 %v : f32
  uop.store %out[%c0], %r
}
