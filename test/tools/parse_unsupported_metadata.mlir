// What xDSL's parser cannot read (here an `external_resources` section that is not a reproducer's) is a located
// error, exit 1, not an internal error.
// RUN: not kiln-opt %s 2>&1 | filecheck %s

func.func @f() {
  func.return
}

{-#
  external_resources: { }
#-}

// CHECK:      {{.*}}parse_unsupported_metadata.mlir:10:23: error: not supported here: Currently only dialect resources are supported
// CHECK-NOT:  internal error
