"""The tensor cores a target has, as data: the shapes and dtypes of its matrix-multiply-accumulate instructions.

Read by the ``tc`` opt (which kernels match a shape) and by the linearizer (which lane layout to emit), so it
lives below both.
"""

from __future__ import annotations

from dataclasses import dataclass

from kiln.capabilities.description import TargetDescription

@dataclass(frozen=True)
class TensorCore:
    m: int
    n: int
    k: int
    inputs: tuple[str, ...]
    accumulator: str

    @property
    def name(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"


def tensor_cores(target: TargetDescription) -> list[TensorCore]:
    """The tensor cores of ``target`` (cuda: ``mma.sync`` m16n8k16 for f16/bf16 into f32, sm_80 and later)."""
    if target.name != "cuda":
        return []
    from kiln.capabilities.ptx import SM_VERSIONS, TENSOR_CORE_SHAPES

    (m, n, k), inputs, accumulator = TENSOR_CORE_SHAPES[SM_VERSIONS[0]]
    return [TensorCore(m, n, k, inputs, accumulator)]
