"""kiln-opt's ``-t FORMAT``: the target's emitter, refusing modules that are not at the target's level.

An emitter prints the ops of its own dialect and skips everything else, so ``-t c`` on a graph module used to
print an empty C file and exit 0. Here a module with no op of the target's dialect is an error that names the
pipeline to run first. LLVM IR gets the triple and data layout of the host (or of ``--mtriple``), so that
``llc`` and ``clang`` accept the file as it is; llvmlite's placeholder triple ``unknown-unknown-unknown`` is
rejected by both.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xdsl.dialects.builtin import ModuleOp

from kiln.compiler import registry
from kiln.support.errors import UserError

LEVELS: dict[str, tuple[str, str]] = {
    "llvm": ("llvm", "lower-to-llvm"),
    "c": ("cstyle", "lower-to-c"),
    "ptx": ("ptx", "lower-to-ptx"),
    "wgsl": ("wgsl", "lower-to-wgsl"),
}
"""``-t`` target -> (the dialect its emitter prints, the named pipeline that lowers a graph module to it). A target
registered without an entry here (a test's, a plugin's) emits unchecked."""

Emitter = Callable[[ModuleOp], str]


def target_emitter(name: str, triple: str | None) -> Emitter | None:
    """The emitter of ``-t name`` (None for 'mlir'), checking the module's level before it emits."""
    if name == "mlir":
        return None
    targets = registry.get_all_targets()
    if name not in targets:
        raise UserError(f"unknown target '{name}' (choose from mlir, {', '.join(targets)})")
    emit = _llvm_with_triple(triple) if name == "llvm" else targets[name]()
    return partial(_emit_at_level, name, emit) if name in LEVELS else emit


def _emit_at_level(name: str, emit: Emitter, module: ModuleOp) -> str:
    """The emitter's output; its own located errors (an op of a level above, say) come first, and a module it
    printed nothing of is the error naming the pipeline."""
    text = emit(module)
    dialect, pipeline = LEVELS[name]
    if not any(op.name.startswith(dialect + ".") for op in module.walk()):
        raise UserError(f"-t {name} needs a module at the {dialect} level; run -p {pipeline} first")
    return text


def _llvm_with_triple(triple: str | None) -> Emitter:
    """The LLVM IR emitter, with the module's triple and data layout set for ``triple`` (default: the host)."""
    import llvmlite.binding as llvm

    from kiln.targets.llvm.emitter import to_llvmlite

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    wanted = triple or llvm.get_process_triple()
    try:
        machine = llvm.Target.from_triple(wanted).create_target_machine()
    except RuntimeError as e:
        raise UserError(f"unknown target triple '{wanted}': {str(e).strip()}") from None

    def emit(module: ModuleOp) -> str:
        ir = to_llvmlite(module)
        ir.triple = wanted
        ir.data_layout = str(machine.target_data)
        return str(ir)

    return emit
