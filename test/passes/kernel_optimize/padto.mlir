// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:1:16"}' | filecheck %s --check-prefix=REDUCE
// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:0:4,upcast:0:4"}' | filecheck %s --check-prefix=OUTPUT
// RUN: kiln-opt %s -p 'kernel-optimize{opts="padto:0:8,upcast:0:8"}' | filecheck %s --check-prefix=CLAMP
// padto:<axis>:<n> rounds a range up to a multiple of n. On a reduce range the extra points are masked with
// %valid = range < size: loads that depend on it are gated (their index may be out of bounds there) and the
// reduce combines its identity there (-inf for max), whatever the value computes. An output range of at least n
// points is read as whole blocks of n, the last one moved back to end at size-1 (min(r - r % n, size - n) +
// r % n): it recomputes and stores again points of the block before it, no store is gated, and along an upcast
// of the block the index stays base + lane (vector loads and stores). A shorter output range is clamped to
// size-1 for every use but %valid, so its loads read in bounds without a gate, and its stores are gated.

// REDUCE:      opts = ["padto:1:16"]
// REDUCE-DAG:  %[[NEG_INF:.*]] = kernel.const 0xff800000 : f32
// REDUCE-DAG:  %[[C32:.*]] = kernel.const 32 : index
// REDUCE:      %i = kernel.range %c5 global
// REDUCE-NEXT: %k = kernel.range %[[C32]] reduce
// REDUCE-NEXT: %[[VALID:.*]] = kernel.cmplt %k, %c20 : index
// REDUCE:      %v = kernel.load %x[%idx], %[[VALID]] : f32
// REDUCE-NEXT: %[[MASKED:.*]] = kernel.where %[[VALID]], %v, %[[NEG_INF]] : f32
// REDUCE-NEXT: %m = kernel.reduce max %[[MASKED]] over %k : f32
// REDUCE-NEXT: kernel.store %out[%i], %m

// OUTPUT:      opts = ["padto:0:4", "upcast:0:4"]
// OUTPUT:      %i = kernel.range %{{.*}} global
// OUTPUT-NEXT: %i_upcast = kernel.range %{{.*}} upcast
// OUTPUT:      %[[I:.*]] = kernel.add %{{.*}}, %i_upcast : index
// OUTPUT-NEXT: %[[LANE:.*]] = kernel.mod %[[I]], %[[C4:.*]] : index
// OUTPUT-NEXT: %[[START:.*]] = kernel.sub %[[I]], %[[LANE]] : index
// OUTPUT-NEXT: %[[MOVED:.*]] = kernel.min %[[START]], %[[C1:.*]] : index
// OUTPUT-NEXT: %[[SHIFTED:.*]] = kernel.add %[[MOVED]], %[[LANE]] : index
// OUTPUT-NEXT: %i20 = kernel.mul %[[SHIFTED]], %c20 : index
// OUTPUT:      %v = kernel.load %x[%idx] : f32
// OUTPUT:      kernel.store %out[%[[SHIFTED]]], %m{{$}}

// CLAMP:       opts = ["padto:0:8", "upcast:0:8"]
// CLAMP:       %[[I:.*]] = kernel.range %{{.*}} upcast
// CLAMP-NEXT:  %k = kernel.range %c20 reduce
// CLAMP-NEXT:  %[[VALID:.*]] = kernel.cmplt %[[I]], %c5 : index
// CLAMP-NEXT:  %[[CLAMPED:.*]] = kernel.min %[[I]], %{{.*}} : index
// CLAMP-NEXT:  %i20 = kernel.mul %[[CLAMPED]], %c20 : index
// CLAMP:       %v = kernel.load %x[%idx] : f32
// CLAMP:       kernel.store %out[%[[CLAMPED]]], %m, %[[VALID]]

kernel.kernel @rowmax(%x: !kernel.buffer<5x20xf32>, %out: !kernel.buffer<5xf32>) attributes {symbols = []} {
  %c5 = kernel.const 5 : index
  %c20 = kernel.const 20 : index
  %i = kernel.range %c5 global
  %k = kernel.range %c20 reduce
  %i20 = kernel.mul %i, %c20 : index
  %idx = kernel.add %i20, %k : index
  %v = kernel.load %x[%idx] : f32
  %m = kernel.reduce max %v over %k : f32
  kernel.store %out[%i], %m
}
