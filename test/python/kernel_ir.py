"""Helpers for tests that start from hand-written kernel-level IR: parse a ``kernel.kernel``, or run
``convert-kernel-to-uop`` on it and look at the ``uop.kernel`` it became."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.parser import Parser

from kiln.compiler.registry import make_context
from kiln.dialects import uop as U
from kiln.dialects.kernel import KernelOp
from kiln.lowering.kernel_to_uop import ConvertKernelToUop
from kiln.passes.uop_simplify import UopSimplify


PAD = """
kernel.kernel @pad(%x: !kernel.buffer<10xf32>, %out: !kernel.buffer<12xf32>) attributes {symbols = []} {
  %c12 = kernel.const 12 : index
  %c1 = kernel.const 1 : index
  %c11 = kernel.const 11 : index
  %i = kernel.range %c12 global
  %lo = kernel.cmple %c1, %i : index
  %hi = kernel.cmplt %i, %c11 : index
  %valid = kernel.and %lo, %hi : i1
  %src = kernel.sub %i, %c1 : index
  %v = kernel.load %x[%src], %valid : f32
  kernel.store %out[%i], %v
}
"""
"""Padding by one element on each side: a load gated by its index being in bounds."""


def parse_kernel(text: str) -> KernelOp:
    """The one ``kernel.kernel`` of ``text``."""
    module = Parser(make_context(), text).parse_module()
    (found,) = [op for op in module.ops if isinstance(op, KernelOp)]
    return found


def linearize(text: str, target: str = "cpu-llvm", simplify: bool = False) -> U.UopKernelOp:
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    module.verify()
    ConvertKernelToUop(target=target).apply(ctx, module)
    if simplify:
        UopSimplify().apply(ctx, module)
    module.verify()
    (kernel,) = [op for op in module.ops if isinstance(op, U.UopKernelOp)]
    return kernel


def ops_of(kernel: U.UopKernelOp) -> list[Operation]:
    return list(kernel.body.block.ops)


def count(kernel: U.UopKernelOp, cls: type) -> int:
    return sum(isinstance(op, cls) for op in ops_of(kernel))
