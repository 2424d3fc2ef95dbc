"""Verify a whole module and say which op failed: xDSL's verifier stops at the first failure without naming it."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from kiln.dialects.types import check_signatures
from kiln.support.diagnostics import Diagnostic, message_of, op_diagnostic


def verify_module(module: ModuleOp) -> Diagnostic | None:
    """Verify ``module``; on failure, a diagnostic located at the innermost op that does not verify.

    xDSL's verifier raises without saying which op failed, so after a failure the ops are verified one by one,
    nested ops first, and the first one that fails is the culprit (its own message is the one reported).
    """
    try:
        module.verify()
    except DiagnosticException as e:
        whole_module_error = e
    else:
        for fn in module.walk():
            if isinstance(fn, func.FuncOp):
                try:
                    check_signatures(fn)
                except DiagnosticException as e:
                    return op_diagnostic(fn, message_of(e))
        return None
    for op in module.walk(region_first=True):
        try:
            for block in (b for r in op.regions for b in r.blocks if b.first_op is None):
                block.verify()  # the only check xDSL makes on a block itself: an empty block needs a terminator
            op.verify(verify_nested_ops=False)
        except DiagnosticException as e:
            return op_diagnostic(op, message_of(e))
    return Diagnostic("error", message_of(whole_module_error))

