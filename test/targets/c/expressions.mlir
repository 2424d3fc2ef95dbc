// RUN: kiln-opt %s -t c | filecheck %s
// RUN: kiln-opt %s -t c | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c -
// REQUIRES: cc
// cstyle printed as C: parentheses by precedence and where -Wparentheses wants them, literals of every kind,
// bit casts, gated loads, names made C identifiers, reads never moved past a write, dead values left out.

// CHECK:       #include <math.h>
// CHECK-NEXT:  #include <stdint.h>
// CHECK-LABEL: void expressions(int32_t *restrict p, double *f, const float *q, int32_t int_, int64_t n) {
// Loads used twice become locals; a comparison result is a _Bool.
// CHECK-NEXT:    int32_t a = p[0];
// CHECK-NEXT:    int32_t b = p[1];
// CHECK-NEXT:    _Bool eq = a == b;
// CHECK-NEXT:    p[0] = eq ? ((a < b) == eq ? (a << b) & int_ : -(a - (b - int_))) : -(-1);
// CHECK-NEXT:    f[0] = ((double)((int64_t)INT64_MIN + INT64_C(1099511627776) + (int64_t)4294967295u + (int64_t)UINT64_C(18446744073709551615)) * HUGE_VAL + (double)NAN) / -0.0;
// CHECK-NEXT:    p[1] = (int32_t)(uint32_t)(union { float from; int32_t to; }){ (1 < n ? q[1] : 0) * 0.1f }.to;
// CHECK-NEXT:    int32_t float_ = int_;
// A read used by a loop bound is a local: C evaluates the bound before every iteration.
// CHECK-NEXT:    int32_t end = float_;
// CHECK-NEXT:    for (int64_t ridx0 = 0; ridx0 < (int64_t)end + 1; ridx0++) {
// CHECK-NEXT:      float_ = float_ + 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    p[0] = float_;
// An integer literal keeps its type where C would compute in int: both operands literals, left of a shift.
// CHECK-NEXT:    f[1] = (double)((int64_t)100000 * 100000 + (int64_t)((uint64_t)1 << (uint64_t)n));
// CHECK-NEXT:  }
cstyle.func c @expressions(%p: !cstyle.ptr<i32, restrict>, %f: !cstyle.ptr<f64>, %q: !cstyle.ptr<const f32>, %int: i32, %n: i64) {
  %c0 = cstyle.literal 0 : i64
  %c1 = cstyle.literal 1 : i64
  %a = cstyle.load %p[%c0] : i32
  %b = cstyle.load %p[%c1] : i32
  %sh = cstyle.binary "<<" %a, %b : i32
  %band = cstyle.binary "&" %sh, %int : i32
  %lt = cstyle.binary "<" %a, %b : i32
  %eq = cstyle.binary "==" %a, %b : i32
  %both = cstyle.binary "==" %lt, %eq : i1
  %d1 = cstyle.binary "-" %b, %int : i32
  %d2 = cstyle.binary "-" %a, %d1 : i32
  %neg = cstyle.unary "-" %d2 : i32
  %m1 = cstyle.literal -1 : i32
  %negm1 = cstyle.unary "-" %m1 : i32
  %sel = cstyle.select %both, %band, %neg : i32
  %sel2 = cstyle.select %eq, %sel, %negm1 : i32
  cstyle.store %p[%c0] = %sel2
  %min = cstyle.literal -9223372036854775808 : i64
  %big = cstyle.literal 4294967295 : ui32
  %huge = cstyle.literal 18446744073709551615 : ui64
  %large = cstyle.literal 1099511627776 : i64
  %bi = cstyle.cast %big : ui32 -> i64
  %hi = cstyle.cast %huge : ui64 -> i64
  %s1 = cstyle.binary "+" %min, %large : i64
  %s2 = cstyle.binary "+" %s1, %bi : i64
  %s3 = cstyle.binary "+" %s2, %hi : i64
  %sf = cstyle.cast %s3 : i64 -> f64
  %inf = cstyle.literal 0x7ff0000000000000 : f64
  %nan = cstyle.literal 0x7ff8000000000000 : f64
  %nz = cstyle.literal -0.000000e+00 : f64
  %x1 = cstyle.binary "*" %sf, %inf : f64
  %x2 = cstyle.binary "+" %x1, %nan : f64
  %x3 = cstyle.binary "/" %x2, %nz : f64
  cstyle.store %f[%c0] = %x3
  %g = cstyle.binary "<" %c1, %n : i64
  %v = cstyle.load %q[%c1] if %g : f32
  %tenth = cstyle.literal 1.000000e-01 : f32
  %w = cstyle.binary "*" %v, %tenth : f32
  %bits = cstyle.bitcast %w : f32 -> i32
  %ubits = cstyle.bitcast %bits : i32 -> ui32
  %back = cstyle.bitcast %ubits : ui32 -> i32
  cstyle.store %p[%c1] = %back
  %float = cstyle.decl %int : i32
  %end = cstyle.read %float : i32
  %end64 = cstyle.cast %end : i32 -> i64
  %lim = cstyle.binary "+" %end64, %c1 : i64
  cstyle.for %kiln_i = %c0 to %lim : i64 {
    %cur = cstyle.read %float : i32
    %one = cstyle.literal 1 : i32
    %next = cstyle.binary "+" %cur, %one : i32
    cstyle.assign %float = %next
  }
  %fin = cstyle.read %float : i32
  cstyle.store %p[%c0] = %fin
  %k = cstyle.literal 100000 : i64
  %kk = cstyle.binary "*" %k, %k : i64
  %one = cstyle.literal 1 : ui64
  %amount = cstyle.cast %n : i64 -> ui64
  %bit = cstyle.binary "<<" %one, %amount : ui64
  %bit64 = cstyle.cast %bit : ui64 -> i64
  %sum = cstyle.binary "+" %kk, %bit64 : i64
  %sumf = cstyle.cast %sum : i64 -> f64
  cstyle.store %f[%c1] = %sumf
  %unused = cstyle.binary "+" %a, %b : i32
}
