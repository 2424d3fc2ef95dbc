// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,upcast:0:8"}' | filecheck %s --check-prefix=OUTPUT
// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,upcast:0:8"},convert-kernel-to-uop{target=cpu-llvm}' | filecheck %s --check-prefix=CORE
// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,upcast:0:4"}' | filecheck %s --check-prefix=HALF
// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:2:16"}' | filecheck %s --check-prefix=REDUCE
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,upcast:0:16"}' 2>&1 | filecheck %s --check-prefix=DIVIDE
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,padto:0:4"}' 2>&1 | filecheck %s --check-prefix=AGAIN
// RUN: not kiln-opt %s -p 'kernel-optimize{opts="padto:0:128"}' 2>&1 | filecheck %s --check-prefix=FACTOR
// padto of a symbolic range N: the size becomes ((N + m-1) // m) * m, computed by index ops before the ranges,
// and the extra points are masked as for a constant size: stores gated by %i < N, loads read at min(%i, N-1). An inner split by a divisor of m is then
// legal: the outer range gets ((N + m-1) // m) * (m / amount), which becomes the core range's extent. The
// MAX_PAD_FACTOR bound is judged at the dim's declared upper bound (here 16: padding to 128 is refused; below
// the bound the padding is at most m-1 points).

// OUTPUT:      opts = ["padto:0:8", "upcast:0:8"]
// OUTPUT:      %[[BUMPED:.*]] = kernel.add %N, %{{.*}} : index
// OUTPUT-NEXT: %[[Q:.*]] = kernel.idiv %[[BUMPED]], %{{.*}} : index
// OUTPUT-NEXT: %i = kernel.range %[[Q]] global
// OUTPUT-NEXT: %i_upcast = kernel.range %{{.*}} upcast
// OUTPUT:      %[[I:.*]] = kernel.add %{{.*}}, %i_upcast : index
// OUTPUT-NEXT: %[[VALID:.*]] = kernel.cmplt %[[I]], %N : index
// OUTPUT-NEXT: %[[LAST:.*]] = kernel.sub %N, %{{.*}} : index
// OUTPUT-NEXT: %[[CLAMPED:.*]] = kernel.min %[[I]], %[[LAST]] : index
// OUTPUT-NEXT: %iK = kernel.mul %[[CLAMPED]], %K : index
// OUTPUT:      %x = kernel.load %a[%{{.*}}] : f32
// OUTPUT:      %y = kernel.load %b[%{{.*}}] : f32
// OUTPUT:      %i16 = kernel.mul %[[CLAMPED]], %c16 : index
// OUTPUT:      kernel.store %out[%{{.*}}], %s, %[[VALID]]

// CORE:        uop.kernel @mm{{.*}}core_extent = "((N + 7) // 8)"

// HALF:        opts = ["padto:0:8", "upcast:0:4"]
// HALF:        %[[Q:.*]] = kernel.idiv %{{.*}}, %[[C8:.*]] : index
// HALF-NEXT:   %[[OUTER:.*]] = kernel.mul %[[Q]], %{{.*}} : index
// HALF-NEXT:   %i = kernel.range %[[OUTER]] global
// HALF-NEXT:   %i_upcast = kernel.range %{{.*}} upcast

// REDUCE:      opts = ["padto:2:16"]
// REDUCE:      %[[BUMPED:.*]] = kernel.add %K, %{{.*}} : index
// REDUCE-NEXT: %[[Q:.*]] = kernel.idiv %[[BUMPED]], %c16 : index
// REDUCE-NEXT: %[[SIZE:.*]] = kernel.mul %[[Q]], %c16 : index
// REDUCE:      %k = kernel.range %[[SIZE]] reduce
// REDUCE-NEXT: %[[VALID:.*]] = kernel.cmplt %k, %K : index
// REDUCE:      %[[MASKED:.*]] = kernel.where %[[VALID]], %p, %{{.*}} : f32
// REDUCE-NEXT: %s = kernel.reduce add %[[MASKED]] over %k : f32

// DIVIDE:      cannot apply opt #1 'upcast:0:16' to @mm: the range has a symbolic size; upcast needs a constant size or one padded to a multiple of 16 (padto first)
// AGAIN:       cannot apply opt #1 'padto:0:4' to @mm: the padded symbolic size is a multiple of 4 already
// FACTOR:      cannot apply opt #0 'padto:0:128' to @mm: padding 16 (the declared upper bound) to 128 multiplies the work by more than 4

kernel.kernel @mm(%a: !kernel.buffer<NxKxf32>, %b: !kernel.buffer<Kx16xf32>, %out: !kernel.buffer<Nx16xf32>, %N: index, %K: index)
    attributes {graph.dims = #graph.dims<N = [1, 16], K = [1, 64]>, symbols = ["N", "K"]} {
  %c16 = kernel.const 16 : index
  %i = kernel.range %N global
  %j = kernel.range %c16 global
  %k = kernel.range %K reduce
  %iK = kernel.mul %i, %K : index
  %ia = kernel.add %iK, %k : index
  %k16 = kernel.mul %k, %c16 : index
  %ib = kernel.add %k16, %j : index
  %x = kernel.load %a[%ia] : f32
  %y = kernel.load %b[%ib] : f32
  %p = kernel.mul %x, %y : f32
  %s = kernel.reduce add %p over %k : f32
  %i16 = kernel.mul %i, %c16 : index
  %io = kernel.add %i16, %j : index
  kernel.store %out[%io], %s
}
