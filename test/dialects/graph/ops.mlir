// RUN: kiln-opt %s | kiln-opt | filecheck %s
// RUN: kiln-opt %s --print-op-generic | kiln-opt | filecheck %s
// Every graph op prints and parses back to the same text.

// CHECK-LABEL: func.func @unary(%x: !graph.tensor<4xf32>, %i: !graph.tensor<4xi32>, %b: !graph.tensor<4xi1>)
func.func @unary(%x: !graph.tensor<4xf32>, %i: !graph.tensor<4xi32>, %b: !graph.tensor<4xi1>) {
  // CHECK-NEXT: %neg = graph.neg %x : !graph.tensor<4xf32>
  %neg = graph.neg %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %exp = graph.exp %x : !graph.tensor<4xf32>
  %exp = graph.exp %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %expn = graph.exp_nonpositive %x : !graph.tensor<4xf32>
  %expn = graph.exp_nonpositive %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %exp2 = graph.exp2 %x : !graph.tensor<4xf32>
  %exp2 = graph.exp2 %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %log = graph.log %x : !graph.tensor<4xf32>
  %log = graph.log %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %log2 = graph.log2 %x : !graph.tensor<4xf32>
  %log2 = graph.log2 %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %sin = graph.sin %x : !graph.tensor<4xf32>
  %sin = graph.sin %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %cos = graph.cos %x : !graph.tensor<4xf32>
  %cos = graph.cos %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %sqrt = graph.sqrt %x : !graph.tensor<4xf32>
  %sqrt = graph.sqrt %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %rsqrt = graph.rsqrt %x : !graph.tensor<4xf32>
  %rsqrt = graph.rsqrt %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %reciprocal = graph.reciprocal %x : !graph.tensor<4xf32>
  %reciprocal = graph.reciprocal %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %abs = graph.abs %x : !graph.tensor<4xf32>
  %abs = graph.abs %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %trunc = graph.trunc %x : !graph.tensor<4xf32>
  %trunc = graph.trunc %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %floor = graph.floor %x : !graph.tensor<4xf32>
  %floor = graph.floor %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %ceil = graph.ceil %x : !graph.tensor<4xf32>
  %ceil = graph.ceil %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %sign = graph.sign %x : !graph.tensor<4xf32>
  %sign = graph.sign %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %tanh = graph.tanh %x : !graph.tensor<4xf32>
  %tanh = graph.tanh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %sigmoid = graph.sigmoid %x : !graph.tensor<4xf32>
  %sigmoid = graph.sigmoid %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %relu = graph.relu %x : !graph.tensor<4xf32>
  %relu = graph.relu %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %gelu = graph.gelu %x : !graph.tensor<4xf32>
  %gelu = graph.gelu %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %erf = graph.erf %x : !graph.tensor<4xf32>
  %erf = graph.erf %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %tan = graph.tan %x : !graph.tensor<4xf32>
  %tan = graph.tan %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %asin = graph.asin %x : !graph.tensor<4xf32>
  %asin = graph.asin %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %acos = graph.acos %x : !graph.tensor<4xf32>
  %acos = graph.acos %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %atan = graph.atan %x : !graph.tensor<4xf32>
  %atan = graph.atan %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %sinh = graph.sinh %x : !graph.tensor<4xf32>
  %sinh = graph.sinh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %cosh = graph.cosh %x : !graph.tensor<4xf32>
  %cosh = graph.cosh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %asinh = graph.asinh %x : !graph.tensor<4xf32>
  %asinh = graph.asinh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %acosh = graph.acosh %x : !graph.tensor<4xf32>
  %acosh = graph.acosh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %atanh = graph.atanh %x : !graph.tensor<4xf32>
  %atanh = graph.atanh %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %round = graph.round %x : !graph.tensor<4xf32>
  %round = graph.round %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %erfc = graph.erfc %x : !graph.tensor<4xf32>
  %erfc = graph.erfc %x : !graph.tensor<4xf32>
  // CHECK-NEXT: %isnan = graph.isnan %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xi1>
  %isnan = graph.isnan %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xi1>
  // CHECK-NEXT: %isinf = graph.isinf %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xi1>
  %isinf = graph.isinf %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xi1>
  // CHECK-NEXT: %ineg = graph.neg %i : !graph.tensor<4xi32>
  %ineg = graph.neg %i : !graph.tensor<4xi32>
  // CHECK-NEXT: %iabs = graph.abs %i : !graph.tensor<4xi32>
  %iabs = graph.abs %i : !graph.tensor<4xi32>
  // CHECK-NEXT: %inot = graph.not %i : !graph.tensor<4xi32>
  %inot = graph.not %i : !graph.tensor<4xi32>
  // CHECK-NEXT: %bnot = graph.not %b : !graph.tensor<4xi1>
  %bnot = graph.not %b : !graph.tensor<4xi1>
  func.return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: !graph.tensor<4x1xf32>, %b: !graph.tensor<3xf32>, %i: !graph.tensor<4xi32>, %j: !graph.tensor<4xi32>) {
  // CHECK-NEXT: %fadd = graph.add %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fadd = graph.add %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fsub = graph.sub %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fsub = graph.sub %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fmul = graph.mul %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fmul = graph.mul %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fdiv = graph.div %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fdiv = graph.div %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fidiv = graph.idiv %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fidiv = graph.idiv %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fmod = graph.mod %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fmod = graph.mod %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fpow = graph.pow %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fpow = graph.pow %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fmax = graph.max %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fmax = graph.max %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %fmin = graph.min %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %fmin = graph.min %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %iadd = graph.add %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %iadd = graph.add %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %iidiv = graph.idiv %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %iidiv = graph.idiv %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %imod = graph.mod %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %imod = graph.mod %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %iand = graph.and %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %iand = graph.and %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %ior = graph.or %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %ior = graph.or %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %ixor = graph.xor %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %ixor = graph.xor %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %ishl = graph.shl %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %ishl = graph.shl %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %ishr = graph.shr %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  %ishr = graph.shr %i, %j : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  // CHECK-NEXT: %clt = graph.lt %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %clt = graph.lt %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %cle = graph.le %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %cle = graph.le %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %cgt = graph.gt %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %cgt = graph.gt %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %cge = graph.ge %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %cge = graph.ge %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %ceq = graph.eq %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %ceq = graph.eq %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %cne = graph.ne %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  %cne = graph.ne %a, %b : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xi1>
  // CHECK-NEXT: %w = graph.where %clt, %fadd, %b : (!graph.tensor<4x3xi1>, !graph.tensor<4x3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  %w = graph.where %clt, %fadd, %b : (!graph.tensor<4x3xi1>, !graph.tensor<4x3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x3xf32>
  // CHECK-NEXT: %cast = graph.cast %i : (!graph.tensor<4xi32>) -> !graph.tensor<4xf16>
  %cast = graph.cast %i : (!graph.tensor<4xi32>) -> !graph.tensor<4xf16>
  // CHECK-NEXT: %bc = graph.bitcast %i : (!graph.tensor<4xi32>) -> !graph.tensor<4xf32>
  %bc = graph.bitcast %i : (!graph.tensor<4xi32>) -> !graph.tensor<4xf32>
  func.return
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // CHECK-NEXT: %s = graph.constant 1.500000e+00 : f32 : !graph.tensor<2x3xf32>
  %s = graph.constant 1.500000e+00 : f32 : !graph.tensor<2x3xf32>
  // CHECK-NEXT: %d = graph.constant dense<[1, 2, 3]> : tensor<3xi64> : !graph.tensor<3xi64>
  %d = graph.constant dense<[1, 2, 3]> : tensor<3xi64> : !graph.tensor<3xi64>
  // CHECK-NEXT: %t = graph.constant true : !graph.tensor<2xi1>
  %t = graph.constant true : !graph.tensor<2xi1>
  // CHECK-NEXT: %i = graph.iota {axis = 1 : i64} : !graph.tensor<2x5xui8>
  %i = graph.iota {axis = 1 : i64} : !graph.tensor<2x5xui8>
  func.return
}

// CHECK-LABEL: func.func @reductions(%x: !graph.tensor<Nx8xbf16>)
// CHECK-SAME: attributes {graph.dims = #graph.dims<N = [1, 64]>}
func.func @reductions(%x: !graph.tensor<Nx8xbf16>) attributes {graph.dims = #graph.dims<N = [1, 64]>} {
  // CHECK-NEXT: graph.reduce_sum %x {axes = array<i64: 1>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxbf16>
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxbf16>
  // CHECK-NEXT: graph.reduce_prod %x {axes = array<i64: 0, 1>, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<1x1xbf16>
  %1 = graph.reduce_prod %x {axes = array<i64: 0, 1>, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<1x1xbf16>
  // CHECK-NEXT: graph.reduce_max %x {axes = array<i64: 0>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<8xbf16>
  %2 = graph.reduce_max %x {axes = array<i64: 0>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<8xbf16>
  // CHECK-NEXT: graph.reduce_min %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nx1xbf16>
  %3 = graph.reduce_min %x {axes = array<i64: 1>, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nx1xbf16>
  // CHECK-NEXT: graph.mean %x {axes = array<i64: 1>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxbf16>
  %4 = graph.mean %x {axes = array<i64: 1>} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxbf16>
  // CHECK-NEXT: graph.argmax %x {axis = 1 : i64} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxi64>
  %5 = graph.argmax %x {axis = 1 : i64} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<Nxi64>
  // CHECK-NEXT: graph.argmin %x {axis = 0 : i64, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<1x8xi32>
  %6 = graph.argmin %x {axis = 0 : i64, keepdims = true} : (!graph.tensor<Nx8xbf16>) -> !graph.tensor<1x8xi32>
  func.return
}

// CHECK-LABEL: func.func @movement
func.func @movement(%x: !graph.tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph.reshape %x : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<6x4xf32>
  %0 = graph.reshape %x : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<6x4xf32>
  // CHECK-NEXT: graph.permute %x {perm = array<i64: 2, 0, 1>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<4x2x3xf32>
  %1 = graph.permute %x {perm = array<i64: 2, 0, 1>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<4x2x3xf32>
  // CHECK-NEXT: graph.expand %0 : (!graph.tensor<6x4xf32>) -> !graph.tensor<5x6x4xf32>
  %2 = graph.expand %0 : (!graph.tensor<6x4xf32>) -> !graph.tensor<5x6x4xf32>
  // CHECK-NEXT: graph.pad %x {low = array<i64: 0, 1, 2>, high = array<i64: 1, 0, 0>, value = -1.000000e+00 : f32} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<3x4x6xf32>
  %3 = graph.pad %x {low = array<i64: 0, 1, 2>, high = array<i64: 1, 0, 0>, value = -1.000000e+00 : f32} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<3x4x6xf32>
  // CHECK-NEXT: graph.shrink %x {start = array<i64: 0, 1, 0>, limit = array<i64: 2, 3, 4>, step = array<i64: 1, 1, 3>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<2x2x2xf32>
  %4 = graph.shrink %x {start = array<i64: 0, 1, 0>, limit = array<i64: 2, 3, 4>, step = array<i64: 1, 1, 3>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<2x2x2xf32>
  // CHECK-NEXT: graph.flip %x {axes = array<i64: 0, 2>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<2x3x4xf32>
  %5 = graph.flip %x {axes = array<i64: 0, 2>} : (!graph.tensor<2x3x4xf32>) -> !graph.tensor<2x3x4xf32>
  // CHECK-NEXT: graph.concat %x, %5 {axis = 1 : i64} : (!graph.tensor<2x3x4xf32>, !graph.tensor<2x3x4xf32>) -> !graph.tensor<2x6x4xf32>
  %6 = graph.concat %x, %5 {axis = 1 : i64} : (!graph.tensor<2x3x4xf32>, !graph.tensor<2x3x4xf32>) -> !graph.tensor<2x6x4xf32>
  // CHECK-NEXT: graph.contiguous %6 : !graph.tensor<2x6x4xf32>
  %7 = graph.contiguous %6 : !graph.tensor<2x6x4xf32>
  func.return
}

// CHECK-LABEL: func.func @composites
func.func @composites(%a: !graph.tensor<5x2x3xf32>, %b: !graph.tensor<3x4xf32>, %v: !graph.tensor<3xf32>, %img: !graph.tensor<1x4x8x8xf32>, %w: !graph.tensor<6x2x3x3xf32>, %bias: !graph.tensor<6xf32>, %idx: !graph.tensor<5x2x2xi32>) {
  // CHECK-NEXT: graph.matmul %a, %b : (!graph.tensor<5x2x3xf32>, !graph.tensor<3x4xf32>) -> !graph.tensor<5x2x4xf32>
  %0 = graph.matmul %a, %b : (!graph.tensor<5x2x3xf32>, !graph.tensor<3x4xf32>) -> !graph.tensor<5x2x4xf32>
  // CHECK-NEXT: graph.matmul %a, %v : (!graph.tensor<5x2x3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<5x2xf32>
  %1 = graph.matmul %a, %v : (!graph.tensor<5x2x3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<5x2xf32>
  // CHECK-NEXT: graph.softmax %a {axis = 2 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  %2 = graph.softmax %a {axis = 2 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  // CHECK-NEXT: graph.log_softmax %a {axis = 0 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  %3 = graph.log_softmax %a {axis = 0 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  // CHECK-NEXT: graph.layernorm %a affine(%v, %v) {axes = array<i64: 2>} : (!graph.tensor<5x2x3xf32>, !graph.tensor<3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<5x2x3xf32>
  %4 = graph.layernorm %a affine(%v, %v) {axes = array<i64: 2>} : (!graph.tensor<5x2x3xf32>, !graph.tensor<3xf32>, !graph.tensor<3xf32>) -> !graph.tensor<5x2x3xf32>
  // CHECK-NEXT: graph.layernorm %a {axes = array<i64: 1, 2>, epsilon = 1.000000e-03 : f64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  %5 = graph.layernorm %a {axes = array<i64: 1, 2>, epsilon = 1.000000e-03 : f64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  // CHECK-NEXT: graph.conv2d %img, %w bias %bias {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<6x2x3x3xf32>, !graph.tensor<6xf32>) -> !graph.tensor<1x6x4x4xf32>
  %6 = graph.conv2d %img, %w bias %bias {groups = 2 : i64, padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<6x2x3x3xf32>, !graph.tensor<6xf32>) -> !graph.tensor<1x6x4x4xf32>
  // CHECK-NEXT: graph.conv2d %img, %w {dilation = array<i64: 2, 2>, groups = 2 : i64} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<6x2x3x3xf32>) -> !graph.tensor<1x6x4x4xf32>
  %7 = graph.conv2d %img, %w {dilation = array<i64: 2, 2>, groups = 2 : i64} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<6x2x3x3xf32>) -> !graph.tensor<1x6x4x4xf32>
  // CHECK-NEXT: graph.max_pool2d %img {kernel = array<i64: 2, 2>} : (!graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x4x4x4xf32>
  %8 = graph.max_pool2d %img {kernel = array<i64: 2, 2>} : (!graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x4x4x4xf32>
  // CHECK-NEXT: graph.avg_pool2d %img {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (!graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x4x8x8xf32>
  %9 = graph.avg_pool2d %img {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>} : (!graph.tensor<1x4x8x8xf32>) -> !graph.tensor<1x4x8x8xf32>
  // CHECK-NEXT: graph.gather %a, %idx {axis = 2 : i64} : (!graph.tensor<5x2x3xf32>, !graph.tensor<5x2x2xi32>) -> !graph.tensor<5x2x2xf32>
  %10 = graph.gather %a, %idx {axis = 2 : i64} : (!graph.tensor<5x2x3xf32>, !graph.tensor<5x2x2xi32>) -> !graph.tensor<5x2x2xf32>
  // CHECK-NEXT: graph.cumsum %a {axis = 1 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  %11 = graph.cumsum %a {axis = 1 : i64} : (!graph.tensor<5x2x3xf32>) -> !graph.tensor<5x2x3xf32>
  func.return
}
