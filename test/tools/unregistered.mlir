// Ops of unknown dialects are an error, unless --allow-unregistered-dialect keeps them (in generic form).
// RUN: not kiln-opt %s 2>&1 | filecheck %s --check-prefix=REJECT
// RUN: kiln-opt %s --allow-unregistered-dialect | filecheck %s --check-prefix=ALLOW

func.func @f() {
  "mystery.op"() {payload = 3 : i64} : () -> ()
  func.return
}

// REJECT: unregistered.mlir:6:{{[0-9]+}}: error: Operation mystery.op is not registered
// ALLOW:  "mystery.op"() {payload = 3 : i64} : () -> ()
