// Locations survive every lowering: each kernel op carries the line of the graph op it computes, a kernel fused
// from several graph ops a loc(fused[...]) of their lines, and the uop and target ops those of what they came from.
// RUN: kiln-opt %s -p lower-to-kernel --mlir-print-debuginfo | filecheck %s --check-prefix=KERNEL
// RUN: kiln-opt %s -p lower-to-uop --mlir-print-debuginfo | filecheck %s --check-prefix=UOP
// RUN: kiln-opt %s -p lower-to-c --mlir-print-debuginfo | filecheck %s --check-prefix=C
// RUN: kiln-opt %s -p lower-to-llvm --mlir-print-debuginfo | filecheck %s --check-prefix=LLVM
// RUN: kiln-opt %s -p lower-to-ptx --mlir-print-debuginfo | filecheck %s --check-prefix=PTX
// RUN: kiln-opt %s -p lower-to-wgsl --mlir-print-debuginfo | filecheck %s --check-prefix=WGSL
// An error about the fused kernel is reported at the first of its graph ops:
// RUN: not kiln-opt %s -p 'lower-to-kernel,kernel-optimize{opts="upcast:5:4"}' 2>&1 | filecheck %s --check-prefix=ERROR

func.func @f(%x: !graph.tensor<4x8xf32>, %y: !graph.tensor<4x8xf32>) -> !graph.tensor<4xf32> {
  %e = graph.exp %x : !graph.tensor<4x8xf32>
  %s = graph.mul %e, %y : (!graph.tensor<4x8xf32>, !graph.tensor<4x8xf32>) -> !graph.tensor<4x8xf32>
  %r = graph.reduce_sum %s {axes = array<i64: 1>, keepdims = false} : (!graph.tensor<4x8xf32>) -> !graph.tensor<4xf32>
  func.return %r : !graph.tensor<4xf32>
}

// ERROR:      print_debuginfo_levels.mlir:13:3: error: 'kernel.kernel' op cannot apply opt #0 'upcast:5:4' to @f_r0
// ERROR-NEXT:   %e = graph.exp

// KERNEL:      kernel.kernel @f_r0
// KERNEL:        kernel.exp %{{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":13:3)
// KERNEL:        kernel.mul %{{.*}}, %{{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// KERNEL:        kernel.reduce add %{{.*}} loc("{{.*}}print_debuginfo_levels.mlir":15:3)
// KERNEL:      } loc(fused["{{.*}}print_debuginfo_levels.mlir":13:3, "{{.*}}print_debuginfo_levels.mlir":14:3, "{{.*}}print_debuginfo_levels.mlir":15:3])
// KERNEL:      func.func @f
// KERNEL:        kernel.launch @f_r0({{.*}} loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])
// KERNEL-NEXT:   func.return {{.*}} loc("{{.*}}print_debuginfo_levels.mlir":16:3)
// KERNEL-NEXT: } loc("{{.*}}print_debuginfo_levels.mlir":12:1)

// UOP:      uop.kernel @f_r0
// UOP:        uop.define_acc {{.*}} loc("{{.*}}print_debuginfo_levels.mlir":15:3)
// UOP:        uop.exp %{{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":13:3)
// UOP:        uop.mul %{{.*}}, %{{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// UOP:        uop.store {{.*}} loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])
// UOP:      } loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])
// UOP-NOT:  loc(unknown)
// UOP:      func.func @f

// C:      cstyle.func c @f_r0
// C:        cstyle.binary "*" {{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// C:      } loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])

// LLVM:      llvm.func @f_r0
// LLVM:        llvm.alloca {{.*}} loc("{{.*}}print_debuginfo_levels.mlir":15:3)
// LLVM:        llvm.fmul {{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// LLVM:      } loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])

// PTX:      ptx.entry @f_r0
// PTX:        ptx.mul f32 {{.*}} loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// PTX:      } loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])

// WGSL:      wgsl.entry @f_r0
// WGSL:        wgsl.binary "*" {{.*}} : f32 loc("{{.*}}print_debuginfo_levels.mlir":14:3)
// WGSL:      } loc(fused["{{.*}}":13:3, "{{.*}}":14:3, "{{.*}}":15:3])
