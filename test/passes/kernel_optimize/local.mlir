// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="local:1:16,local:0:4"}' | filecheck %s
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="local:1:16,local:0:4"},convert-kernel-to-uop{target=cuda}' | filecheck %s --check-prefix=UOP
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="nolocals"}' | filecheck %s --check-prefix=NOLOCALS
// local:<axis>:<n> (GPU targets) splits a global range so n threads of a workgroup take consecutive points of it;
// the last local range is the workgroup's x dimension. nolocals only records that the workgroup shape is left
// to the launch mapping (later local and group opts are refused).

// CHECK:      opts = ["local:1:16", "local:0:4"]
// CHECK:      %i = kernel.range %{{.*}} global
// CHECK-NEXT: %i_local = kernel.range %{{.*}} local
// CHECK-NEXT: %j = kernel.range %{{.*}} global
// CHECK-NEXT: %j_local = kernel.range %{{.*}} local
// CHECK-NEXT: %k = kernel.range %c32 reduce

// UOP:        uop.kernel @mm attributes {symbols = [], opts = ["local:1:16", "local:0:4"], global_size = ["4", "2", "1"], local_size = [16 : i64, 4 : i64, 1 : i64]}
// UOP-DAG:    uop.special local_id.x : index
// UOP-DAG:    uop.special local_id.y : index

// NOLOCALS:   opts = ["nolocals"]
// NOLOCALS:   %i = kernel.range %c8 global
// NOLOCALS-NEXT: %j = kernel.range %c64 global

kernel.kernel @mm(%a: !kernel.buffer<8x32xf32>, %b: !kernel.buffer<32x64xf32>, %out: !kernel.buffer<8x64xf32>) attributes {symbols = []} {
  %c8 = kernel.const 8 : index
  %c32 = kernel.const 32 : index
  %c64 = kernel.const 64 : index
  %i = kernel.range %c8 global
  %j = kernel.range %c64 global
  %k = kernel.range %c32 reduce
  %i32 = kernel.mul %i, %c32 : index
  %ia = kernel.add %i32, %k : index
  %k64 = kernel.mul %k, %c64 : index
  %ib = kernel.add %k64, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i64 = kernel.mul %i, %c64 : index
  %io = kernel.add %i64, %j : index
  kernel.store %out[%io], %s
}
