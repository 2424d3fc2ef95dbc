// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Each cstyle verifier (and each custom parser) rejects what it must, with a message that names the problem.

// expected-error@+1 {{Expected one of 'c' (the C flavour of cstyle.func)}}
cstyle.func cuda @k() {
}

// -----

// expected-error@+1 {{cstyle.func parameter %n must be a !cstyle.ptr or a scalar dtype, got index}}
cstyle.func c @k(%n: index) {
}

// -----

// expected-error@+1 {{!cstyle.ptr element type must be a scalar dtype}}
cstyle.func c @k(%p: !cstyle.ptr<index>) {
}

// -----

// expected-error@+1 {{Expected 'restrict' after ',' in !cstyle.ptr}}
cstyle.func c @k(%p: !cstyle.ptr<f32, volatile>) {
}

// -----

cstyle.func c @k(%lo: f32, %hi: f32) {
  // expected-error@+1 {{cstyle.for bounds must be integers, got f32}}
  cstyle.for %i = %lo to %hi : f32 {
  }
}

// -----

cstyle.func c @k(%lo: i32, %hi: i64) {
  // expected-error@+1 {{cstyle.for bounds must have one type, got i32 and i64}}
  "cstyle.for"(%lo, %hi) ({
  ^bb0(%i: i32):
  }) : (i32, i64) -> ()
}

// -----

cstyle.func c @k(%x: !cstyle.ptr<const f32, restrict>, %i: i64) {
  %v = cstyle.load %x[%i] : f32
  // expected-error@+1 {{cstyle.store through %x, a pointer to const (!cstyle.ptr<const f32, restrict>)}}
  cstyle.store %x[%i] = %v
}

// -----

cstyle.func c @k(%x: !cstyle.ptr<f32>, %i: i64, %v: f64) {
  // expected-error@+1 {{cstyle.store of f64 through a !cstyle.ptr<f32>}}
  "cstyle.store"(%x, %i, %v) : (!cstyle.ptr<f32>, i64, f64) -> ()
}

// -----

cstyle.func c @k(%x: !cstyle.ptr<f32>, %i: f32) {
  // expected-error@+1 {{cstyle.load index must be an integer, got f32}}
  %v = cstyle.load %x[%i] : f32
}

// -----

cstyle.func c @k(%x: !cstyle.ptr<f32>, %i: i64) {
  // expected-error@+1 {{cstyle.load from a !cstyle.ptr<f32> gives f32 or a vector of it, not f64}}
  %v = cstyle.load %x[%i] : f64
}

// -----

cstyle.func c @k(%a: i8) {
  // expected-error@+1 {{operator '+' operand must be i32, i64, ui32, ui64, f32 or f64 (convert narrower integers explicitly), got i8}}
  %r = cstyle.binary "+" %a, %a : i8
}

// -----

cstyle.func c @k(%a: bf16) {
  // expected-error@+1 {{operator '<' operand is bf16, a storage-only type: convert it to f32 with the kiln_bf16_to_f32 helper first}}
  %r = cstyle.binary "<" %a, %a : bf16
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{operator '%' operand must be i32, i64, ui32 or ui64 (convert narrower integers explicitly), got f32}}
  %r = cstyle.binary "%" %a, %a : f32
}

// -----

cstyle.func c @k(%a: i32) {
  // expected-error@+1 {{operator '&&' operand must be i1, got i32}}
  %r = cstyle.binary "&&" %a, %a : i32
}

// -----

cstyle.func c @k(%a: i32) {
  // expected-error@+1 {{unknown binary operator '**'}}
  %r = cstyle.binary "**" %a, %a : i32
}

// -----

cstyle.func c @k(%a: i32) {
  %zero = cstyle.literal 0 : i32
  // expected-error@+1 {{cstyle.binary '/' by the literal 0 is undefined in C}}
  %r = cstyle.binary "/" %a, %zero : i32
}

// -----

cstyle.func c @k(%a: ui32) {
  %c = cstyle.literal 32 : ui32
  // expected-error@+1 {{cstyle.binary '<<' by 32 is undefined in C for ui32 (width 32)}}
  %r = cstyle.binary "<<" %a, %c : ui32
}

// -----

cstyle.func c @k(%a: i32, %b: i64) {
  // expected-error@+1 {{cstyle.binary '+' operands must have one type, got i32 and i64}}
  %r = "cstyle.binary"(%a, %b) <{operator = "+"}> : (i32, i64) -> i32
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.binary '<' on f32 gives i1, not f32}}
  %r = "cstyle.binary"(%a, %a) <{operator = "<"}> : (f32, f32) -> f32
}

// -----

cstyle.func c @k(%a: i1) {
  // expected-error@+1 {{operator '~' operand must be i32, i64, ui32 or ui64 (convert narrower integers explicitly), got i1}}
  %r = cstyle.unary "~" %a : i1
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{unknown unary operator '+'}}
  %r = cstyle.unary "+" %a : f32
}

// -----

cstyle.func c @k(%c: i1, %a: f32, %b: f64) {
  // expected-error@+1 {{cstyle.select operands and result must have one type, got f32, f64}}
  %r = "cstyle.select"(%c, %a, %b) : (i1, f32, f64) -> f32
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.cast result is bf16, a storage-only type: convert it to f32 with the kiln_bf16_to_f32 helper first}}
  %r = cstyle.cast %a : f32 -> bf16
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.bitcast needs two non-i1 types of one width, got f32 -> i64}}
  %r = cstyle.bitcast %a : f32 -> i64
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.call of unknown function 'printf' (not in the cstyle library)}}
  %r = cstyle.call @printf(%a) : (f32) -> f32
}

// -----

cstyle.func c @k(%a: f64) {
  // expected-error@+1 {{cstyle.call @sqrtf has type (f64) -> f64, but sqrtf is (f32) -> f32}}
  %r = cstyle.call @sqrtf(%a) : (f64) -> f64
}

// -----

cstyle.func c @k() {
  // expected-error@+1 {{cstyle.literal type is f16, a storage-only type: convert it to f32 with the kiln_f16_to_f32 helper first}}
  %r = cstyle.literal 1.000000e+00 : f16
}

// -----

// expected-error@+1 {{'cstyle.literal' expects ancestor op 'cstyle.func'}}
%r = cstyle.literal 1.000000e+00 : f32

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.decl of f32 must produce !cstyle.var<f32>}}
  %v = "cstyle.decl"(%a) : (f32) -> !cstyle.var<f64>
}

// -----

cstyle.func c @k(%a: f32, %b: f64) {
  %v = cstyle.decl %a : f32
  // expected-error@+1 {{cstyle.assign of f64 to a !cstyle.var<f32>}}
  "cstyle.assign"(%v, %b) : (!cstyle.var<f32>, f64) -> ()
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{expected a !cstyle.var value, got f32}}
  cstyle.assign %a = %a
}

// -----

// Float vectors: only the arithmetic operators and comparisons take them.
cstyle.func c @k(%p: !cstyle.ptr<f32>, %i: i64) {
  %v = cstyle.load %p[%i] : vector<8xf32>
  // expected-error@+1 {{operator '&' does not take vector<8xf32>}}
  %c = cstyle.binary "&" %v, %v : vector<8xf32>
}

// -----

// Integer vectors: no division (a zero lane is undefined in C).
cstyle.func c @k(%p: !cstyle.ptr<i32>, %i: i64) {
  %v = cstyle.load %p[%i] : vector<8xi32>
  // expected-error@+1 {{operator '/' does not take vector<8xi32>}}
  %c = cstyle.binary "/" %v, %v : vector<8xi32>
}

// -----

// A vector comparison gives the lane mask of the lanes' width.
cstyle.func c @k(%p: !cstyle.ptr<f64>, %i: i64) {
  %v = cstyle.load %p[%i] : vector<4xf64>
  // expected-error@+1 {{cstyle.binary '<' on vector<4xf64> gives vector<4xi64>, not i1}}
  %c = "cstyle.binary"(%v, %v) <{operator = "<"}> : (vector<4xf64>, vector<4xf64>) -> i1
}

// -----

cstyle.func c @k(%p: !cstyle.ptr<f32>, %i: i64) {
  %v = cstyle.load %p[%i] : vector<8xf32>
  // expected-error@+1 {{cstyle.bitcast needs two non-i1 types of one width, got vector<8xf32> -> vector<4xi32>}}
  %c = cstyle.bitcast %v : vector<8xf32> -> vector<4xi32>
}

// -----

cstyle.func c @k(%p: !cstyle.ptr<f32>, %i: i64) {
  // expected-error@+1 {{cstyle.load from a !cstyle.ptr<f32> gives f32 or a vector of it, not vector<4xf64>}}
  %v = cstyle.load %p[%i] : vector<4xf64>
}

// -----

cstyle.func c @k(%a: f32) {
  // expected-error@+1 {{cstyle.vector of vector<4xf32> needs 4 elements, got 2}}
  %v = cstyle.vector %a, %a : vector<4xf32>
}

// -----

cstyle.func c @k(%a: i8) {
  // expected-error@+1 {{cstyle.vector makes a C vector type (2, 4, 8 or 16 lanes), not vector<2xi8>}}
  %v = cstyle.vector %a, %a : vector<2xi8>
}

// -----

cstyle.func c @k(%a: f32) {
  %v = cstyle.vector %a, %a : vector<2xf32>
  // expected-error@+1 {{cstyle.extract lane 2 is outside vector<2xf32>}}
  %x = cstyle.extract %v[2] : vector<2xf32>
}
