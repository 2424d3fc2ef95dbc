#!/bin/bash
# The checks that need an NVIDIA GPU, as one script: the cuda tests, the examples on --device cuda (the CLI with
# --verify-semantics, the JIT examples), kernels against torch on the same GPU, two networks against onnxruntime.
#
#     bash bench/cuda_check.sh [OUT_DIR]        # from the repository root; PYTHON=... to choose the interpreter
#
# kiln and its dependencies (cuda-python, nvidia-nvjitlink; torch for bench/gpu_kernels.py, onnx and
# onnxruntime for bench/networks.py) must be importable by $PYTHON. Each step runs under its own time limit, so a
# hang costs that step alone; each step's whole log is OUT_DIR/<step>.log (default OUT_DIR: cuda-check), and this
# script prints each step's exit status, time and last lines. Without a GPU every step says so and ends.
set -u
out=${1:-cuda-check}
export py=${PYTHON:-python3}
workers=${KILN_CHECK_WORKERS:-$(nproc)}
mkdir -p "$out"

step() {
    local name=$1 limit=$2 started=$SECONDS rc
    shift 2
    timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    echo "== $name: exit $rc after $((SECONDS - started)) s (limit $limit s)"
    tail -n "${TAIL_LINES:-30}" "$out/$name.log"
}

examples() {
    local run="$py -m kiln.tools.kiln_run --device cuda --verify-semantics 2"
    $run examples/mlp.mlir --input 4x64xf32=0.5 --input 64x128xf32=0.01 --input 128xf32=0.1 --input 128x10xf32=0.02 \
        --input 10xf32=0 &&
    $run examples/attention.mlir --input 96x64xf32=0.1 --input 96x64xf32=0.2 --input 96x64xf32=0.3 &&
    $run examples/convnet.mlir --input 2x3x16x16xf32=0.5 --input 8x3x3x3xf32=0.1 --input 8xf32=0.1 \
        --input 4x8x1x1xf32=0.2 &&
    $run examples/layernorm.mlir --input 33x512xf32=0.5 --input 512xf32=1 --input 512xf32=0 &&
    $run examples/softmax.mlir --input 100x256xf32=0.5 &&
    $py examples/jit_mlp.py --device cuda --steps 30 &&
    $py examples/jit_cnn.py --device cuda --steps 10
}
export -f examples

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/gpu.txt"
step smoke 60 "$py" -c "
from kiln.runtime.devices import get_device
from kiln.targets.ptx.toolchain import available
import cuda.bindings, numpy as np
print('cuda-bindings', cuda.bindings.__version__, '|', available()[1], '|', get_device('cuda'))
from kiln.compiler.driver import compile
t = '!graph.tensor<4xf32>'
run = compile(f'func.func @f(%a: {t}, %b: {t}) -> {t} {{\n %r = graph.add %a, %b : ({t}, {t}) -> {t}\n func.return %r : {t}\n}}', 'f', 'cuda')
print(run(np.arange(4, dtype=np.float32), np.ones(4, np.float32)))"
step tests "${TEST_LIMIT:-200}" env KILN_TEST_DEVICES=cuda "$py" -m pytest -q -rfE -n "$workers" -p no:cacheprovider \
    -k cuda test/python --junitxml="$out/tests.xml"
step examples "${EXAMPLES_LIMIT:-90}" bash -c examples
step kernels "${KERNELS_LIMIT:-90}" "$py" bench/gpu_kernels.py --repeat 20
step networks "${NETWORK_LIMIT:-120}" "$py" bench/networks.py --devices cuda --runners kiln,onnxruntime \
    --models "${NETWORK_MODELS:-squeezenet,resnet50}" --repeat 5
