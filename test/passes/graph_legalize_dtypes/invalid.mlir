// RUN: not kiln-opt %s --split-input-file -p 'graph-legalize-dtypes{target=webgpu}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not kiln-opt %s --split-input-file -p 'graph-legalize-dtypes{target=webgpu f64_to_f32=true}' 2>&1 | filecheck %s --check-prefix=F32

// A constant that does not fit i32 is an error naming the op; f64 needs the opt-in.
// ERR: error: graph-legalize-dtypes: a constant of graph.constant (4294967296..4294967296) does not fit i32, which stands in for 64-bit integers on webgpu
func.func @big(%x: !graph.tensor<3xi64>) -> !graph.tensor<3xi64> {
  %c = graph.constant 4294967296 : i64 : !graph.tensor<i64>
  %s = graph.add %x, %c : (!graph.tensor<3xi64>, !graph.tensor<i64>) -> !graph.tensor<3xi64>
  func.return %s : !graph.tensor<3xi64>
}

// -----

// ERR: error: graph-legalize-dtypes: argument 0 of @wide is f64 on webgpu. WGSL has no f64
// F32-LABEL: func.func @wide(%x: !graph.tensor<2xf32>) -> !graph.tensor<2xf32>
// F32-NEXT:    %c = graph.constant 5.000000e-01 : f32 : !graph.tensor<f32>
func.func @wide(%x: !graph.tensor<2xf64>) -> !graph.tensor<2xf64> {
  %c = graph.constant 0.5 : f64 : !graph.tensor<f64>
  %s = graph.mul %x, %c : (!graph.tensor<2xf64>, !graph.tensor<f64>) -> !graph.tensor<2xf64>
  func.return %s : !graph.tensor<2xf64>
}

// -----

// A bitcast between f16 and a 16-bit integer has no 32-bit form.
// ERR: error: graph-legalize-dtypes: graph.bitcast f16 -> i16 cannot run on webgpu, which computes 8- and 16-bit integers in 32 bits and bf16 in f32
func.func @halfbits(%x: !graph.tensor<2xf16>) -> !graph.tensor<2xi16> {
  %b = graph.bitcast %x : (!graph.tensor<2xf16>) -> !graph.tensor<2xi16>
  func.return %b : !graph.tensor<2xi16>
}

// -----

// bf16 <-> i16 would become f32 <-> i32 of the same width but another meaning.
// ERR: error: graph-legalize-dtypes: graph.bitcast bf16 -> i16 cannot run on webgpu
func.func @brainbits(%x: !graph.tensor<2xbf16>) -> !graph.tensor<2xi16> {
  %b = graph.bitcast %x : (!graph.tensor<2xbf16>) -> !graph.tensor<2xi16>
  func.return %b : !graph.tensor<2xi16>
}
