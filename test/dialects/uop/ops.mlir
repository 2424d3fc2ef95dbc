// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every uop op prints and parses back to the same text: a CPU matmul kernel (nested ranges, scalar and vector
// accumulators, gated and vector loads/stores, an if), a GPU kernel (specials, local memory, a barrier, wmma),
// then constants, casts and every ALU op on vectors.

// CHECK-LABEL: uop.kernel @dense_k0 attributes {core_extent = "N", core_work = 130 : i64, symbols = ["N"]} {
uop.kernel @dense_k0 attributes {core_extent = "N", core_work = 130 : i64, symbols = ["N"]} {
  // CHECK-NEXT: %x = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 0 : !uop.ptr<f32>
  // CHECK-NEXT: %w = uop.param 1 : !uop.ptr<f32>
  %w = uop.param 1 : !uop.ptr<f32>
  // CHECK-NEXT: %out = uop.param 2 : !uop.ptr<f32>
  %out = uop.param 2 : !uop.ptr<f32>
  // CHECK-NEXT: %N = uop.param 3 : index
  %N = uop.param 3 : index
  // CHECK-NEXT: %lo = uop.special core_start : index
  %lo = uop.special core_start : index
  // CHECK-NEXT: %hi = uop.special core_end : index
  %hi = uop.special core_end : index
  // CHECK-NEXT: %c0 = uop.const 0 : index
  %c0 = uop.const 0 : index
  // CHECK-NEXT: %c4 = uop.const 4 : index
  %c4 = uop.const 4 : index
  // CHECK-NEXT: %c32 = uop.const 32 : index
  %c32 = uop.const 32 : index
  // CHECK-NEXT: %c64 = uop.const 64 : index
  %c64 = uop.const 64 : index
  // CHECK-NEXT: %zero = uop.const 0.000000e+00 : f32
  %zero = uop.const 0.000000e+00 : f32
  // CHECK-NEXT: %zv = uop.const dense<0.000000e+00> : vector<4xf32>
  %zv = uop.const dense<0.000000e+00> : vector<4xf32>
  // CHECK-NEXT: %i = uop.range %lo, %hi : index
  %i = uop.range %lo, %hi : index
  // CHECK-NEXT: %j = uop.range %c0, %c32 : index
  %j = uop.range %c0, %c32 : index
  // CHECK-NEXT: %acc = uop.define_acc %zero : f32
  %acc = uop.define_acc %zero : f32
  // CHECK-NEXT: %vacc = uop.define_acc %zv : vector<4xf32>
  %vacc = uop.define_acc %zv : vector<4xf32>
  // CHECK-NEXT: %k = uop.range %c0, %c64 : index
  %k = uop.range %c0, %c64 : index
  // CHECK-NEXT: %ik = uop.mul %i, %c64 : index
  %ik = uop.mul %i, %c64 : index
  // CHECK-NEXT: %ia = uop.add %ik, %k : index
  %ia = uop.add %ik, %k : index
  // CHECK-NEXT: %kj = uop.mul %k, %c32 : index
  %kj = uop.mul %k, %c32 : index
  // CHECK-NEXT: %ib = uop.add %kj, %j : index
  %ib = uop.add %kj, %j : index
  // CHECK-NEXT: %inb = uop.cmplt %ia, %N : index
  %inb = uop.cmplt %ia, %N : index
  // CHECK-NEXT: %a = uop.load %x[%ia], %inb : f32
  %a = uop.load %x[%ia], %inb : f32
  // CHECK-NEXT: %b = uop.load %w[%ib] : f32
  %b = uop.load %w[%ib] : f32
  // CHECK-NEXT: %cur = uop.acc_get %acc : f32
  %cur = uop.acc_get %acc : f32
  // CHECK-NEXT: %nxt = uop.fma %a, %b, %cur : f32
  %nxt = uop.fma %a, %b, %cur : f32
  // CHECK-NEXT: uop.acc_set %acc, %nxt
  uop.acc_set %acc, %nxt
  // CHECK-NEXT: %bv = uop.load %w[%ib] : vector<4xf32>
  %bv = uop.load %w[%ib] : vector<4xf32>
  // CHECK-NEXT: %av = uop.vectorize %a, %a, %a, %a : vector<4xf32>
  %av = uop.vectorize %a, %a, %a, %a : vector<4xf32>
  // CHECK-NEXT: %vcur = uop.acc_get %vacc : vector<4xf32>
  %vcur = uop.acc_get %vacc : vector<4xf32>
  // CHECK-NEXT: %vnxt = uop.fma %av, %bv, %vcur : vector<4xf32>
  %vnxt = uop.fma %av, %bv, %vcur : vector<4xf32>
  // CHECK-NEXT: uop.acc_set %vacc, %vnxt
  uop.acc_set %vacc, %vnxt
  // CHECK-NEXT: uop.end %k
  uop.end %k
  // CHECK-NEXT: %r = uop.acc_get %acc : f32
  %r = uop.acc_get %acc : f32
  // CHECK-NEXT: %rv = uop.acc_get %vacc : vector<4xf32>
  %rv = uop.acc_get %vacc : vector<4xf32>
  // CHECK-NEXT: %r0 = uop.extract %rv[0] : vector<4xf32>
  %r0 = uop.extract %rv[0] : vector<4xf32>
  // CHECK-NEXT: %rs = uop.reduce_lanes add %rv : vector<4xf32>
  %rs = uop.reduce_lanes add %rv : vector<4xf32>
  // CHECK-NEXT: %rm = uop.reduce_lanes max %rv : vector<4xf32>
  %rm = uop.reduce_lanes max %rv : vector<4xf32>
  // CHECK-NEXT: %r01 = uop.add %r0, %rs : f32
  %r01 = uop.add %r0, %rs : f32
  // CHECK-NEXT: %r0m = uop.add %r01, %rm : f32
  %r0m = uop.add %r01, %rm : f32
  // CHECK-NEXT: %sum = uop.add %r, %r0m : f32
  %sum = uop.add %r, %r0m : f32
  // CHECK-NEXT: %i32 = uop.mul %i, %c32 : index
  %i32 = uop.mul %i, %c32 : index
  // CHECK-NEXT: %io = uop.add %i32, %j : index
  %io = uop.add %i32, %j : index
  // CHECK-NEXT: %pos = uop.cmplt %zero, %sum : f32
  %pos = uop.cmplt %zero, %sum : f32
  // CHECK-NEXT: uop.if %pos
  uop.if %pos
  // CHECK-NEXT: uop.store %out[%io], %sum
  uop.store %out[%io], %sum
  // CHECK-NEXT: uop.endif
  uop.endif
  // CHECK-NEXT: %neg = uop.not %pos : i1
  %neg = uop.not %pos : i1
  // CHECK-NEXT: uop.store %out[%io], %zero, %neg
  uop.store %out[%io], %zero, %neg
  // CHECK-NEXT: %o4 = uop.mul %io, %c4 : index
  %o4 = uop.mul %io, %c4 : index
  // CHECK-NEXT: uop.store %out[%o4], %rv : vector<4xf32>
  uop.store %out[%o4], %rv : vector<4xf32>
  // CHECK-NEXT: uop.store %out[%o4], %rv, %pos : vector<4xf32>
  uop.store %out[%o4], %rv, %pos : vector<4xf32>
  // CHECK-NEXT: uop.end %j
  uop.end %j
  // CHECK-NEXT: uop.end %i
  uop.end %i
}
// CHECK-NEXT: }

// CHECK-LABEL: uop.kernel @mma attributes {global_size = [1 : i64, 1 : i64, 1 : i64], local_size = [32 : i64, 1 : i64, 1 : i64]} {
uop.kernel @mma attributes {global_size = [1, 1, 1], local_size = [32, 1, 1]} {
  // CHECK-NEXT: %a = uop.param 0 : !uop.ptr<f16>
  %a = uop.param 0 : !uop.ptr<f16>
  // CHECK-NEXT: %c = uop.param 1 : !uop.ptr<f32>
  %c = uop.param 1 : !uop.ptr<f32>
  // CHECK-NEXT: %n = uop.param 2 : i32
  %n = uop.param 2 : i32
  // CHECK-NEXT: %gx = uop.special group_id.x : index
  %gx = uop.special group_id.x : index
  // CHECK-NEXT: %gy = uop.special group_id.y : index
  %gy = uop.special group_id.y : index
  // CHECK-NEXT: %gz = uop.special group_id.z : index
  %gz = uop.special group_id.z : index
  // CHECK-NEXT: %lx = uop.special local_id.x : index
  %lx = uop.special local_id.x : index
  // CHECK-NEXT: %ly = uop.special local_id.y : index
  %ly = uop.special local_id.y : index
  // CHECK-NEXT: %lz = uop.special local_id.z : index
  %lz = uop.special local_id.z : index
  // CHECK-NEXT: %ix = uop.special global_id.x : index
  %ix = uop.special global_id.x : index
  // CHECK-NEXT: %iy = uop.special global_id.y : index
  %iy = uop.special global_id.y : index
  // CHECK-NEXT: %iz = uop.special global_id.z : index
  %iz = uop.special global_id.z : index
  // CHECK-NEXT: %lm = uop.define_local 256 : !uop.ptr<f16, local>
  %lm = uop.define_local 256 : !uop.ptr<f16, local>
  // CHECK-NEXT: %fa = uop.load %a[%lx] : vector<8xf16>
  %fa = uop.load %a[%lx] : vector<8xf16>
  // CHECK-NEXT: uop.store %lm[%lx], %fa : vector<8xf16>
  uop.store %lm[%lx], %fa : vector<8xf16>
  // CHECK-NEXT: uop.barrier
  uop.barrier
  // CHECK-NEXT: %fb = uop.load %lm[%lx] : vector<4xf16>
  %fb = uop.load %lm[%lx] : vector<4xf16>
  // CHECK-NEXT: %z = uop.const dense<0.000000e+00> : vector<4xf32>
  %z = uop.const dense<0.000000e+00> : vector<4xf32>
  // CHECK-NEXT: %d = uop.wmma %fa, %fb, %z {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
  %d = uop.wmma %fa, %fb, %z {k = 16 : i64, m = 16 : i64, n = 8 : i64, threads = 32 : i64} : vector<8xf16>, vector<4xf16> -> vector<4xf32>
  // CHECK-NEXT: uop.store %c[%ix], %d : vector<4xf32>
  uop.store %c[%ix], %d : vector<4xf32>
}

// CHECK:      uop.kernel @empty {
// CHECK-NEXT: }
uop.kernel @empty {}

// CHECK-LABEL: uop.kernel @constants {
uop.kernel @constants {
  // CHECK-NEXT: %idx = uop.const 64 : index
  %idx = uop.const 64 : index
  // CHECK-NEXT: %t = uop.const true : i1
  %t = uop.const true : i1
  // CHECK-NEXT: %inf = uop.const 0x7f800000 : f32
  %inf = uop.const 0x7f800000 : f32
  // CHECK-NEXT: %ninf = uop.const 0xff800000 : f32
  %ninf = uop.const 0xff800000 : f32
  // CHECK-NEXT: %nan = uop.const 0x7fc00000 : f32
  %nan = uop.const 0x7fc00000 : f32
  // CHECK-NEXT: %hinf = uop.const 0x7c00 : f16
  %hinf = uop.const 0x7c00 : f16
  // CHECK-NEXT: %lanes = uop.const dense<[0, 1, 2, 3]> : vector<4xi32>
  %lanes = uop.const dense<[0, 1, 2, 3]> : vector<4xi32>
  // CHECK-NEXT: %ones = uop.const dense<true> : vector<4xi1>
  %ones = uop.const dense<true> : vector<4xi1>
  // CHECK-NEXT: %c = uop.cast %idx : index -> i32
  %c = uop.cast %idx : index -> i32
  // CHECK-NEXT: %cf = uop.cast %lanes : vector<4xi32> -> vector<4xf32>
  %cf = uop.cast %lanes : vector<4xi32> -> vector<4xf32>
  // CHECK-NEXT: %ch = uop.cast %cf : vector<4xf32> -> vector<4xf16>
  %ch = uop.cast %cf : vector<4xf32> -> vector<4xf16>
  // CHECK-NEXT: %bc = uop.bitcast %ch : vector<4xf16> -> vector<4xi16>
  %bc = uop.bitcast %ch : vector<4xf16> -> vector<4xi16>
  // CHECK-NEXT: %bs = uop.bitcast %inf : f32 -> ui32
  %bs = uop.bitcast %inf : f32 -> ui32
}

// Every ALU op on vector<4xT> (comparisons give vector<4xi1>), and some on scalars.
// CHECK-LABEL: uop.kernel @alu {
uop.kernel @alu {
  // CHECK-NEXT: %xv, %yv, %zv = "test.op"() : () -> (vector<4xf32>, vector<4xf32>, vector<4xf32>)
  %xv, %yv, %zv = "test.op"() : () -> (vector<4xf32>, vector<4xf32>, vector<4xf32>)
  // CHECK-NEXT: %iv, %jv = "test.op"() : () -> (vector<4xi32>, vector<4xi32>)
  %iv, %jv = "test.op"() : () -> (vector<4xi32>, vector<4xi32>)
  // CHECK-NEXT: %pv, %qv = "test.op"() : () -> (vector<4xi1>, vector<4xi1>)
  %pv, %qv = "test.op"() : () -> (vector<4xi1>, vector<4xi1>)
  // CHECK-NEXT: %x, %y = "test.op"() : () -> (f32, f32)
  %x, %y = "test.op"() : () -> (f32, f32)
  // CHECK-NEXT: %p = "test.op"() : () -> i1
  %p = "test.op"() : () -> i1
  // CHECK-NEXT: %neg = uop.neg %xv : vector<4xf32>
  %neg = uop.neg %xv : vector<4xf32>
  // CHECK-NEXT: %exp = uop.exp %xv : vector<4xf32>
  %exp = uop.exp %xv : vector<4xf32>
  // CHECK-NEXT: %expn = uop.exp_nonpositive %xv : vector<4xf32>
  %expn = uop.exp_nonpositive %xv : vector<4xf32>
  // CHECK-NEXT: %exp2 = uop.exp2 %xv : vector<4xf32>
  %exp2 = uop.exp2 %xv : vector<4xf32>
  // CHECK-NEXT: %log = uop.log %xv : vector<4xf32>
  %log = uop.log %xv : vector<4xf32>
  // CHECK-NEXT: %log2 = uop.log2 %xv : vector<4xf32>
  %log2 = uop.log2 %xv : vector<4xf32>
  // CHECK-NEXT: %sin = uop.sin %xv : vector<4xf32>
  %sin = uop.sin %xv : vector<4xf32>
  // CHECK-NEXT: %cos = uop.cos %xv : vector<4xf32>
  %cos = uop.cos %xv : vector<4xf32>
  // CHECK-NEXT: %sqrt = uop.sqrt %xv : vector<4xf32>
  %sqrt = uop.sqrt %xv : vector<4xf32>
  // CHECK-NEXT: %rsqrt = uop.rsqrt %xv : vector<4xf32>
  %rsqrt = uop.rsqrt %xv : vector<4xf32>
  // CHECK-NEXT: %recip = uop.recip %xv : vector<4xf32>
  %recip = uop.recip %xv : vector<4xf32>
  // CHECK-NEXT: %trunc = uop.trunc %xv : vector<4xf32>
  %trunc = uop.trunc %xv : vector<4xf32>
  // CHECK-NEXT: %floor = uop.floor %xv : vector<4xf32>
  %floor = uop.floor %xv : vector<4xf32>
  // CHECK-NEXT: %ceil = uop.ceil %xv : vector<4xf32>
  %ceil = uop.ceil %xv : vector<4xf32>
  // CHECK-NEXT: %abs = uop.abs %xv : vector<4xf32>
  %abs = uop.abs %xv : vector<4xf32>
  // CHECK-NEXT: %sign = uop.sign %xv : vector<4xf32>
  %sign = uop.sign %xv : vector<4xf32>
  // CHECK-NEXT: %tanh = uop.tanh %xv : vector<4xf32>
  %tanh = uop.tanh %xv : vector<4xf32>
  // CHECK-NEXT: %erf = uop.erf %xv : vector<4xf32>
  %erf = uop.erf %xv : vector<4xf32>
  // CHECK-NEXT: %tan = uop.tan %xv : vector<4xf32>
  %tan = uop.tan %xv : vector<4xf32>
  // CHECK-NEXT: %asin = uop.asin %xv : vector<4xf32>
  %asin = uop.asin %xv : vector<4xf32>
  // CHECK-NEXT: %acos = uop.acos %xv : vector<4xf32>
  %acos = uop.acos %xv : vector<4xf32>
  // CHECK-NEXT: %atan = uop.atan %xv : vector<4xf32>
  %atan = uop.atan %xv : vector<4xf32>
  // CHECK-NEXT: %sinh = uop.sinh %xv : vector<4xf32>
  %sinh = uop.sinh %xv : vector<4xf32>
  // CHECK-NEXT: %cosh = uop.cosh %xv : vector<4xf32>
  %cosh = uop.cosh %xv : vector<4xf32>
  // CHECK-NEXT: %asinh = uop.asinh %xv : vector<4xf32>
  %asinh = uop.asinh %xv : vector<4xf32>
  // CHECK-NEXT: %acosh = uop.acosh %xv : vector<4xf32>
  %acosh = uop.acosh %xv : vector<4xf32>
  // CHECK-NEXT: %atanh = uop.atanh %xv : vector<4xf32>
  %atanh = uop.atanh %xv : vector<4xf32>
  // CHECK-NEXT: %round = uop.round %xv : vector<4xf32>
  %round = uop.round %xv : vector<4xf32>
  // CHECK-NEXT: %erfc = uop.erfc %xv : vector<4xf32>
  %erfc = uop.erfc %xv : vector<4xf32>
  // CHECK-NEXT: %isnan = uop.isnan %xv : vector<4xf32>
  %isnan = uop.isnan %xv : vector<4xf32>
  // CHECK-NEXT: %isinf = uop.isinf %xv : vector<4xf32>
  %isinf = uop.isinf %xv : vector<4xf32>
  // CHECK-NEXT: %not = uop.not %iv : vector<4xi32>
  %not = uop.not %iv : vector<4xi32>
  // CHECK-NEXT: %add = uop.add %xv, %yv : vector<4xf32>
  %add = uop.add %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %sub = uop.sub %xv, %yv : vector<4xf32>
  %sub = uop.sub %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %mul = uop.mul %xv, %yv : vector<4xf32>
  %mul = uop.mul %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %div = uop.div %xv, %yv : vector<4xf32>
  %div = uop.div %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %idiv = uop.idiv %xv, %yv : vector<4xf32>
  %idiv = uop.idiv %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %mod = uop.mod %xv, %yv : vector<4xf32>
  %mod = uop.mod %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %max = uop.max %xv, %yv : vector<4xf32>
  %max = uop.max %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %min = uop.min %xv, %yv : vector<4xf32>
  %min = uop.min %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %pow = uop.pow %xv, %yv : vector<4xf32>
  %pow = uop.pow %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %and = uop.and %iv, %jv : vector<4xi32>
  %and = uop.and %iv, %jv : vector<4xi32>
  // CHECK-NEXT: %or = uop.or %iv, %jv : vector<4xi32>
  %or = uop.or %iv, %jv : vector<4xi32>
  // CHECK-NEXT: %xor = uop.xor %iv, %jv : vector<4xi32>
  %xor = uop.xor %iv, %jv : vector<4xi32>
  // CHECK-NEXT: %shl = uop.shl %iv, %jv : vector<4xi32>
  %shl = uop.shl %iv, %jv : vector<4xi32>
  // CHECK-NEXT: %shr = uop.shr %iv, %jv : vector<4xi32>
  %shr = uop.shr %iv, %jv : vector<4xi32>
  // CHECK-NEXT: %cmplt = uop.cmplt %xv, %yv : vector<4xf32>
  %cmplt = uop.cmplt %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %cmple = uop.cmple %xv, %yv : vector<4xf32>
  %cmple = uop.cmple %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %cmpeq = uop.cmpeq %xv, %yv : vector<4xf32>
  %cmpeq = uop.cmpeq %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %cmpne = uop.cmpne %xv, %yv : vector<4xf32>
  %cmpne = uop.cmpne %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %where = uop.where %pv, %xv, %yv : vector<4xf32>
  %where = uop.where %pv, %xv, %yv : vector<4xf32>
  // CHECK-NEXT: %fma = uop.fma %xv, %yv, %zv : vector<4xf32>
  %fma = uop.fma %xv, %yv, %zv : vector<4xf32>
  // CHECK-NEXT: %s_add = uop.add %x, %y : f32
  %s_add = uop.add %x, %y : f32
  // CHECK-NEXT: %s_lt = uop.cmplt %x, %y : f32
  %s_lt = uop.cmplt %x, %y : f32
  // CHECK-NEXT: %s_where = uop.where %p, %x, %y : f32
  %s_where = uop.where %p, %x, %y : f32
}
