// RUN: kiln-opt %s --split-input-file --verify-diagnostics -t c
// The C emitter names what it cannot print instead of skipping it.

// expected-error@+1 {{uop.kernel reached the C emitter: run convert-uop-to-cstyle first}}
uop.kernel @k attributes {symbols = []} {
}

// -----

// expected-error@+1 {{test.op is not a cstyle.func: the C emitter cannot emit it}}
"test.op"() : () -> ()

// -----

cstyle.func c @k(%x: f32) {
  // expected-error@+1 {{the C emitter cannot emit test.op}}
  "test.op"(%x) : (f32) -> ()
}
