"""The PTX backend: uop kernels -> convert-uop-to-ptx -> ``-t ptx`` -> nvJitLink, for sm_80 and sm_90.

Without a GPU PTX can only be assembled, so these tests make the assembler (``-Xptxas -Werror``: warnings fail
too) see every path of the conversion: every native ALU op on every dtype it accepts, every cast and bitcast,
vector, gated, shared-memory, accumulator and tensor-core kernels, and every kernel of the shared corpus lowered through the
``lower-to-ptx`` pipeline. Where a GPU is present the corpus also runs on the ``cuda`` device against the
reference interpreter.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import PassFailedException

from kiln.dialects import ptx
from kiln.dialects.alu import ALU_OPS, BOOL, FLOAT, INDEX, INT
from kiln.dialects.types import DTYPES
from kiln.lowering.uop_to_ptx import ConvertUopToPTX
from kiln.compiler.registry import PIPELINES, get_all_passes, make_context
from kiln.runtime.devices import device_available
from kiln.compiler.driver import lower_program
from kiln.compiler.module import parse_module
from kiln.capabilities.description import get_target
from kiln.targets.ptx import emitter, toolchain
from kiln.capabilities.ptx import SM_VERSIONS
from kiln.compiler.driver import compile

from corpus import Program, all_programs, assert_same

pytestmark = pytest.mark.skipif(not toolchain.available()[0], reason=toolchain.available()[1])

CUDA = get_target("cuda")
CLASSES = {FLOAT: ("f16", "bf16", "f32", "f64"), INT: ("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"),
           BOOL: ("i1",), INDEX: ("index",)}  # fmt: skip
F64_APPROX = ("exp2", "log2", "sin", "cos")
"""Native on the cuda target for f32 only: on f64 they are a diagnostic (uop-decompose must rewrite them)."""


def convert(text: str, arch: str = "sm_80") -> ModuleOp:
    """Parse uop IR and convert it to the ptx dialect; both modules must verify."""
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertUopToPTX(arch).apply(ctx, module)
    module.verify()
    return module


def assemble_everywhere(module: ModuleOp) -> str:
    """Emit a converted module and assemble it for every sm kiln supports (each at least the module's own)."""
    source = emitter.emit(module)
    arch = module.attributes[ptx.TARGET_ATTRIBUTE].data  # type: ignore[attr-defined]
    for target in SM_VERSIONS[SM_VERSIONS.index(arch) :]:
        toolchain.assemble(source, target)
    return source


GPU_ATTRIBUTES = 'symbols = [], global_size = ["4", "1", "1"], local_size = [64, 1, 1]'


def elementwise(name: str, inputs: list[str], output: str, body: str, result: str = "%r") -> str:
    """A GPU kernel ``out[i] = body(a0[i], a1[i], ...)`` over i = block * 64 + thread; an ``index`` input is
    an index param, an ``index`` result is stored as i32."""
    lines = [f"uop.kernel @{name} attributes {{{GPU_ATTRIBUTES}}} {{"]
    lines.append("  %i = uop.special global_id.x : index")
    for k, t in enumerate(inputs):
        if t == "index":
            lines.append(f"  %a{k} = uop.param {k} : index")
        else:
            lines += [f"  %p{k} = uop.param {k} : !uop.ptr<{t}>", f"  %a{k} = uop.load %p{k}[%i] : {t}"]
    lines.append(f"  %out = uop.param {len(inputs)} : !uop.ptr<{'i32' if output == 'index' else output}>")
    lines.append(body)
    if output == "index":
        lines.append(f"  %stored = uop.cast {result} : index -> i32")
        result = "%stored"
    lines += [f"  uop.store %out[%i], {result}", "}"]
    return "\n".join(lines) + "\n"


def _alu_kernels() -> list[str]:
    kernels = []
    for kind, spec in sorted(ALU_OPS.items()):
        if not CUDA.is_native(kind):
            continue
        for dtype_class in sorted(spec.dtypes):
            for t in CLASSES[dtype_class]:
                if t == "f64" and kind in F64_APPROX:
                    continue
                operands = ", ".join(f"%a{k}" for k in range(spec.arity))
                inputs = [t] * spec.arity
                if spec.takes_condition:
                    inputs[0] = "i1"
                result = "i1" if spec.returns_bool else t
                body = f"  %r = uop.{kind} {operands} : {t}"
                kernels.append(elementwise(f"{kind}_{t}", inputs, result, body))
    return kernels


def _conversion_kernels() -> list[str]:
    dtypes = [*DTYPES, "index"]
    kernels = []
    for src in dtypes:
        for dst in dtypes:
            if src != dst:
                body = f"  %r = uop.cast %a0 : {src} -> {dst}"
                kernels.append(elementwise(f"cast_{src}_to_{dst}", [src], dst, body))
    for src, dst in (("f32", "i32"), ("ui32", "f32"), ("f64", "i64"), ("ui64", "f64"), ("f16", "i16"), ("ui16", "bf16"),
                     ("f16", "bf16"), ("i8", "ui8"), ("i16", "ui16"), ("i32", "ui32")):  # fmt: skip
        body = f"  %r = uop.bitcast %a0 : {src} -> {dst}"
        kernels.append(elementwise(f"bitcast_{src}_to_{dst}", [src], dst, body))
    return kernels


def test_every_native_alu_op_on_every_dtype_assembles() -> None:
    assemble_everywhere(convert("".join(_alu_kernels())))


def test_every_cast_and_bitcast_assembles() -> None:
    assemble_everywhere(convert("".join(_conversion_kernels())))


def _lowering_error(text: str) -> str:
    with pytest.raises(PassFailedException) as info:
        convert(text)
    return str(info.value)


@pytest.mark.parametrize("kind", F64_APPROX)
def test_f64_transcendentals_need_uop_decompose(kind: str) -> None:
    message = _lowering_error(elementwise("k", ["f64"], "f64", f"  %r = uop.{kind} %a0 : f64"))
    assert message == (
        f"uop.{kind} on f64 cannot be lowered to PTX: PTX has no f64 instruction for {kind}; "
        "uop-decompose{target=cuda} must rewrite it for f64"
    )


@pytest.mark.parametrize("kind", sorted(k for k in ALU_OPS if not CUDA.is_native(k)))
def test_ops_the_target_decomposes_are_a_diagnostic(kind: str) -> None:
    operands = ", ".join(f"%a{k}" for k in range(ALU_OPS[kind].arity))
    output = "i1" if ALU_OPS[kind].returns_bool else "f32"
    message = _lowering_error(elementwise("k", ["f32"] * ALU_OPS[kind].arity, output, f"  %r = uop.{kind} {operands} : f32"))
    assert message.startswith(f"uop.{kind} on f32 cannot be lowered to PTX: ")
    assert "uop-decompose{target=cuda}" in message


# ---------------------------------------------------------------------------------------------
# structure: vectors, gates, shared memory, accumulators


STRUCTURE = f"""
uop.kernel @vectors attributes {{{GPU_ATTRIBUTES}}} {{
  %x = uop.param 0 : !uop.ptr<f32>
  %h = uop.param 1 : !uop.ptr<f16>
  %b = uop.param 2 : !uop.ptr<i8>
  %d = uop.param 3 : !uop.ptr<f64>
  %g = uop.special global_id.x : index
  %c4 = uop.const 4 : index
  %c8 = uop.const 8 : index
  %i = uop.mul %g, %c4 : index
  %j = uop.mul %g, %c8 : index
  %v = uop.load %x[%i] : vector<4xf32>
  %two = uop.const dense<2.000000e+00> : vector<4xf32>
  %w = uop.mul %v, %two : vector<4xf32>
  %lt = uop.cmplt %v, %w : vector<4xf32>
  %s = uop.where %lt, %v, %w : vector<4xf32>
  uop.store %x[%i], %s : vector<4xf32>
  %hv = uop.load %h[%j] : vector<8xf16>
  %hs = uop.add %hv, %hv : vector<8xf16>
  uop.store %h[%j], %hs : vector<8xf16>
  %bv = uop.load %b[%i] : vector<4xi8>
  %b0 = uop.extract %bv[0] : vector<4xi8>
  %b3 = uop.extract %bv[3] : vector<4xi8>
  %bs = uop.add %b0, %b3 : i8
  %bw = uop.vectorize %bs, %b3, %b0, %bs : vector<4xi8>
  uop.store %b[%i], %bw : vector<4xi8>
  %c2 = uop.const 2 : index
  %k = uop.mul %g, %c2 : index
  %n = uop.const 100 : index
  %inside = uop.cmplt %k, %n : index
  %dv = uop.load %d[%k], %inside : vector<2xf64>
  uop.store %d[%k], %dv, %inside : vector<2xf64>
}}

uop.kernel @shared_sum attributes {{symbols = [], global_size = ["16", "1", "1"], local_size = [64, 1, 1]}} {{
  %x = uop.param 0 : !uop.ptr<f32>
  %flags = uop.param 1 : !uop.ptr<i1>
  %out = uop.param 2 : !uop.ptr<f32>
  %t = uop.special local_id.x : index
  %blk = uop.special group_id.x : index
  %c0 = uop.const 0 : index
  %c64 = uop.const 64 : index
  %zero = uop.const 0.000000e+00 : f32
  %l = uop.define_local 64 : !uop.ptr<f32, local>
  %base = uop.mul %blk, %c64 : index
  %gi = uop.add %base, %t : index
  %on = uop.load %flags[%gi] : i1
  %v = uop.load %x[%gi], %on : f32
  uop.store %l[%t], %v
  uop.barrier
  %first = uop.cmpeq %t, %c0 : index
  uop.if %first
  %acc = uop.define_acc %zero : f32
  %r = uop.range %c0, %c64 : index
  %e = uop.load %l[%r] : f32
  %cur = uop.acc_get %acc : f32
  %nxt = uop.add %cur, %e : f32
  uop.acc_set %acc, %nxt
  uop.end %r
  %sum = uop.acc_get %acc : f32
  %pos = uop.cmplt %zero, %sum : f32
  uop.store %out[%blk], %sum, %pos
  uop.store %flags[%blk], %pos
  uop.endif
}}
"""


def _tensor_core_kernel(dtype: str) -> str:
    return f"""
uop.kernel @tc_{dtype} attributes {{symbols = [], global_size = ["1", "1", "1"], local_size = [32, 1, 1]}} {{
  %a = uop.param 0 : !uop.ptr<{dtype}>
  %c = uop.param 1 : !uop.ptr<f32>
  %t = uop.special local_id.x : index
  %c8 = uop.const 8 : index
  %c4 = uop.const 4 : index
  %ia = uop.mul %t, %c8 : index
  %ic = uop.mul %t, %c4 : index
  %fa = uop.load %a[%ia] : vector<8x{dtype}>
  %fb = uop.load %a[%ic] : vector<4x{dtype}>
  %fc = uop.load %c[%ic] : vector<4xf32>
  %d = uop.wmma %fa, %fb, %fc {{m = 16 : i64, n = 8 : i64, k = 16 : i64, threads = 32 : i64}} : vector<8x{dtype}>, vector<4x{dtype}> -> vector<4xf32>
  uop.store %c[%ic], %d : vector<4xf32>
}}
"""


def test_vector_gated_shared_accumulator_and_tensor_core_kernels_assemble() -> None:
    source = assemble_everywhere(convert(STRUCTURE + _tensor_core_kernel("f16") + _tensor_core_kernel("bf16")))
    assert "ld.global.v4.f32" in source and "st.global.v4.b16" in source and "ld.global.v4.s8" in source
    assert "bar.sync 0;" in source and ".shared .align 16 .b8 smem0[256];" in source
    for dtype in ("f16", "bf16"):
        assert f"mma.sync.aligned.m16n8k16.row.col.f32.{dtype}.{dtype}.f32 {{%f" in source


def test_launch_attributes_stay_on_the_entry_for_the_runtime() -> None:
    module = convert(STRUCTURE, "sm_90")
    entry = next(op for op in module.ops if isinstance(op, ptx.EntryOp) and op.sym_name.data == "shared_sum")
    assert entry.params == [("p0_x", "u64"), ("p1_flags", "u64"), ("p2_out", "u64")]
    assert list(entry.maxntid.get_values()) == [64, 1, 1]  # type: ignore[union-attr]
    assert [a.data for a in entry.attributes["global_size"].data] == ["16", "1", "1"]  # type: ignore[attr-defined]
    assert emitter.emit(module).splitlines()[1:4] == [".version 7.8", ".target sm_90", ".address_size 64"]


@pytest.mark.parametrize(
    ("value", "dtype", "bits"),
    [(1.0, "f16", np.float16(1.0).view(np.uint16)), (-0.1, "f16", np.float16(-0.1).view(np.uint16)),
     (0.1, "bf16", np.array(0.1, ml_dtypes.bfloat16).view(np.uint16)),
     (-3.0e38, "bf16", np.array(-3.0e38, ml_dtypes.bfloat16).view(np.uint16)),
     (float("inf"), "bf16", np.array(np.inf, ml_dtypes.bfloat16).view(np.uint16))],
)  # fmt: skip
def test_half_immediates_are_the_rounded_bits(value: float, dtype: str, bits: int) -> None:
    attr = FloatAttr(float(np.array(value, ml_dtypes.bfloat16 if dtype == "bf16" else np.float16)), DTYPES[dtype])
    assert emitter.immediate(attr, "b16") == f"0x{int(bits):04X}"


def test_float_immediates_are_the_exact_bits() -> None:
    assert emitter.immediate(FloatAttr(-2.5, DTYPES["f32"]), "f32") == "0f" + struct.pack(">f", -2.5).hex().upper()
    assert emitter.immediate(FloatAttr(0.1, DTYPES["f64"]), "f64") == "0d" + struct.pack(">d", 0.1).hex().upper()


# ---------------------------------------------------------------------------------------------
# the shared corpus

CONVERT = "convert-uop-to-ptx"
PROGRAMS = [pytest.param(p, id=p.name) for p in all_programs()]


def _to_uop_level(program: Program) -> ModuleOp:
    """The program through ``lower-to-ptx`` up to (not including) its last pass, the conversion."""
    passes, _, last = PIPELINES["lower-to-ptx"].rpartition(",")
    assert last == CONVERT
    ctx = make_context()
    module = Parser(ctx, program.text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), passes).apply(ctx, module)
    return module


@pytest.mark.parametrize("program", PROGRAMS)
def test_every_corpus_kernel_assembles(program: Program) -> None:
    uop_level = _to_uop_level(program)
    for arch in SM_VERSIONS:
        module = uop_level.clone()
        ConvertUopToPTX(arch).apply(make_context(), module)
        module.verify()
        toolchain.assemble(emitter.emit(module), arch)


def test_the_cuda_compile_path_gives_an_entry_per_launch_with_the_runtime_param_layout() -> None:
    program = next(p.values[0] for p in PROGRAMS if p.values[0].name == "symbolic")
    spec = lower_program(parse_module(program.text), program.function, "cuda")
    entries = dict(re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)", spec.kernels.source))
    assert list(entries) == spec.kernel_names()
    for launch in spec.launches:
        kinds = [kind for kind, _ in launch.args]
        expected = ["u64"] * kinds.count("buf") + ["u32"] * kinds.count("sym")
        assert re.findall(r"\.param \.(\w+)", entries[launch.kernel]) == expected
    toolchain.validate(spec.kernels.source)


@pytest.mark.skipif(not device_available("cuda"), reason="no CUDA GPU here")
@pytest.mark.parametrize("program", PROGRAMS)
def test_corpus_runs_on_cuda_like_the_interpreter(program: Program) -> None:
    reference = compile(program.text, program.function, "interp")
    run = compile(program.text, program.function, "cuda")
    for inputs in program.runs:
        want, got = reference(*inputs), run(*inputs)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, program.rtol, program.atol, f"{program.name} on cuda, result {i}")


def test_dialect_reference_page_is_up_to_date() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "gen_dialect_docs.py"
    result = subprocess.run([sys.executable, str(page), "--check", "kiln.dialects.ptx"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
