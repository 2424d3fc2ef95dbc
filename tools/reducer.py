"""kiln-reduce's engine: delta debugging over IR-aware edits, judged by an external interestingness command.

For each step of `kiln.tools.reduce_steps.STEPS`, the sites are tried in chunks, halving the chunk size down to
single sites (ddmin's "reduce to complement" on an ordered list): a chunk's edit is applied to a copy of the
current module, the copy is verified with kiln's verifier (a candidate that does not verify is skipped without
running the test), printed, and written to a file the command is run on. Exit status 0 means the candidate is
still interesting and becomes the current module. The steps are repeated until a whole round changes nothing.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects.verify import verify_module
from kiln.tools.reduce_steps import STEPS, CannotApply, Step


@dataclass
class InterestingnessTest:
    """Runs the user's shell command on a candidate file: ``{}`` in the command is replaced by the file's path
    (quoted for the shell), or without ``{}`` the path is appended as the last argument. Results are cached by
    the candidate's text, so a candidate is never run twice."""

    command: str
    path: Path
    """Where candidates are written (a temporary folder, the input's file name)."""
    timeout: float | None
    wrap: Callable[[str], str] = lambda text: text
    """Turns printed IR into the file's text (adds a crash reproducer's trailer back)."""
    runs: int = 0
    timeouts: int = 0
    _seen: dict[str, bool] = field(default_factory=dict)

    def __call__(self, text: str) -> bool:
        key = hashlib.sha256(text.encode()).hexdigest()
        if key not in self._seen:
            self._seen[key] = self._run(text)
        return self._seen[key]

    def shell_command(self) -> str:
        quoted = shlex.quote(str(self.path))
        return self.command.replace("{}", quoted) if "{}" in self.command else f"{self.command} {quoted}"

    def _run(self, text: str) -> bool:
        self.path.write_text(self.wrap(text), encoding="utf-8")
        self.runs += 1
        proc = subprocess.Popen(self.shell_command(), shell=True, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            return proc.wait(timeout=self.timeout) == 0
        except subprocess.TimeoutExpired:
            self.timeouts += 1
            return False
        finally:  # timed out, or Ctrl-C: stop the shell and whatever it started
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@dataclass
class Reduction:
    """The current (smallest interesting) module and what it took to get there."""

    module: ModuleOp
    text: str
    print_module: Callable[[ModuleOp], str]
    test: InterestingnessTest
    log: Callable[[str], None]
    invalid: int = 0
    """Candidates skipped because the edit could not be made or the result did not verify."""
    accepted: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)

    def run(self, steps: tuple[Step, ...] = STEPS) -> None:
        """Reduce until no step finds an interesting smaller candidate."""
        changed = True
        while changed:
            changed = False
            for step in steps:
                changed |= self._reduce_with(step)

    def _reduce_with(self, step: Step) -> bool:
        changed = False
        size = len(step.sites(self.module))
        while size >= 1:
            start = 0
            while start < len(step.sites(self.module)):
                if self._try(step, start, size):
                    changed = True  # the sites after the chunk moved up to `start`: try there again
                else:
                    start += size
            size //= 2
        return changed

    def _try(self, step: Step, start: int, size: int) -> bool:
        candidate = self.module.clone()
        try:
            step.apply(step.sites(candidate)[start:start + size])
            valid = verify_module(candidate) is None
        except (CannotApply, DiagnosticException):  # the edit cannot be made, or makes IR xDSL refuses
            valid = False
        if not valid:
            self.invalid += 1
            return False
        text = self.print_module(candidate)
        if text == self.text or not self.test(text):
            return False
        self.module, self.text = candidate, text
        self.accepted[step.name] = self.accepted.get(step.name, 0) + 1
        self.log(f"{step.name}: {count_ops(candidate)} ops, {len(text)} bytes (test run {self.test.runs})")
        return True


def count_ops(module: ModuleOp) -> int:
    """Operations in the module, the module itself not counted."""
    return sum(1 for op in module.walk() if op is not module)


__all__ = ["InterestingnessTest", "Reduction", "count_ops"]
