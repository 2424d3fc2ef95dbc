// A parse error is reported at its line and column, with the source line and a caret.
// RUN: not kiln-opt %s 2>&1 | filecheck %s

func.func @f(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i64
  func.return %s : i32
}

// CHECK:      {{.*}}parse_error.mlir:6:19: error: operand is used with type i64, but has been previously used or defined with type i32
// CHECK-NEXT: {{^}}  %s = arith.addi %a, %c : i64
// CHECK-NEXT: {{^}}                  ^
// CHECK-EMPTY:
