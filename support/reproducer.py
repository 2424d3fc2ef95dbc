"""Crash reproducers as MLIR writes and reads them: one ``.mlir`` file that replays a failing pass.

``--mlir-pass-pipeline-crash-reproducer=FILE`` writes, when a pass fails (a diagnostic, a verifier error in
its output, or a bug in kiln), the IR the failing pass was given followed by MLIR's trailer::

    {-# external_resources: { mlir_reproducer: { pipeline: "builtin.module(cse)", disable_threading: true,
        verify_each: true } } #-}

(on one line). ``kiln-opt FILE --run-reproducer`` reads the pipeline back and runs it, so the failure comes
back without the rest of the pipeline or the original input. Like MLIR's local reproducer, the pipeline is
the failing pass alone: the IR already holds what the passes before it did.
"""

from __future__ import annotations

import re

from kiln.support.errors import UserError

_TRAILER = re.compile(r"\{-#(?P<body>.*?)#-\}", re.DOTALL)
_PIPELINE = re.compile(r'mlir_reproducer\s*:\s*\{[^}]*?pipeline\s*:\s*"(?P<pipeline>(?:[^"\\]|\\.)*)"', re.DOTALL)


def reproducer_text(ir: str, pipeline: str) -> str:
    """The reproducer file: ``ir`` (printed module) and the trailer naming ``pipeline`` (anchored form)."""
    quoted = pipeline.replace("\\", "\\\\").replace('"', "\\22")  # MLIR escapes '"' as hex: \22
    return (
        f"{ir.rstrip()}\n\n{{-#\n  external_resources: {{\n    mlir_reproducer: {{\n"
        f'      pipeline: "{quoted}",\n      disable_threading: true,\n      verify_each: true\n    }}\n  }}\n#-}}\n'
    )


def split_reproducer(text: str) -> tuple[str, str | None]:
    """``text`` without a reproducer trailer (blank lines in its place, so locations still point at the file's
    lines), and the trailer's pipeline (None when there is no trailer)."""
    for block in _TRAILER.finditer(text):
        found = _PIPELINE.search(block.group("body"))
        if found is not None:
            blanked = text[: block.start()] + "\n" * block.group(0).count("\n") + text[block.end() :]
            return blanked, _unescape(found.group("pipeline"))
    return text, None


def _unescape(text: str) -> str:
    """MLIR's string escapes: ``\\XX`` (two hex digits), and ``\\\\``, ``\\"`` as C writes them."""
    return re.sub(r"\\([0-9A-Fa-f]{2}|.)", lambda m: chr(int(m[1], 16)) if len(m[1]) == 2 else m[1], text)


def reproducer_pipeline(text: str, filename: str) -> str:
    """``--run-reproducer``: the pipeline the file's trailer names; an error when it has none."""
    _, pipeline = split_reproducer(text)
    if pipeline is None:
        raise UserError(
            "--run-reproducer: no '{-# external_resources: { mlir_reproducer: { pipeline: ... } } #-}' in the input",
            where=filename,
        )
    return pipeline
