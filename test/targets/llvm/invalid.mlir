// RUN: kiln-opt %s -t llvm --split-input-file --verify-diagnostics
// The emitter translates the llvm ops convert-uop-to-llvm produces; anything else is an error at that op, never
// silently dropped.

llvm.func @f(%x: f32) -> f32 {
  // expected-error@+1 {{the LLVM IR emitter does not handle 'llvm.intr.sqrt'}}
  %r = llvm.intr.sqrt(%x) : (f32) -> f32
  llvm.return %r : f32
}

// -----

// expected-error@+1 {{the LLVM IR emitter does not handle the parameter attribute 'llvm.nonnull'}}
llvm.func @g(%p: !llvm.ptr {llvm.nonnull}) {
  llvm.return
}
