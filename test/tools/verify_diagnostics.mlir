// --verify-diagnostics with MLIR's annotations: every diagnostic must be expected, every expectation met.
// Parse errors and verifier errors both count; @+N, @-N, @above and @below pick the line.
// RUN: kiln-opt %s --split-input-file --verify-diagnostics

func.func @same_line() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64 // expected-error {{Expected arguments to have the same types}}
}

// -----

func.func @plus() -> i32 {
  %c = arith.constant 1 : i64
  // expected-error@+1 {{'func.return' op}}
  func.return %c : i64
}

// -----

func.func @minus() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
  // expected-error@-1 {{got [i64]}}
}

// -----

func.func @above() {
  %c = arith.constant 1 : i32
  // expected-error@above {{terminates block in single-block region but is not a terminator}}
}

// -----

func.func @below() -> i32 {
  // expected-error@below {{use of undefined value '%nope'}}
  func.return %nope : i32
}

// -----

func.func @parse_error(%a: i32) -> i32 {
  // expected-error@+1 {{operand is used with type i64}}
  %s = arith.addi %a, %a : i64
  func.return %s : i32
}

// -----

// Pieces without errors and without annotations pass through.
func.func @fine() {
  func.return
}
