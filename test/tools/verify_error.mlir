// A verifier error is located at the op that fails (xDSL's verifier gives no location; kiln-opt finds it).
// RUN: not kiln-opt %s 2>&1 | filecheck %s

func.func @f() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}

// CHECK:      {{.*}}verify_error.mlir:6:3: error: 'func.return' op Expected arguments to have the same types as the function output types: expected [i32], got [i64]
// CHECK-NEXT: {{^}}  func.return %c : i64
// CHECK-NEXT: {{^}}  ^
