// --verify-diagnostics fails (exit 1) on an unexpected diagnostic and on an expectation not met,
// and says which, with file:line:col like mlir-opt.
// RUN: not kiln-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s

func.func @unexpected() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}
// CHECK: verify_diagnostics_mismatch.mlir:7:3: error: unexpected error: 'func.return' op Expected arguments

// -----

func.func @wrong_text() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64 // expected-error {{some other message}}
}
// CHECK: verify_diagnostics_mismatch.mlir:15:3: error: unexpected error: 'func.return' op
// CHECK: verify_diagnostics_mismatch.mlir:15:27: error: expected error "some other message" was not produced

// -----

func.func @wrong_line() -> i32 {
  // expected-error@+1 {{Expected arguments}}
  %c = arith.constant 1 : i64
  func.return %c : i64
}
// CHECK: verify_diagnostics_mismatch.mlir:25:3: error: unexpected error: 'func.return' op
// CHECK: verify_diagnostics_mismatch.mlir:23:6: error: expected error "Expected arguments" was not produced

// -----

func.func @nothing_wrong() {
  // expected-warning@+1 {{never emitted}}
  func.return
}
// CHECK: verify_diagnostics_mismatch.mlir:33:6: error: expected warning "never emitted" was not produced
