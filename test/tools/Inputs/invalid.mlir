func.func @f() -> i32 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}
