// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each graph verifier rejects what it must, with a message that names the problem.

// bad broadcast
func.func @f(%x: !graph.tensor<4x8xf32>, %y: !graph.tensor<3xf32>) {
  // expected-error@+1 {{do not broadcast}}
  %0 = graph.add %x, %y : (!graph.tensor<4x8xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x8xf32>
  func.return
}

// -----

// dtype mismatch
func.func @f(%x: !graph.tensor<4xf32>, %y: !graph.tensor<4xi32>) {
  // expected-error@+1 {{operand dtypes differ (f32 vs i32); insert a graph.cast}}
  %0 = graph.mul %x, %y : (!graph.tensor<4xf32>, !graph.tensor<4xi32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// wrong result shape
func.func @f(%x: !graph.tensor<4x1xf32>, %y: !graph.tensor<3xf32>) {
  // expected-error@+1 {{does not match the inferred type}}
  %0 = graph.sub %x, %y : (!graph.tensor<4x1xf32>, !graph.tensor<3xf32>) -> !graph.tensor<4x1xf32>
  func.return
}

// -----

// comparison result
func.func @f(%x: !graph.tensor<4xf32>, %y: !graph.tensor<4xf32>) {
  // expected-error@+1 {{does not match the inferred type !graph.tensor<4xi1>}}
  %0 = graph.lt %x, %y : (!graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// float-only unary
func.func @f(%x: !graph.tensor<4xi32>) {
  // expected-error@+1 {{'graph.exp' does not accept i32}}
  %0 = graph.exp %x : !graph.tensor<4xi32>
  func.return
}

// -----

// softmax's exp of x - max is a float function too
func.func @f(%x: !graph.tensor<4xi32>) {
  // expected-error@+1 {{'graph.exp_nonpositive' does not accept i32}}
  %0 = graph.exp_nonpositive %x : !graph.tensor<4xi32>
  func.return
}

// -----

// bool arithmetic
func.func @f(%x: !graph.tensor<4xi1>, %y: !graph.tensor<4xi1>) {
  // expected-error@+1 {{'graph.add' does not accept i1}}
  %0 = graph.add %x, %y : (!graph.tensor<4xi1>, !graph.tensor<4xi1>) -> !graph.tensor<4xi1>
  func.return
}

// -----

// float shift
func.func @f(%x: !graph.tensor<4xf32>, %y: !graph.tensor<4xf32>) {
  // expected-error@+1 {{'graph.shl' does not accept f32}}
  %0 = graph.shl %x, %y : (!graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// int div
func.func @f(%x: !graph.tensor<4xi32>, %y: !graph.tensor<4xi32>) {
  // expected-error@+1 {{'graph.div' does not accept i32}}
  %0 = graph.div %x, %y : (!graph.tensor<4xi32>, !graph.tensor<4xi32>) -> !graph.tensor<4xi32>
  func.return
}

// -----

// where condition
func.func @f(%c: !graph.tensor<4xf32>, %x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{condition must be i1}}
  %0 = graph.where %c, %x, %x : (!graph.tensor<4xf32>, !graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// cast shape
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{must not change the shape}}
  %0 = graph.cast %x : (!graph.tensor<4xf32>) -> !graph.tensor<2xi32>
  func.return
}

// -----

// bitcast width
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{same bit width}}
  %0 = graph.bitcast %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xi16>
  func.return
}

// -----

// splat dtype
func.func @f() {
  // expected-error@+1 {{value type i32 does not match the result dtype f32}}
  %0 = graph.constant 1 : i32 : !graph.tensor<4xf32>
  func.return
}

// -----

// dense shape
func.func @f() {
  // expected-error@+1 {{does not match result shape}}
  %0 = graph.constant dense<[1, 2]> : tensor<2xi32> : !graph.tensor<3xi32>
  func.return
}

// -----

// iota axis
func.func @f() {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = graph.iota {axis = 2 : i64} : !graph.tensor<4x3xi32>
  func.return
}

// -----

// reduce axes order
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{must be sorted and unique}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1, 0>} : (!graph.tensor<4x8xf32>) -> !graph.tensor<f32>
  func.return
}

// -----

// reduce axis range
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %0 = graph.reduce_max %x {axes = array<i64: 2>} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32>
  func.return
}

// -----

// mean of ints
func.func @f(%x: !graph.tensor<4xi32>) {
  // expected-error@+1 {{'graph.mean' does not accept i32}}
  %0 = graph.mean %x {axes = array<i64: 0>} : (!graph.tensor<4xi32>) -> !graph.tensor<i32>
  func.return
}

// -----

// argmax dtype
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{result dtype must be i32 or i64}}
  %0 = graph.argmax %x {axis = 1 : i64} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// argmax shape
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{result shape [8] should be [4]}}
  %0 = graph.argmin %x {axis = 1 : i64} : (!graph.tensor<4x8xf32>) -> !graph.tensor<8xi64>
  func.return
}

// -----

// reshape count
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{element counts differ}}
  %0 = graph.reshape %x : (!graph.tensor<4x8xf32>) -> !graph.tensor<4x7xf32>
  func.return
}

// -----

// reshape symbolic
func.func @f(%x: !graph.tensor<Nx8xf32>) attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  // expected-error@+1 {{element counts differ}}
  %0 = graph.reshape %x : (!graph.tensor<Nx8xf32>) -> !graph.tensor<8x8xf32>
  func.return
}

// -----

// expand
func.func @f(%x: !graph.tensor<3x4xf32>) {
  // expected-error@+1 {{cannot broadcast [3, 4] to [2, 4]}}
  %0 = graph.expand %x : (!graph.tensor<3x4xf32>) -> !graph.tensor<2x4xf32>
  func.return
}

// -----

// permutation
func.func @f(%x: !graph.tensor<4x8xf32>) {
  // expected-error@+1 {{is not a permutation of 0..1}}
  %0 = graph.permute %x {perm = array<i64: 0, 2>} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32>
  func.return
}

// -----

// negative pad
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{padding must be non-negative}}
  %0 = graph.pad %x {low = array<i64: -1>, high = array<i64: 0>, value = 0.0 : f32} : (!graph.tensor<4xf32>) -> !graph.tensor<3xf32>
  func.return
}

// -----

// pad value type
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{pad value type i32 does not match f32}}
  %0 = graph.pad %x {low = array<i64: 1>, high = array<i64: 0>, value = 0 : i32} : (!graph.tensor<4xf32>) -> !graph.tensor<5xf32>
  func.return
}

// -----

// pad symbolic
func.func @f(%x: !graph.tensor<Nxf32>) attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  // expected-error@+1 {{cannot pad along symbolic dim 'N'}}
  %0 = graph.pad %x {low = array<i64: 1>, high = array<i64: 0>, value = 0.0 : f32} : (!graph.tensor<Nxf32>) -> !graph.tensor<Nxf32>
  func.return
}

// -----

// slice bounds
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{slice [2:5] is out of bounds for a dim of size 4}}
  %0 = graph.shrink %x {start = array<i64: 2>, limit = array<i64: 5>} : (!graph.tensor<4xf32>) -> !graph.tensor<3xf32>
  func.return
}

// -----

// slice step
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{step must be >= 1}}
  %0 = graph.shrink %x {start = array<i64: 0>, limit = array<i64: 4>, step = array<i64: 0>} : (!graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// flip axis
func.func @f(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{axis 1 is out of range for rank 1}}
  %0 = graph.flip %x {axes = array<i64: 1>} : (!graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

// concat dims
func.func @f(%x: !graph.tensor<4x2xf32>, %y: !graph.tensor<3x3xf32>) {
  // expected-error@+1 {{must agree on every dim except the concat axis}}
  %0 = graph.concat %x, %y {axis = 0 : i64} : (!graph.tensor<4x2xf32>, !graph.tensor<3x3xf32>) -> !graph.tensor<7x2xf32>
  func.return
}

// -----

// matmul contraction
func.func @f(%x: !graph.tensor<4x3xf32>, %y: !graph.tensor<4x5xf32>) {
  // expected-error@+1 {{contraction dims differ: 3 vs 4}}
  %0 = graph.matmul %x, %y : (!graph.tensor<4x3xf32>, !graph.tensor<4x5xf32>) -> !graph.tensor<4x5xf32>
  func.return
}

// -----

// matmul batch
func.func @f(%x: !graph.tensor<2x4x3xf32>, %y: !graph.tensor<5x3x5xf32>) {
  // expected-error@+1 {{do not broadcast}}
  %0 = graph.matmul %x, %y : (!graph.tensor<2x4x3xf32>, !graph.tensor<5x3x5xf32>) -> !graph.tensor<2x4x5xf32>
  func.return
}

// -----

// softmax axis
func.func @f(%x: !graph.tensor<4x3xf32>) {
  // expected-error@+1 {{axis 3 is out of range for rank 2}}
  %0 = graph.softmax %x {axis = 3 : i64} : (!graph.tensor<4x3xf32>) -> !graph.tensor<4x3xf32>
  func.return
}

// -----

// layernorm axes
func.func @f(%x: !graph.tensor<4x3xf32>) {
  // expected-error@+1 {{must be the trailing axes}}
  %0 = graph.layernorm %x {axes = array<i64: 0>} : (!graph.tensor<4x3xf32>) -> !graph.tensor<4x3xf32>
  func.return
}

// -----

// layernorm affine
func.func @f(%x: !graph.tensor<4x3xf32>, %w: !graph.tensor<4xf32>) {
  // expected-error@+1 {{weight and bias must be 3xf32}}
  %0 = graph.layernorm %x affine(%w, %w) {axes = array<i64: 1>} : (!graph.tensor<4x3xf32>, !graph.tensor<4xf32>, !graph.tensor<4xf32>) -> !graph.tensor<4x3xf32>
  func.return
}

// -----

// conv groups
func.func @f(%x: !graph.tensor<1x4x8x8xf32>, %w: !graph.tensor<6x3x3x3xf32>) {
  // expected-error@+1 {{channels do not fit groups=2}}
  %0 = graph.conv2d %x, %w {groups = 2 : i64} : (!graph.tensor<1x4x8x8xf32>, !graph.tensor<6x3x3x3xf32>) -> !graph.tensor<1x6x6x6xf32>
  func.return
}

// -----

// conv window
func.func @f(%x: !graph.tensor<1x1x2x2xf32>, %w: !graph.tensor<1x1x3x3xf32>) {
  // expected-error@+1 {{window of 3 does not fit an input of 2}}
  %0 = graph.conv2d %x, %w : (!graph.tensor<1x1x2x2xf32>, !graph.tensor<1x1x3x3xf32>) -> !graph.tensor<1x1x1x1xf32>
  func.return
}

// -----

// pool rank
func.func @f(%x: !graph.tensor<4x8x8xf32>) {
  // expected-error@+1 {{input must have rank 4}}
  %0 = graph.max_pool2d %x {kernel = array<i64: 2, 2>} : (!graph.tensor<4x8x8xf32>) -> !graph.tensor<4x4x4xf32>
  func.return
}

// -----

// gather indices
func.func @f(%x: !graph.tensor<4x8xf32>, %i: !graph.tensor<4x2xf32>) {
  // expected-error@+1 {{indices must be integers}}
  %0 = graph.gather %x, %i {axis = 1 : i64} : (!graph.tensor<4x8xf32>, !graph.tensor<4x2xf32>) -> !graph.tensor<4x2xf32>
  func.return
}

// -----

// gather dims
func.func @f(%x: !graph.tensor<4x8xf32>, %i: !graph.tensor<3x2xi32>) {
  // expected-error@+1 {{indices dim 0 (3) must equal the input's (4)}}
  %0 = graph.gather %x, %i {axis = 1 : i64} : (!graph.tensor<4x8xf32>, !graph.tensor<3x2xi32>) -> !graph.tensor<3x2xf32>
  func.return
}

// -----

// undeclared symbol
func.func @f(%x: !graph.tensor<Nxf32>) {
  // expected-error@+1 {{symbolic dim 'N' is not declared}}
  %0 = graph.exp %x : !graph.tensor<Nxf32>
  func.return
}

// -----

func.func @isnan_keeps_the_dtype(%x: !graph.tensor<4xf32>) {
  // expected-error@+1 {{does not match the inferred type !graph.tensor<4xi1>}}
  %m = graph.isnan %x : (!graph.tensor<4xf32>) -> !graph.tensor<4xf32>
  func.return
}

// -----

func.func @asin_of_int(%i: !graph.tensor<4xi32>) {
  // expected-error@+1 {{'graph.asin' does not accept i32}}
  %a = graph.asin %i : !graph.tensor<4xi32>
  func.return
}
