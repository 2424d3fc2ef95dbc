// RUN: kiln-opt %s --split-input-file --verify-diagnostics -t ptx
// The PTX emitter names what it cannot print instead of skipping it, and rejects an sm it has no header for.

// expected-error@+1 {{uop.kernel reached the PTX emitter: run convert-uop-to-ptx first}}
uop.kernel @k attributes {symbols = []} {
}

// -----

// expected-error@+1 {{test.op is not a ptx.entry: the PTX emitter cannot emit it}}
"test.op"() : () -> ()

// -----

ptx.entry @k() {
  // expected-error@+1 {{test.op is not a PTX instruction: the PTX emitter cannot emit it}}
  "test.op"() : () -> ()
  ptx.ret
}

// -----

// expected-error@+1 {{ptx.target: unsupported CUDA architecture 'sm_70' (expected one of sm_80, sm_90)}}
builtin.module attributes {ptx.target = "sm_70"} {
  ptx.entry @k() {
    ptx.ret
  }
}
