// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="group:0:16"}' | filecheck %s --check-prefix=GROUP
// RUN: kiln-opt %s -p 'kernel-optimize{target=cuda opts="grouptop:0:16"}' | filecheck %s --check-prefix=TOP
// group:<n>:<threads> (GPU targets) splits reduce range n (counting reduce ranges) so that <threads> threads of a
// workgroup each reduce a part (a group_reduce range) and their partial results meet in local memory. group is an
// inner split (thread t takes elements t, t+16, ...: neighbouring threads read neighbouring elements);
// grouptop a top split (thread t takes a contiguous chunk of 64).

// GROUP:      opts = ["group:0:16"]
// GROUP-DAG:  %[[C16:.*]] = kernel.const 16 : index
// GROUP-DAG:  %[[C64:.*]] = kernel.const 64 : index
// GROUP:      %k = kernel.range %[[C64]] reduce
// GROUP-NEXT: %k_group_reduce = kernel.range %[[C16]] group_reduce
// GROUP-NEXT: %[[K16:.*]] = kernel.mul %k, %[[C16]] : index
// GROUP-NEXT: %[[K:.*]] = kernel.add %[[K16]], %k_group_reduce : index
// GROUP:      %idx = kernel.add %i1024, %[[K]] : index
// GROUP:      %s = kernel.reduce add %v over %k, %k_group_reduce : f32

// TOP:        opts = ["grouptop:0:16"]
// TOP-DAG:    %[[C64:.*]] = kernel.const 64 : index
// TOP:        %k_group_reduce = kernel.range %{{.*}} group_reduce
// TOP-NEXT:   %k = kernel.range %[[C64]] reduce
// TOP-NEXT:   %[[G:.*]] = kernel.mul %k_group_reduce, %[[C64]] : index
// TOP-NEXT:   %[[K:.*]] = kernel.add %[[G]], %k : index
// TOP:        %s = kernel.reduce add %v over %k, %k_group_reduce : f32

kernel.kernel @rowsum(%x: !kernel.buffer<4x1024xf32>, %out: !kernel.buffer<4xf32>) attributes {symbols = []} {
  %c4 = kernel.const 4 : index
  %c1024 = kernel.const 1024 : index
  %i = kernel.range %c4 global
  %k = kernel.range %c1024 reduce
  %i1024 = kernel.mul %i, %c1024 : index
  %idx = kernel.add %i1024, %k : index
  %v = kernel.load %x[%idx] : f32
  %s = kernel.reduce add %v over %k : f32
  kernel.store %out[%i], %s
}
