func.func @add(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  %t = arith.addi %a, %c : i32
  %u = arith.addi %s, %t : i32
  func.return %u : i32
}
