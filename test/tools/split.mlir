// --split-input-file: each piece is processed on its own; empty and comment-only pieces are skipped;
// outputs are joined with '// -----'; line numbers in errors stay those of the whole file.
// RUN: kiln-opt %s --split-input-file -p cse | filecheck %s
// RUN: not kiln-opt %s --split-input-file --verify-diagnostics -p unknown 2>&1 | filecheck %s --check-prefix=PASS

// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @first
// CHECK:       // -----
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @second
// CHECK-NOT:   // -----
// PASS: kiln-opt: error: unknown pass 'unknown'

func.func @first() {
  func.return
}

// -----
// -----

// only a comment here

// -----
func.func @second() {
  func.return
}
// -----
