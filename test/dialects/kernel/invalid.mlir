// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each kernel verifier (and each custom parser) rejects what it must, with a message that names the problem.

kernel.kernel @k(%x: !kernel.buffer<64xf32>) {
  %f = kernel.const 1.000000e+00 : f32
  // expected-error@+1 {{kernel.range size must be index, got f32}}
  %i = "kernel.range"(%f) <{kind = #kernel<axis global>}> : (f32) -> index
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  // expected-error@+1 {{Expected `global`, `local`, `loop`, `reduce`, `group_reduce`, `upcast`, `unroll`, or `thread`}}
  %i = kernel.range %n sideways
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %i = kernel.range %n global
  %v = kernel.load %x[%i] : f32
  // expected-error@+1 {{kernel.reduce over %i: it is a global range; reduce over reduce, unroll or group_reduce ranges only}}
  %s = kernel.reduce add %v over %i : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %v = kernel.load %x[%n] : f32
  // expected-error@+1 {{kernel.reduce over %n: it is not a kernel.range result}}
  %s = kernel.reduce add %v over %n : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %r = kernel.range %n reduce
  %v = kernel.load %x[%r] : f32
  // expected-error@+1 {{kernel.reduce lists range %r twice}}
  %s = kernel.reduce max %v over %r, %r : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %r = kernel.range %n reduce
  %b = kernel.cmplt %r, %n : index
  // expected-error@+1 {{kernel.reduce add does not accept i1}}
  %s = kernel.reduce add %b over %r : i1
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %v = kernel.load %x[%n] : f32
  // expected-error@+1 {{kernel.reduce needs at least one range to reduce over}}
  %s = "kernel.reduce"(%v) <{kind = #kernel<reduce_kind add>}> : (f32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  // expected-error@+1 {{kernel.load result type f16 must be the buffer's element type f32}}
  %v = kernel.load %x[%n] : f16
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>) {
  %c = kernel.const 1 : i32
  // expected-error@+1 {{kernel.load index must be index, got i32}}
  %v = "kernel.load"(%x, %c) : (!kernel.buffer<64xf32>, i32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %f = kernel.const 1.000000e+00 : f32
  // expected-error@+1 {{operand is used with type index, but has been previously used or defined with type f32}}
  %v = kernel.load %x[%f] : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %g = kernel.const 1 : i32
  // expected-error@+1 {{kernel.load gate must be i1, got i32}}
  %v = "kernel.load"(%x, %n, %g) : (!kernel.buffer<64xf32>, index, i32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %b = "test.op"() : () -> !kernel.buffer<64xf32>
  // expected-error@+1 {{kernel.load buffer %b must be an argument of the enclosing kernel}}
  %v = kernel.load %b[%n] : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  // expected-error@+1 {{buffer %y must be defined before this use}}
  %v = kernel.load %y[%n] : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  // expected-error@+1 {{expected a !kernel.buffer value, got index}}
  %v = kernel.load %n[%n] : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %v = kernel.const 1 : i32
  // expected-error@+1 {{kernel.store value type i32 must be the buffer's element type f32}}
  "kernel.store"(%x, %n, %v) : (!kernel.buffer<64xf32>, index, i32) -> ()
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %v = kernel.const 1 : i32
  // expected-error@+1 {{operand is used with type f32, but has been previously used or defined with type i32}}
  kernel.store %x[%n], %v
}

// -----

kernel.kernel @k(%x: !kernel.buffer<64xf32>, %n: index) {
  %v = kernel.const 1.000000e+00 : f32
  // expected-error@+1 {{kernel.store gate must be i1, got f32}}
  "kernel.store"(%x, %n, %v, %v) : (!kernel.buffer<64xf32>, index, f32, f32) -> ()
}

// -----

// expected-error@+1 {{kernel.kernel @k contains test.op producing !graph.tensor<4xf32>: tensors do not exist inside kernels}}
kernel.kernel @k(%x: !kernel.buffer<64xf32>) {
  %t = "test.op"() : () -> !graph.tensor<4xf32>
}

// -----

// expected-error@+1 {{kernel.kernel @k argument 1 must be a !kernel.buffer or index, got f32}}
kernel.kernel @k(%x: !kernel.buffer<64xf32>, %y: f32) {}

// -----

// expected-error@+1 {{symbolic dim 'M' is not declared}}
kernel.kernel @k(%x: !kernel.buffer<Mx4xf32>) {}

// -----

// expected-error@+1 {{kernel.kernel @k attribute "inputs" has 2 entries for 1 buffer arguments (one reason per buffer)}}
kernel.kernel @k(%x: !kernel.buffer<4xf32>) attributes {inputs = ["arg", "output"]} {}

// -----

// expected-error@+1 {{kernel.kernel attribute "opts" must be an array of strings, got [1 : i64]}}
kernel.kernel @k(%x: !kernel.buffer<4xf32>) attributes {opts = [1]} {}

// -----

// expected-error@+1 {{kernel.kernel @k attribute "symbols" has 0 names for 1 index arguments (one symbol per index argument, in order)}}
kernel.kernel @k(%x: !kernel.buffer<4xf32>, %N: index) attributes {symbols = []} {}

// -----

// expected-error@+1 {{kernel.kernel @k: symbol 'N' is not declared in graph.dims}}
kernel.kernel @k(%N: index) attributes {symbols = ["N"]} {}

// -----

func.func @f(%n: index) {
  // expected-error@+1 {{'kernel.range' expects parent op 'kernel.kernel'}}
  %i = kernel.range %n global
  func.return
}

// -----

func.func @f() attributes {graph.dims = #graph.dims<N = [1, 8]>} {
  // expected-error@+1 {{kernel.symbol "M": symbolic dim 'M' is not declared by the enclosing function's graph.dims}}
  %m = kernel.symbol "M" : index
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{kernel.alloc slot must be >= 0, got -1}}
  %t = kernel.alloc {slot = -1 : i64} : !kernel.buffer<4xf32>
  func.return
}

// -----

func.func @f() {
  // expected-error@+1 {{symbolic dim 'N' is not declared}}
  %t = kernel.alloc : !kernel.buffer<Nx4xf32>
  func.return
}

// -----

func.func @f(%a: !kernel.buffer<4xf32>) {
  // expected-error@+1 {{kernel.launch @nope: there is no kernel.kernel @nope in the module}}
  kernel.launch @nope(%a) : !kernel.buffer<4xf32>
  func.return
}

// -----

func.func @g() {
  func.return
}
func.func @f() {
  // expected-error@+1 {{kernel.launch @g: @g is a func.func, not a kernel.kernel}}
  kernel.launch @g() :
  func.return
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {}
func.func @f(%a: !kernel.buffer<4xf32>, %n: index) {
  // expected-error@+1 {{kernel.launch @k passes 2 arguments, the kernel takes 1}}
  kernel.launch @k(%a, %n) : !kernel.buffer<4xf32>, index
  func.return
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {}
func.func @f(%a: !kernel.buffer<8xf32>) {
  // expected-error@+1 {{kernel.launch @k argument 0 has type !kernel.buffer<8xf32>, the kernel expects !kernel.buffer<4xf32>}}
  kernel.launch @k(%a) : !kernel.buffer<8xf32>
  func.return
}

// -----

func.func @f(%a: f32) {
  // expected-error@+1 {{kernel.launch @k argument 0 must be a !kernel.buffer or index, got f32}}
  kernel.launch @k(%a) : f32
  func.return
}

// -----

// ALU ops, casts and constants (the same checks hold for their uop twins).

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> i32
  // expected-error@+1 {{kernel.sqrt does not accept i32 (it accepts float types)}}
  %r = kernel.sqrt %a : i32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.shl does not accept f32 (it accepts index, int types)}}
  %r = kernel.shl %a, %a : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> i1
  // expected-error@+1 {{kernel.add does not accept i1 (it accepts float, index, int types)}}
  %r = kernel.add %a, %a : i1
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a, %b = "test.op"() : () -> (f32, i32)
  // expected-error@+1 {{kernel.add operands must have the same type, got f32 and i32}}
  %r = "kernel.add"(%a, %b) : (f32, i32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.add takes 2 operands, got 1}}
  %r = kernel.add %a : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.cmplt result type must be i1, got f32}}
  %r = "kernel.cmplt"(%a, %a) : (f32, f32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.where condition must be i1 to match f32, got f32}}
  %r = "kernel.where"(%a, %a, %a) : (f32, f32, f32) -> f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> vector<4xf32>
  // expected-error@+1 {{kernel.add operand must be a scalar, got vector<4xf32> (vectors exist only in uop)}}
  %r = kernel.add %a, %a : vector<4xf32>
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> i128
  // expected-error@+1 {{kernel.neg operand must be a scalar dtype or index, got i128}}
  %r = kernel.neg %a : i128
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.bitcast needs types of the same bit width: f32 (32 bits) -> f16 (16 bits)}}
  %r = kernel.bitcast %a : f32 -> f16
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> index
  // expected-error@+1 {{kernel.bitcast cannot convert index (its width is the target's): index -> i64}}
  %r = kernel.bitcast %a : index -> i64
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  %a = "test.op"() : () -> f32
  // expected-error@+1 {{kernel.cast result must be a scalar dtype or index, got !kernel.buffer<4xf32>}}
  %r = kernel.cast %a : f32 -> !kernel.buffer<4xf32>
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  // expected-error@+1 {{kernel.const result type f16 does not match its value's type f32}}
  %r = "kernel.const"() <{value = 1.000000e+00 : f32}> : () -> f16
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  // expected-error@+1 {{a boolean constant has type i1}}
  %r = kernel.const true : f32
}

// -----

kernel.kernel @k(%x: !kernel.buffer<4xf32>) {
  // expected-error@+1 {{kernel.const takes a scalar literal; dense vector constants exist only in uop}}
  %r = kernel.const dense<1.000000e+00> : vector<4xf32>
}
