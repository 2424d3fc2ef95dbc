"""The front-end op table of tensor_cases.py checks itself: it covers every public Tensor method, its inputs are
what the specs say, and its names are unique."""

from __future__ import annotations

import inspect

import numpy as np

from kiln.jit import Tensor

from tensor_cases import CASES, CASES_BY_NAME


TESTED_ELSEWHERE = {
    "numpy", "item", "tolist", "realize", "to", "to_mlir", "rand", "randn", "dtype", "shape", "ndim", "device",
    "full_like", "ones_like", "zeros", "ones", "full",
    # constructors, sizes and interop: test_tensor_api.py, test_interop.py
    "empty", "eye", "linspace", "uniform", "randint", "from_numpy", "numel", "size",
    # gradients and in-place updates: test_autodiff.py, test_tensor_api.py
    "requires_grad", "requires_grad_", "grad", "backward", "detach", "assign",
}
"""Public Tensor members covered by dedicated tests (values, devices, randomness) rather than this table."""

SPELLINGS = {
    "__add__": "+", "__radd__": "+", "__sub__": "-", "__rsub__": "-", "__mul__": "*", "__rmul__": "*",
    "__truediv__": "/", "__rtruediv__": "/", "__floordiv__": "//", "__rfloordiv__": "//", "__mod__": "%",
    "__rmod__": "%", "__pow__": "**", "__rpow__": "**", "__matmul__": "@", "__rmatmul__": "@", "__and__": "&",
    "__rand__": "&", "__or__": "|", "__ror__": "|", "__xor__": "^", "__rxor__": "^", "__lshift__": "<<",
    "__rlshift__": "<<", "__rshift__": ">>", "__rrshift__": ">>", "__lt__": "<", "__le__": "<=", "__gt__": ">",
    "__ge__": ">=", "__eq__": "==", "__ne__": "!=", "__neg__": "-x", "__abs__": "abs(", "__invert__": "~",
    "__getitem__": "[",
}


def test_every_public_tensor_op_has_a_case() -> None:
    sources = "\n".join(inspect.getsource(c.fn) for c in CASES)
    missing = []
    for name, member in vars(Tensor).items():
        public = not name.startswith("_") or name in SPELLINGS
        op_like = callable(member) or isinstance(member, property | staticmethod)
        if not public or name in TESTED_ELSEWHERE or not op_like:
            continue
        if SPELLINGS.get(name, f".{name}") not in sources:
            missing.append(name)
    assert not missing, f"Tensor members without a case in CASES: {missing}"


def test_case_inputs_follow_their_specs() -> None:
    case = CASES_BY_NAME["int_floordiv"]
    x, y = case.arrays(7)
    assert x.shape == (7, 5) and x.dtype == np.int32 and y.dtype == np.int32
    assert (y >= 1).all(), "a '+' spec draws positive values"
    assert case.arrays(7, seed=1)[0].tolist() != x.tolist()


def test_case_names_are_unique() -> None:
    assert len(CASES_BY_NAME) == len(CASES)
