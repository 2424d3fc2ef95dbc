"""kiln-opt's ``--mlir-print-ir-*`` flags, with mlir-opt 22's meaning, headers and file-tree layout.

``--mlir-print-ir-before-all`` / ``-after-all`` print the module around every pass; ``-after-change`` keeps
only the after-dumps of passes that changed the IR; ``-after-failure`` prints only the IR a failing pass left.
A failure is printed whenever after-dumps are on, with MLIR's ``After <Pass> Failed`` header. Headers name
the pass class and, in parentheses, the pass with its options (``kernel-optimize{target="cpu-c"}``), so a
dump plus the text in parentheses replays the step: ``kiln-opt 3_kernel-optimize.mlir -p '<that text>'``.

With ``--mlir-print-ir-tree-dir=DIR`` the dumps go to files instead of stderr, laid out as MLIR lays them out:
``DIR/builtin_module_<sym_name or no-symbol-name>/<N>_<pass-argument>.mlir``, N counting every dump of that
module (before- and after-dumps share the count).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from kiln.compiler.pipeline import pass_text
from kiln.support.errors import UserError


@dataclass
class IRPrinter:
    """Prints the module around passes as the flags ask; ``print_module`` renders it (generic form or not)."""

    print_module: Callable[[ModuleOp], str]
    before_all: bool = False
    after_all: bool = False
    after_change: bool = False
    after_failure: bool = False
    tree_dir: Path | None = None
    _counters: dict[int, int] = field(default_factory=dict)
    _before_text: str | None = None

    @property
    def prints_after(self) -> bool:
        return self.after_all or self.after_failure

    def before(self, p: ModulePass, module: ModuleOp) -> None:
        self._before_text = self.print_module(module) if self.after_change else None
        if self.before_all:
            self._write(p, module, f"Before {type(p).__name__}")

    def after(self, p: ModulePass, module: ModuleOp) -> None:
        if not self.after_all:
            return
        if self._before_text is not None and self._before_text == self.print_module(module):
            return
        self._write(p, module, f"After {type(p).__name__}")

    def failed(self, p: ModulePass, module: ModuleOp) -> None:
        if self.prints_after:
            self._write(p, module, f"After {type(p).__name__} Failed")

    def _write(self, p: ModulePass, module: ModuleOp, what: str) -> None:
        text = f"// -----// IR Dump {what} ({pass_text(p)}) //----- //\n{self.print_module(module)}\n"
        if self.tree_dir is None:
            sys.stderr.write(text)
            return
        count = self._counters.get(id(module), -1) + 1
        self._counters[id(module)] = count
        symbol = module.sym_name.data if module.sym_name is not None else "no-symbol-name"
        folder = self.tree_dir / f"builtin_module_{symbol}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{count}_{re.sub(r'[^A-Za-z0-9_.-]', '_', p.name)}.mlir").write_text(text)
        except OSError as e:
            raise UserError(f"cannot write the IR dump into '{folder}': {e.strerror}") from None
