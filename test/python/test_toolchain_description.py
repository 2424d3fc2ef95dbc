"""Target descriptions: the CPU targets' capabilities, host probing, lookup by name, and validation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kiln.support.errors import KilnError
from kiln.capabilities.description import (
    ALU_OPS,
    TargetDescription,
    get_target,
    host_cpu,
    host_vector_bytes,
    host_vector_registers,
    target_names,
    usable_cores,
)


# LLVM has no intrinsic for erf/erfc or the inverse hyperbolics; isnan/isinf are bit tests on every target
@pytest.mark.parametrize("name, decomposed", [
    ("cpu-llvm", {"rsqrt", "sign", "erf", "erfc", "asinh", "acosh", "atanh", "isnan", "isinf"}),
    ("cpu-c", {"rsqrt", "sign", "isnan", "isinf"}),
])
def test_cpu_targets(name: str, decomposed: set[str]) -> None:
    t = get_target(name)
    assert t.name == name and t.index_bits == 64
    assert ALU_OPS - t.alu_ops == decomposed and t.is_native("fma") and not t.is_native("sign")
    assert t.supports_dtype("bf16") and t.supports_dtype("i1")
    assert t.has_threads and not t.has_local and t.cpu_cores == usable_cores()
    assert t.max_workgroup_size is None and t.local_memory_bytes is None and t.max_grid_dims is None
    assert t.vector_bytes == host_vector_bytes()
    assert t.vector_width("f32") == t.vector_bytes // 4
    assert t.vector_width("f64") == t.vector_bytes // 8
    assert t.vector_width("i1") == t.vector_width("i8") == t.vector_bytes


def test_host_vector_width_follows_the_cpu_features() -> None:
    features = set(host_cpu()[2].split(","))
    expected = 64 if "+avx512f" in features else 32 if "+avx2" in features else 16
    assert host_vector_bytes() == expected


def test_host_vector_registers_follow_the_architecture() -> None:
    triple, _, features = host_cpu()
    expected = 32 if triple.startswith(("aarch64", "arm64")) or "+avx512f" in features.split(",") else 16
    assert host_vector_registers() == expected == get_target("cpu-llvm").vector_registers


def test_lookup() -> None:
    assert get_target("cpu-llvm") is get_target("cpu-llvm")
    assert target_names() == ["cpu-llvm", "cpu-c", "cuda", "webgpu"]
    with pytest.raises(KilnError, match="unknown target 'tpu' .expected one of cpu-llvm, cpu-c, cuda, webgpu"):
        get_target("tpu")


def test_lookup_is_lazy() -> None:
    code = "import sys; from kiln.capabilities.description import get_target; get_target('cpu-c'); print(sorted(m for m in ('wgpu', 'cuda', 'kiln.targets.ptx', 'kiln.targets.wgsl') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_description_is_validated_and_hashable() -> None:
    base = dict(name="t", dtypes=frozenset({"f32"}), alu_ops=frozenset({"add"}), index_bits=32, vector_bytes=16)
    t = TargetDescription(**base)
    assert t.vector_widths == {"f32": 4} and hash(t) == hash(TargetDescription(**base))
    assert TargetDescription(**base, vector_widths={"f32": 2}).vector_width("f32") == 2
    assert t.vector_width("f64") == 1
    with pytest.raises(ValueError, match=r"unknown dtypes or ALU ops \['f128'\]"):
        TargetDescription(**{**base, "dtypes": frozenset({"f128"})})
    with pytest.raises(ValueError, match=r"\['frobnicate'\]"):
        TargetDescription(**{**base, "alu_ops": frozenset({"frobnicate"})})


def test_an_op_can_be_native_for_some_dtypes_only() -> None:
    base = dict(name="t", dtypes=frozenset({"f32", "f64"}), index_bits=32, vector_bytes=16)
    t = TargetDescription(**base, alu_ops=frozenset({"add", "sin"}), native_dtypes={"sin": frozenset({"f32"})})
    assert t.is_native("sin", "f32") and not t.is_native("sin", "f64")
    assert t.is_native("sin")  # on some dtype: the emitter has it
    assert t.is_native("add", "f64") and t.is_native("add", "index")  # no restriction: every dtype
    assert not t.is_native("cos", "f32") and not t.is_native("cos")
    with pytest.raises(ValueError, match=r"\['f128', 'sine'\]"):
        TargetDescription(**base, alu_ops=frozenset({"sin"}), native_dtypes={"sine": frozenset({"f32"}), "sin": frozenset({"f128"})})


def test_cuda_transcendentals_are_native_for_f32_and_the_halves_computed_in_it() -> None:
    cuda = get_target("cuda")
    for kind in ("exp2", "log2", "sin", "cos"):
        assert [d for d in ("f16", "bf16", "f32", "f64") if cuda.is_native(kind, d)] == ["f16", "bf16", "f32"]
    assert cuda.is_native("sqrt", "f64") and cuda.is_native("floor", "f64") and cuda.is_native("shl", "i64")
