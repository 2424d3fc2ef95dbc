// RUN: kiln-opt %s -p uop-prefetch-next-row | filecheck %s
// What the pass leaves alone: each kernel breaks one condition (docs in passes/uop_prefetch_next_row.py), and no
// loop is cut, nothing is prefetched.
// CHECK-NOT: uop.prefetch

// 4100 floats per row: not a whole number of 256-float chunks.
uop.kernel @ragged attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4100 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %c0, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}

// 2048 floats per row: narrower than 16 KiB (slower with the pass, measured).
uop.kernel @one_chunk attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 2048 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %c0, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}

// The row is read once: nothing else loads it before the second loop.
uop.kernel @read_once attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4096 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}

// The second loop reads the output, which the kernel writes.
uop.kernel @reads_written attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4096 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %c0, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %out[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}

// The two loops have different bounds.
uop.kernel @other_bounds attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4096 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %row, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %e1 = uop.exp_nonpositive %d1 : f32
  %s2 = uop.add %s, %e1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %e1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}

// The second loop is plain arithmetic (x - max): slower with the chunks (measured).
uop.kernel @light attributes {symbols = []} {
  %out = uop.param 0 : !uop.ptr<f32>
  %x = uop.param 1 : !uop.ptr<f32>
  %start = uop.special core_start : index
  %end = uop.special core_end : index
  %n = uop.const 4096 : index
  %c0 = uop.const 0 : index
  %ninf = uop.const 0xff800000 : f32
  %zero = uop.const 0.000000e+00 : f32
  %row = uop.range %start, %end : index
  %max = uop.define_acc %ninf : f32
  %sum = uop.define_acc %zero : f32
  %base = uop.mul %row, %n : index
  %r0 = uop.range %c0, %n : index
  %mx = uop.acc_get %max : f32
  %i0 = uop.add %base, %r0 : index
  %x0 = uop.load %x[%i0] : f32
  %mx2 = uop.max %mx, %x0 : f32
  uop.acc_set %max, %mx2
  uop.end %r0
  %m = uop.acc_get %max : f32
  %r1 = uop.range %c0, %n : index
  %s = uop.acc_get %sum : f32
  %i1 = uop.add %base, %r1 : index
  %x1 = uop.load %x[%i1] : f32
  %d1 = uop.sub %x1, %m : f32
  %s2 = uop.add %s, %d1 : f32
  uop.acc_set %sum, %s2
  uop.store %out[%i1], %d1
  uop.end %r1
  %total = uop.acc_get %sum : f32
  uop.store %out[%row], %total
  uop.end %row
}
