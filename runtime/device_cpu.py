"""The CPU devices, "cpu-llvm" and "cpu-c": LLVM IR through llvmlite, or C through the system C compiler.

``load`` takes a compiled program (``kiln.compiler``), loads its
kernels through the target's toolchain (which keeps its own object / ``.so`` cache) and returns an
``Executable`` (``kiln.runtime.program``), which runs the schedule on numpy arrays across the CPU's cores.
"""

from __future__ import annotations


from kiln.runtime.devices import Device
from kiln.support.errors import KilnError
from kiln.runtime.program import Executable, KernelsArtifact, ProgramSpec
from kiln.targets.loaded import LoadedKernels, entry_name

CPU_DEVICES = ("cpu-llvm", "cpu-c")


class CPUDevice(Device):
    def __init__(self, name: str):
        if name not in CPU_DEVICES:
            raise KilnError(f"'{name}' is not a CPU device (expected one of {', '.join(CPU_DEVICES)})")
        super().__init__(name)

    def load(self, spec: ProgramSpec) -> Executable:
        return Executable(spec, load_kernels(spec.kernels, spec.kernel_names()))


def load_kernels(artifact: KernelsArtifact, names: list[str]) -> LoadedKernels:
    """Load emitted kernels, and each one's uniform entry (``entry_name``), through their target's toolchain."""
    names = [*names, *(entry_name(name) for name in names)]
    if artifact.target == "cpu-llvm":
        from kiln.targets.llvm.toolchain import load_kernels as load_llvm

        return load_llvm(artifact.source, names)
    if artifact.target == "cpu-c":
        from kiln.capabilities.description import usable_cores
        from kiln.targets.c.toolchain import load_c_units
        from kiln.targets.c.units import split_units

        return load_c_units(split_units(artifact.source, usable_cores()), names)
    raise KilnError(f"the CPU devices cannot load kernels for target '{artifact.target}'")
