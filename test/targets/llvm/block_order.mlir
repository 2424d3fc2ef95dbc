// RUN: kiln-opt %s -t llvm | filecheck %s
// Blocks keep their layout order in the output, but are translated dominators first, so a block laid out before
// the block defining a value it uses (and a phi fed from a later block) is fine.

// CHECK-LABEL: define i32 @"f"(i32 %"a")
// CHECK-NEXT:  {
// CHECK-NEXT:  entry:
// CHECK-NEXT:    br label %"compute"
// CHECK-NEXT:  done:
// CHECK-NEXT:    %"r" = phi  i32 [%"doubled", %"compute"]
// CHECK-NEXT:    %"plus" = add i32 %"r", %"doubled"
// CHECK-NEXT:    ret i32 %"plus"
// CHECK-NEXT:  compute:
// CHECK-NEXT:    %"doubled" = add i32 %"a", %"a"
// CHECK-NEXT:    br label %"done"
llvm.func @f(%a: i32) -> i32 {
  llvm.br ^compute
^done(%r: i32):
  %plus = llvm.add %r, %doubled : i32
  llvm.return %plus : i32
^compute:
  %doubled = llvm.add %a, %a : i32
  llvm.br ^done(%doubled : i32)
}
