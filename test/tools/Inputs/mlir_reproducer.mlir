func.func @add(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  %t = arith.addi %a, %c : i32
  func.return %s : i32
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse,kernel-optimize{opts=\22upcast:0:2\22})",
      disable_threading: true,
      verify_each: true
    }
  }
#-}
