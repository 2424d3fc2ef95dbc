// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every kernel op prints and parses back to the same text: a whole matmul kernel with its schedule, then each
// op family (ranges, reductions, memory, constants, casts, every ALU op).

// CHECK-LABEL: kernel.kernel @dense_k0(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>, %b: !kernel.buffer<32xf32>, %out: !kernel.buffer<Nx32xf32>, %N: index) attributes {graph.dims = #graph.dims<N = [1, 4096]>, inputs = ["arg", "arg", "arg", "output"], opts = [], symbols = ["N"]} {
kernel.kernel @dense_k0(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>, %b: !kernel.buffer<32xf32>, %out: !kernel.buffer<Nx32xf32>, %N: index)
    attributes {graph.dims = #graph.dims<N = [1, 4096]>, inputs = ["arg", "arg", "arg", "output"], opts = [], symbols = ["N"]} {
  // CHECK-NEXT: %c32 = kernel.const 32 : index
  %c32 = kernel.const 32 : index
  // CHECK-NEXT: %c64 = kernel.const 64 : index
  %c64 = kernel.const 64 : index
  // CHECK-NEXT: %zero = kernel.const 0.000000e+00 : f32
  %zero = kernel.const 0.000000e+00 : f32
  // CHECK-NEXT: %i = kernel.range %N global
  %i = kernel.range %N global
  // CHECK-NEXT: %j = kernel.range %c32 global
  %j = kernel.range %c32 global
  // CHECK-NEXT: %k = kernel.range %c64 reduce
  %k = kernel.range %c64 reduce
  // CHECK-NEXT: %i64 = kernel.mul %i, %c64 : index
  %i64 = kernel.mul %i, %c64 : index
  // CHECK-NEXT: %ia = kernel.add %i64, %k : index
  %ia = kernel.add %i64, %k : index
  // CHECK-NEXT: %k32 = kernel.mul %k, %c32 : index
  %k32 = kernel.mul %k, %c32 : index
  // CHECK-NEXT: %ib = kernel.add %k32, %j : index
  %ib = kernel.add %k32, %j : index
  // CHECK-NEXT: %xa = kernel.load %x[%ia] : f32
  %xa = kernel.load %x[%ia] : f32
  // CHECK-NEXT: %wb = kernel.load %w[%ib] : f32
  %wb = kernel.load %w[%ib] : f32
  // CHECK-NEXT: %p = kernel.mul %xa, %wb : f32
  %p = kernel.mul %xa, %wb : f32
  // CHECK-NEXT: %s = kernel.reduce add %p over %k : f32
  %s = kernel.reduce add %p over %k : f32
  // CHECK-NEXT: %bias = kernel.load %b[%j] : f32
  %bias = kernel.load %b[%j] : f32
  // CHECK-NEXT: %sb = kernel.add %s, %bias : f32
  %sb = kernel.add %s, %bias : f32
  // CHECK-NEXT: %r = kernel.max %sb, %zero : f32
  %r = kernel.max %sb, %zero : f32
  // CHECK-NEXT: %i32 = kernel.mul %i, %c32 : index
  %i32 = kernel.mul %i, %c32 : index
  // CHECK-NEXT: %io = kernel.add %i32, %j : index
  %io = kernel.add %i32, %j : index
  // CHECK-NEXT: kernel.store %out[%io], %r
  kernel.store %out[%io], %r
}
// CHECK-NEXT: }

// CHECK-LABEL: func.func @dense(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>, %b: !kernel.buffer<32xf32>) -> !kernel.buffer<Nx32xf32> attributes {graph.dims = #graph.dims<N = [1, 4096]>, kernel.peak_bytes = 524288 : i64} {
func.func @dense(%x: !kernel.buffer<Nx64xf32>, %w: !kernel.buffer<64x32xf32>, %b: !kernel.buffer<32xf32>) -> !kernel.buffer<Nx32xf32>
    attributes {graph.dims = #graph.dims<N = [1, 4096]>, kernel.peak_bytes = 524288 : i64} {
  // CHECK-NEXT: %N = kernel.symbol "N" : index
  %N = kernel.symbol "N" : index
  // CHECK-NEXT: %t0 = kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx32xf32>
  %t0 = kernel.alloc {slot = 0 : i64} : !kernel.buffer<Nx32xf32>
  // CHECK-NEXT: %t1 = kernel.alloc : !kernel.buffer<16xi8>
  %t1 = kernel.alloc : !kernel.buffer<16xi8>
  // CHECK-NEXT: kernel.launch @dense_k0(%x, %w, %b, %t0, %N) : !kernel.buffer<Nx64xf32>, !kernel.buffer<64x32xf32>, !kernel.buffer<32xf32>, !kernel.buffer<Nx32xf32>, index
  kernel.launch @dense_k0(%x, %w, %b, %t0, %N) : !kernel.buffer<Nx64xf32>, !kernel.buffer<64x32xf32>, !kernel.buffer<32xf32>, !kernel.buffer<Nx32xf32>, index
  // CHECK-NEXT: func.return %t0 : !kernel.buffer<Nx32xf32>
  func.return %t0 : !kernel.buffer<Nx32xf32>
}

// Every axis kind; reductions of every kind over reduce, unroll and group_reduce ranges.
// CHECK-LABEL: kernel.kernel @ranges(%f: !kernel.buffer<64xf32>, %n: index) {
kernel.kernel @ranges(%f: !kernel.buffer<64xf32>, %n: index) {
  // CHECK-NEXT: %g = kernel.range %n global
  %g = kernel.range %n global
  // CHECK-NEXT: %l = kernel.range %n local
  %l = kernel.range %n local
  // CHECK-NEXT: %lp = kernel.range %n loop
  %lp = kernel.range %n loop
  // CHECK-NEXT: %r = kernel.range %n reduce
  %r = kernel.range %n reduce
  // CHECK-NEXT: %gr = kernel.range %n group_reduce
  %gr = kernel.range %n group_reduce
  // CHECK-NEXT: %up = kernel.range %n upcast
  %up = kernel.range %n upcast
  // CHECK-NEXT: %un = kernel.range %n unroll
  %un = kernel.range %n unroll
  // CHECK-NEXT: %th = kernel.range %n thread
  %th = kernel.range %n thread
  // CHECK-NEXT: %v = kernel.load %f[%r] : f32
  %v = kernel.load %f[%r] : f32
  // CHECK-NEXT: %sum = kernel.reduce add %v over %r, %un, %gr : f32
  %sum = kernel.reduce add %v over %r, %un, %gr : f32
  // CHECK-NEXT: %prod = kernel.reduce mul %v over %r : f32
  %prod = kernel.reduce mul %v over %r : f32
  // CHECK-NEXT: %hi = kernel.reduce max %v over %un : f32
  %hi = kernel.reduce max %v over %un : f32
  // CHECK-NEXT: %lo = kernel.reduce min %v over %gr : f32
  %lo = kernel.reduce min %v over %gr : f32
  // CHECK-NEXT: %iv = kernel.cast %v : f32 -> i32
  %iv = kernel.cast %v : f32 -> i32
  // CHECK-NEXT: %isum = kernel.reduce add %iv over %r : i32
  %isum = kernel.reduce add %iv over %r : i32
}

// Loads and stores, gated and not; an empty kernel.
// CHECK-LABEL: kernel.kernel @memory(%f: !kernel.buffer<64xf32>, %o: !kernel.buffer<64xf32>, %n: index) attributes {inputs = ["arg", "output"], opts = ["upcast(0,4)"]} {
kernel.kernel @memory(%f: !kernel.buffer<64xf32>, %o: !kernel.buffer<64xf32>, %n: index) attributes {inputs = ["arg", "output"], opts = ["upcast(0,4)"]} {
  // CHECK-NEXT: %c64 = kernel.const 64 : index
  %c64 = kernel.const 64 : index
  // CHECK-NEXT: %ok = kernel.cmplt %n, %c64 : index
  %ok = kernel.cmplt %n, %c64 : index
  // CHECK-NEXT: %v = kernel.load %f[%n] : f32
  %v = kernel.load %f[%n] : f32
  // CHECK-NEXT: %g = kernel.load %f[%n], %ok : f32
  %g = kernel.load %f[%n], %ok : f32
  // CHECK-NEXT: kernel.store %o[%n], %v
  kernel.store %o[%n], %v
  // CHECK-NEXT: kernel.store %o[%n], %g, %ok
  kernel.store %o[%n], %g, %ok
}
// CHECK:      kernel.kernel @empty(%f: !kernel.buffer<4xf32>) {
// CHECK-NEXT: }
kernel.kernel @empty(%f: !kernel.buffer<4xf32>) {}

// Constants (+-inf and nan print as MLIR hex bit patterns) and conversions.
// CHECK-LABEL: kernel.kernel @constants(%f: !kernel.buffer<4xf32>) {
kernel.kernel @constants(%f: !kernel.buffer<4xf32>) {
  // CHECK-NEXT: %idx = kernel.const 64 : index
  %idx = kernel.const 64 : index
  // CHECK-NEXT: %neg = kernel.const -3 : i8
  %neg = kernel.const -3 : i8
  // CHECK-NEXT: %u = kernel.const 200 : ui8
  %u = kernel.const 200 : ui8
  // CHECK-NEXT: %t = kernel.const true : i1
  %t = kernel.const true : i1
  // CHECK-NEXT: %fl = kernel.const false : i1
  %fl = kernel.const false : i1
  // CHECK-NEXT: %one = kernel.const 1.000000e+00 : f32
  %one = kernel.const 1.000000e+00 : f32
  // CHECK-NEXT: %d = kernel.const -2.500000e-01 : f64
  %d = kernel.const -2.500000e-01 : f64
  // CHECK-NEXT: %inf = kernel.const 0x7f800000 : f32
  %inf = kernel.const 0x7f800000 : f32
  // CHECK-NEXT: %ninf = kernel.const 0xff800000 : f32
  %ninf = kernel.const 0xff800000 : f32
  // CHECK-NEXT: %nan = kernel.const 0x7fc00000 : f32
  %nan = kernel.const 0x7fc00000 : f32
  // CHECK-NEXT: %hinf = kernel.const 0x7c00 : f16
  %hinf = kernel.const 0x7c00 : f16
  // CHECK-NEXT: %bninf = kernel.const 0xff80 : bf16
  %bninf = kernel.const 0xff80 : bf16
  // CHECK-NEXT: %big = kernel.const 1.000000e+10 : f32
  %big = kernel.const 1.000000e+10 : f32
  // CHECK-NEXT: %c = kernel.cast %idx : index -> i32
  %c = kernel.cast %idx : index -> i32
  // CHECK-NEXT: %cf = kernel.cast %c : i32 -> f32
  %cf = kernel.cast %c : i32 -> f32
  // CHECK-NEXT: %cb = kernel.cast %cf : f32 -> i1
  %cb = kernel.cast %cf : f32 -> i1
  // CHECK-NEXT: %cu = kernel.cast %cb : i1 -> ui8
  %cu = kernel.cast %cb : i1 -> ui8
  // CHECK-NEXT: %bc = kernel.bitcast %one : f32 -> i32
  %bc = kernel.bitcast %one : f32 -> i32
  // CHECK-NEXT: %bh = kernel.bitcast %hinf : f16 -> ui16
  %bh = kernel.bitcast %hinf : f16 -> ui16
}

// Every ALU op, on a type it accepts; comparisons give i1.
// CHECK-LABEL: kernel.kernel @alu(%f: !kernel.buffer<16xf32>, %ub: !kernel.buffer<16xui8>, %n: index, %m: index) {
kernel.kernel @alu(%f: !kernel.buffer<16xf32>, %ub: !kernel.buffer<16xui8>, %n: index, %m: index) {
  // CHECK-NEXT: %p0 = kernel.cmplt %n, %m : index
  %p0 = kernel.cmplt %n, %m : index
  // CHECK-NEXT: %x = kernel.load %f[%n] : f32
  %x = kernel.load %f[%n] : f32
  // CHECK-NEXT: %y = kernel.load %f[%m] : f32
  %y = kernel.load %f[%m] : f32
  // CHECK-NEXT: %z = kernel.load %f[%n], %p0 : f32
  %z = kernel.load %f[%n], %p0 : f32
  // CHECK-NEXT: %i = kernel.cast %x : f32 -> i32
  %i = kernel.cast %x : f32 -> i32
  // CHECK-NEXT: %j = kernel.cast %y : f32 -> i32
  %j = kernel.cast %y : f32 -> i32
  // CHECK-NEXT: %k = kernel.cast %z : f32 -> i32
  %k = kernel.cast %z : f32 -> i32
  // CHECK-NEXT: %p = kernel.cmplt %x, %y : f32
  %p = kernel.cmplt %x, %y : f32
  // CHECK-NEXT: %q = kernel.cmpne %i, %j : i32
  %q = kernel.cmpne %i, %j : i32
  // CHECK-NEXT: %u = kernel.load %ub[%n] : ui8
  %u = kernel.load %ub[%n] : ui8
  // CHECK-NEXT: %neg = kernel.neg %x : f32
  %neg = kernel.neg %x : f32
  // CHECK-NEXT: %exp = kernel.exp %x : f32
  %exp = kernel.exp %x : f32
  // CHECK-NEXT: %expn = kernel.exp_nonpositive %x : f32
  %expn = kernel.exp_nonpositive %x : f32
  // CHECK-NEXT: %exp2 = kernel.exp2 %x : f32
  %exp2 = kernel.exp2 %x : f32
  // CHECK-NEXT: %log = kernel.log %x : f32
  %log = kernel.log %x : f32
  // CHECK-NEXT: %log2 = kernel.log2 %x : f32
  %log2 = kernel.log2 %x : f32
  // CHECK-NEXT: %sin = kernel.sin %x : f32
  %sin = kernel.sin %x : f32
  // CHECK-NEXT: %cos = kernel.cos %x : f32
  %cos = kernel.cos %x : f32
  // CHECK-NEXT: %sqrt = kernel.sqrt %x : f32
  %sqrt = kernel.sqrt %x : f32
  // CHECK-NEXT: %rsqrt = kernel.rsqrt %x : f32
  %rsqrt = kernel.rsqrt %x : f32
  // CHECK-NEXT: %recip = kernel.recip %x : f32
  %recip = kernel.recip %x : f32
  // CHECK-NEXT: %trunc = kernel.trunc %x : f32
  %trunc = kernel.trunc %x : f32
  // CHECK-NEXT: %floor = kernel.floor %x : f32
  %floor = kernel.floor %x : f32
  // CHECK-NEXT: %ceil = kernel.ceil %x : f32
  %ceil = kernel.ceil %x : f32
  // CHECK-NEXT: %abs = kernel.abs %x : f32
  %abs = kernel.abs %x : f32
  // CHECK-NEXT: %sign = kernel.sign %x : f32
  %sign = kernel.sign %x : f32
  // CHECK-NEXT: %tanh = kernel.tanh %x : f32
  %tanh = kernel.tanh %x : f32
  // CHECK-NEXT: %erf = kernel.erf %x : f32
  %erf = kernel.erf %x : f32
  // CHECK-NEXT: %tan = kernel.tan %x : f32
  %tan = kernel.tan %x : f32
  // CHECK-NEXT: %asin = kernel.asin %x : f32
  %asin = kernel.asin %x : f32
  // CHECK-NEXT: %acos = kernel.acos %x : f32
  %acos = kernel.acos %x : f32
  // CHECK-NEXT: %atan = kernel.atan %x : f32
  %atan = kernel.atan %x : f32
  // CHECK-NEXT: %sinh = kernel.sinh %x : f32
  %sinh = kernel.sinh %x : f32
  // CHECK-NEXT: %cosh = kernel.cosh %x : f32
  %cosh = kernel.cosh %x : f32
  // CHECK-NEXT: %asinh = kernel.asinh %x : f32
  %asinh = kernel.asinh %x : f32
  // CHECK-NEXT: %acosh = kernel.acosh %x : f32
  %acosh = kernel.acosh %x : f32
  // CHECK-NEXT: %atanh = kernel.atanh %x : f32
  %atanh = kernel.atanh %x : f32
  // CHECK-NEXT: %round = kernel.round %x : f32
  %round = kernel.round %x : f32
  // CHECK-NEXT: %erfc = kernel.erfc %x : f32
  %erfc = kernel.erfc %x : f32
  // CHECK-NEXT: %isnan = kernel.isnan %x : f32
  %isnan = kernel.isnan %x : f32
  // CHECK-NEXT: %isinf = kernel.isinf %x : f32
  %isinf = kernel.isinf %x : f32
  // CHECK-NEXT: %not = kernel.not %i : i32
  %not = kernel.not %i : i32
  // CHECK-NEXT: %add = kernel.add %x, %y : f32
  %add = kernel.add %x, %y : f32
  // CHECK-NEXT: %sub = kernel.sub %x, %y : f32
  %sub = kernel.sub %x, %y : f32
  // CHECK-NEXT: %mul = kernel.mul %x, %y : f32
  %mul = kernel.mul %x, %y : f32
  // CHECK-NEXT: %div = kernel.div %x, %y : f32
  %div = kernel.div %x, %y : f32
  // CHECK-NEXT: %idiv = kernel.idiv %x, %y : f32
  %idiv = kernel.idiv %x, %y : f32
  // CHECK-NEXT: %mod = kernel.mod %x, %y : f32
  %mod = kernel.mod %x, %y : f32
  // CHECK-NEXT: %max = kernel.max %x, %y : f32
  %max = kernel.max %x, %y : f32
  // CHECK-NEXT: %min = kernel.min %x, %y : f32
  %min = kernel.min %x, %y : f32
  // CHECK-NEXT: %pow = kernel.pow %x, %y : f32
  %pow = kernel.pow %x, %y : f32
  // CHECK-NEXT: %and = kernel.and %i, %j : i32
  %and = kernel.and %i, %j : i32
  // CHECK-NEXT: %or = kernel.or %i, %j : i32
  %or = kernel.or %i, %j : i32
  // CHECK-NEXT: %xor = kernel.xor %i, %j : i32
  %xor = kernel.xor %i, %j : i32
  // CHECK-NEXT: %shl = kernel.shl %i, %j : i32
  %shl = kernel.shl %i, %j : i32
  // CHECK-NEXT: %shr = kernel.shr %i, %j : i32
  %shr = kernel.shr %i, %j : i32
  // CHECK-NEXT: %cmplt = kernel.cmplt %x, %y : f32
  %cmplt = kernel.cmplt %x, %y : f32
  // CHECK-NEXT: %cmple = kernel.cmple %x, %y : f32
  %cmple = kernel.cmple %x, %y : f32
  // CHECK-NEXT: %cmpeq = kernel.cmpeq %x, %y : f32
  %cmpeq = kernel.cmpeq %x, %y : f32
  // CHECK-NEXT: %cmpne = kernel.cmpne %x, %y : f32
  %cmpne = kernel.cmpne %x, %y : f32
  // CHECK-NEXT: %where = kernel.where %p, %x, %y : f32
  %where = kernel.where %p, %x, %y : f32
  // CHECK-NEXT: %fma = kernel.fma %x, %y, %z : f32
  %fma = kernel.fma %x, %y, %z : f32
  // CHECK-NEXT: %idx_div = kernel.idiv %n, %m : index
  %idx_div = kernel.idiv %n, %m : index
  // CHECK-NEXT: %idx_mod = kernel.mod %n, %m : index
  %idx_mod = kernel.mod %n, %m : index
  // CHECK-NEXT: %idx_shl = kernel.shl %n, %m : index
  %idx_shl = kernel.shl %n, %m : index
  // CHECK-NEXT: %u_shr = kernel.shr %u, %u : ui8
  %u_shr = kernel.shr %u, %u : ui8
  // CHECK-NEXT: %b_and = kernel.and %p, %q : i1
  %b_and = kernel.and %p, %q : i1
  // CHECK-NEXT: %b_not = kernel.not %p : i1
  %b_not = kernel.not %p : i1
  // CHECK-NEXT: %b_max = kernel.max %p, %q : i1
  %b_max = kernel.max %p, %q : i1
  // CHECK-NEXT: %icmp = kernel.cmple %i, %j : i32
  %icmp = kernel.cmple %i, %j : i32
  // CHECK-NEXT: %ifma = kernel.fma %n, %m, %n : index
  %ifma = kernel.fma %n, %m, %n : index
  // CHECK-NEXT: %iwhere = kernel.where %p, %i, %j : i32
  %iwhere = kernel.where %p, %i, %j : i32
}
