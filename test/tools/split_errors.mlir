// A broken piece does not stop the others: each error is reported at its line in the whole file, the good
// pieces are still printed, and the exit status is 1.
// RUN: not kiln-opt %s --split-input-file 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err

func.func @bad_type() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}
// -----
func.func @good() {
  func.return
}
// -----
func.func @undefined() -> i32 {
  func.return %nowhere : i32
}

// CHECK:     func.func @good
// CHECK-NOT: func.func
// ERR:      split_errors.mlir:8:3: error: 'func.return' op Expected arguments to have the same types
// ERR:      split_errors.mlir:16:15: error: use of undefined value '%nowhere'
