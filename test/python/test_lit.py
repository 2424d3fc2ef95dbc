"""Run the lit suite (test/**/*.mlir) under pytest, so one `pytest` run covers both and reports lit failures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lit_suite():
    lit = Path(sys.executable).parent / "lit"
    result = subprocess.run([str(lit), "-q", str(ROOT / "test")], capture_output=True, text=True, cwd=ROOT)
    output = f"{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, f"lit failed:\n{output}"
    discovered = re.search(r"Total Discovered Tests: (\d+)", output)
    assert discovered and int(discovered.group(1)) > 0, f"lit found no tests:\n{output}"
